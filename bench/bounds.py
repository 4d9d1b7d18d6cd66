"""What the bounded worker costs a PDF read (issue 32, "unbounded work"): page 1's view read in
a forked child under RLIMIT_AS, RLIMIT_CPU and a deadline (pithtex/workers/bounded.py), against
the same read in this process, side by side in one run; then each bomb of tests/bombkit.py read
the way `verify` reads it, with its wall time and its reader's peak memory.

Rounds alternate bounded (one reader worker reused for the round, as `verify FOLDER/` reads)
and in-process over the same papers (the order flips each round, so neither always runs on a
warm cache); the result is the ratio of the medians of the paired per-file wall and CPU times,
with the forks counted (one a round) and the children's peak resident set; then the CPU of a
fork a file, as `verify one.pdf` pays it.
Run: .venv/bin/python bench/bounds.py [PAPERS | FOLDER] [PAIRS]: PAPERS one-page papers made
here (30), or the PDFs of FOLDER (a corpus of real ones).
"""

from __future__ import annotations

import contextlib
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.measure import header, ratio
from pithtex.pdf import view
from pithtex.workers import bounded
from tests import bombkit, viewkit

PEAK = """
import resource, sys, time
from pithtex.cli import main
t0 = time.perf_counter()
code = main(["verify", "--offline", sys.argv[1]])
print(time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, code)
"""


def papers(folder: Path, n: int) -> list[Path]:
    return [viewkit.annotated(folder / f"{i:03d}.pdf", forged=False) for i in range(n)]


def readable(path: Path) -> bool:
    """A PDF the reader reads (a corpus holds damaged and locked ones, refused the same either way)."""
    from pithtex.errors import PithError

    try:
        view.read_view(path)
    except PithError:
        return False
    return True


def cpu() -> float:
    """CPU seconds of this process and of its children reaped so far."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def round_of(files: list[Path], in_child: bool, reused: bool = True) -> tuple[float, float]:
    """(wall seconds, CPU seconds) a file, reading each once: here, or in a bounded worker
    (`reused`: one reader for the round, as `verify FOLDER/` reads; else a fork a file, as
    `verify one.pdf` does)."""
    read = bounded.read_view if in_child else view.read_view
    t0, c0 = time.perf_counter(), cpu()
    with bounded.reading() if reused else contextlib.nullcontext():
        for path in files:
            read(path)
    return (time.perf_counter() - t0) / len(files), (cpu() - c0) / len(files)


def bombs(folder: Path) -> None:
    made = {"metadata (409 KB, 400 MiB inflated)": bombkit.metadata_bomb(folder / "meta.pdf"),
            "form fan-out 8^6": bombkit.fan_out(folder / "fan.pdf", 6, width=8),
            "forms nested 24 deep": bombkit.fan_out(folder / "deep.pdf", 24),
            "Type 3 glyph procedures": bombkit.type3(folder / "t3.pdf")}
    for name, path in made.items():
        out = subprocess.run([sys.executable, "-c", PEAK, str(path)], capture_output=True, text=True, check=False)
        wall, peak, code = out.stdout.split()
        print(f"  {name:<36} {path.stat().st_size:>8,} B  exit {code}  {float(wall):.2f} s  "
              f"reader peak {int(peak) / 1024:.0f} MiB")


def main() -> None:
    header(__file__)
    given = sys.argv[1] if len(sys.argv) > 1 else "30"
    pairs = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    with tempfile.TemporaryDirectory() as tmp:
        files = sorted(Path(given).glob("*.pdf")) if Path(given).is_dir() else papers(Path(tmp), int(given))
        files = [path for path in files if readable(path)]
        n = len(files)
        bounded.warm()  # as a run of many files does (workers/pool.py)
        round_of(files, True)  # warm: imports, PDFium, the page cache
        round_of(files, False)
        times: dict[bool, list[float]] = {True: [], False: []}
        cpus: dict[bool, list[float]] = {True: [], False: []}
        forks0 = bounded.forks
        for i in range(pairs):
            for in_child in ((True, False) if i % 2 == 0 else (False, True)):
                wall, spent = round_of(files, in_child)
                times[in_child].append(wall)
                cpus[in_child].append(spent)
        forks = bounded.forks - forks0
        one_each = statistics.median(round_of(files, True, reused=False)[1] for _ in range(3))
        med = {k: statistics.median(v) for k, v in times.items()}
        mcpu = {k: statistics.median(v) for k, v in cpus.items()}
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        what = given if Path(given).is_dir() else "one-page papers made here (an annotation beside the title)"
        print(f"{n} PDFs: {what}; {pairs} pairs, load {os.getloadavg()[0]:.1f}")
        print(f"in process: wall {med[False] * 1000:.1f} ms, CPU {mcpu[False] * 1000:.1f} ms a file (medians)")
        print(f"bounded:    wall {med[True] * 1000:.1f} ms, CPU {mcpu[True] * 1000:.1f} ms a file (medians); "
              f"{forks} forks for {n * pairs} reads; children's peak {peak / 1024:.0f} MiB")
        print("bounded / in process (ratio of medians of paired rounds): "
              f"wall {ratio(times[True], times[False]):.3f}x, "
              f"CPU {ratio(cpus[True], cpus[False]):.3f}x")
        print(f"a fork a file (as verify one.pdf reads): CPU {one_each * 1000:.1f} ms a file "
              f"({one_each / mcpu[False]:.2f}x in process)")
        print("bombs, read as `verify --offline BOMB` reads them:")
        bombs(Path(tmp))


if __name__ == "__main__":
    main()
