"""Badges for a Pith Number: SVG, PNG, QR codes and paste-ready snippets.

The SVG follows the shields.io "flat" look (20 px high, 5 px padding, text drawn at 10x
and scaled by `scale(.1)` with `textLength`, `role="img"`, `aria-label`, `<title>`), with
widths from `pithtex.web.metrics` so no font is needed. Everything here is a pure function of
its arguments; the caller decides which state word a badge shows (see `pithtex.client.badge_state`
and `brand.STATES`): "verified" only for a record that verified against a trusted key and
hashes to this very number, "invalid" for one that verifiably fails, "unchecked" when it
could not be decided, and no word at all when no record was checked.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import brand, safetext
from ..number import PithNumber
from . import shape as badgeshape
from .metrics import DEJAVU_SANS, text_width
from .shape import (
    CHECK_PX,
    HEIGHT,
    LOGO_GAP,
    LOGO_PX,
    MARK_STROKE,
    MARKS,
    PAD,
    label_width,
    status_width,
)

if TYPE_CHECKING:
    import qrcode

FORMATS = ("svg", "png", "qr", "html", "md", "rst", "embed")


@dataclass(frozen=True)
class BadgeState:
    """What a badge may claim: a word of `brand.STATES`, or None when no record was checked.

    `word` is "verified" only from `app.badge_state` with a passing report for this number."""

    word: str | None = None
    reason: str = "no record was checked"
    key_id: str | None = None
    signer: str | None = None  # brand.signed_by_registry / signed_by_added, when verified

    def __post_init__(self) -> None:
        if self.word is not None and self.word not in brand.STATES:
            raise ValueError(f"unknown badge state {self.word!r}")

    @property
    def verified(self) -> bool:
        return self.word == brand.VERIFIED

    @property
    def exit_code(self) -> int:
        """The command line's exit code for this outcome (0 when nothing was checked)."""
        return brand.STATES[self.word] if self.word else 0


def state_of_report(report: Any) -> BadgeState:
    """The badge state of a `verify.Report`: its exit code's word, and the first check not passed."""
    word = brand.STATE_OF_EXIT[report.exit_code]
    if word == brand.VERIFIED:
        return BadgeState(word, f"hash and signature by {report.key_id} checked", report.key_id, report.signer)
    wanted = "fail" if word == brand.INVALID else "unknown"
    problems = [f"{name}: {c.detail}" for name, c in report.checks.items() if c.status == wanted]
    return BadgeState(word, problems[0] if problems else "the record did not verify", report.key_id)


def esc(text: str) -> str:
    """XML-escape text and attribute values (quotes included; no character XML forbids)."""
    return safetext.xml(text)


# -- SVG: the drawing is pithtex.web.shape's table, the one pith-badge.js draws too ------
@dataclass(frozen=True)
class Layout:
    """Segment widths in px: label (logo + 'pith'), message (the number), status (optional)."""

    label: int
    message: int
    status: int

    @property
    def width(self) -> int:
        return self.label + self.message + self.status


def message_text(number: PithNumber) -> str:
    """The badge's message: the 8 characters of the short form (the label already says 'pith')."""
    return number.body[:8]


def layout(number: PithNumber, word: str | None = None) -> Layout:
    """The widths for a badge showing state `word` (None or False: no status segment)."""
    status = status_width(word, word in MARKS) if word else 0
    return Layout(label_width(), PAD + round(text_width(message_text(number))) + PAD, status)


def aria_label(number: PithNumber, word: str | None = None) -> str:
    return f"{brand.LABEL}: {message_text(number)}" + (f", {word}" if word else "")


def alt_text(number: PithNumber) -> str:
    """The one alt text of a badge image, in every snippet (HTML, Markdown, reST) alike;
    equal to a plain badge's own aria-label."""
    return aria_label(number)


def svg_title(number: PithNumber, state: BadgeState) -> str:
    name = number.long or number.prefixed
    if state.word == brand.VERIFIED:
        signer = state.signer or brand.signed_by_registry(str(state.key_id))
        return f"{name}, verified: the record hashes to this number, {signer}"
    if state.word == brand.INVALID:
        return f"{name}, invalid: the record fails its check ({_capped(state.reason)})"
    if state.word == brand.UNCHECKED:
        return f"{name}, unchecked: the check could not be decided ({_capped(state.reason)})"
    return f"{name} (Pith Number; its record was not checked for this badge)"


