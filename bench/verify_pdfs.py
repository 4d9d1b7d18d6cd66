"""One `pithtex verify FOLDER/` over 60 arXiv-like PDFs against `pdftotext -l 1` run on each
file, side by side (issue 24, item 7). Target: verify / pdftotext <= 1.5.

The PDFs are real pdflatex runs (four papers of 1 to 12 pages, T1 in Latin Modern: Type 1 fonts,
as arXiv's TeX Live writes them; without lmodern, and without cm-super installed, T1 gives
bitmap Type 3 fonts, whose titles are read by OCR, 130 ms a file) with arXiv's stamp added, each
under its own id; their signed records come from a resolver on 127.0.0.1 (tests/resolverkit.py,
a key made for the run). Both sides read the same files in the same run, interleaved, REPEATS
times; the medians are compared. The verify side pays for one Python start-up, the resolver
round trips, the record checks and the binding; pdftotext only extracts page 1's text.
Two verify rows: the default (worker processes, one a CPU, at most 4) and `--jobs 1` (every
file read in the one process). The target is on wall time, the default's; CPU is printed too.
Run: .venv/bin/python bench/verify_pdfs.py [REPEATS]
"""

from __future__ import annotations

import os
import resource
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
from tests.arxivkit import add_stamp  # noqa: E402
from tests.recordkit import TestKey, canonical, full_record  # noqa: E402
from tests.resolverkit import FakeResolver, Reply  # noqa: E402

TARGET = 1.5
FILES = 60
PARAGRAPH = ("We study how a content-addressed identifier travels with a preprint. " * 12 + "\n\n")


def tex_papers(folder: Path) -> list[tuple[Path, str]]:
    """Four real papers, 1 to 12 pages, each with its title."""
    made = []
    for n, pages in enumerate((1, 3, 6, 12)):
        title = f"Identifiers That Travel With Papers, Part {n + 1}"
        tex = folder / f"p{n}.tex"
        tex.write_text("\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{lmodern}\n\\usepackage{amsmath}\n"
                       f"\\title{{{title}}}\n\\author{{A. Author \\and B. Author}}\n\\begin{{document}}\n\\maketitle\n"
                       + "".join(f"\\section{{Part {i}}}\n{PARAGRAPH * 4}\\[ E = mc^2 + \\sum_i x_i \\]\n"
                                 for i in range(pages * 2)) + "\\end{document}\n", "utf-8")
        subprocess.run(["pdflatex", "-interaction=nonstopmode", tex.name], cwd=folder, capture_output=True,
                       timeout=300, check=True)
        made.append((tex.with_suffix(".pdf"), title))
    return made


def corpus(folder: Path, fake: FakeResolver, key: TestKey) -> Path:
    papers = tex_papers(folder)
    out = folder / "pdfs"
    out.mkdir()
    for i in range(FILES):
        pdf, title = papers[i % len(papers)]
        arxiv_id = f"2401.{i + 1:05d}"
        add_stamp(pdf, out / f"{arxiv_id}v1.pdf", f"arXiv:{arxiv_id}v1  [cs.DL]  2 Jan 2024")
        doc = full_record(canonical(title=title, arxiv_id=arxiv_id, version=1), key)
        doc["paper"] = {"title": title}
        fake.route(f"/api/pith-number/resolve?arxiv={arxiv_id}v1&json=true", Reply.json(doc))
    return out


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(commands: list[list[str]], env: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of running `commands` one after the other."""
    cpu, start = children_cpu(), time.perf_counter()
    for command in commands:
        subprocess.run(command, capture_output=True, timeout=600, env=env, check=False)
    return children_cpu() - cpu, time.perf_counter() - start


def main() -> None:
    header(__file__)
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    work = Path(tempfile.mkdtemp(prefix="pithtex-bench-verify-"))
    fake, key = FakeResolver(), TestKey("bench-key")
    try:
        pdfs = corpus(work, fake, key)
        files = sorted(pdfs.glob("*.pdf"))
        # As an installed pithtex runs: with its bytecode (this machine sets PYTHONDONTWRITEBYTECODE,
        # which would compile every module from source at each start); the check run writes it.
        env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
               "XDG_CACHE_HOME": str(work / "cache")}
        verify = [str(ROOT / ".venv" / "bin" / "pithtex"), "verify", str(pdfs), "--base-url", fake.base,
                  "--keys", str(key.key_file(work))]
        check = subprocess.run(verify, capture_output=True, text=True, env=env, timeout=600)
        verified = check.stdout.count("verified:")
        assert verified == FILES, check.stdout[-2000:] + check.stderr[-2000:]
        single = [*verify, "--jobs", "1"]
        ours, alone, poppler = [], [], []
        for _ in range(repeats):
            for runs, command in ((ours, verify), (alone, single)):
                shutil.rmtree(work / "cache", ignore_errors=True)
                runs.append(timed([command], env))
            poppler.append(timed([["pdftotext", "-l", "1", str(pdf), "-"] for pdf in files], env))
        b, wb = (statistics.median(t[i] for t in poppler) for i in (0, 1))
        print(f"{FILES} arXiv-like PDFs ({sum(p.stat().st_size for p in files) / 1e6:.1f} MB), {verified} verified, "
              f"median of {repeats} rounds")
        print(f"pdftotext -l 1, one process a PDF:            CPU {b:.2f} s ({b / FILES * 1000:.0f} ms a PDF), "
              f"wall {wb:.2f} s")
        rows = (("pithtex verify FOLDER/ (default jobs):", ours), ("pithtex verify FOLDER/ --jobs 1:", alone))
        for label, runs in rows:
            a, wa = (statistics.median(t[i] for t in runs) for i in (0, 1))
            cpu_ratio, wall_ratio = (ratio([t[i] for t in runs], [t[i] for t in poppler]) for i in (0, 1))
            print(f"{label:<45} CPU {a:.2f} s ({a / FILES * 1000:.0f} ms a PDF), wall {wa:.2f} s: "
                  f"ratio CPU {cpu_ratio:.2f}, wall {wall_ratio:.2f} (of the medians)")
        wall = ratio([t[1] for t in ours], [t[1] for t in poppler])
        print(f"target: wall <= {TARGET} x pdftotext: {'ok' if wall <= TARGET else 'OVER'} ({wall:.2f})")
    finally:
        fake.close()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
