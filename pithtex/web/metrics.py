"""Text widths for badge layout, from a table shipped as data (no font needed at render time).

shields.io measures 11 px Verdana; Verdana is not free to ship and is not on a Debian
machine, so our table holds the advance widths of **DejaVu Sans at 11 px** (Debian's
`fonts-dejavu-core`, version 2.37), measured with Pillow at 100x and divided back, for
printable ASCII. The PNG badge draws with that same font, so layout and pixels agree;
SVG text uses `textLength`, so a browser that substitutes another font still fits.

Regenerate the table with `python -m pithtex.web.metrics [FONT.ttf]`.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path

TABLE = "data/text-widths-11px.json"
# Where Debian puts it; the PNG badge (badge.py) draws with this file too.
DEJAVU_SANS = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
FONT_SIZE = 11
# Measured at this multiple of the size so hinting and rounding do not distort widths.
_OVERSAMPLE = 100


@lru_cache(maxsize=1)
def _table() -> tuple[dict[str, float], float]:
    data = json.loads(resources.files("pithtex").joinpath(TABLE).read_text("utf-8"))
    widths = {char: float(w) for char, w in data["widths"].items()}
    return widths, float(data["fallback"])


@lru_cache(maxsize=4096)
def text_width(text: str) -> float:
    """Width in px of `text` at 11 px; characters outside the table count as the widest ('W')."""
    widths, fallback = _table()
    return round(sum(widths.get(char, fallback) for char in text), 2)


def measure(font_path: Path = DEJAVU_SANS) -> dict[str, object]:
    """The table document measured from a font file (needs Pillow)."""
    from PIL import ImageFont

    font = ImageFont.truetype(str(font_path), FONT_SIZE * _OVERSAMPLE)
    widths = {chr(c): round(font.getlength(chr(c)) / _OVERSAMPLE, 3) for c in range(32, 127)}
    family, style = font.getname()
    return {
        "font": f"{family} {style}",
        "source": str(font_path),
        "size_px": FONT_SIZE,
        "note": "advance widths in px; measured with Pillow by pithtex.web.metrics.measure",
        "fallback": max(widths.values()),
        "widths": widths,
    }


if __name__ == "__main__":  # regenerate the shipped table
    import sys

    font = Path(sys.argv[1]) if len(sys.argv) > 1 else DEJAVU_SANS
    out = Path(__file__).parents[1] / TABLE
    out.write_text(json.dumps(measure(font), indent=1, ensure_ascii=False) + "\n", "utf-8")
    print(f"wrote {out}")
