#!/usr/bin/env python3
"""What pith.sty costs a paper's arXiv HTML: LaTeXML on each example, with and without pith.

arXiv converts with `latexmlc --preload=[ids,localrawstyles,nobibtex]latexml.sty`, reading an
uploaded pith.sty as TeX source. Each example is converted as it is (pith.sty beside it, as
`pithtex sty` puts it there) and as its pith-less twin (the \\usepackage{pith}, \\pithnumber
lines and the \\pith... commands taken out), in interleaved rounds so that drift on a shared
machine hits both alike. Compared by the CPU time of the latexmlc child (the ratio of the
medians of the rounds; wall time too), on the system's LaTeXML and, when it is built, on the
one in the forky chroot of `make texlive-matrix` (LaTeXML 0.8.8). Target: <= 1.2x.

    .venv/bin/python bench/latexml.py [--rounds 5] [--examples article,revtex4-2] [--no-chroot]
    .venv/bin/python bench/latexml.py --papers PAPERS [--rounds 5]

With --papers, real papers instead (PAPERS: one folder per paper, as bench/realpapers.py
takes them): each as its authors wrote it, and with `\\usepackage{pith}` + `\\pithnumber`
added after \\documentclass and pith.sty beside it. `badges` counts the links to the
number's page in the HTML with pith (1 expected; 0 for a review copy); `title without
pith` says whether LaTeXML set the paper's title at all without pith.
"""

from __future__ import annotations

import argparse
import re
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

from bench.measure import cannot_run, header, ratio  # noqa: E402
from pithtex.brand import SAMPLE_BODY, number_url  # noqa: E402
from pithtex.latex.options import CLASS_NAMES  # noqa: E402
from pithtex.latex.sty import write_beside  # noqa: E402

# The supported classes but those LaTeXML reads raw with expl3 (minutes in expl3-code.tex with
# or without pith, see tests/latex/test_sty_latexml.py) and beamer (a binding whose title frame
# errs with or without pith).
READ_RAW_WITH_EXPL3 = ("cas-dc", "scrartcl")
EXAMPLES = tuple(c for c in CLASS_NAMES if c not in READ_RAW_WITH_EXPL3 and c != "beamer")
CHROOT = Path("/var/cache/pithtex-texlive/forky")
LATEXMLC = ["latexmlc", "--preload=[ids,localrawstyles,nobibtex]latexml.sty", "--timeout=1200",
            "--dest=paper.html"]
TARGET = 1.2
URL = number_url(SAMPLE_BODY)


def prepare(base: Path, example: str) -> tuple[Path, Path, str]:
    """An example as it is, and its pith-less twin; and the main file's name."""
    with_pith, without = base / f"{example}-pith", base / f"{example}-bare"
    for folder in (with_pith, without):
        shutil.copytree(ROOT / "examples" / example, folder)
    write_beside(with_pith)
    from realpapers import strip_pith  # bench/ is on the path of a bench script

    tex = without / "paper.tex"
    tex.write_text(strip_pith(tex.read_text()))
    return with_pith, without, "paper.tex"


def prepare_paper(base: Path, paper: Path) -> tuple[Path, Path, str]:
    """A real paper with pith added after \\documentclass, and as its authors wrote it."""
    from realpapers import insert_pith, main_file  # bench/ is on the path of a bench script

    with_pith, without = base / f"{paper.name}-pith", base / f"{paper.name}-bare"
    for folder in (with_pith, without):
        shutil.copytree(paper, folder, symlinks=True)
    main = main_file(paper).relative_to(paper)
    tex = with_pith / main
    tex.write_text(insert_pith(tex.read_text(errors="replace"), "class"))
    write_beside(with_pith)
    return with_pith, without, str(main)


def convert(folder: Path, root: Path | None, main: str = "paper.tex") -> tuple[float, float, str]:
    """CPU seconds of latexmlc (children included), wall seconds, and its log."""
    if root is None:
        cmd, cwd = [*LATEXMLC, main], folder
    else:
        inside = "/" + str(folder.relative_to(root))
        cmd, cwd = ["chroot", str(root), "/usr/bin/env", "-C", inside, *LATEXMLC, main], None
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, errors="replace",
                          stdin=subprocess.DEVNULL, timeout=1500)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, proc.stdout + proc.stderr


