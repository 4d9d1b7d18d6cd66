"""`inspect_pdf(path)`: everything pith in a PDF as a JSON-ready dict.

A thin view of `facts.Facts` (the one reader) for `pithtex inspect --json` and library
users who want plain data.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import UnreadablePdf
from .facts import facts_of

# The name this module's callers have always caught.
InspectError = UnreadablePdf


def inspect_pdf(path: str | Path, password: bytes | None = None) -> dict[str, Any]:
    """Everything pith in a PDF (see `Facts.as_dict`).

    Keys: number (the body or None), info {PithNumber, PithURL}, xmp {number, url, long} or
    None, links [URI...], attachment (bool), agree (bool), pithtex_update (bool), and
    sources, encrypted, encryption, signed, pdfa, links_all_pages for detail.
    """
    return facts_of(path, password).as_dict()
