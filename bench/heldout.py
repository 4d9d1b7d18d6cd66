"""`pithtex stamp` against exiftool on a held-out folder of PDFs made by other projects.

For every PDF under FOLDER (recursively), side by side:
- exiftool: `exiftool -o OUT -XMP-dc:Identifier=... IN` -- does it write metadata into it?
- pithtex: `pithtex stamp IN --number ... -o OUT` -- stamped (exit 0), refused (exit 1/2/3,
  with its one-line message) or a bug (exit 70, a traceback, a timeout).
- harm, for every file pithtex stamped: `qpdf --check`'s verdict no worse than the input's,
  the input's bytes a prefix of the output (an incremental update), pikepdf and pypdf still
  open it (and count the same pages) when they opened the input, and `pithtex inspect`
  reads the number back.

Prints counts per top-level sub-folder (one per source project) and in total, then lists
the files exiftool writes and pithtex refuses, the harmed files and the bugs.
Results of the slow, input-only checks (exiftool, qpdf and the libraries on the input)
are cached by the input's SHA-256 in FOLDER/.heldout-cache.json, so a rerun after a fix
costs only the pithtex side.

Run: .venv/bin/python bench/heldout.py [FOLDER] [--jobs N] [--json RESULTS.json] [--only SUBSTR]
Without FOLDER: $PITH_CORPUS, else ../shared/corpus/pdf, else tests/fixtures/pdf (bench/measure.py);
the cache is kept beside a folder outside the checkout only (never written into tests/).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import threading
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.measure import ROOT, default_corpus, header
from pithtex.brand import SAMPLE_BODY

BIN = Path(sys.executable).parent
PITHTEX = str(BIN / "pithtex")
BODY = SAMPLE_BODY
TIMEOUT = 120
# qpdf --check: 0 clean, 3 warnings only, 2 errors; a worse verdict is a higher rank.
QPDF_RANK = {0: 0, 3: 1, 2: 2}
# Opens a PDF with pikepdf and with pypdf in a child (a hostile file may hang or crash a
# library), printing each one's page count or null.
OPENER = r"""
import json, logging, sys, warnings
warnings.simplefilter("ignore")
logging.disable(logging.CRITICAL)
out = {}
try:
    import pikepdf
    with pikepdf.open(sys.argv[1]) as pdf:
        out["pikepdf"] = len(pdf.pages)
except Exception:
    out["pikepdf"] = None
try:
    import pypdf
    out["pypdf"] = len(pypdf.PdfReader(sys.argv[1]).pages)
except Exception:
    out["pypdf"] = None
