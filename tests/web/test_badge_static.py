"""Static badges, round two: the three state words, a PNG without a halo, the QR as one path
read back from a real rendering, and one alt text in every snippet format."""

from __future__ import annotations

import io
import re
import subprocess
from html.parser import HTMLParser
from xml.etree import ElementTree as ET

import pytest
from PIL import Image

from pithtex import brand
from pithtex.number import PithNumber
from pithtex.web import badge

from ..conftest import BODY, URL

N = PithNumber(BODY, 2021)
SVG_NS = "{http://www.w3.org/2000/svg}"
CHROMIUM = "/usr/bin/chromium"
STATES = [brand.VERIFIED, brand.INVALID, brand.UNCHECKED]


def state(word: str | None) -> badge.BadgeState:
    return badge.BadgeState(word, "the reason", "pith-v1-2026-05")


def png(word: str | None, theme: str, scale: int) -> Image.Image:
    return Image.open(io.BytesIO(badge.png(N, state(word), theme, scale))).convert("RGBA")


# -- the three states ---------------------------------------------------------------------------
def test_one_table_of_words_and_exit_codes():
    assert brand.STATES == {"verified": 0, "invalid": 1, "unchecked": 3}
    assert brand.STATE_OF_EXIT == {0: "verified", 1: "invalid", 3: "unchecked"}
    assert [badge.BadgeState(w).exit_code for w in STATES] == [0, 1, 3] and badge.BadgeState().exit_code == 0
    with pytest.raises(ValueError, match="unknown badge state"):
        badge.BadgeState("unverified")


def _luminance(rgb: tuple[int, int, int]) -> float:
    def channel(c: int) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_state_colour_has_aa_contrast(theme):
    t = brand.THEMES[theme]
    for word in STATES:  # 11 px text is "normal" text for WCAG: AA needs 4.5:1
        assert contrast(t.message_fg.rgb, t.state_bg(word).rgb) >= 4.5, (theme, word)
    assert len({t.state_bg(w).hex for w in STATES}) == 3


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("word", STATES)
def test_svg_and_png_show_the_state_word(theme, word):
    root = ET.fromstring(badge.svg(N, state(word), theme))
    lay = badge.layout(N, word)
    assert root.get("aria-label") == f"pith: YBK5PTAK, {word}" and root.get("width") == str(lay.width)
    assert [x.text for x in root.iter(SVG_NS + "text") if x.get("aria-hidden") != "true"] == ["pith", "YBK5PTAK", word]
    assert brand.THEMES[theme].state_bg(word).hex in [r.get("fill") for r in root.iter(SVG_NS + "rect")]
    title = root.find(SVG_NS + "title").text
    assert f", {word}" in title and (word == brand.VERIFIED or "the reason" in title)
    assert (root.find(SVG_NS + "path") is not None) == (word != brand.UNCHECKED)  # a mark: check or cross
    img = png(word, theme, 2)
    assert img.size == (2 * lay.width, 40)
    assert img.getpixel((2 * lay.width - 4, 4))[:3] == brand.THEMES[theme].state_bg(word).rgb


def test_plain_badge_shows_no_state():
    root = ET.fromstring(badge.svg(N))
    assert [x.text for x in root.iter(SVG_NS + "text") if x.get("aria-hidden") != "true"] == ["pith", "YBK5PTAK"]
    assert png(None, "light", 1).size == (badge.layout(N).width, 20)


def test_long_reasons_are_capped_in_the_title():
    root = ET.fromstring(badge.svg(N, badge.BadgeState(brand.INVALID, "x" * 100_000 + "\n<&>")))
    assert len(root.find(SVG_NS + "title").text) < 300


# -- the PNG: no ringing ----------------------------------------------------------------------------
@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("scale", [1, 2, 3, 4])
def test_png_logo_has_no_halo(theme, scale):
    """Criterion: in the logo's box widened by 2 px on every side, each pixel's R, G and B lie
    between the label background's and the logo colour's (inclusive), so no pixel is darker
    (or lighter) than both colours that meet there. Lanczos downsampling broke this (its
    negative lobes undershoot beside the light ring: a dark halo)."""
    t = brand.THEMES[theme]
    img = png(None, theme, scale)
    s, lo, hi = scale, badge.PAD - 2, badge.PAD + badge.LOGO_PX + 2
    box = (lo * s, (3 - 2) * s, hi * s, (3 + badge.LOGO_PX + 2) * s)
    lows = [min(a, b) for a, b in zip(t.label_bg.rgb, t.label_fg.rgb, strict=True)]
    highs = [max(a, b) for a, b in zip(t.label_bg.rgb, t.label_fg.rgb, strict=True)]
    outside = [(x, y, img.getpixel((x, y))) for y in range(box[1], box[3]) for x in range(box[0], box[2])
               if not all(lo <= c <= hi for c, lo, hi in zip(img.getpixel((x, y))[:3], lows, highs, strict=True))]
    assert outside == []
    # and the shapes are really there: full logo colour on the ring, background in the gap
    k = badge.LOGO_PX / brand.LOGO_SIZE * s
    ring, core = brand.LOGO
    cx, cy = badge.PAD * s + ring.cx * k, 3 * s + (brand.LOGO_SIZE - ring.cy) * k
    assert img.getpixel((int(cx + ring.r * k), int(cy)))[:3] == t.label_fg.rgb
    assert img.getpixel((int(cx), int(cy)))[:3] == t.label_fg.rgb
    gap = (core.r + ring.r - ring.stroke / 2) / 2
    if (ring.r - ring.stroke / 2 - core.r) * k >= 2:  # a gap at least two pixels wide has a clean middle
        assert img.getpixel((int(cx + gap * k), int(cy)))[:3] == t.label_bg.rgb


