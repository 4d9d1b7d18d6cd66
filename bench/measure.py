"""What every bench/*.py shares (imported, not run: `make bench` skips it).

`header()` is a bench's first line: the script, the date and time (UTC), the load average and
the cores, so a figure quoted in docs/performance.md names the run it came from and what else
the machine was doing. `ratio()` is the one way a bench compares two things timed side by side:
the ratio of the medians of paired runs (run i of each taken in the same round, so a drift in
the machine's load hits both alike). A median of per-round ratios, a best-of or a single run
answers another question: bench/latex.py once printed 1.096x by dividing round by round where
the medians of the same rounds gave 1.036x.
"""

from __future__ import annotations

import os
import statistics
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path


def header(script: str, file: object = None) -> str:
    """Print (and return) the line that opens a bench's output: `bench/NAME.py: 2026-12-05 07:40 UTC,
    load average 1.20 0.90 0.80, 2 cores (2 usable)`."""
    one, five, fifteen = os.getloadavg()
    cores, usable = os.cpu_count(), len(os.sched_getaffinity(0))
    line = (f"bench/{Path(script).name}: {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, load average "
            f"{one:.2f} {five:.2f} {fifteen:.2f}, {cores} cores ({usable} usable)")
    print(line, file=file or sys.stdout, flush=True)
    return line


def ratio(numerator: Sequence[float], denominator: Sequence[float]) -> float:
    """median(numerator) / median(denominator), of runs taken in pairs: both lists hold one
    figure a round, in the same rounds."""
    if len(numerator) != len(denominator) or not numerator:
        raise ValueError(f"paired runs give as many figures on each side ({len(numerator)} vs {len(denominator)})")
    return statistics.median(numerator) / statistics.median(denominator)


if __name__ == "__main__":
    sys.exit("bench/measure.py is imported by the benches; run one of them (make bench)")
