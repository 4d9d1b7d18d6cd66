"""`pithtex check --engine all` against the slowest single route, measured side by side.

The three arXiv routes run in parallel, so checking all of them should cost little more
than the slowest one alone. Target: all / slowest single <= 1.3.
Run: .venv/bin/python bench/arxiv.py [PAPER_FOLDER] [REPEATS]
"""

from __future__ import annotations

import atexit
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.measure import header, ratio
from pithtex.arxiv.check import check_path
from pithtex.latex import sty

ROOT = Path(__file__).resolve().parent.parent
TARGET = 1.3


def default_paper() -> Path:
    for candidate in (ROOT / "examples" / "article", ROOT / "tests" / "fixtures" / "arxiv" / "plain"):
        if candidate.is_dir():
            return as_upload(candidate)
    raise SystemExit("no paper to measure")


def as_upload(paper: Path) -> Path:
    """A copy of an example as its author uploads it: with pith.sty beside the paper (the
    examples keep only the paper)."""
    dest = Path(tempfile.mkdtemp(prefix="pithtex-bench-")) / paper.name
    atexit.register(shutil.rmtree, dest.parent, True)
    shutil.copytree(paper, dest)
    if "{pith}" in (dest / "paper.tex").read_text("utf-8") and not (dest / "pith.sty").exists():
        (dest / "pith.sty").write_text(sty.text(), "utf-8")
    return dest


def cpu() -> float:
    """CPU seconds of this process and its finished children (the TeX runs)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def wall(paper: Path, engine: str) -> tuple[float, float]:
    start, start_cpu = time.perf_counter(), cpu()
    result = check_path(paper, engine=engine)
    seconds, used = time.perf_counter() - start, cpu() - start_cpu
    if not result.ok:
        raise SystemExit(f"{paper}: --engine {engine} does not pass; pick a paper that passes on every route")
    return seconds, used


def main() -> None:
    paper = Path(sys.argv[1]) if len(sys.argv) > 1 else default_paper()
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    engines = ("pdflatex", "latex", "xelatex", "all")
    times: dict[str, list[float]] = {e: [] for e in engines}
    cpus: dict[str, list[float]] = {e: [] for e in engines}
    header(__file__)
    wall(paper, "pdflatex")  # warm the file cache and kpathsea before measuring
    for _ in range(repeats):  # interleaved, so load changes hit every engine alike
        for engine in engines:
            seconds, used = wall(paper, engine)
            times[engine].append(seconds)
            cpus[engine].append(used)
    med = {e: statistics.median(t) for e, t in times.items()}
    med_cpu = {e: statistics.median(t) for e, t in cpus.items()}
    slowest = max(("pdflatex", "latex", "xelatex"), key=lambda e: med[e])
    all_over_slowest = ratio(times["all"], times[slowest])
    shown = paper.relative_to(ROOT) if paper.is_relative_to(ROOT) else paper
    print(f"paper {shown}, median of {repeats} interleaved rounds")
    for e in engines:
        print(f"  --engine {e:<9} {med[e]:6.2f} s wall  {med_cpu[e]:6.2f} s CPU")
    # With routes in parallel the CPU work is the sum of the routes; on C free cores the
    # wall time cannot beat max(slowest route, total CPU / C).
    singles = [sum(one) for one in zip(*(cpus[e] for e in ("pdflatex", "latex", "xelatex")), strict=True)]
    print(f"  CPU of all / sum of single routes = {ratio(cpus['all'], singles):.2f} (1.0 = no overhead)")
    verdict = "ok" if all_over_slowest <= TARGET else "over target"
    print(f"all / slowest single ({slowest}) = {all_over_slowest:.2f}x wall, ratio of the medians of the rounds"
          f"   target <= {TARGET}x   {verdict}")


if __name__ == "__main__":
    main()
