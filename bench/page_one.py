"""Reading page 1 as `verify` does (pdf/view.py `read_view`: pithtex's reader for the pith
facts, PDFium for page 1 as a reader sees it) against poppler's `pdftotext -l 1`, side by side
in one run over the same PDFs (issue 24, item 7; issue 32, "slow for one file"); and the
start-up of `pithtex verify one.pdf` against `python -c pass`.

Targets: page 1 read within 1.5x `pdftotext -l 1` a file; `pithtex verify one.pdf` within 3x
`python -c pass` (wall).

Page 1: each file read by both in turn, --repeat rounds (a busy machine slows both alike),
CPU seconds (this process's for the reader, in process as a `verify FOLDER/` worker runs it;
pdftotext's as a child process a file, start-up included, as a shell loop runs it). Each
file's figure is the median of its rounds; the folder's ratio is the sum of the files'
medians over pdftotext's (a ratio of medians of paired runs, not a median of ratios, which a
noisy round overstates), with the files' own ratios (median, worst) beside it. With
--pypdf, pypdf's `extract_text` is timed alongside (not part of any target).

Start-up: `pithtex verify one.pdf --base-url LOOPBACK --keys KEY` (a stamped paper whose
signed record a resolver on 127.0.0.1 serves; tests/resolverkit.py) and `python -c pass`,
both as processes of one interpreter with their bytecode, interleaved --starts times, wall
clock; the ratio of the medians. That interpreter is a venv holding pithtex as a user has it:
the wheel of this tree, installed (its dependencies are this venv's, by a path file). In the
editable .venv every start, `python -c pass` too, pays setuptools' editable finder (pathlib and
re, about 13 ms), which hid half the ratio. Beside them, interleaved too, the imports no
`verify one.pdf` can do without (IMPORT_FLOOR: the command line's parser, JSON, hashing, an
HTTPS client, Ed25519): what the target leaves for reading the PDF and judging it.

Without PDFs given, it makes --make arXiv-like ones: real pdflatex papers of four kinds (one
or two columns; Computer Modern and Latin Modern Type 1 fonts, hyperref links, a figure with
text at the top), each with arXiv's rotated stamp in the left margin under its own id. Their
fonts are Type 1, as arXiv's TeX Live writes them: its T1-encoded papers get cm-super's Type 1
fonts, and here (no cm-super on this machine) the T1 papers use lmodern for that, as
bench/verify_pdfs.py's do. T1 without lmodern or cm-super gives bitmap Type 3 fonts, whose
titles are read by OCR (~130 ms a file): that case is bench/ocr.py's, not this one's.

Where valgrind is installed (unless --no-count), each of the two is also run once under
callgrind: its instructions are the same on a busy machine, where wall and CPU time are not.
callgrind counts only processes that exit: `verify one.pdf`'s reading worker, killed once it
has answered, is counted apart (the same reading in a process of its own) and printed beside it.

Run: .venv/bin/python bench/page_one.py [PDF or FOLDER ...] [--repeat 5] [--make 60] [--starts 21]
     [--no-count] [--pypdf] [--verify '--base-url http://127.0.0.1:PORT']
"""

from __future__ import annotations

import argparse
import os
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
START_TARGET = 3.0
TITLE = "Efficient Large-Scale Language Model Training on GPU Clusters"
# the papers' kinds: (name, preamble, body)
_LIPSUM = "\\begin{abstract}\\lipsum[1]\\end{abstract}\n\\section{Introduction}\\lipsum[2-9]\n"
KINDS = (
    ("t1-twocolumn", "\\documentclass[twocolumn]{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{lmodern}\n",
     _LIPSUM),
    ("cm-hyperref", "\\documentclass{article}\n\\usepackage{amsmath}\n\\usepackage{hyperref}\n",
     _LIPSUM.replace("\\lipsum[1]", "\\lipsum[1] See \\url{https://example.org/code}.")),
    ("lmodern-twocolumn", "\\documentclass[twocolumn]{article}\n\\usepackage{lmodern}\n\\usepackage[T1]{fontenc}\n"
     "\\usepackage{microtype}\n", _LIPSUM),
    ("cm-figure", "\\documentclass{article}\n\\usepackage{amsmath}\n",
     "\\begin{figure}[t]\\centering\\setlength{\\unitlength}{1pt}\\begin{picture}(300,120)"
     "\\put(0,0){\\framebox(140,110){Encoder}}\\put(160,0){\\framebox(140,110){Decoder}}"
     "\\put(140,55){\\vector(1,0){20}}\\end{picture}\\caption{The model: layers 1 to 24.}\\end{figure}\n"
     + _LIPSUM),
)


