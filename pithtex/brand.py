"""The one source of the pith look and its addresses.

pith.sty, the PDF stamp badge and the web badges all draw from these values, so a change
of colour, label or URL here reaches every output at the next `make render`.
"""

from __future__ import annotations

from . import errors
from .value import Frozen

VERSION = "0.1.0"
# The date in \ProvidesPackage; bump it together with VERSION.
RELEASE_DATE = "2026/11/30"

BASE_URL = "https://pith.science"
PAPER_URL = BASE_URL + "/paper/{short8}"

XMP_NAMESPACE = "https://pith.science/ns/1.0/"
XMP_PREFIX = "pith"

LABEL = "pith"

# arXiv stamps its grey identifier into the left margin of page 1 (x = 12-32 pt or so): nothing
# of pith's may start inside this band, in points from the page's left edge. pith.sty keeps a
# flush-left badge out of it, the PDF stamp sets its badge clear of it, `check` flags a link
# in it and the page reader takes the stamp's text from it.
ARXIV_BAND = 40.0

# The three outcomes of a check, one word each, shown alike by the SVG and PNG badges, the
# web element, `pithtex verify` and the README; each word goes with the exit code of the
# same outcome. A badge made without any check shows no state word at all.
VERIFIED = "verified"  # hash, number and a pinned key's signature all hold
INVALID = "invalid"  # the record verifiably fails (tampered, wrong number, bad signature)
UNCHECKED = "unchecked"  # cannot be decided (no receipt, unknown key, network, offline)
STATES: dict[str, int] = {VERIFIED: errors.OK, INVALID: errors.FAILED, UNCHECKED: errors.UNDECIDED}
STATE_OF_EXIT: dict[int, str] = {code: word for word, code in STATES.items()}
CHECKING = "checking"  # the web element's word while its check runs (drawn in unchecked_bg)

# Whose key signed a record, in the words every output uses (CLI lines, --json, the SVG and
# PNG titles; pith-badge.js says the same with ADDED_BY_PAGE). "verified" by a key someone
# added is never worded like a registry signature.
ADDED_BY_OPTION = "--keys"  # the command line's option
ADDED_BY_PAGE = "this page"  # the web element: its keys attribute or window.pithBadge.keys


def signed_by_registry(key_id: str) -> str:
    return f"signed by {key_id}, a pinned Pith registry key"


def signed_by_added(key_id: str, added_by: str) -> str:
    return f"signed by {key_id}, {added_key(added_by)}"


def added_key(added_by: str) -> str:
    """Whose a key is that was added (--keys, a page's keys), as verify and a badge say it."""
    return f"a key {added_by} added, not the Pith registry"


def key_id_unusable(source: str, shown: str) -> str:
    """Why a key was refused: its id (`shown`, quoted by safetext.shown) is empty, has spaces at
    its ends, or holds a control or format character, so it could pass for another id (such
    as the registry's plus a zero-width space). pith-badge.js says the same."""
    return (f"{source}: key id {shown} is empty, or holds spaces at its ends or control, format or invisible "
            "characters; refusing to trust it")


def key_id_clash(source: str, key_id: str) -> str:
    """Why a key offered beside the registry's was refused: it took a pinned key's id."""
    return (f"{source}: key {key_id!r} takes the id of a pinned Pith registry key; refused "
            "(the pinned key stays the only key of that id)")


class Colour(Frozen):
    """An sRGB colour; `hex` for SVG/HTML, `rgb01` for PDF and LaTeX."""

    __slots__ = ("hex",)
    hex: str

    def __init__(self, hex: str) -> None:
        object.__setattr__(self, "hex", hex)

    @property
    def rgb(self) -> tuple[int, int, int]:
        h = self.hex.lstrip("#")
        return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)

    @property
    def rgb01(self) -> tuple[float, float, float]:
        r, g, b = self.rgb
        return round(r / 255, 4), round(g / 255, 4), round(b / 255, 4)

    @property
    def latex_rgb(self) -> str:
        """Comma-separated 0..1 components for xcolor's or a driver's `rgb` model."""
        return ",".join(f"{c:.3f}".rstrip("0").rstrip(".") or "0" for c in self.rgb01)


class Theme(Frozen):
    """Every colour of one badge theme, for every output that draws it: the SVG and PNG badge,
    `<pith-badge>` (its drawing and its detail panel) and the command line's --theme choices
    all read THEMES below, so a theme is added there and nowhere else."""

    # Field order (the order of repr and equality), not sorted.
    __slots__ = ("label_bg", "label_fg", "message_bg", "message_fg",  # noqa: RUF023
                 "verified_bg", "invalid_bg", "unchecked_bg", "page_key_bg",
                 "panel_bg", "panel_fg", "panel_border", "panel_link")
    label_bg: Colour
    label_fg: Colour
    message_bg: Colour
    message_fg: Colour
    verified_bg: Colour
    # The other two states (see STATES). Every state colour keeps message_fg at WCAG AA
    # contrast (4.5:1 or more; tests/web/test_badge_static.py measures it).
    invalid_bg: Colour
    unchecked_bg: Colour
    # A record signed by a key the page added (<pith-badge>): never the registry's green.
    page_key_bg: Colour
    # <pith-badge>'s detail panel: background, text, border, links (text and links hold WCAG
    # AA against the background).
    panel_bg: Colour
    panel_fg: Colour
    panel_border: Colour
    panel_link: Colour

    def __init__(self, *, label_bg: Colour, label_fg: Colour, message_bg: Colour, message_fg: Colour,
                 verified_bg: Colour, invalid_bg: Colour, unchecked_bg: Colour, page_key_bg: Colour,
                 panel_bg: Colour, panel_fg: Colour, panel_border: Colour, panel_link: Colour) -> None:
        for name, value in locals().items():
            if name != "self":
                object.__setattr__(self, name, value)

    def state_bg(self, word: str) -> Colour:
        """The status segment's colour for a state word from STATES."""
        return {VERIFIED: self.verified_bg, INVALID: self.invalid_bg, UNCHECKED: self.unchecked_bg}[word]


