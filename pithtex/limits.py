"""Size limits that more than one module enforces, each written once.

Every limit bounds what one untrusted input may make pithtex hold in memory; where two
readers meet the same input (a record as a file and as a PDF attachment, the XMP packet in
the facts reader and in the stamper, a resolver's answer in pithtex and in <pith-badge>),
they refuse it at the same size. A limit only one module knows stays in that module.
"""

from __future__ import annotations

# A Pith record: a file, stdin, or the record attached to a PDF; larger is not a record.
MAX_RECORD_BYTES = 16 * 1024 * 1024
# Characters all @string expansions of one .bib file may make together (a file of @strings
# that double each other grows without bound otherwise).
MAX_BIB_EXPANDED = 16 * 1024 * 1024
# A PDF's XMP packet, decoded; larger is not metadata, and is refused before parsing.
MAX_XMP_PACKET = 8 * 1024 * 1024
# A resolver's answer, read by `pithtex verify`/`badge` and by pith-badge.js alike.
MAX_RESPONSE_BYTES = 4 * 1024 * 1024
# One network deadline, in seconds, for one whole fetch (connect, headers, body): the command
# line's default (PITH_TIMEOUT overrides it there) and pith-badge.js's, rendered in, so a slow
# server cannot make the page say "unchecked" where `pithtex verify` says "verified".
NETWORK_SECONDS = 20.0
# One TeX run's time limit in `check` and `bundle`, in seconds: the sandbox's default and
# both commands' --timeout default.
TEX_RUN_SECONDS = 120.0


def usable_seconds(value: float, shown: str, *, zero: bool = False) -> float:
    """`value` when it is a usable time limit: positive (or 0 when `zero`) and finite (`inf` or
    `1e309` would be no limit at all, and `nan` compares false with every deadline); else
    PithError (exit 2), naming the setting as `shown` (`--timeout inf`, `PITH_TIMEOUT='abc'`)."""
    import math

    from .errors import PithError

    if not (math.isfinite(value) and (value > 0 or (zero and value == 0))):
        raise PithError(f"{shown}: give a {'non-negative' if zero else 'positive'}, finite number of seconds")
    return value


def env_seconds(name: str, *, most: float, zero: bool = False) -> float | None:
    """The environment variable `name` as seconds (at most `most`), None when unset or empty: the
    one reader of such settings (PITH_TIMEOUT, PITHTEX_LOCK_WAIT). A value that is no usable
    limit (`abc`, `-1`, `nan`, `inf`, `0` unless `zero`) is refused, never replaced by a default."""
    import math
    import os

    text = os.environ.get(name, "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    return min(usable_seconds(value, f"{name}={text!r}", zero=zero), most)


# -- page 1 as a reader sees it (pithtex/pdf/page.py, pdfium.py, glyphs.py) ------------------------
# Device pixels of page 1 rendered to check what its top part shows (twice: with and without
# its text); a title band at 144 dpi is well under this.
MAX_RENDER_PIXELS = 2_000_000
# Form XObjects inside form XObjects on page 1: deeper is refused before PDFium parses it (a
# real page nests a few; each level of a fan-out doubles what PDFium would hold).
MAX_FORM_DEPTH = 12
# Fonts whose text layer is checked against their glyph names, and ToUnicode map bytes read each.
MAX_FONTS_CHECKED = 500
MAX_TOUNICODE_BYTES = 256 * 1024