def pdfs_in(args: list[str]) -> list[Path]:
    found: list[Path] = []
    for arg in args:
        path = Path(arg)
        found.extend(sorted(path.rglob("*.pdf")) if path.is_dir() else [path])
    return found


def tex_papers(folder: Path) -> list[Path]:
    """One pdflatex paper of each kind, page 1 with the title, authors, abstract and body."""
    made = []
    for name, preamble, body in KINDS:
        tex = folder / f"{name}.tex"
        top = f"\\usepackage{{lipsum}}\n\\title{{{TITLE}}}\n\\author{{A. Author \\and B. Author}}\n"
        tex.write_text(preamble + top + "\\begin{document}\n\\maketitle\n" + body + "\\end{document}\n", "utf-8")
        proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", tex.name], cwd=folder, capture_output=True,
                              timeout=300)
        if proc.returncode != 0:
            raise SystemExit(f"pdflatex failed on {name}: {proc.stdout[-500:]!r}")
        made.append(tex.with_suffix(".pdf"))
    return made


def make_papers(folder: Path, count: int) -> list[Path]:
    """`count` arXiv-like PDFs: the kinds in turn, each stamped like arXiv with its own id."""
    from tests.arxivkit import add_stamp

    papers = tex_papers(folder)
    out = folder / "pdfs"
    out.mkdir()
    made = []
    for i in range(count):
        arxiv_id = f"2104.{4473 + i:05d}"
        made.append(add_stamp(papers[i % len(papers)], out / f"{arxiv_id}.pdf",
                              f"arXiv:{arxiv_id}v{1 + i % 3}  [cs.CL]  23 Aug 2021"))
    return made


def pithtex_reader(path: Path) -> int:
    from pithtex.pdf.view import read_view

    view = read_view(path)
    return len(view.page.text)


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


READER = "pithtex read_view"
POPPLER = "pdftotext -l 1"


def measure(files: list[Path], repeat: int, with_pypdf: bool) -> dict[str, list[list[float]]]:
    """Each reader's CPU seconds on each file, a list of `repeat` rounds a file, the readers run
    in turn on the same file (paired)."""
    readers = {READER: pithtex_reader, POPPLER: pdftotext}
    if with_pypdf:
        readers["pypdf"] = pypdf_reader
    for fn in readers.values():  # imports and first-use costs once, outside the timings
        fn(files[0])
    times: dict[str, list[list[float]]] = {name: [[] for _ in files] for name in readers}
    for _ in range(repeat):
        for i, path in enumerate(files):
            for name, fn in readers.items():
                start = _cpu()
                fn(path)
                times[name][i].append(_cpu() - start)
    return times