def _capped(text: str, limit: int = 200) -> str:
    """A reason shown in a tooltip: one line (controls, format and bidi characters spelled out),
    at most `limit` characters."""
    text = safetext.shown(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def svg(number: PithNumber, state: BadgeState | None = None, theme: str = brand.DEFAULT_THEME) -> str:
    """The badge as a standalone SVG document (UTF-8 text)."""
    state = state or BadgeState()
    lay = layout(number, state.word)
    uid = f"{number.body[:8]}{state.word[0] if state.word else ''}{theme[0]}"
    return badgeshape.compiled_badge(state.word, lay.status, theme).render(
        message_text(number), uid, aria_label(number, state.word), svg_title(number, state))


# -- PNG ------------------------------------------------------------------------------------
# The font of the width table (metrics.py), so PNG pixels and the layout agree.
FONT_PATHS = (str(DEJAVU_SANS),)


def png_font_path() -> str | None:
    """The TrueType font PNG badges use, or None when Pillow's built-in font stands in."""
    from pathlib import Path

    return next((path for path in FONT_PATHS if Path(path).is_file()), None)


def _font(size: int) -> Any:
    """DejaVu Sans (Debian's fonts-dejavu-core, the font of the width table); else Pillow's own."""
    from PIL import ImageFont

    path = png_font_path()
    if path:
        return ImageFont.truetype(path, size)
    return ImageFont.load_default(size)  # a scalable fallback; widths then differ slightly


def png(number: PithNumber, state: BadgeState | None = None, theme: str = brand.DEFAULT_THEME,
        scale: int = 1) -> bytes:
    """The badge drawn with Pillow at 1x to 4x (same layout and state words as the SVG).

    Every shape is painted at the target size, each pixel covered by how far its centre
    lies from the shape's edge (see `_paint`); nothing is drawn larger and resampled. An
    edge pixel is thus a mix of the two colours that meet there, never darker than both,
    whereas a downsampling filter with negative lobes (Lanczos) rings a dark halo around
    the light logo. Text is drawn by FreeType at the final size, so glyphs stay hinted."""
    import io

    from PIL import Image

    if scale not in (1, 2, 3, 4):
        raise ValueError("scale must be 1, 2, 3 or 4")
    state = state or BadgeState()
    t = brand.THEMES[theme]
    lay = layout(number, state.word)
    s = scale
    img = Image.new("RGBA", (lay.width * s, HEIGHT * s), (0, 0, 0, 0))
    segments = [(0, lay.label, t.label_bg), (lay.label, lay.message, t.message_bg)]
    if state.word:
        segments.append((lay.label + lay.message, lay.status, t.state_bg(state.word)))
    for x, w, colour in segments:  # segment edges fall on whole pixels at every scale
        img.paste((*colour.rgb, 255), (x * s, 0, (x + w) * s, HEIGHT * s))
    pixels = img.load()
    k = LOGO_PX / brand.LOGO_SIZE * s
    for c in brand.LOGO:
        cx, cy = PAD * s + c.cx * k, 3 * s + (brand.LOGO_SIZE - c.cy) * k
        outer = c.r * k + c.stroke * k / 2
        box = (cx - outer - 1, cy - outer - 1, cx + outer + 1, cy + outer + 1)
        _paint(pixels, img.size, box, _ring(cx, cy, c.r * k, c.stroke * k) if c.stroke else _disc(cx, cy, c.r * k),
               t.label_fg.rgb)
    for line in MARKS.get(state.word or "", ()):
        x0 = (lay.label + lay.message + PAD) * s
        points = [(x0 + px * s, py * s) for px, py in line]
        half = MARK_STROKE * s / 2
        box = (min(p[0] for p in points) - half - 1, min(p[1] for p in points) - half - 1,
               max(p[0] for p in points) + half + 1, max(p[1] for p in points) + half + 1)
        _paint(pixels, img.size, box, _polyline(points, half), t.message_fg.rgb)
    _round_corners(pixels, img.size, 3 * s)
    _png_texts(img, number, state, t, lay, s)
    from PIL.PngImagePlugin import PngInfo

    info = PngInfo()
    info.add_itxt("Title", svg_title(number, state))  # what the SVG's <title> says, in words
    out = io.BytesIO()
    img.save(out, "PNG", optimize=True, pnginfo=info)
    return out.getvalue()


# A shape for `_paint`: the signed distance in px from a point to its edge (< 0 inside).
Distance = Callable[[float, float], float]


def _disc(cx: float, cy: float, r: float) -> Distance:
    return lambda x, y: math.hypot(x - cx, y - cy) - r


def _ring(cx: float, cy: float, r: float, width: float) -> Distance:
    return lambda x, y: abs(math.hypot(x - cx, y - cy) - r) - width / 2


def _polyline(points: list[tuple[float, float]], half: float) -> Distance:
    """A stroke `2 * half` wide along `points`, with round caps and joins."""
    pairs = list(itertools.pairwise(points))

    def distance(x: float, y: float) -> float:
        return min(_segment_distance(x, y, a, b) for a, b in pairs) - half

    return distance


def _segment_distance(x: float, y: float, a: tuple[float, float], b: tuple[float, float]) -> float:
    (ax, ay), (bx, by) = a, b
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(x - ax - t * dx, y - ay - t * dy)


def _coverage(distance: float) -> float:
    """The share of a pixel a shape covers, from the distance of the pixel's centre to the
    shape's edge (exact for a straight edge along a pixel row, close for curves)."""
    return min(1.0, max(0.0, 0.5 - distance))


def _paint(pixels: Any, size: tuple[int, int], box: tuple[float, ...], distance: Distance,
           colour: tuple[int, int, int]) -> None:
    """Blend `colour` over the pixels of `box` by the shape's coverage of each."""
    x0, y0 = max(0, math.floor(box[0])), max(0, math.floor(box[1]))
    x1, y1 = min(size[0], math.ceil(box[2])), min(size[1], math.ceil(box[3]))
    for y in range(y0, y1):
        for x in range(x0, x1):
            a = _coverage(distance(x + 0.5, y + 0.5))
            if a > 0:
                old = pixels[x, y]
                pixels[x, y] = (*(round(o + (c - o) * a) for o, c in zip(old[:3], colour, strict=True)), old[3])


def _round_corners(pixels: Any, size: tuple[int, int], r: int) -> None:
    """Fade the alpha of the four r x r corners outside their quarter circles."""
    w, h = size
    for cx, cy, xs, ys in ((r, r, range(r), range(r)), (w - r, r, range(w - r, w), range(r)),
                           (r, h - r, range(r), range(h - r, h)), (w - r, h - r, range(w - r, w), range(h - r, h))):
        for y in ys:
            for x in xs:
                a = _coverage(math.hypot(x + 0.5 - cx, y + 0.5 - cy) - r)
                old = pixels[x, y]
                pixels[x, y] = (*old[:3], round(old[3] * a))


def _status_text_x(x: float, word: str) -> float:
    """Where the status word's box starts in a status segment starting at `x`."""
    return x + PAD + (CHECK_PX + LOGO_GAP if word in MARKS else 0)


def _png_texts(img: Any, number: PithNumber, state: BadgeState, t: brand.Theme, lay: Layout, s: int) -> None:
    """Text is drawn at the final size so glyphs stay hinted and sharp."""
    from PIL import ImageDraw

    draw = ImageDraw.Draw(img)
    font = _font(11 * s)
    items = [((PAD + LOGO_PX + LOGO_GAP + (lay.label - PAD - LOGO_PX - LOGO_GAP - PAD) / 2), brand.LABEL,
              t.label_fg), (lay.label + lay.message / 2, message_text(number), t.message_fg)]
    if state.word:
        x0 = lay.label + lay.message
        x = _status_text_x(x0, state.word)
        items.append((x + (lay.status - (x - x0) - PAD) / 2, state.word, t.message_fg))
    for cx, text, colour in items:
        draw.text((cx * s, 14 * s), text, font=font, fill=colour.rgb, anchor="ms")


# -- QR -------------------------------------------------------------------------------------
def qr_text(number: PithNumber) -> str:
    """The URL as encoded: scheme and host upper-cased (case-insensitive by RFC 3986), so
    they and the base32 body use QR's alphanumeric mode; the path word `pith` stays lower
    case because a server's paths may be case-sensitive. At level Q this is the same QR
    version (4) as the fully upper-cased URL, and it always resolves."""
    scheme, _, rest = number.url.partition("://")
    host, _, path = rest.partition("/")
    return f"{scheme.upper()}://{host.upper()}/{path}"


def _qr(number: PithNumber) -> qrcode.QRCode[Any]:
    import qrcode
    from qrcode.util import MODE_8BIT_BYTE, MODE_ALPHA_NUM, QRData

    text = qr_text(number)
    qr = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_Q, border=4)
    # Explicit segments: alphanumeric runs, bytes only for lower-case (qrcode would choose
    # similarly, but stating it keeps the version stable across qrcode releases).
    def segment(run: str, upper: bool | None) -> None:
        # types-qrcode gives the MODE_* constants as int, QRData's mode as Literal[1, 2, 4].
        qr.add_data(QRData(run, mode=MODE_ALPHA_NUM if upper else MODE_8BIT_BYTE))  # type: ignore[call-overload]

    run, upper = "", None
    for char in text:
        is_upper = not char.islower()
        if upper is not None and is_upper != upper:
            segment(run, upper)
            run = ""
        run, upper = run + char, is_upper
    segment(run, upper)
    qr.make(fit=True)
    return qr


