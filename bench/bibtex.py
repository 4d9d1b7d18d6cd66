#!/usr/bin/env python3
"""Reading a .bib for `badge --list`: seconds for 1, 2 and 8 MiB of al-folio-like entries.

    .venv/bin/python bench/bibtex.py [ROUNDS]

Each size is read in each of ROUNDS rounds (3 by default; medians printed) as `badge --list`
reads it: `publist.read_list` with the split done by
bibtexparser 2 in the bounded worker (`publist_check.parse_bounded`: a process under CPU,
memory and time limits; the CPU column adds the worker's to this process's), the fields a list reads expanded,
each title's LaTeX decoded by pylatexenc. Linear reading keeps the 8 MiB/1 MiB ratio
near 8; the target is 8 MiB in <= 5 s. tests/web/test_publist_trust.py guards the linearity as
a count of function calls.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.measure import header, ratio
from pithtex.web import publist, publist_check

ENTRY = ('@article{{key{i},\n  title = {{On {{\\"o}}ber-{{BERT}} models, part {i}}},\n'
         '  author = {{M{{\\"u}}ller, Jan and Smith, Alice}},\n  journal = {{Journal of Tests}},\n'
         '  eprint = {{2401.{n:05d}}},\n  archivePrefix = {{arXiv}},\n  abstract = {{{words}}},\n}}\n\n')


def bib_of(size: int) -> str:
    """At least `size` bytes of distinct entries; ids repeat past 1,500 (a list checks 2,000 at most)."""
    parts, total, i = [], 0, 0
    while total < size:
        part = ENTRY.format(i=i, n=i % 1_500 + 1, words="word " * 100)
        parts.append(part)
        total += len(part)
        i += 1
    return "".join(parts)


def _cpu() -> float:
    """CPU seconds of this process and of its finished workers (the parse runs in one)."""
    import resource

    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def main() -> int:
    header(__file__)
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    sizes = (1, 2, 8)
    texts = {mib: bib_of(mib * 2**20) for mib in sizes}
    walls: dict[int, list[float]] = {mib: [] for mib in sizes}
    cpus: dict[int, list[float]] = {mib: [] for mib in sizes}
    papers: dict[int, int] = {}
    for _ in range(rounds):  # the sizes interleaved, so a drift in load hits each alike
        for mib in sizes:
            t0, c0 = time.perf_counter(), _cpu()
            read, _ = publist.read_list(texts[mib], "papers.bib", bib=True, parse=publist_check.parse_bounded)
            walls[mib].append(time.perf_counter() - t0)
            cpus[mib].append(_cpu() - c0)
            papers[mib] = len(read)
    print(f"reading a .bib (publist.read_list), median of {rounds} rounds:")
    for mib in sizes:
        per_mib = [cpu / mib for cpu in cpus[mib]]
        print(f"  {mib} MiB ({texts[mib].count('@article'):,} entries, {papers[mib]:,} papers): "
              f"{statistics.median(walls[mib]):6.2f} s, CPU {statistics.median(cpus[mib]):6.2f} s "
              f"({ratio(per_mib, cpus[1]):.2f}x 1 MiB's CPU per MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