LIGHT = Theme(
    label_bg=Colour("#555555"),
    label_fg=Colour("#ffffff"),
    message_bg=Colour("#0b7a75"),
    message_fg=Colour("#ffffff"),
    verified_bg=Colour("#2e7d32"),
    invalid_bg=Colour("#c62828"),
    unchecked_bg=Colour("#6e6e6e"),
    page_key_bg=Colour("#6f42c1"),
    panel_bg=Colour("#ffffff"),
    panel_fg=Colour("#1f2328"),
    panel_border=Colour("#d0d7de"),
    panel_link=Colour("#0b5cad"),
)
DARK = Theme(
    label_bg=Colour("#3a3a3a"),
    label_fg=Colour("#ffffff"),
    message_bg=Colour("#14a39c"),
    message_fg=Colour("#0d1117"),
    verified_bg=Colour("#3fb950"),
    invalid_bg=Colour("#f85149"),
    unchecked_bg=Colour("#8b949e"),
    page_key_bg=Colour("#bc8cff"),
    panel_bg=Colour("#161b22"),
    panel_fg=Colour("#e6edf3"),
    panel_border=Colour("#30363d"),
    panel_link=Colour("#79c0ff"),
)
# The badge themes by name; any name here can be asked for by name (`badge --theme`,
# <pith-badge theme=…>, `serve`'s ?theme=). DEFAULT_THEME is drawn when none is asked (and on
# a light colour scheme), DARK_THEME on a dark one: <pith-badge theme="auto">, the HTML
# snippet's dark-mode image.
DEFAULT_THEME = "light"
DARK_THEME = "dark"
THEMES = {DEFAULT_THEME: LIGHT, DARK_THEME: DARK}

# The sample number of every example (the manual, the sample badges): the seed record's.
SAMPLE_BODY = "YBK5PTAKOSCXY2WMLIIB7DMYH6"

# The ink colour of the printed badge in a paper (text and logo).
PRINT_COLOUR = LIGHT.message_bg


# How far a cubic Bezier's control points lie from a quarter circle's ends, per unit of
# radius: 4/3 (sqrt(2) - 1), the usual constant (the curve is then off by 0.03% at most).
KAPPA = 0.5522847498


class Circle(Frozen):
    """A circle in logo units; `stroke` > 0 draws a ring of that width, 0 fills it."""

    __slots__ = ("cx", "cy", "r", "stroke")
    cx: float
    cy: float
    r: float
    stroke: float

    def __init__(self, cx: float, cy: float, r: float, stroke: float = 0.0) -> None:
        for name, value in (("cx", cx), ("cy", cy), ("r", r), ("stroke", stroke)):
            object.__setattr__(self, name, value)

    def path(self, scale: float = 1.0) -> tuple[tuple[float, float], tuple[tuple[float, ...], ...]]:
        """The circle as its start (cx + r, cy) and four cubic Bezier quarters, counter-clockwise,
        each (x1, y1, x2, y2, x3, y3), in logo units times `scale`: what every drawing of the
        logo (pith.sty's PDF and PostScript routes, the stamped PDF badge) writes out."""
        x, y, r = self.cx * scale, self.cy * scale, self.r * scale
        k = KAPPA * r
        return (x + r, y), (
            (x + r, y + k, x + k, y + r, x, y + r),
            (x - k, y + r, x - r, y + k, x - r, y),
            (x - r, y - k, x - k, y - r, x, y - r),
            (x + k, y - r, x + r, y - k, x + r, y),
        )



# The logo: a ring around a solid core (a stem's pith), in a 16 x 16 box with the
# origin at the bottom left (PDF and LaTeX orientation; SVG flips y).
LOGO_SIZE = 16.0
LOGO: tuple[Circle, ...] = (
    Circle(8.0, 8.0, 6.5, stroke=2.0),
    Circle(8.0, 8.0, 2.6),
)


def number_url(body: str, base_url: str = BASE_URL) -> str:
    """A number's page on the resolver at `base_url`."""
    return f"{base_url.rstrip('/')}/pith/{body}"


def record_url(body: str, base_url: str = BASE_URL) -> str:
    """A number's JSON record on the resolver at `base_url`."""
    return number_url(body, base_url) + ".json"