def qr_matrix(number: PithNumber) -> list[list[bool]]:
    return _qr(number).get_matrix()


def qr_svg(number: PithNumber, module_px: int = 4) -> str:
    """The QR code as SVG: dark on white with the quiet zone, all dark modules in one path."""
    matrix = qr_matrix(number)
    n = len(matrix)
    size = n * module_px
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {n} {n}" '
            f'shape-rendering="crispEdges" role="img" aria-label="QR code: {esc(number.url)}">'
            f"<title>{esc(number.url)}</title>"
            f'<rect width="{n}" height="{n}" fill="#fff"/>'
            f'<path d="{qr_path(matrix)}" fill="none" stroke="#000" stroke-width="1"/></svg>')


def qr_path(matrix: list[list[bool]]) -> str:
    """Path data drawing each horizontal run of dark modules as one stroke, 1 unit wide,
    along the middle of its row (butt caps: a run of n modules is exactly n units long).
    Each row starts with an absolute move; the runs after it move relatively ("m2 0"):
    about 1.8 kB of path for a version-4 code (2.2 kB with the SVG around it), where a
    square per module took 7.9 kB."""
    parts = []
    for y, row in enumerate(matrix):
        x, end = 0, None  # `end`: where the previous run of this row ended
        while x < len(row):
            if not row[x]:
                x += 1
                continue
            start = x
            while x < len(row) and row[x]:
                x += 1
            parts.append(f"M{start} {y}.5" if end is None else f"m{start - end} 0")
            parts.append(f"h{x - start}")
            end = x
    return "".join(parts)