def _cpu() -> float:
    """CPU seconds of this process and of the children it waited for (pdftotext): a busy
    machine's waits are not counted, for any of the readers."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def report_pages(files: list[Path], times: dict[str, list[list[float]]], repeat: int) -> float:
    """The folder's ratio: of the medians of the rounds' totals (bench/measure.py's ratio); each
    file's own, of the medians of its rounds, as a spread (the papers' kinds differ: no middle)."""
    totals = {name: [sum(per_file[r] for per_file in runs) for r in range(repeat)] for name, runs in times.items()}
    print(f"{len(files)} PDFs, page 1, {repeat} paired rounds, CPU time (pdftotext: its process, start-up "
          f"included), load {os.getloadavg()[0]:.1f}")
    for name, runs in times.items():
        worst = max(statistics.median(rounds) for rounds in runs)
        print(f"  {name:<18} {statistics.median(totals[name]) / len(files) * 1000:7.1f} ms/PDF  max "
              f"{worst * 1000:7.1f}   x{ratio(totals[name], totals[POPPLER]):.2f} pdftotext")
    each = sorted(ratio(ours, theirs) for ours, theirs in zip(times[READER], times[POPPLER], strict=True))
    folder = ratio(totals[READER], totals[POPPLER])
    print(f"  each file's ratio of medians: from x{each[0]:.2f} to x{each[-1]:.2f}")
    print(f"  reader target <= {TARGET}x pdftotext: {'met' if folder <= TARGET else 'NOT met'} (x{folder:.2f}, "
          "ratio of the medians of the rounds' totals)")
    return folder


def start_up(folder: Path, paper: Path, starts: int, instructions: bool) -> float:
    """`pithtex verify one.pdf` against `python -c pass`, wall seconds, interleaved: the ratio
    of their medians; with `instructions`, also each one's instructions under callgrind."""
    from tests.arxivkit import add_stamp
    from tests.recordkit import TestKey, canonical, full_record
    from tests.resolverkit import FakeResolver, Reply

    fake, key = FakeResolver(), TestKey("bench-key")
    try:
        one = add_stamp(paper, folder / "one.pdf", "arXiv:2401.00001v1  [cs.DL]  2 Jan 2024")
        document = full_record(canonical(title=TITLE, arxiv_id="2401.00001", version=1), key)
        document["paper"] = {"title": TITLE}
        fake.route("/api/pith-number/resolve?arxiv=2401.00001v1&json=true", Reply.json(document))
        # As an installed pithtex runs: with its bytecode (this machine sets PYTHONDONTWRITEBYTECODE)
        env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
               "XDG_CACHE_HOME": str(folder / "cache")}
        installed = _installed(folder)
        python = str(installed / "python")
        verify = [str(installed / "pithtex"), "verify", str(one), "--base-url", fake.base,
                  "--keys", str(key.key_file(folder))]
        check = subprocess.run(verify, capture_output=True, text=True, env=env, timeout=120)
        if check.returncode != 0:
            raise SystemExit(f"pithtex verify one.pdf did not verify: {check.stdout[-500:]}{check.stderr[-500:]}")
        ours, bare, floor = [], [], []
        for _ in range(starts):
            shutil.rmtree(folder / "cache", ignore_errors=True)  # each run fetches, as a first verify does
            ours.append(_run(verify, env))
            bare.append(_run([python, "-c", "pass"], env))
            floor.append(_run([python, "-c", IMPORT_FLOOR], env))
        if instructions:
            shutil.rmtree(folder / "cache", ignore_errors=True)
            counted = _instructions([python, *verify], env), _instructions([python, "-c", "pass"], env)
            worker = _worker_instructions(python, one, env)
            print(f"start-up, instructions (callgrind, one run each, the same under any load): pithtex verify "
                  f"one.pdf {counted[0] / 1e6:.0f} M in its own process, python -c pass {counted[1] / 1e6:.0f} M: "
                  f"x{counted[0] / counted[1]:.2f}; its reading worker, not in that count, {worker / 1e6:.0f} M "
                  f"more: x{(counted[0] + worker) / counted[1]:.2f} with it")
    finally:
        fake.close()
    (a, a_cpu), (b, b_cpu) = ((statistics.median(t[0] for t in runs), statistics.median(t[1] for t in runs))
                              for runs in (ours, bare))
    wall = ratio([t[0] for t in ours], [t[0] for t in bare])
    cpu = ratio([t[1] for t in ours], [t[1] for t in bare])
    print(f"start-up, {starts} interleaved runs, load {os.getloadavg()[0]:.1f}: pithtex verify one.pdf wall "
          f"{a * 1000:.0f} ms (min {min(t[0] for t in ours) * 1000:.0f}), CPU {a_cpu * 1000:.0f} ms; python -c pass "
          f"wall {b * 1000:.0f} ms (min {min(t[0] for t in bare) * 1000:.0f}), CPU {b_cpu * 1000:.0f} ms")
    print(f"  start-up target <= {START_TARGET}x python -c pass: {'met' if wall <= START_TARGET else 'NOT met'} "
          f"(wall x{wall:.2f}, ratio of medians; CPU x{cpu:.2f})")
    walls = [t[0] for t in ours], [t[0] for t in bare], [t[0] for t in floor]
    print(f"  the imports no verify can do without (python -c 'import {IMPORT_FLOOR[7:]}'): wall "
          f"{statistics.median(walls[2]) * 1000:.0f} ms, x{ratio(walls[2], walls[1]):.2f} python -c pass; "
          f"verify one.pdf is x{ratio(walls[0], walls[2]):.2f} of them")
    return wall


# What any `verify one.pdf` imports before it reads a byte of the PDF: its command line's parser,
# JSON and hashing for the record, an HTTPS client for the resolver, Ed25519 for the receipt.
IMPORT_FLOOR = "import argparse, json, hashlib, http.client, cryptography.hazmat.primitives.asymmetric.ed25519"


