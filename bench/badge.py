#!/usr/bin/env python3
"""SVG badges per second: pithtex in process vs shields.io's badge-maker in node, side by side.

    .venv/bin/python bench/badge.py [COUNT] [ROUNDS]

badge-maker@6 is installed with npm into a temporary folder (when node and npm exist) and
runs the same number of badges, with distinct messages, in a node process a round. Both sides
warm up first and are timed around the loop only (no process start-up), in paired rounds (5 by
default); the ratio is of the medians of the rates. Target: >= 2x.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.measure import header, ratio
from pithtex import brand
from pithtex.number import PithNumber
from pithtex.web import badge

NODE_LOOP = """
const { makeBadge } = require('badge-maker');
const messages = JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8'));
const make = (m) => makeBadge({ label: %(label)s, message: m, color: %(color)s, labelColor: %(label_color)s,
                                style: 'flat' });
for (let i = 0; i < 2000; i++) make(messages[i %% messages.length]);   // warm-up
const t0 = process.hrtime.bigint();
let size = 0;
for (const m of messages) size += make(m).length;
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
console.log(JSON.stringify({ rate: messages.length / seconds, size }));
"""


def numbers(count: int) -> list[PithNumber]:
    """Distinct numbers, so no cache can answer for the renderer."""
    return [PithNumber(base64.b32encode(hashlib.sha256(str(i).encode()).digest())[:26].decode()) for i in range(count)]


def pithtex_rate(items: list[PithNumber], verified: bool) -> float:
    state = badge.BadgeState(brand.VERIFIED, "bench", "pith-v1-2026-05") if verified else None
    for n in items[:2000]:
        badge.svg(n, state)  # warm-up
    t0 = time.perf_counter()
    for n in items:
        badge.svg(n, state)
    return len(items) / (time.perf_counter() - t0)


def badge_maker(items: list[PithNumber], tmp: Path) -> Callable[[], float] | None:
    """A function that runs one round of badge-maker@6 in node (its own process) and returns its
    rate; None when node, npm or the install is not there."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        print("badge-maker: skipped (node or npm not found)")
        return None
    install = subprocess.run(
        [npm, "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(tmp), "badge-maker@6"],
        capture_output=True, text=True, timeout=300,
    )
    if install.returncode != 0:
        print(f"badge-maker: skipped (npm install failed: {install.stderr.strip()[-200:]})")
        return None
    script = tmp / "loop.js"
    # badge-maker draws the same badge: brand.py's label and light-theme colours
    light = brand.THEMES[brand.DEFAULT_THEME]
    script.write_text(NODE_LOOP % {"label": json.dumps(brand.LABEL), "color": json.dumps(light.message_bg.hex),
                                   "label_color": json.dumps(light.label_bg.hex)})
    messages = tmp / "messages.json"
    messages.write_text(json.dumps([badge.message_text(n) for n in items]))

    def one_round() -> float:
        run = subprocess.run([node, str(script), str(messages)], capture_output=True, text=True, cwd=tmp, timeout=600)
        if run.returncode != 0:
            raise SystemExit(f"badge-maker: failed ({run.stderr.strip()[-300:]})")
        return float(json.loads(run.stdout)["rate"])

    return one_round


def main() -> int:
    header(__file__)
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    items = numbers(count)
    rates: dict[str, list[float]] = {"plain": [], "verified": [], "badge-maker": []}
    with tempfile.TemporaryDirectory(prefix="pith-bench-") as tmp:
        theirs = badge_maker(items, Path(tmp))
        for _ in range(rounds):  # paired rounds: each side once a round, so load drifts hit both
            rates["plain"].append(pithtex_rate(items, verified=False))
            rates["verified"].append(pithtex_rate(items, verified=True))
            if theirs:
                rates["badge-maker"].append(theirs())
    print(f"SVG badges, {count:,} distinct numbers, median of {rounds} paired rounds:")
    print(f"  pithtex (plain)     {statistics.median(rates['plain']):>10,.0f} badges/s")
    print(f"  pithtex (verified)  {statistics.median(rates['verified']):>10,.0f} badges/s")
    if theirs:
        print(f"  badge-maker@6 node  {statistics.median(rates['badge-maker']):>10,.0f} badges/s")
        plain, verified = (ratio(rates[side], rates["badge-maker"]) for side in ("plain", "verified"))
        print(f"  ratio pithtex/badge-maker (of the medians): {plain:.2f}x plain, {verified:.2f}x verified "
              "(target >= 2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
