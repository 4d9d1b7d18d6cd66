"""Badges for a Pith Number: SVG, PNG, QR codes and paste-ready snippets.

The SVG follows the shields.io "flat" look (20 px high, 5 px padding, text drawn at 10x
and scaled by `scale(.1)` with `textLength`, `role="img"`, `aria-label`, `<title>`), with
widths from `pithtex.metrics` so no font is needed. Everything here is a pure function of
its arguments; the caller decides whether a badge may say "verified" (see `badge_state`):
only a record that verified against a trusted key, and hashes to this very number, does.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from . import badgeshape, brand
from .badgeshape import CHECK_PX, HEIGHT, LOGO_GAP, LOGO_PX, PAD, label_width, status_width
from .metrics import text_width
from .number import PithNumber

VERIFIED_TEXT = brand.VERIFIED
FORMATS = ("svg", "png", "qr", "html", "md", "rst", "embed")


@dataclass(frozen=True)
class BadgeState:
    """What a badge may claim. `verified` is True only from `badge_state` with a passing report."""

    verified: bool = False
    reason: str = "no record was checked"
    key_id: str | None = None


def badge_state(number: PithNumber, document: dict[str, Any] | None, keys: Any = None) -> BadgeState:
    """Verify `document` (when given) for `number`; 'verified' needs a passing report for this number."""
    if document is None:
        return BadgeState()
    from .verify import verify_document

    report = verify_document(document, keys, expect=number)
    if report.verified and report.number.body == number.body:
        return BadgeState(True, f"hash and signature by {report.key_id} checked", report.key_id)
    problems = [f"{name}: {c.detail}" for name, c in report.checks.items() if c.status != "pass"]
    return BadgeState(False, problems[0] if problems else "the record did not verify")


def esc(text: str) -> str:
    """XML-escape text and attribute values (quotes included)."""
    return html.escape(text, quote=True)


# -- SVG: the drawing itself is pithtex.badgeshape's, shared with pith-badge.js ----------
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


def layout(number: PithNumber, verified: bool) -> Layout:
    status = status_width(VERIFIED_TEXT, True) if verified else 0
    return Layout(label_width(), PAD + round(text_width(message_text(number))) + PAD, status)


def aria_label(number: PithNumber, verified: bool) -> str:
    return f"{brand.LABEL}: {message_text(number)}" + (", verified" if verified else "")


def svg_title(number: PithNumber, state: BadgeState) -> str:
    name = number.long or number.prefixed
    if state.verified:
        return f"{name}, verified: the record hashes to this number and {state.key_id} signed that hash"
    return f"{name} (Pith Number; its record was not checked for this badge)"


def svg(number: PithNumber, state: BadgeState | None = None, theme: str = "light") -> str:
    """The badge as a standalone SVG document (UTF-8 text)."""
    state = state or BadgeState()
    lay = layout(number, state.verified)
    drawing = badgeshape.shape(VERIFIED_TEXT if state.verified else None, lay.status, mark=True)
    uid = f"{number.body[:8]}{'v' if state.verified else ''}{theme[0]}"
    return badgeshape.to_svg(drawing, message_text(number), brand.THEMES[theme], uid,
                             aria_label(number, state.verified), svg_title(number, state))


# -- PNG ------------------------------------------------------------------------------------
FONT_PATHS = ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",)


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


def png(number: PithNumber, state: BadgeState | None = None, theme: str = "light", scale: int = 1) -> bytes:
    """The badge drawn with Pillow at 1x or 2x (same layout as the SVG)."""
    import io

    from PIL import Image, ImageDraw

    if scale not in (1, 2, 3, 4):
        raise ValueError("scale must be 1, 2, 3 or 4")
    state = state or BadgeState()
    t = brand.THEMES[theme]
    lay = layout(number, state.verified)
    s = scale
    # Draw at 4x the target and downsample: smooth circles and rounded corners.
    k = 4 * s
    img = Image.new("RGBA", (lay.width * k, HEIGHT * k), (0, 0, 0, 0))
    mask = Image.new("L", img.size, 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, img.width - 1, img.height - 1), radius=3 * k, fill=255)
    draw = ImageDraw.Draw(img)
    segments = [(0, lay.label, t.label_bg), (lay.label, lay.message, t.message_bg)]
    if state.verified:
        segments.append((lay.label + lay.message, lay.status, t.verified_bg))
    for x, w, colour in segments:
        draw.rectangle((x * k, 0, (x + w) * k - 1, HEIGHT * k), fill=colour.rgb)
    for c in brand.LOGO:
        f = LOGO_PX / brand.LOGO_SIZE * k
        cx, cy = PAD * k + c.cx * f, 3 * k + (brand.LOGO_SIZE - c.cy) * f
        box = (cx - c.r * f, cy - c.r * f, cx + c.r * f, cy + c.r * f)
        if c.stroke:
            half = c.stroke * f / 2
            draw.ellipse((box[0] - half, box[1] - half, box[2] + half, box[3] + half), outline=t.label_fg.rgb,
                         width=round(c.stroke * f))
        else:
            draw.ellipse(box, fill=t.label_fg.rgb)
    if state.verified:
        x0 = (lay.label + lay.message + PAD) * k
        pts = [(x0, 10.2 * k), (x0 + 2.6 * k, 13 * k), (x0 + 8 * k, 7 * k)]
        draw.line(pts, fill=t.message_fg.rgb, width=round(1.8 * k), joint="curve")
    img.putalpha(Image.composite(img.getchannel("A"), mask, mask))
    img = img.resize((lay.width * s, HEIGHT * s), Image.LANCZOS)
    _png_texts(img, number, state, t, lay, s)
    out = io.BytesIO()
    img.save(out, "PNG", optimize=True)
    return out.getvalue()


def _png_texts(img: Any, number: PithNumber, state: BadgeState, t: brand.Theme, lay: Layout, s: int) -> None:
    """Text is drawn at the final size so glyphs stay hinted and sharp."""
    from PIL import ImageDraw

    draw = ImageDraw.Draw(img)
    font = _font(11 * s)
    items = [((PAD + LOGO_PX + LOGO_GAP + (lay.label - PAD - LOGO_PX - LOGO_GAP - PAD) / 2), brand.LABEL,
              t.label_fg), (lay.label + lay.message / 2, message_text(number), t.message_fg)]
    if state.verified:
        x = lay.label + lay.message + PAD + CHECK_PX + LOGO_GAP
        items.append((x + (lay.status - (x - lay.label - lay.message) - PAD) / 2, VERIFIED_TEXT, t.message_fg))
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


def _qr(number: PithNumber) -> Any:
    import qrcode
    from qrcode.util import MODE_8BIT_BYTE, MODE_ALPHA_NUM, QRData

    text = qr_text(number)
    qr = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_Q, border=4)
    # Explicit segments: alphanumeric runs, bytes only for lower-case (qrcode would choose
    # similarly, but stating it keeps the version stable across qrcode releases).
    run, upper = "", None
    for char in text:
        is_upper = not char.islower()
        if upper is not None and is_upper != upper:
            qr.add_data(QRData(run, mode=MODE_ALPHA_NUM if upper else MODE_8BIT_BYTE))
            run = ""
        run, upper = run + char, is_upper
    qr.add_data(QRData(run, mode=MODE_ALPHA_NUM if upper else MODE_8BIT_BYTE))
    qr.make(fit=True)
    return qr


def qr_matrix(number: PithNumber) -> list[list[bool]]:
    return _qr(number).get_matrix()


def qr_svg(number: PithNumber, module_px: int = 4) -> str:
    """The QR code as SVG: one path of unit squares, dark on white, with the quiet zone."""
    matrix = qr_matrix(number)
    n = len(matrix)
    path = "".join(f"M{x} {y}h1v1h-1z" for y, row in enumerate(matrix) for x, dark in enumerate(row) if dark)
    size = n * module_px
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {n} {n}" '
            f'shape-rendering="crispEdges" role="img" aria-label="QR code: {esc(number.url)}">'
            f"<title>{esc(number.url)}</title>"
            f'<rect width="{n}" height="{n}" fill="#fff"/><path d="{path}" fill="#000"/></svg>')


def qr_png(number: PithNumber, module_px: int = 8) -> bytes:
    import io

    from PIL import Image

    matrix = qr_matrix(number)
    n = len(matrix)
    img = Image.new("1", (n, n), 1)
    img.putdata([0 if dark else 1 for row in matrix for dark in row])
    img = img.resize((n * module_px, n * module_px), Image.NEAREST)
    out = io.BytesIO()
    img.save(out, "PNG", optimize=True)
    return out.getvalue()


# -- snippets -------------------------------------------------------------------------------
def image_name(number: PithNumber, theme: str = "light", ext: str = "svg") -> str:
    """The default file name snippets point at: write it beside the page with --format svg."""
    return f"pith-{number.body[:8]}{'' if theme == 'light' else '-' + theme}.{ext}"


def snippet(kind: str, number: PithNumber, image_url: str | None = None, dark_url: str | None = None) -> str:
    """A paste-ready HTML, Markdown or reStructuredText badge linking the number's page."""
    from .templating import render_template

    image_url = image_url or image_name(number)
    dark_url = dark_url or (image_name(number, "dark") if image_url == image_name(number) else None)
    return render_template(
        f"snippet.{kind}.j2",
        number=number,
        url=number.url,
        image_url=image_url,
        dark_url=dark_url,
        alt=aria_label(number, False),
        width=layout(number, False).width,
        height=HEIGHT,
    )
