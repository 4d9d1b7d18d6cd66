"""Peak memory of `pithtex check` on a paper whose TeX run never stops writing.

The paper is `\\def\\a{\\message{AAAA…}\\a}\\a`: TeX prints to its terminal and its .log
until the output cap (50 MB by default) stops the run (`log-too-large`). pithtex never
holds that output in memory, so its own peak RSS should match what it needs for an
ordinary paper, measured side by side. Target (issue 11): <= 100 MB.

Peak RSS is the kernel's high-water mark (VmHWM in /proc/PID/status) of the pithtex
process itself, read every 20 ms until it exits; the TeX processes are not counted
(their largest peak is shown from RUSAGE_CHILDREN).
Run: .venv/bin/python bench/check_memory.py [PAIRS]   (3 pairs by default; medians printed)
"""

from __future__ import annotations

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

from bench.measure import header, ratio  # noqa: E402
from pithtex.latex import sty  # noqa: E402

PITHTEX = Path(sys.executable).parent / "pithtex"
TARGET_MB = 100
RUNAWAY = ("\\documentclass{article}\n\\begin{document}\n"
           "\\def\\a{\\message{" + "A" * 200 + "}\\a}\\a\n\\end{document}\n")


def peak_rss_mb(args: list[str]) -> tuple[float, float, int]:
    """(peak RSS of the pithtex process in MB, seconds, exit code)."""
    start = time.perf_counter()
    proc = subprocess.Popen([str(PITHTEX), *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak_kb = 0
    while proc.poll() is None:
        try:
            status = Path(f"/proc/{proc.pid}/status").read_text()
        except OSError:  # it ended between poll() and the read
            break
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                peak_kb = max(peak_kb, int(line.split()[1]))
        time.sleep(0.02)
    code = proc.wait()
    return peak_kb / 1024, time.perf_counter() - start, code


def main() -> None:
    header(__file__)
    pairs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    with tempfile.TemporaryDirectory() as tmp:
        paper = Path(tmp) / "runaway"
        paper.mkdir()
        (paper / "paper.tex").write_text(RUNAWAY)
        normal = Path(tmp) / "article"  # as its author uploads it: with pith.sty beside the paper
        shutil.copytree(ROOT / "examples" / "article", normal)
        (normal / "pith.sty").write_text(sty.text(), "utf-8")
        ordinary = [peak_rss_mb(["check", str(normal)]) for _ in range(pairs)]
        runaway = [peak_rss_mb(["check", str(paper)]) for _ in range(pairs)]
    tex_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KB on Linux
    base_mb, run_mb = (statistics.median(mb for mb, _s, _code in runs) for runs in (ordinary, runaway))
    base_s, run_s = (statistics.median(s for _mb, s, _code in runs) for runs in (ordinary, runaway))
    base_code, run_code = max(code for *_, code in ordinary), max(code for *_, code in runaway)
    print(f"median of {pairs} runs each")
    print(f"  pithtex check {normal.name:<10} peak RSS {base_mb:6.1f} MB  {base_s:5.1f} s  exit {base_code}")
    print(f"  pithtex check runaway    peak RSS {run_mb:6.1f} MB  {run_s:5.1f} s  exit {run_code} "
          "(stopped at the 50 MB output cap)")
    print(f"  largest TeX process: {tex_mb:.1f} MB")
    worst = max(mb for mb, _s, _code in runaway)
    stopped = all(code == 1 for *_, code in runaway)  # every runaway run refused at the cap
    verdict = "ok" if worst <= TARGET_MB and stopped else "over target"
    shares = ratio([mb for mb, *_ in runaway], [mb for mb, *_ in ordinary])
    print(f"runaway / ordinary paper = {shares:.2f}x (ratio of the medians)   runaway peak {worst:.1f} MB at most, "
          f"target <= {TARGET_MB} MB   {verdict}")


if __name__ == "__main__":
    main()