def qr_png(number: PithNumber, module_px: int = 8) -> bytes:
    import io

    from PIL import Image

    matrix = qr_matrix(number)
    n = len(matrix)
    img = Image.new("1", (n, n), 1)
    img.putdata([0 if dark else 1 for row in matrix for dark in row])
    img = img.resize((n * module_px, n * module_px), Image.Resampling.NEAREST)
    out = io.BytesIO()
    img.save(out, "PNG", optimize=True)
    return out.getvalue()


# -- snippets -------------------------------------------------------------------------------
def image_name(number: PithNumber, theme: str = brand.DEFAULT_THEME, ext: str = "svg") -> str:
    """The default file name snippets point at: write it beside the page with --format svg."""
    return f"pith-{number.body[:8]}{'' if theme == brand.DEFAULT_THEME else '-' + theme}.{ext}"


def snippet(kind: str, number: PithNumber, image_url: str | None = None, dark_url: str | None = None) -> str:
    """A paste-ready HTML, Markdown or reStructuredText badge linking the number's page."""
    from .templating import render_template

    image_url = safetext.url(image_url) if image_url else image_name(number)
    if dark_url:
        dark_url = safetext.url(dark_url)
    elif image_url == image_name(number):  # the default names: the dark theme's file is beside it
        dark_url = image_name(number, brand.DARK_THEME)
    return render_template(
        f"snippet.{kind}.j2",
        number=number,
        url=number.url,
        image_url=image_url,
        dark_url=dark_url,
        alt=alt_text(number),
        width=layout(number).width,
        height=HEIGHT,
    )
