#!/usr/bin/env python3
"""The reader's check: <pith-badge>'s verifyDocument in Chromium and Firefox vs Python's verify_document.

    .venv/bin/python bench/web.py [COUNT] [ROUNDS]

Each browser imports the rendered ES module from a 127.0.0.1 page and verifies the seed
record COUNT times a round, ROUNDS rounds (5) each paired with Python's (canonical JSON,
SHA-256 and Ed25519 by WebCrypto), timed around the
loop after a warm-up, from the record's text (as the element reads it) and from an already
parsed object; Python does the same from the bytes with pithtex.record and pithtex.verify in process. The first
check in a fresh page (module compiled, keys imported) is reported apart. A ratio, not a
test: the goal is a check a reader never waits for.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.measure import header, ratio  # noqa: E402
from pithtex import brand  # noqa: E402
from pithtex.record import parse_document  # noqa: E402
from pithtex.trust import pinned_keys  # noqa: E402
from pithtex.verify import verify_document  # noqa: E402
from pithtex.web import assets as webassets  # noqa: E402
from tests import browserkit, drivers  # noqa: E402

SEED = ROOT / "examples" / "seed-record.json"
LOOP = """(async () => {
  const m = await import('/m.mjs');
  const text = await (await fetch('/seed.json')).text();  // what the element reads: the record's text
  const keys = await m.trustedKeys();
  const t0 = performance.now();
  const first = await m.verifyDocument(text, { number: %(body)r, keys });
  const t1 = performance.now();
  for (let i = 0; i < %(count)d; i++) await m.verifyDocument(text, { number: %(body)r, keys });
  const t2 = performance.now(), doc = JSON.parse(text);  // an already parsed object: no text to read
  for (let i = 0; i < %(count)d; i++) await m.verifyDocument(doc, { number: %(body)r, keys });
  return [first.state, t1 - t0, (t2 - t1) / %(count)d, (performance.now() - t2) / %(count)d];
})()"""


def python_ms(count: int) -> float:
    """verify_document from the record's bytes (parse_document included, as the command line does)."""
    data, keys = SEED.read_bytes(), pinned_keys()
    for _ in range(20):
        verify_document(parse_document(data), keys)
    t0 = time.perf_counter()
    for _ in range(count):
        verify_document(parse_document(data), keys)
    return (time.perf_counter() - t0) / count * 1000


def paired_rounds(name: str, count: int, rounds: int) -> tuple[list[tuple[str, float, float, float]], list[float]]:
    """Each round: `count` checks in the browser's page, then `count` in Python, so load drifts
    hit both alike; the browser stays open across the rounds."""
    script = LOOP % {"body": brand.SAMPLE_BODY, "count": count}
    in_browser, in_python = [], []
    with browserkit.page_server() as server, tempfile.TemporaryDirectory() as tmp:
        server.route("/m.mjs", webassets.render_script(module=True), "text/javascript")
        server.route("/seed.json", SEED.read_text(), "application/json")
        server.route("/b.html", "<!doctype html><title>bench</title><p>bench</p>")
        browser = drivers.open_browser(name, server.base + "/b.html", Path(tmp))
        try:
            while browser.evaluate("location.pathname") != "/b.html":
                time.sleep(0.05)
            for _ in range(rounds):
                in_browser.append(tuple(browser.evaluate(script)))
                in_python.append(python_ms(count))
        finally:
            browser.close()
    return in_browser, in_python  # type: ignore[return-value]


def main() -> None:
    header(__file__)
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    print(f"{count} checks a round, {rounds} rounds paired with Python's; medians")
    for name in ("chromium", "firefox"):
        if not browserkit.available(name):
            print(f"{name}: not installed")
            continue
        in_browser, in_python = paired_rounds(name, count, rounds)
        first, each, parsed = (statistics.median(r[i] for r in in_browser) for i in (1, 2, 3))
        print(f"python parse_document + verify_document: {statistics.median(in_python):.3f} ms per check")
        print(f"{name}: {in_browser[0][0]}; first check {first:.1f} ms, then {each:.3f} ms per check from the text "
              f"= {ratio([r[2] for r in in_browser], in_python):.2f}x Python's (a parsed object: {parsed:.3f} ms)")


if __name__ == "__main__":
    main()
