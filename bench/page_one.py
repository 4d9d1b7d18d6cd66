"""Reading page 1 for the title binding: pithtex's reader (PDFium) against pypdf's extractor and
poppler's `pdftotext -l 1`, side by side in one run over the same PDFs (issue 24, item 7).

Target: one `pithtex verify` over 60 arXiv-like PDFs within 1.5x `pdftotext -l 1` run on each
file. Measured here: each reader on each file, interleaved (a busy machine slows all three
alike), in --repeat rounds, in CPU seconds (this process's, and pdftotext's as its child); the
reader in-process, as one `verify` over many files runs it, pdftotext as a process per file,
as a shell loop runs it; a reader's figure is its round's total, the ratio that of the medians
of the rounds' totals. With --verify, one `pithtex verify
FILE...` subprocess over all the files as well (the batch command of issue 24 item 6; each file
must carry a Pith Number or an arXiv stamp its resolver answers, e.g. the --base-url of a
loopback resolver in --verify's ARGS).

Without PDFs given, it makes --make arXiv-like ones: real pdflatex papers (pith.sty's article
example with a two-column body), each with arXiv's rotated stamp in the left margin.

Run: .venv/bin/python bench/page_one.py [PDF or FOLDER ...] [--repeat 3] [--make 60]
     [--verify '--base-url http://127.0.0.1:PORT']
"""

from __future__ import annotations

import argparse
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.measure import header, ratio  # noqa: E402

TARGET = 1.5


def pdfs_in(args: list[str]) -> list[Path]:
    found: list[Path] = []
    for arg in args:
        path = Path(arg)
        found.extend(sorted(path.rglob("*.pdf")) if path.is_dir() else [path])
    return found


def make_papers(folder: Path, count: int) -> list[Path]:
    """`count` arXiv-like PDFs: one pdflatex paper, stamped like arXiv with its id on the left."""
    import pikepdf

    tex = folder / "paper.tex"
    tex.write_text(
        "\\documentclass[twocolumn]{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{lipsum}\n"
        "\\title{Efficient Large-Scale Language Model Training on GPU Clusters}\n\\author{A. Author \\and B. Author}\n"
        "\\begin{document}\n\\maketitle\n\\begin{abstract}\\lipsum[1]\\end{abstract}\n"
        "\\section{Introduction}\\lipsum[2-9]\n\\end{document}\n", "utf-8")
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "paper.tex"], cwd=folder, capture_output=True,
                          timeout=120)
    if proc.returncode != 0:
        raise SystemExit(f"pdflatex failed: {proc.stdout[-500:]!r}")
    made = []
    for i in range(count):
        stamp = f"arXiv:2104.{4473 + i:05d}v{1 + i % 3}  [cs.CL]  23 Aug 2021".encode()
        out = folder / f"2104.{4473 + i:05d}.pdf"
        with pikepdf.open(folder / "paper.pdf") as pdf:
            page = pdf.pages[0]
            font = pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1,
                                      BaseFont=pikepdf.Name("/Times-Roman"))
            if "/Font" not in page.Resources:
                page.Resources.Font = pikepdf.Dictionary()
            page.Resources.Font["/ArxivStampFont"] = font
            page.contents_add(pdf.make_stream(b"q 0.5 g BT /ArxivStampFont 20 Tf 0 1 -1 0 32 236 Tm (%s) Tj ET Q"
                                              % stamp))
            pdf.save(out)
        made.append(out)
    return made


def pithtex_reader(path: Path) -> int:
    from pithtex.pdf.page import read_page_one

    page = read_page_one(path)
    return len(page.text)


def pypdf_reader(path: Path) -> int:
    import logging
    import warnings

    from pypdf import PdfReader

    logging.getLogger("pypdf").setLevel(logging.CRITICAL)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            reader = PdfReader(str(path), strict=False)
            if reader.is_encrypted:
                reader.decrypt("")
            return len(reader.pages[0].extract_text())
        except Exception:  # a bench: whatever pypdf raises on a file, its time still counts
            return 0


