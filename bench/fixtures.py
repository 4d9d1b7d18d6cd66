#!/usr/bin/env python3
"""How long issue 33's minimal reproductions take to compile, per fixture and engine.

    .venv/bin/python bench/fixtures.py [--root CHROOT] [--rounds 5] [--engines pdflatex xelatex latex]

The fixtures are the ones tests/latex/test_sty_issue33.py compiles (read from its calls,
so the list has one home), each from tests/fixtures/titles/ with this checkout's pith.sty.
Each round compiles a fresh copy twice, as arXiv does (the first pass with no .aux, the
second reading the positions the first wrote), and takes the CPU time (user + system) of
each TeX pass from the kernel's accounting of the finished child, which other load on a
shared machine disturbs less than wall time. Printed: the median of the rounds per pass,
the slower pass against the issue's target (under a second), the TeX Live that ran, the
date and the load. With --root, TeX runs inside that Debian chroot (tools/texlive-chroot.sh
builds one per TeX Live generation; `make texlive-matrix` names them), on copies made in
its own /tmp, with no TMPDIR from outside.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STY = ROOT / "latex" / "pith.sty"
FIXTURES = ROOT / "tests" / "fixtures" / "titles"
TESTS = ROOT / "tests" / "latex" / "test_sty_issue33.py"
TARGET_S = 1.0


def fixture_names() -> list[str]:
    """The fixtures test_sty_issue33.py compiles, in the order it first names them."""
    found = re.findall(r'(?:placed|compile_fixture)\(tmp_path, "(\w+)"', TESTS.read_text())
    return list(dict.fromkeys(found))


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def tex_pass(folder: Path, engine: str, name: str, chroot: Path | None) -> float:
    """One TeX pass over folder/name.tex: the CPU seconds it took (fails loudly if no output)."""
    cmd = [engine, "-interaction=batchmode", "-no-shell-escape", f"{name}.tex"]
    env = {k: v for k, v in os.environ.items() if k != "TMPDIR"}
    if chroot is not None:
        inside = "/" + str(folder.relative_to(chroot))
        cmd = ["chroot", str(chroot), "/usr/bin/env", "-C", inside, *cmd]
    before = child_cpu()
    subprocess.run(cmd, cwd=folder, env=env, capture_output=True, timeout=120, check=False)
    spent = child_cpu() - before
    out = folder / f"{name}.{'dvi' if engine == 'latex' else 'pdf'}"
    if not out.is_file():
        raise SystemExit(f"fixtures: {engine} made no output for {name}; see {folder / name}.log")
    return spent


def one_round(scratch: Path, name: str, engine: str, chroot: Path | None) -> tuple[float, float]:
    folder = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=scratch))
    for source in FIXTURES.iterdir():
        if source.suffix in (".tex", ".cls", ".sty"):
            shutil.copy(source, folder / source.name)
    shutil.copy(STY, folder / "pith.sty")
    first = tex_pass(folder, engine, name, chroot)
    second = tex_pass(folder, engine, name, chroot)
    shutil.rmtree(folder)
    return first, second


def texlive(chroot: Path | None) -> str:
    cmd = ["dpkg-query", "-W", "-f", "${Version}", "texlive-base"]
    done = subprocess.run(["chroot", str(chroot), *cmd] if chroot else cmd, capture_output=True, text=True,
                          check=False)
    return f"texlive-base {done.stdout.strip() or '?'}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, help="a chroot holding another TeX Live (tools/texlive-chroot.sh)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--engines", nargs="+", default=["pdflatex", "xelatex", "latex"])
    args = parser.parse_args(argv)
    chroot = args.root.resolve() if args.root else None
    base = (chroot / "tmp") if chroot else None
    load = os.getloadavg()[0]
    print(f"{texlive(chroot)}, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
          f"load {load:.1f}, median of {args.rounds} rounds, CPU seconds per pass (first, second)\n")
    print("| fixture | " + " | ".join(args.engines) + " | under 1 s |")
    print("|---|" + "---|" * (len(args.engines) + 1))
    slow = 0
    with tempfile.TemporaryDirectory(prefix="pith-fixtures-", dir=base) as tmp:
        for name in fixture_names():
            cells, worst = [], 0.0
            for engine in args.engines:
                runs = [one_round(Path(tmp), name, engine, chroot) for _ in range(args.rounds)]
                first, second = (statistics.median(r[i] for r in runs) for i in (0, 1))
                worst = max(worst, first, second)
                cells.append(f"{first:.2f}, {second:.2f}")
            slow += worst >= TARGET_S
            print(f"| {name} | " + " | ".join(cells) + f" | {'yes' if worst < TARGET_S else 'no'} |", flush=True)
    print(f"\nload at the end {os.getloadavg()[0]:.1f}; {slow} fixture(s) at or over {TARGET_S:.0f} s")
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