print(json.dumps(out))
"""


def run(cmd: list[str], timeout: int = TIMEOUT) -> tuple[int | None, str]:
    """Exit code (None on timeout) and the combined output, bounded."""
    try:
        done = subprocess.run(cmd, capture_output=True, timeout=timeout, text=True, errors="replace")
    except subprocess.TimeoutExpired:
        return None, "timeout"
    return done.returncode, (done.stdout + done.stderr)[-4000:]


def qpdf_rank(path: Path) -> int:
    code, _ = run(["qpdf", "--check", str(path)])
    return QPDF_RANK.get(code, 3)  # a crash or timeout ranks worst


def opens(path: Path) -> dict:
    code, out = run([sys.executable, "-c", OPENER, str(path)])
    try:
        return json.loads(out.strip().splitlines()[-1]) if code == 0 else {"pikepdf": None, "pypdf": None}
    except (ValueError, IndexError):
        return {"pikepdf": None, "pypdf": None}


def exiftool_writes(path: Path, tmp: Path) -> bool:
    out = tmp / "exiftool.pdf"
    code, _ = run(["exiftool", "-q", "-q", "-o", str(out), f"-XMP-dc:Identifier=pith:{BODY}", str(path)])
    return code == 0 and out.is_file() and out.stat().st_size > 0


def input_facts(path: Path, tmp: Path) -> dict:
    return {"exiftool": exiftool_writes(path, tmp), "qpdf": qpdf_rank(path), "opens": opens(path)}


def harms(path: Path, out: Path, facts: dict) -> list[str]:
    """What the stamp made worse, empty when nothing."""
    found = []
    original, stamped = path.read_bytes(), out.read_bytes()
    if stamped == original:
        return found  # already carried the number: copied unchanged
    if not stamped.startswith(original):
        found.append("input is not a prefix of the output")
    if qpdf_rank(out) > facts["qpdf"]:
        found.append("qpdf --check verdict got worse")
    after = opens(out)
    for lib, pages in facts["opens"].items():
        if pages is not None and after.get(lib) != pages:
            found.append(f"{lib} opened the input ({pages} pages), output gives {after.get(lib)}")
    code, text = run([PITHTEX, "inspect", "--json", str(out)])
    try:
        number = json.loads(text[text.index("{"):]).get("number") if code == 0 else None
    except ValueError:
        number = None
    if number != BODY:
        found.append(f"inspect reads back {number!r} (exit {code})")
    return found


def pithtex_stamp(path: Path, out: Path) -> tuple[str, str]:
    code, text = run([PITHTEX, "stamp", str(path), "--number", BODY, "-o", str(out)])
    if code == 0 and "Traceback" not in text:
        return "stamped", ""
    if code in (1, 2, 3) and "Traceback" not in text:
        return "refused", text.strip().splitlines()[-1] if text.strip() else ""
    return "bug", f"exit {code}: {text.strip()[-600:]}"


class Cache:
    def __init__(self, path: Path | None) -> None:
        self.path, self.lock = path, threading.Lock()
        self.data = json.loads(path.read_text()) if path and path.is_file() else {}

    def facts(self, pdf: Path, tmp: Path) -> dict:
        key = hashlib.sha256(pdf.read_bytes()).hexdigest()
        with self.lock:
            if key in self.data:
                return self.data[key]
        found = input_facts(pdf, tmp)
        with self.lock:
            self.data[key] = found
        return found

    def save(self) -> None:
        if self.path:
            self.path.write_text(json.dumps(self.data))


def check(pdf: Path, root: Path, cache: Cache) -> dict:
    with tempfile.TemporaryDirectory(prefix="heldout-") as name:
        tmp = Path(name)
        facts = cache.facts(pdf, tmp)
        out = tmp / "pith.pdf"
        verdict, message = pithtex_stamp(pdf, out)
        harmed = harms(pdf, out, facts) if verdict == "stamped" and out.is_file() else []
        if verdict == "stamped" and not out.is_file():
            verdict, message = "bug", "exit 0 but no output file"
    rel = pdf.relative_to(root)
    return {"file": str(rel), "project": rel.parts[0] if len(rel.parts) > 1 else ".",
            "exiftool": facts["exiftool"], "pithtex": verdict, "message": message, "harm": harmed}


def report(results: list[dict]) -> None:
    by = defaultdict(Counter)
    for r in results:
        for key in (r["project"], "TOTAL"):
            c = by[key]
            c["files"] += 1
            c["exiftool"] += r["exiftool"]
            c["pithtex"] += r["pithtex"] == "stamped"
            c["harmed"] += bool(r["harm"])
            c["bugs"] += r["pithtex"] == "bug"
            c["exif_only"] += r["exiftool"] and r["pithtex"] != "stamped"
            c["pith_only"] += r["pithtex"] == "stamped" and not r["exiftool"]
    head = f"{'project':28} {'files':>6} {'exiftool':>9} {'pithtex':>8} {'harmed':>7} {'bugs':>5} " \
           f"{'exif-only':>9} {'pith-only':>9}"
    print(head)
    for name in sorted(by, key=lambda n: (n == "TOTAL", n)):
        c = by[name]
        print(f"{name:28} {c['files']:6} {c['exiftool']:9} {c['pithtex']:8} {c['harmed']:7} {c['bugs']:5} "
              f"{c['exif_only']:9} {c['pith_only']:9}")
    sections = [("exiftool writes, pithtex does not", lambda r: r["exiftool"] and r["pithtex"] != "stamped"),
                ("harmed", lambda r: r["harm"]), ("bugs", lambda r: r["pithtex"] == "bug")]
    for title, keep in sections:
        rows = [r for r in results if keep(r)]
        if rows:
            print(f"\n{title} ({len(rows)}):")
            for r in rows:
                detail = "; ".join(r["harm"]) or r["message"]
                print(f"  {r['file']}: {r['pithtex']}: {detail[:300]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", nargs="?", type=Path, default=None, help="a folder of PDFs")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", type=Path, help="write every file's result here")
    ap.add_argument("--only", default="", help="only files whose path contains this")
    args = ap.parse_args()
    header(__file__)
    root = (args.folder or default_corpus()).resolve()
    pdfs = sorted(p for p in root.rglob("*") if p.suffix.lower() == ".pdf" and p.is_file()
                  and args.only in str(p.relative_to(root)))
    # A folder in the checkout (the tests' PDFs) gets no cache file: the tree stays as committed.
    cache = Cache(None if root.is_relative_to(ROOT) else root / ".heldout-cache.json")
    try:
        with ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(lambda p: check(p, root, cache), pdfs))
    finally:
        cache.save()
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    report(results)


if __name__ == "__main__":
    main()
