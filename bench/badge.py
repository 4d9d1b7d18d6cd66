#!/usr/bin/env python3
"""SVG badges per second: pithtex in process vs shields.io's badge-maker in node, side by side.

    .venv/bin/python bench/badge.py [COUNT]

badge-maker@6 is installed with npm into a temporary folder (when node and npm exist) and
runs the same number of badges, with distinct messages, in one node process. Both sides
warm up first and are timed around the loop only (no process start-up). Target: >= 2x.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pithtex import brand
from pithtex.number import PithNumber
from pithtex.web import badge

NODE_LOOP = """
const { makeBadge } = require('badge-maker');
const messages = JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8'));
const make = (m) => makeBadge({ label: 'pith', message: m, color: '#0b7a75', labelColor: '#555555', style: 'flat' });
for (let i = 0; i < 2000; i++) make(messages[i % messages.length]);   // warm-up
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


def badge_maker_rate(items: list[PithNumber]) -> float | None:
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        print("badge-maker: skipped (node or npm not found)")
        return None
    with tempfile.TemporaryDirectory(prefix="pith-bench-") as tmp:
        install = subprocess.run(
            [npm, "install", "--silent", "--no-audit", "--no-fund", "--prefix", tmp, "badge-maker@6"],
            capture_output=True, text=True, timeout=300,
        )
        if install.returncode != 0:
            print(f"badge-maker: skipped (npm install failed: {install.stderr.strip()[-200:]})")
            return None
        script = Path(tmp) / "loop.js"
        script.write_text(NODE_LOOP)
        messages = Path(tmp) / "messages.json"
        messages.write_text(json.dumps([badge.message_text(n) for n in items]))
        run = subprocess.run([node, str(script), str(messages)], capture_output=True, text=True, cwd=tmp, timeout=600)
        if run.returncode != 0:
            print(f"badge-maker: failed ({run.stderr.strip()[-300:]})")
            return None
        return json.loads(run.stdout)["rate"]


def main() -> int:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    items = numbers(count)
    plain = pithtex_rate(items, verified=False)
    verified = pithtex_rate(items, verified=True)
    theirs = badge_maker_rate(items)
    print(f"SVG badges, {count:,} distinct numbers, one run:")
    print(f"  pithtex (plain)     {plain:>10,.0f} badges/s")
    print(f"  pithtex (verified)  {verified:>10,.0f} badges/s")
    if theirs:
        print(f"  badge-maker@6 node  {theirs:>10,.0f} badges/s")
        print(f"  ratio pithtex/badge-maker: {plain / theirs:.1f}x plain, {verified / theirs:.1f}x verified "
              "(target >= 2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
