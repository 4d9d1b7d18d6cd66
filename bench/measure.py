"""What every bench/*.py shares, and `make bench`: every bench run in turn, into one log.

`header()` is a bench's first line: the script, the date and time (UTC), the load average and
the cores, so a figure quoted in docs/performance.md names the run it came from and what else
the machine was doing. `ratio()` is the one way a bench compares two things timed side by side:
the ratio of the medians of paired runs (run i of each taken in the same round, so a drift in
the machine's load hits both alike). A median of per-round ratios, a best-of or a single run
answers another question: bench/latex.py once printed 1.096x by dividing round by round where
the medians of the same rounds gave 1.036x.

Run as a script (`make bench`; `bench/measure.py NAME...` for some), it runs every other
bench/*.py with its defaults, one after another, and writes all they print to
bench/runs/<UTC date>-<short commit>.txt, headed by the commit, `uname -a` and the CPU model:
the record docs/performance.md names for its figures
(tests/test_docs_figures.py checks them against it). A bench that cannot run here (a tool or
material missing) says why in one line and exits CANNOT_RUN: counted, not a failure of the run.
Each bench has BUDGET seconds; one still running then is stopped and counted as failed.
"""

from __future__ import annotations

import os
import platform
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import NoReturn, TextIO

ROOT = Path(__file__).resolve().parent.parent
RUNS = ROOT / "bench" / "runs"
# A bench's exit status when it cannot run on this machine (automake's "skipped").
CANNOT_RUN = 77
# Seconds a bench may take under `make bench` (the slowest, latexml.py, took 3 minutes at load 4).
BUDGET = 15 * 60


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


def default_corpus() -> Path:
    """The PDFs a bench reads when given none: $PITH_CORPUS, else ../shared/corpus/pdf beside
    the checkout, else the tests' own PDFs (always there)."""
    shared = Path(os.environ.get("PITH_CORPUS", ROOT.parent / "shared" / "corpus" / "pdf"))
    return shared if shared.is_dir() else ROOT / "tests" / "fixtures" / "pdf"


def cannot_run(script: str, why: str) -> NoReturn:
    """Say in one line why this bench cannot run here, and exit CANNOT_RUN."""
    print(f"bench/{Path(script).name}: cannot run here: {why}", flush=True)
    sys.exit(CANNOT_RUN)


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:  # not Linux: the platform's own name
        pass
    return platform.processor() or "unknown"


def _log_path(commit: str, dirty: bool, partial: bool) -> Path:
    """bench/runs/<UTC date>-<short commit>.txt; -dirty with uncommitted changes, -partial for
    some benches only, so neither takes the name of a whole run of a commit."""
    name = f"{datetime.now(timezone.utc):%Y-%m-%d}-{commit}{'-dirty' if dirty else ''}{'-partial' if partial else ''}"
    return RUNS / f"{name}.txt"


def _run_one(bench: Path, env: dict[str, str], log: TextIO) -> tuple[str, float]:
    """Run one bench, its output to the terminal and the log; its outcome and seconds."""
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, str(bench)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, errors="replace", start_new_session=True)
    # Over its budget, the bench and all it started are stopped (its own process group).
    watchdog = threading.Timer(BUDGET, os.killpg, (proc.pid, signal.SIGKILL))
    watchdog.start()
    assert proc.stdout is not None
    last = ""
    try:
        for line in proc.stdout:  # the pipe closes when the bench (and what it started) ends
            sys.stdout.write(line)
            log.write(line)
            log.flush()
            last = line.strip() or last
        code = proc.wait()
    finally:
        watchdog.cancel()
    seconds = time.monotonic() - start
    if code == 0:
        return "ok", seconds
    if code == CANNOT_RUN:
        return "cannot run here: " + last.split("cannot run here: ", 1)[-1], seconds
    if code == -signal.SIGKILL and seconds >= BUDGET:
        return f"failed: over its {BUDGET // 60}-minute budget", seconds
    return f"failed: exit {code}", seconds


def run_all(only: Sequence[str] = (), folder: Path = ROOT / "bench", runs: Path = RUNS) -> int:
    """Every bench of `folder` (or those named, `verify` or `verify.py`) in turn into one log in
    `runs`; 1 when one failed (the rest still run)."""
    commit = _git("rev-parse", "--short", "HEAD")
    dirty = any(not line[3:].startswith("bench/runs/") for line in _git("status", "--porcelain").splitlines())
    runs.mkdir(exist_ok=True)
    path = runs / _log_path(commit, dirty, bool(only)).name
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    wanted = {name.removesuffix(".py") for name in only}
    benches = sorted(p for p in folder.glob("*.py")
                     if p.name != "measure.py" and (not wanted or p.stem in wanted))
    outcomes: list[tuple[str, str, float]] = []
    start = time.monotonic()
    with path.open("w", encoding="utf-8") as log:
        top = (f"make bench: commit {_git('rev-parse', 'HEAD')}{' with uncommitted changes' if dirty else ''}\n"
               f"started {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC\n"
               f"uname: {' '.join(os.uname())}\n"
               f"CPU: {_cpu_model()}, {os.cpu_count()} cores\n"
               f"Python {platform.python_version()}\n")
        for text in (top,):
            sys.stdout.write(text)
            log.write(text)
        for bench in benches:
            line = f"\n== bench/{bench.name}\n"
            sys.stdout.write(line)
            log.write(line)
            log.flush()
            outcome, seconds = _run_one(bench, env, log)
            outcomes.append((bench.name, outcome, seconds))
            done = f"== bench/{bench.name}: {outcome}, {seconds:.0f} s\n"
            sys.stdout.write(done)
            log.write(done)
        failed = [o for o in outcomes if o[1].startswith("failed")]
        skipped = [o for o in outcomes if o[1].startswith("cannot run")]
        benches_ran = f"{len(outcomes)} bench{'es' if len(outcomes) != 1 else ''}"
        lines = [f"\n== make bench: {benches_ran} in {time.monotonic() - start:.0f} s: "
                 f"{len(outcomes) - len(failed) - len(skipped)} ran, {len(skipped)} cannot run here, "
                 f"{len(failed)} failed"]
        lines += [f"   bench/{name}: {outcome}, {seconds:.0f} s" for name, outcome, seconds in outcomes]
        lines.append(f"log: {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
        text = "\n".join(lines) + "\n"
        sys.stdout.write(text)
        log.write(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(run_all(sys.argv[1:]))
