"""`pithtex check --engine all` against the slowest single route, measured side by side.

The three arXiv routes run in parallel, so checking all of them should cost little more
than the slowest one alone. Target (issue 6): all / slowest single <= 1.3.
Run: .venv/bin/python bench/arxiv.py [PAPER_FOLDER] [REPEATS]
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pithtex.arxiv.check import check_path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 1.3


def default_paper() -> Path:
    for candidate in (ROOT / "examples" / "article", ROOT / "tests" / "fixtures" / "arxiv" / "plain"):
        if candidate.is_dir():
            return candidate
    raise SystemExit("no paper to measure")


def wall(paper: Path, engine: str) -> float:
    start = time.perf_counter()
    result = check_path(paper, engine=engine)
    seconds = time.perf_counter() - start
    if engine != "all" and not all(r.pdf for r in result.runs):
        raise SystemExit(f"{paper}: {engine} produced no PDF; pick a paper that compiles on every route")
    return seconds


def main() -> None:
    paper = Path(sys.argv[1]) if len(sys.argv) > 1 else default_paper()
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    engines = ("pdflatex", "latex", "xelatex", "all")
    times: dict[str, list[float]] = {e: [] for e in engines}
    wall(paper, "pdflatex")  # warm the file cache and kpathsea before measuring
    for _ in range(repeats):  # interleaved, so load changes hit every engine alike
        for engine in engines:
            times[engine].append(wall(paper, engine))
    med = {e: statistics.median(t) for e, t in times.items()}
    slowest = max(("pdflatex", "latex", "xelatex"), key=lambda e: med[e])
    ratio = med["all"] / med[slowest]
    print(f"paper {paper.relative_to(ROOT) if paper.is_relative_to(ROOT) else paper}, median of {repeats}")
    for e in engines:
        print(f"  --engine {e:<9} {med[e]:6.2f} s")
    verdict = "ok" if ratio <= TARGET else "over target"
    print(f"all / slowest single ({slowest}) = {ratio:.2f}x   target <= {TARGET}x   {verdict}")


if __name__ == "__main__":
    main()