def _installed(folder: Path) -> Path:
    """The bin folder of a venv holding this tree's wheel, installed, as a user runs pithtex: its
    dependencies are .venv's (a path file; .venv's own .pth files, the editable finder among
    them, are not run for a path a .pth adds)."""
    import sysconfig
    import venv

    wheels, target = folder / "wheel", folder / "installed"
    subprocess.run([str(ROOT / ".venv" / "bin" / "pip"), "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--wheel-dir", str(wheels), str(ROOT)], check=True, capture_output=True, timeout=300)
    venv.EnvBuilder(with_pip=False).create(target)
    tail = Path(sysconfig.get_path("purelib")).relative_to(sysconfig.get_path("data"))
    own, theirs = target / tail, ROOT / ".venv" / tail
    (own / "pithtex-bench-dependencies.pth").write_text(f"{theirs}\n", "utf-8")
    (wheel,) = wheels.glob("pithtex-*.whl")
    subprocess.run([str(ROOT / ".venv" / "bin" / "pip"), "--python", str(target / "bin" / "python"), "install",
                    "--quiet", "--no-deps", str(wheel)], check=True, capture_output=True, timeout=300)
    return target / "bin"


def _instructions(command: list[str], env: dict[str, str]) -> int:
    """Instructions one run of `command` executes, counted by callgrind."""
    import re

    proc = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
                          capture_output=True, text=True, env=env, timeout=900, check=False)
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if not found:
        raise SystemExit(f"callgrind gave no count for {command[:3]}: {proc.stderr[-300:]}")
    return int(found.group(1))


# What `verify one.pdf` has imported when it forks its reading worker, and what that worker
# then does (workers/bounded.py: `warm`, then pdf/view.py's `read_view`).
_BEFORE_FORK = "import pithtex.cli.verify, pithtex.head_start, pithtex.workers.bounded as b"
_IN_WORKER = "; b.warm(); from pithtex.pdf.view import read_view; read_view({path!r})"


def _worker_instructions(python: str, one: Path, env: dict[str, str]) -> int:
    """Instructions of `verify one.pdf`'s reading worker, counted apart: callgrind counts no
    process killed before it exits, and the worker is killed once it has answered. Its count is
    a process that imports what verify has imported when it forks and then reads the PDF as the
    worker does, less one that only imports."""
    both = _instructions([python, "-c", _BEFORE_FORK + _IN_WORKER.format(path=str(one))], env)
    return both - _instructions([python, "-c", _BEFORE_FORK], env)


def _run(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of `command`."""
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, capture_output=True, env=env, timeout=120, check=False)
    wall = time.perf_counter() - start
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, used.ru_utime + used.ru_stime - cpu.ru_utime - cpu.ru_stime


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
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--make", type=int, default=60)
    parser.add_argument("--starts", type=int, default=21, help="start-up runs (0: none)")
    parser.add_argument("--pypdf", action="store_true", help="time pypdf's extract_text too")
    parser.add_argument("--no-count", action="store_true",
                        help="skip the start-up's instructions under callgrind (load-proof, ~1 min; on by default "
                             "where valgrind is installed)")
    parser.add_argument("--verify", metavar="ARGS", default=None,
                        help="also time one `pithtex verify FILE... ARGS` (ARGS one string, e.g. '--base-url URL')")
    args = parser.parse_args()
    header(__file__)
    with tempfile.TemporaryDirectory() as tmp:
        files = pdfs_in(args.pdfs) if args.pdfs else make_papers(Path(tmp), args.make)
        report_pages(files, measure(files, args.repeat, args.pypdf), args.repeat)
        if args.starts:
            paper = files[0] if args.pdfs else Path(tmp) / f"{KINDS[1][0]}.pdf"
            start_up(Path(tmp), paper, args.starts, not args.no_count and shutil.which("valgrind") is not None)
        if args.verify is not None:
            pairs = [verify_all(files, shlex.split(args.verify)) for _ in range(args.repeat)]
            verify, loop = [v for v, _l in pairs], [lp for _v, lp in pairs]
            print(f"  one pithtex verify over all: {statistics.median(verify):.2f} s; pdftotext -l 1 on each: "
                  f"{statistics.median(loop):.2f} s; x{ratio(verify, loop):.2f} (target <= {TARGET}x; "
                  f"medians of {args.repeat} pairs)")


if __name__ == "__main__":
    main()
