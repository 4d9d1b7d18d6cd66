"""Our current pith.sty: where it is, and the date and version it declares.

The reference copy is the rendered `latex/pith.sty` of the project (found beside the
package in a source checkout, which is how pithtex is installed: `pip install -e .`).
Without a checkout we render it from the template with `pithtex.render`, so an installed
wheel still knows what "current" means. The \\ProvidesPackage line carries the date and
version that `pith-sty-old` compares.
"""

from __future__ import annotations

import re
import tempfile
from functools import lru_cache
from pathlib import Path

from .. import brand

REPO_STY = Path(__file__).resolve().parents[2] / "latex" / "pith.sty"
_PROVIDES = re.compile(r"\\ProvidesPackage\s*\{pith\}\s*\[\s*(\d{4})[/-](\d{2})[/-](\d{2})\s*(?:v?([0-9][0-9.]*))?")


@lru_cache(maxsize=1)
def ours() -> Path | None:
    """The path of our current pith.sty, or None when it cannot be found or rendered."""
    if REPO_STY.is_file():
        return REPO_STY
    try:  # an installed package without the checkout: render the template once
        from .. import render  # type: ignore[attr-defined]

        text = render.render_sty() if hasattr(render, "render_sty") else None
    except Exception:  # rendering is best effort; the caller reports "unknown"
        text = None
    if not text:
        return None
    out = Path(tempfile.mkdtemp(prefix="pithtex-sty-")) / "pith.sty"
    out.write_text(text, "utf-8")
    return out


Stamp = tuple[tuple[int, int, int], tuple[int, ...]]


def provides(text: str) -> Stamp | None:
    """(date, version) from `\\ProvidesPackage{pith}[YYYY/MM/DD vX.Y.Z ...]`, or None."""
    m = _PROVIDES.search(text)
    if not m:
        return None
    date = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
    version = tuple(int(x) for x in (m.group(4) or "0").strip(".").split(".") if x.isdigit())
    return date, version


def our_stamp() -> Stamp:
    path = ours()
    found = provides(path.read_text("utf-8", errors="replace")) if path else None
    if found:
        return found
    y, mo, d = (int(x) for x in brand.RELEASE_DATE.split("/"))
    return (y, mo, d), tuple(int(x) for x in brand.VERSION.split("."))


def show(stamp: Stamp | None) -> str:
    if stamp is None:
        return "unknown"
    (y, mo, d), v = stamp
    return f"{y:04d}/{mo:02d}/{d:02d} v{'.'.join(map(str, v))}"
