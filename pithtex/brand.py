"""The one source of the pith look and its addresses.

pith.sty, the PDF stamp badge and the web badges all draw from these values, so a change
of colour, label or URL here reaches every output at the next `pithtex render`.
"""

from __future__ import annotations

from dataclasses import dataclass

VERSION = "0.1.0"
# The date in \ProvidesPackage; bump it together with VERSION.
RELEASE_DATE = "2026/11/30"

BASE_URL = "https://pith.science"
PAPER_URL = BASE_URL + "/paper/{short8}"

XMP_NAMESPACE = "https://pith.science/ns/1.0/"
XMP_PREFIX = "pith"

LABEL = "pith"

# The words a badge uses for its state, the same in the SVG, PNG, web element, CLI and
# README: verified (exit 0), invalid (exit 1: the record verifiably fails), unchecked
# (exit 3: nothing could be decided: unknown key, network, CORS, no Ed25519, ...).
VERIFIED, INVALID, UNCHECKED = "verified", "invalid", "unchecked"
CHECKING = "checking"  # the web element's word while its check runs
STATES = (VERIFIED, INVALID, UNCHECKED)


@dataclass(frozen=True)
class Colour:
    """An sRGB colour; `hex` for SVG/HTML, `rgb01` for PDF and LaTeX."""

    hex: str

    @property
    def rgb(self) -> tuple[int, int, int]:
        h = self.hex.lstrip("#")
        return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)

    @property
    def rgb01(self) -> tuple[float, float, float]:
        return tuple(round(c / 255, 4) for c in self.rgb)  # type: ignore[return-value]

    @property
    def latex_rgb(self) -> str:
        """Comma-separated 0..1 components for xcolor's or a driver's `rgb` model."""
        return ",".join(f"{c:.3f}".rstrip("0").rstrip(".") or "0" for c in self.rgb01)


@dataclass(frozen=True)
class Theme:
    label_bg: Colour
    label_fg: Colour
    message_bg: Colour
    message_fg: Colour
    verified_bg: Colour
    # The other states (see STATES): red only when the record verifiably fails (exit 1);
    # grey when nothing could be decided (exit 3) or while checking. Every status colour
    # holds WCAG AA (4.5:1) against message_fg, the status text colour.
    invalid_bg: Colour
    unchecked_bg: Colour


LIGHT = Theme(
    label_bg=Colour("#555555"),
    label_fg=Colour("#ffffff"),
    message_bg=Colour("#0b7a75"),
    message_fg=Colour("#ffffff"),
    verified_bg=Colour("#2e7d32"),
    invalid_bg=Colour("#c62828"),
    unchecked_bg=Colour("#6a6a6a"),
)
DARK = Theme(
    label_bg=Colour("#3a3a3a"),
    label_fg=Colour("#ffffff"),
    message_bg=Colour("#14a39c"),
    message_fg=Colour("#0d1117"),
    verified_bg=Colour("#3fb950"),
    invalid_bg=Colour("#f85149"),
    unchecked_bg=Colour("#8b949e"),
)
THEMES = {"light": LIGHT, "dark": DARK}

# The ink colour of the printed badge in a paper (text and logo).
PRINT_COLOUR = LIGHT.message_bg


@dataclass(frozen=True)
class Circle:
    """A circle in logo units; `stroke` > 0 draws a ring of that width, 0 fills it."""

    cx: float
    cy: float
    r: float
    stroke: float = 0.0


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