def pdftotext(path: Path) -> int:
    proc = subprocess.run(["pdftotext", "-q", "-l", "1", str(path), "-"], capture_output=True, timeout=60)
    return len(proc.stdout)


def measure(files: list[Path], repeat: int) -> dict[str, list[list[float]]]:
    """Each reader's CPU seconds on each file, a list a round: {reader: [[file 1, file 2, ...], ...]}."""
    readers = {"pithtex (PDFium)": pithtex_reader, "pypdf": pypdf_reader, "pdftotext -l 1": pdftotext}
    for fn in readers.values():  # imports and first-use costs once, outside the timings
        fn(files[0])
    rounds: dict[str, list[list[float]]] = {name: [] for name in readers}
    for _ in range(repeat):
        for name in readers:
            rounds[name].append([])
        for path in files:
            for name, fn in readers.items():
                start = _cpu()
                fn(path)
                rounds[name][-1].append(_cpu() - start)
    return rounds


def _cpu() -> float:
    """CPU seconds of this process and of the children it waited for (pdftotext): a busy
    machine's waits are not counted, for any of the readers."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def verify_all(files: list[Path], extra: list[str]) -> tuple[float, float]:
    """(one `pithtex verify FILE...` over all files, pdftotext -l 1 on each file in turn), seconds of wall clock."""
    exe = shutil.which("pithtex", path=str(Path(sys.executable).parent)) or "pithtex"
    start = time.perf_counter()
    proc = subprocess.run([exe, "verify", *map(str, files), *extra], capture_output=True, text=True, timeout=600)
    verify = time.perf_counter() - start
    if proc.returncode == 2:
        raise SystemExit(f"pithtex verify over {len(files)} files refused (exit 2): {proc.stderr.strip()[:160]}")
    start = time.perf_counter()
    for path in files:
        pdftotext(path)
    return verify, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pdfs", nargs="*")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--make", type=int, default=60)
    parser.add_argument("--verify", metavar="ARGS", default=None,
                        help="also time one `pithtex verify FILE... ARGS` (ARGS one string, e.g. '--base-url URL')")
    args = parser.parse_args()
    header(__file__)
    with tempfile.TemporaryDirectory() as tmp:
        files = pdfs_in(args.pdfs) if args.pdfs else make_papers(Path(tmp), args.make)
        rounds = measure(files, args.repeat)
        totals = {name: [sum(one) for one in runs] for name, runs in rounds.items()}
        base = totals["pdftotext -l 1"]
        print(f"{len(files)} PDFs, page 1, median of {args.repeat} rounds, side by side, CPU time "
              "(pdftotext: its process, start-up included, as a shell loop runs it)")
        for name, runs in rounds.items():
            each = [t for one in runs for t in one]
            print(f"  {name:<18} {statistics.median(totals[name]) / len(files) * 1000:7.1f} ms/PDF  median "
                  f"{statistics.median(each) * 1000:6.1f}  max {max(each) * 1000:7.1f}   "
                  f"x{ratio(totals[name], base):.2f} pdftotext")
        reader = ratio(totals["pithtex (PDFium)"], base)
        print(f"  reader target <= {TARGET}x pdftotext: {'met' if reader <= TARGET else 'NOT met'} (x{reader:.2f})")
        if args.verify is not None:
            pairs = [verify_all(files, shlex.split(args.verify)) for _ in range(args.repeat)]
            verify, loop = [v for v, _l in pairs], [lp for _v, lp in pairs]
            print(f"  one pithtex verify over all: {statistics.median(verify):.2f} s; pdftotext -l 1 on each: "
                  f"{statistics.median(loop):.2f} s; x{ratio(verify, loop):.2f} (target <= {TARGET}x; "
                  f"medians of {args.repeat} pairs)")


if __name__ == "__main__":
    main()
