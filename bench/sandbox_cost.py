"""What the sandbox's memory cap costs `pithtex check`: each step started through `prlimit`
(issue 33) against the same step started bare, side by side in one run.

Rounds alternate capped and bare (the order flips each round, so neither always runs on a warm
cache); the result is the ratio of the medians of the paired wall times, and CPU beside it.
Run: .venv/bin/python bench/sandbox_cost.py [PAPER_FOLDER] [PAIRS]
"""

from __future__ import annotations

import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.arxiv import as_upload, default_paper
from bench.measure import header, ratio
from pithtex.arxiv import sandbox
from pithtex.arxiv.check import check_path

CAPPED = sandbox.memory_capped


def bare(cmd: list[str], cap: int) -> list[str]:
    return cmd


def one(capped: bool, paper: Path) -> tuple[float, float]:
    sandbox.memory_capped = CAPPED if capped else bare
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    check = check_path(paper, engine="latex")
    wall = time.perf_counter() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert check.ok, [d.message for d in check.diagnostics]
    return wall, (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime)


def main() -> None:
    header(__file__)
    paper = as_upload(Path(sys.argv[1])) if len(sys.argv) > 1 else default_paper()
    pairs = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    one(True, paper)  # warm the caches once
    walls: dict[bool, list[float]] = {True: [], False: []}
    cpus: dict[bool, list[float]] = {True: [], False: []}
    for i in range(pairs):
        for capped in ((True, False) if i % 2 == 0 else (False, True)):
            wall, spent = one(capped, paper)
            walls[capped].append(wall)
            cpus[capped].append(spent)
    sandbox.memory_capped = CAPPED
    med = {k: statistics.median(v) for k, v in walls.items()}
    cpu = {k: statistics.median(v) for k, v in cpus.items()}
    print(f"paper: {paper.name}, route latex, {pairs} pairs")
    print(f"bare:   wall {med[False]:.3f} s  cpu {cpu[False]:.3f} s (median)")
    print(f"capped: wall {med[True]:.3f} s  cpu {cpu[True]:.3f} s (median)")
    print(f"capped / bare: wall {ratio(walls[True], walls[False]):.3f}x  cpu {ratio(cpus[True], cpus[False]):.3f}x "
          "(ratios of the medians)")


if __name__ == "__main__":
    main()
