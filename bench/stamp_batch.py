"""`pithtex stamp` over a folder of PDFs against exiftool's batch, side by side in one run.

The anchor is exiftool as a batch is meant to be run: one process for every file,
`exiftool -XMP-dc:Identifier=NUMBER -o OUT/ FILES...` (a new file per input, as pithtex's
`-o OUT/`). pithtex runs `stamp FILES... --number N -o OUT/`, with --jobs 1 and --jobs 2.
Runs are interleaved (exiftool, pithtex, pithtex --jobs 2, again ...) so load on this shared
machine falls on all of them alike; each run writes into a fresh, empty folder. Reported:
median wall time, CPU time (user+sys of the child), files written, the fsync calls pithtex
made (strace, once, when installed), and the ratio exiftool wall / pithtex wall (target >= 3).

Bring the corpus yourself (other projects' test PDFs are not committed here), e.g. the PDFs
of qpdf's and pypdf's test suites copied into one folder:
  .venv/bin/python bench/stamp_batch.py FOLDER [--runs 5] [--limit 300]
Without FOLDER: $PITH_CORPUS, else ../shared/corpus/pdf, else tests/fixtures/pdf.
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.measure import default_corpus, header, ratio
from pithtex.brand import SAMPLE_BODY

ROOT = Path(__file__).resolve().parent.parent
PITHTEX = str(Path(sys.executable).parent / "pithtex")
NUMBER = f"pith:2021:{SAMPLE_BODY}"


def commands(files: list[Path], out: Path) -> dict[str, list[str]]:
    names = list(map(str, files))
    return {
        "exiftool": ["exiftool", "-q", "-q", f"-XMP-dc:Identifier={NUMBER}", "-o", f"{out}/", *names],
        "pithtex": [PITHTEX, "stamp", *names, "--number", NUMBER, "-o", f"{out}/"],
        "pithtex --jobs 2": [PITHTEX, "stamp", *names, "--number", NUMBER, "-o", f"{out}/", "--jobs", "2"],
    }


def timed(cmd: list[str], out: Path) -> tuple[float, float, int]:
    """(wall s, CPU s, files written) of one run into a fresh, empty `out`."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # some inputs fail on purpose
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, sum(1 for p in out.iterdir() if p.suffix == ".pdf")


def fsync_calls(cmd: list[str], out: Path) -> int | None:
    if shutil.which("strace") is None:
        return None
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    proc = subprocess.run(["strace", "-f", "-c", "-e", "trace=fsync,fdatasync", *cmd],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    found = re.search(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?fsync$", proc.stderr, re.M)
    return int(found.group(1)) if found else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=None, help="a folder of PDFs")
    parser.add_argument("--runs", type=int, default=5, help="interleaved runs of each (median)")
    parser.add_argument("--limit", type=int, default=300, help="at most this many PDFs (sorted by name)")
    args = parser.parse_args()
    header(__file__)
    folder = args.folder or default_corpus()
    files = sorted(folder.glob("*.pdf"))[:args.limit]
    if not files:
        raise SystemExit(f"{folder}: no PDFs")
    size = sum(f.stat().st_size for f in files)
    print(f"{len(files)} PDFs from {folder} ({size / 2**20:.1f} MiB), {args.runs} interleaved runs each")
    with tempfile.TemporaryDirectory(prefix="pithtex-batch-") as tmp:
        out = Path(tmp) / "out"
        cmds = commands(files, out)
        results: dict[str, list[tuple[float, float, int]]] = {name: [] for name in cmds}
        for _ in range(args.runs):
            for name, cmd in cmds.items():
                results[name].append(timed(cmd, out))
        syncs = fsync_calls(cmds["pithtex"], out)
    wall = {name: statistics.median(r[0] for r in runs) for name, runs in results.items()}
    for name, runs in results.items():
        cpu = statistics.median(r[1] for r in runs)
        print(f"  {name:18} wall {wall[name]:7.2f} s  CPU {cpu:7.2f} s  written {runs[-1][2]}")
    if syncs is not None:
        print(f"  pithtex fsync calls (strace, all outputs new): {syncs}")
    walls = {name: [r[0] for r in runs] for name, runs in results.items()}
    print(f"exiftool wall / pithtex wall, ratios of the medians of {args.runs} rounds: "
          f"{ratio(walls['exiftool'], walls['pithtex']):.1f}x (--jobs 1), "
          f"{ratio(walls['exiftool'], walls['pithtex --jobs 2']):.1f}x (--jobs 2) (target >= 3x)")


if __name__ == "__main__":
    main()
