#!/usr/bin/env python3
"""How long one pdflatex run of each kind's minimal paper takes (issues #23 and #33), on this
TeX Live and on the chroots `make texlive-matrix` builds.

The papers are tests/fixtures/titles/ (one per kind of title block that pith.sty placed
wrongly, plus the fallback's and the tabular authors' cases) and kind 8's paper, which reads a
program's output `run.out` with \\lstinputlisting, and issue 33's reproductions (one per class
met in real papers, tests/latex/test_sty_issue33.py). Each is compiled in a fresh folder: a first
run (no .aux: the badge where the class's rules put it) and then `--rounds` more (the .aux read:
placed by position); printed is the first run's time and the median of the others, wall clock
and CPU of the TeX process, as a Markdown table with one column pair per TeX Live.

    .venv/bin/python bench/title_kinds.py [--rounds 3] [--engine pdflatex] [--root CHROOT ...]

A --root is a chroot holding another TeX Live (as root; tools/texlive-chroot.sh builds them):
the folders are made inside it, under its /tmp, and removed afterwards. The default is this
system's TeX Live alone.
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.measure import header
from pithtex.brand import SAMPLE_BODY

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "titles"
STY = ROOT / "latex" / "pith.sty"
KINDS = [  # (kind, paper)
    ("1 a \\def'd size command in \\title", "defsize"),
    ("2 \\voffset/\\hoffset -1in", "offsets"),
    ("3 title page at \\begin{document}", "begindoc"),
    ("4 front page, then contents", "frontpage"),
    ("5 title set by hand", "byhand"),
    ("5 ... under a Preprint line", "preprint"),
    ("5 ... under a journal header", "header"),
    ("5 ... in a minipage", "minipage"),
    ("6 flush-left block, long title", "flushleft"),
    ("7 \\title storing a counter", "counted"),
    ("8 \\lstinputlisting{run.out}", "reads"),
    ("authors in a tabular", "tabauthors"),
    # Issue 33's reproductions (tests/latex/test_sty_issue33.py), one per class met in real papers.
    ("33 a mark moved into a footnote (SIAM)", "thanksend"),
    ("33 a block down to the page's foot (PoS)", "longcollab"),
    ("33 a title measured in a box (aastex7)", "measured"),
    ("33 a title as a class command (aastex 5)", "titlecmd"),
    ("33 a front page at \\begin{document} (PoS)", "leftpage"),
    ("33 the class's own title macros (ametsoc)", "ownmacros"),
    ("33 a block set in place, small notes (BMC)", "setinplace"),
    ("33 the block in registers (JINST)", "jinstblock"),
    ("33 a date set at the paper's end (a guard)", "latedate"),
]
READS = ("\\documentclass{article}\n\\usepackage{listings}\n\\usepackage{pith}\n"
         f"\\pithnumber{{{SAMPLE_BODY}}}\n"
         "\\title{A Quokka Title}\\author{Ann Lovelace}\n"
         "\\begin{document}\n\\maketitle\nThe program printed:\n\\lstinputlisting{run.out}\n\\end{document}\n")


def make_paper(folder: Path, name: str) -> None:
    folder.mkdir(parents=True)
    shutil.copy(STY, folder / "pith.sty")
    if name == "reads":
        (folder / "reads.tex").write_text(READS)
        (folder / "run.out").write_text("x = 42 after 3 steps\n")
        return
    for source in FIXTURES.glob(f"{name}.*"):
        if source.suffix in (".tex", ".cls"):
            shutil.copy(source, folder / source.name)
    for source in FIXTURES.glob("*.sty"):  # stand-ins for a publisher's package (jinstpub.sty)
        shutil.copy(source, folder / source.name)


def one_run(root: str, inside: Path, name: str, engine: str = "pdflatex") -> tuple[float, float]:
    """Wall and CPU seconds of one TeX run on inside/name.tex (inside: the path TeX sees)."""
    cmd = [engine, "-interaction=batchmode", "-no-shell-escape", f"{name}.tex"]
    if root:  # the chroot's own environment: the host's TMPDIR does not exist in there
        cmd = ["chroot", root, "/usr/bin/env", "-u", "TMPDIR", "-C", str(inside), *cmd]
    env = dict(os.environ, SOURCE_DATE_EPOCH="1700000000")
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=None if root else inside, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{name}: {engine} exited {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def measure(root: str, rounds: int, engine: str = "pdflatex") -> dict[str, tuple[float, float, float, float]]:
    """Per paper: first run's wall and CPU, then the median wall and CPU of the next `rounds`."""
    base = Path(root + "/tmp") if root else Path(tempfile.gettempdir())
    scratch = Path(tempfile.mkdtemp(prefix="pith-kinds-", dir=base))
    try:
        out = {}
        for _, name in KINDS:
            folder = scratch / name
            make_paper(folder, name)
            inside = Path("/tmp") / scratch.name / name if root else folder
            first = one_run(root, inside, name, engine)
            rest = [one_run(root, inside, name, engine) for _ in range(rounds)]
            out[name] = (*first, statistics.median(r[0] for r in rest), statistics.median(r[1] for r in rest))
        return out
    finally:
        shutil.rmtree(scratch)


def version(root: str) -> str:
    cmd = ["pdflatex", "--version"]
    if root:
        cmd = ["chroot", root, *cmd]
    line = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=True).stdout.splitlines()[0]
    return line[line.find("(") + 1:line.find(")")] if "(" in line else line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="runs with the .aux, after the first (default 3)")
    parser.add_argument("--root", action="append", default=[], help="a chroot holding another TeX Live")
    parser.add_argument("--engine", default="pdflatex", choices=["pdflatex", "xelatex", "latex"],
                        help="the TeX engine (latex: the DVI route's TeX run only)")
    args = parser.parse_args()
    header(__file__)
    roots = ["", *args.root]
    results = [(version(root), measure(root, args.rounds, args.engine)) for root in roots]
    print(f"load average {os.getloadavg()[0]:.2f} at the end; seconds, wall / CPU of {args.engine}; "
          f"first run (no .aux), then the median of {args.rounds} with it")
    print("| kind | paper | " + " | ".join(f"{v}: first | {v}: with .aux" for v, _ in results) + " |")
    print("|---|---|" + "---|---|" * len(results))
    for kind, name in KINDS:
        cells = [f"{r[name][0]:.2f} / {r[name][1]:.2f} | {r[name][2]:.2f} / {r[name][3]:.2f}" for _, r in results]
        print(f"| {kind} | {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
