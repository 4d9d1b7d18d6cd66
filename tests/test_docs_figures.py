"""The figures docs/web.md states about the built files, measured on those files."""

from __future__ import annotations

import gzip
import re

from .conftest import ROOT

SCRIPT = ROOT / "web" / "dist" / "pith-badge.js"


def kilobytes(size: int) -> str:
    return f"{size / 1000:.1f}"


def test_the_script_size_in_docs_web_md_is_the_built_script_s():
    text = (ROOT / "docs" / "web.md").read_text(encoding="utf-8")
    stated = re.findall(r"our ([0-9.]+) kB script \(([0-9.]+) kB gzipped", " ".join(text.split()))
    assert stated, "docs/web.md no longer states the script's size in the form this test reads"
    data = SCRIPT.read_bytes()
    measured = (kilobytes(len(data)), kilobytes(len(gzip.compress(data, compresslevel=9, mtime=0))))
    assert all(pair == measured for pair in stated), (
        f"docs/web.md says {stated}, web/dist/pith-badge.js is {measured[0]} kB ({measured[1]} kB gzipped)")