def test_png_status_mark_has_no_halo():
    """The same criterion around the check mark and the cross, against the state colour."""
    for word in (brand.VERIFIED, brand.INVALID):
        t = brand.LIGHT
        img = png(word, "light", 2)
        lay = badge.layout(N, word)
        x0 = 2 * (lay.label + lay.message)
        bg, fg = t.state_bg(word).rgb, t.message_fg.rgb
        for y in range(2 * 4, 2 * 15):
            for x in range(x0 + 2 * 3, x0 + 2 * (badge.PAD + badge.CHECK_PX + 1)):
                px = img.getpixel((x, y))[:3]
                assert all(min(a, b) <= c <= max(a, b) for c, a, b in zip(px, bg, fg, strict=True)), (word, x, y, px)


def test_png_corners_are_transparent_and_the_middle_opaque():
    img = png(brand.VERIFIED, "light", 2)
    assert img.getpixel((0, 0))[3] == 0 and img.getpixel((img.width - 1, img.height - 1))[3] == 0
    assert img.getpixel((img.width // 2, img.height // 2))[3] == 255
    assert {img.getpixel((x, 0))[3] for x in range(6, img.width - 6)} == {255}


# -- the QR SVG: one path, read back from a real renderer -----------------------------------------------
def test_qr_svg_is_one_small_path():
    text = badge.qr_svg(N)
    root = ET.fromstring(text)
    assert len(list(root.iter(SVG_NS + "path"))) == 1 and not list(root.iter(SVG_NS + "rect"))[1:]
    assert len(text.encode()) < 2400  # was 7,865 bytes with one square per module


@pytest.mark.skipif(not __import__("os").path.exists(CHROMIUM), reason="needs Debian's chromium")
def test_qr_svg_rendered_by_chromium_decodes(tmp_path):
    import zxingcpp

    svg = tmp_path / "qr.svg"
    svg.write_text(badge.qr_svg(N, module_px=6))
    size = len(badge.qr_matrix(N)) * 6
    shot = tmp_path / "qr.png"
    proc = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={tmp_path / 'profile'}", f"--window-size={size},{size}",
         f"--screenshot={shot}", svg.as_uri()],
        capture_output=True, text=True, timeout=90,
    )
    assert proc.returncode == 0 and shot.exists(), proc.stderr[-2000:]
    img = Image.open(shot).convert("L")
    found = zxingcpp.read_barcodes(img)
    assert [f.text for f in found] == [badge.qr_text(N)] and found[0].ec_level == "Q"
    # and the rendering is exactly the module matrix: sample each module's centre
    matrix = badge.qr_matrix(N)
    drawn = [[img.getpixel((x * 6 + 3, y * 6 + 3)) < 128 for x in range(len(matrix))] for y in range(len(matrix))]
    assert drawn == matrix


# -- one alt text -------------------------------------------------------------------------------------
class _Img(HTMLParser):
    alts: list[str]

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.alts = [*getattr(self, "alts", []), dict(attrs)["alt"]]


def alt_in(kind: str, text: str) -> str:
    if kind == "html":
        parser = _Img()
        parser.feed(text)
        (alt,) = parser.alts
        return alt
    if kind == "md":
        return re.fullmatch(r"\[!\[(.*)\]\((.*)\)\]\((.*)\)\n?", text).group(1)
    return re.search(r"^   :alt: (.*)$", text, re.M).group(1)


@pytest.mark.parametrize("number", [N, PithNumber("A" * 26), PithNumber("Z234567ABCDEFGHIJKLMNOPQRS")])
def test_one_alt_text_in_every_snippet_format(number):
    alts = {kind: alt_in(kind, badge.snippet(kind, number)) for kind in ("html", "md", "rst")}
    assert set(alts.values()) == {badge.alt_text(number)}, alts
    assert badge.alt_text(number) == f"pith: {number.body[:8]}"
    assert ET.fromstring(badge.svg(number)).get("aria-label") == badge.alt_text(number)
    assert URL.rsplit("/", 1)[0] in badge.snippet("md", number)
