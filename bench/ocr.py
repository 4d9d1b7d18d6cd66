"""What reading the title from pixels adds (issue 32, "glyphs are what they look like"): page 1
read with Tesseract on PATH and without it, paired, on the same PDFs in one run.

A title set in a font whose glyphs cannot be told from its text layer (XeLaTeX's and LuaLaTeX's
composite fonts, dvipdfmx's CFF fonts) has its title band rendered and read by Tesseract
(pithtex/pdf/ocr.py); without Tesseract on PATH the same reading stops before it (the title is
then "unchecked"). Each file is read both ways in turn, --repeat times (a busy machine slows
both alike); the median wall time of each and their difference is the time OCR adds a file.
A pdfLaTeX paper is measured too: its fonts are told, so nothing is added.

Without PDFs given, it compiles one paper (article, a two-line title, lipsum body) by pdflatex,
dvipdfmx, xelatex and lualatex into a temporary folder, and by pdflatex once more in T1 encoding
without lmodern ("pdflatex-t1"): on a TeX without cm-super (this machine) its fonts are bitmap
Type 3 ones, whose title is read by OCR; arXiv's TeX Live has cm-super and gives such papers
Type 1 fonts, so bench/page_one.py's and bench/verify_pdfs.py's papers leave this case here.

Run: .venv/bin/python bench/ocr.py [PDF ...] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PAPER = ("\\documentclass{article}\n\\usepackage{lipsum}\n"
         "\\title{Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM}\n"
         "\\author{A. Author \\and B. Author}\n\\begin{document}\n\\maketitle\n"
         "\\begin{abstract}\\lipsum[1]\\end{abstract}\n\\section{Introduction}\\lipsum[2-5]\n\\end{document}\n")


def make_papers(folder: Path) -> list[Path]:
    made = []
    for route in ("pdflatex", "dvipdfmx", "xelatex", "lualatex", "pdflatex-t1"):
        where = folder / route
        where.mkdir()
        t1 = PAPER.replace("\\usepackage{lipsum}", "\\usepackage[T1]{fontenc}\n\\usepackage{lipsum}")
        (where / "paper.tex").write_text(t1 if route == "pdflatex-t1" else PAPER, "utf-8")
        engine = {"dvipdfmx": "latex", "pdflatex-t1": "pdflatex"}.get(route, route)
        subprocess.run([engine, "-interaction=nonstopmode", "paper.tex"], cwd=where, capture_output=True, timeout=240)
        if route == "dvipdfmx":
            subprocess.run(["dvipdfmx", "paper.dvi"], cwd=where, capture_output=True, timeout=240)
        if not (where / "paper.pdf").exists():
            raise SystemExit(f"{route} made no PDF")
        made.append(where / "paper.pdf")
    return made


def timed(path: Path, search: str) -> tuple[float, bool]:
    """Wall seconds of reading page 1 with PATH=`search`; whether Tesseract read the title."""
    from pithtex.pdf.page import read_page_one

    os.environ["PATH"] = search
    start = time.perf_counter()
    page = read_page_one(path)
    return time.perf_counter() - start, page.pixels is not None


def main() -> None:
    from bench.measure import cannot_run, header, ratio

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdfs", nargs="*", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if shutil.which("tesseract") is None:
        cannot_run(__file__, "tesseract is not on PATH (apt-get install tesseract-ocr tesseract-ocr-eng)")
    with tempfile.TemporaryDirectory() as tmp:
        pdfs = args.pdfs or make_papers(Path(tmp))
        bare = Path(tmp) / "bare"
        bare.mkdir()
        (bare / "prlimit").symlink_to(shutil.which("prlimit") or "/usr/bin/prlimit")
        full = os.environ["PATH"]
        timed(pdfs[0], full)  # imports and PDFium loaded before anything is timed
        header(__file__)
        print(f"medians of {args.repeat} paired runs, wall time")
        print(f"{'file':40} {'with OCR':>9} {'without':>9} {'added':>8} {'ratio':>6}  read from pixels")
        for pdf in pdfs:
            with_ocr, without, read = [], [], False
            for _ in range(args.repeat):
                seconds, read = timed(pdf, full)
                with_ocr.append(seconds)
                without.append(timed(pdf, str(bare))[0])
            a, b = statistics.median(with_ocr), statistics.median(without)
            name = str(pdf.relative_to(tmp) if not args.pdfs else pdf)[-40:]
            print(f"{name:40} {a * 1000:7.0f}ms {b * 1000:7.0f}ms {(a - b) * 1000:6.0f}ms "
                  f"{ratio(with_ocr, without):5.2f}x  {'yes' if read else 'no'}")
        os.environ["PATH"] = full


if __name__ == "__main__":
    main()