def version(root: Path | None) -> str:
    cmd = ["latexmlc", "--VERSION"]
    proc = subprocess.run(cmd if root is None else ["chroot", str(root), *cmd], capture_output=True, text=True)
    found = re.search(r"version ([\w.]+)", proc.stdout + proc.stderr)
    return found.group(1) if found else "?"


def pith_complaints(log: str) -> list[str]:
    """LaTeXML's errors and warnings that name pith, file paths left out (LaTeXML 0.8.7
    names every file by its full path, and the copies' folders are named after the paper)."""
    return [line for line in log.splitlines()
            if re.match(r"(Error|Warning|Fatal):", line) and "pith" in re.sub(r"\S*/\S*", "", line).lower()]


def html_of(folder: Path) -> str:
    html = folder / "paper.html"
    return html.read_text(errors="replace") if html.exists() else ""


def badges(folder: Path) -> int:
    """Links to the number's page in the HTML LaTeXML wrote."""
    return html_of(folder).count(f'href="{URL}"')


def titled(folder: Path) -> str:
    """Whether LaTeXML set a title at all (some papers' own classes defeat it, pith or not)."""
    return "yes" if re.search(r"ltx_title_(document|titlepage)", html_of(folder)) else "no"


def bench_site(label: str, root: Path | None, examples: list[str], rounds: int,
               papers: list[Path] | None = None) -> list[tuple]:
    parent = (root / "tmp") if root else None
    base = Path(tempfile.mkdtemp(prefix="latexml-bench-", dir=parent))
    rows = []
    try:
        for example in (papers or examples):
            *pair, main = prepare_paper(base, example) if papers else prepare(base, example)
            cpu = {0: [], 1: []}
            wall = {0: [], 1: []}
            pith_said = []
            for r in range(rounds):
                order = (0, 1) if r % 2 == 0 else (1, 0)
                for which in order:
                    c, w, log = convert(pair[which], root, main)
                    cpu[which].append(c)
                    wall[which].append(w)
                    if which == 0:
                        pith_said = pith_complaints(log)
            name = example.name if papers else example
            rows.append((label, name, statistics.median(cpu[1]), statistics.median(cpu[0]), ratio(cpu[0], cpu[1]),
                         ratio(wall[0], wall[1]), len(pith_said), badges(pair[0]), titled(pair[1])))
            print(f"  {label:<14} {name:<11} done", file=sys.stderr)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--examples", default=",".join(EXAMPLES))
    ap.add_argument("--no-chroot", action="store_true", help="only the system's LaTeXML")
    ap.add_argument("--papers", type=Path, help="a folder of real papers, one folder each, instead of the examples")
    args = ap.parse_args(argv)
    header(__file__)
    examples = [e for e in args.examples.split(",") if e]
    papers = sorted(p for p in args.papers.iterdir() if p.is_dir()) if args.papers else None
    sites: list[tuple[str, Path | None]] = []
    if shutil.which("latexmlc"):
        sites.append((f"system {version(None)}", None))
    if not args.no_chroot and (CHROOT / "usr/bin/latexmlc").exists():
        sites.append((f"forky {version(CHROOT)}", CHROOT))
    if not sites:
        cannot_run(__file__, "no latexmlc here (make system-packages installs Debian's latexml)")
    rows = []
    for label, root in sites:
        rows += bench_site(label, root, examples, args.rounds, papers)
    print(f"LaTeXML as arXiv runs it, {args.rounds} interleaved rounds; CPU seconds (median), "
          f"ratio of the medians of the rounds; target <= {TARGET}x")
    print(f"{'LaTeXML':<14} {'example':<11} {'without':>8} {'with':>8} {'ratio':>6} {'wall':>6} {'pith msgs':>9}"
          f" {'badges':>6} {'title without pith':>18}")
    worst = 0.0
    for label, example, bare, pith, cpu_ratio, wall_ratio, said, links, title in rows:
        worst = max(worst, cpu_ratio)
        print(f"{label:<14} {example:<11} {bare:>7.2f}s {pith:>7.2f}s {cpu_ratio:>5.2f}x {wall_ratio:>5.2f}x {said:>9}"
              f" {links:>6} {title:>18}")
    print(f"worst ratio {worst:.2f}x ({'within' if worst <= TARGET else 'OVER'} the {TARGET}x target)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
