"""Badges: SVG parsed and measured, PNG sizes, QR content decoded, snippets, the CLI."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from PIL import Image

from pithtex import brand
from pithtex.client import badge_state
from pithtex.number import PithNumber
from pithtex.record import load_document
from pithtex.trust import KeyRing, PublicKey, pinned_keys
from pithtex.web import badge
from pithtex.web.metrics import DEJAVU_SANS, measure, text_width

from ..conftest import BODY, SEED_PATH, URL, assert_clean_error, pithtex_cli
from ..recordkit import TestKey, canonical, full_record
from ..resolverkit import Reply, closed_port_url

N = PithNumber(BODY, 2021)
SVG_NS = "{http://www.w3.org/2000/svg}"


def said(svg_text: str) -> str:
    """What a badge says, with 'unverified' removed (so 'verified' in it is a claim)."""
    return svg_text.lower().replace("unverified", "")


def parse(svg_text: str) -> ET.Element:
    return ET.fromstring(svg_text)


def verified_state() -> badge.BadgeState:
    return badge_state(N, load_document(SEED_PATH))


# -- state: when may a badge say verified -----------------------------------------------------
def test_only_a_verifying_record_for_this_number_gives_verified(seed):
    assert verified_state().verified and verified_state().key_id == "pith-v1-2026-05"
    assert not badge_state(N, None).verified
    tampered = json.loads(json.dumps(seed))
    tampered["canonical_record"]["metadata"]["primary_cat"] = "cs.LG"
    assert not badge_state(N, tampered).verified
    other = PithNumber("A" * 26)
    assert not badge_state(other, seed).verified  # a good record, but of another number
    key = TestKey("lab-key")
    doc = full_record(canonical(), key)
    number = PithNumber.parse(doc["pith_number"])
    assert not badge_state(number, doc).verified  # unpinned key: never by default
    ring = pinned_keys().extended(KeyRing([PublicKey(key.key_id, key.raw_public)]))
    assert badge_state(number, doc, ring).verified


# -- SVG ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_plain_svg_shape_and_accessibility(theme):
    text = badge.svg(N, None, theme)
    root = parse(text)
    lay = badge.layout(N, False)
    assert root.tag == SVG_NS + "svg" and root.get("height") == "20"
    assert root.get("width") == str(lay.width) and root.get("viewBox") == f"0 0 {lay.width} 20"
    assert root.get("role") == "img" and root.get("aria-label") == "pith: YBK5PTAK"
    assert root.find(SVG_NS + "title").text.startswith(f"pith:2021:{BODY}")
    assert "verified" not in said(text)
    rects = [r for r in root.iter(SVG_NS + "rect") if r.get("fill", "").startswith("#")]
    t = brand.THEMES[theme]
    assert [r.get("fill") for r in rects[1:3]] == [t.label_bg.hex, t.message_bg.hex]
    circles = list(root.iter(SVG_NS + "circle"))
    assert len(circles) == len(brand.LOGO) and {c.get("fill") for c in circles} >= {t.label_fg.hex}
    texts = [x.text for x in root.iter(SVG_NS + "text") if x.get("aria-hidden") != "true"]
    assert texts == ["pith", "YBK5PTAK"]


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_verified_svg(theme):
    text = badge.svg(N, verified_state(), theme)
    root = parse(text)
    lay = badge.layout(N, brand.VERIFIED)
    assert lay.status > 0 and root.get("width") == str(lay.width) == str(lay.label + lay.message + lay.status)
    assert root.get("aria-label") == "pith: YBK5PTAK, verified"
    assert "signed by pith-v1-2026-05, a pinned Pith registry key" in root.find(SVG_NS + "title").text
    fills = [r.get("fill") for r in root.iter(SVG_NS + "rect")]
    assert brand.THEMES[theme].verified_bg.hex in fills
    assert [x.text for x in root.iter(SVG_NS + "text") if x.get("aria-hidden") != "true"][-1] == "verified"
    assert root.find(SVG_NS + "path") is not None  # the check mark


def test_text_lengths_come_from_the_metrics_table():
    root = parse(badge.svg(N))
    lengths = {x.text: int(x.get("textLength")) for x in root.iter(SVG_NS + "text")}
    assert lengths["pith"] == round(text_width("pith") * 10)
    assert lengths["YBK5PTAK"] == round(text_width("YBK5PTAK")) * 10
    assert badge.label_width() == 5 + 14 + 3 + round(text_width("pith")) + 5


def test_hostile_text_is_escaped_into_valid_xml():
    state = badge.BadgeState(brand.VERIFIED, "x", key_id='k<&">\'</title><script>')
    text = badge.svg(N, state)
    root = parse(text)  # well-formed despite the key id
    assert "<script>" not in text and root.find(SVG_NS + "title").text.endswith("a pinned Pith registry key")
    assert badge.esc("<a & 'b'>") == "&lt;a &amp; &#x27;b&#x27;&gt;"


def test_metrics_table_matches_dejavu_sans():
    shipped = json.loads((Path(badge.__file__).parents[1] / "data" / "text-widths-11px.json").read_text())
    assert shipped["widths"] == measure(DEJAVU_SANS)["widths"]
    assert text_width("W") > text_width("i") > 0 and text_width("\u2603") == shipped["fallback"]


# -- PNG ----------------------------------------------------------------------------------------
def test_png_sizes_and_colours():
    one = Image.open(io.BytesIO(badge.png(N, verified_state(), "light", 1)))
    two = Image.open(io.BytesIO(badge.png(N, verified_state(), "light", 2)))
    lay = badge.layout(N, brand.VERIFIED)
    assert one.format == two.format == "PNG"
    assert one.size == (lay.width, 20) and two.size == (2 * lay.width, 40)
    px = two.convert("RGB").getpixel((2 * (lay.label + 2), 4))  # message segment, above the text
    assert max(abs(a - b) for a, b in zip(px, brand.LIGHT.message_bg.rgb, strict=True)) < 40
    px = two.convert("RGB").getpixel((2 * (lay.width - 3), 4))
    assert max(abs(a - b) for a, b in zip(px, brand.LIGHT.verified_bg.rgb, strict=True)) < 40
    assert two.getpixel((0, 0))[3] < 128  # the rounded corner is transparent


# -- QR -----------------------------------------------------------------------------------------
def test_qr_png_decodes_to_the_url_at_level_q():
    import zxingcpp

    img = Image.open(io.BytesIO(badge.qr_png(N)))
    found = zxingcpp.read_barcodes(img.convert("L"))
    assert len(found) == 1
    assert found[0].text == f"HTTPS://PITH.SCIENCE/pith/{BODY}" == badge.qr_text(N)
    assert found[0].ec_level == "Q"
    assert len(badge.qr_matrix(N)) == 33 + 8  # version 4 (33 modules) plus the quiet zone


def test_qr_svg_draws_the_same_matrix():
    root = parse(badge.qr_svg(N))
    paths = list(root.iter(SVG_NS + "path"))
    assert len(paths) == 1 and paths[0].get("stroke-width") == "1" and paths[0].get("fill") == "none"
    dark = set()
    for row in re.findall(r"M[^M]+", paths[0].get("d")):  # each row: M x y.5, then h n / m dx 0 pairs
        x, y = (float(v) for v in re.match(r"M(\d+) (\d+\.5)", row).groups())
        for move, length in re.findall(r"(?:m(\d+) 0)?h(\d+)", row[row.index("h"):]):
            x += int(move or 0)
            dark |= {(int(x) + i, int(y - 0.5)) for i in range(int(length))}
            x += int(length)
    matrix = badge.qr_matrix(N)
    assert dark == {(x, y) for y, row in enumerate(matrix) for x, on in enumerate(row) if on}
    assert root.get("role") == "img" and URL in root.get("aria-label")


# -- snippets -----------------------------------------------------------------------------------
def test_html_snippet_has_link_picture_and_alt():
    html = badge.snippet("html", N)
    assert html.startswith(f'<a href="{URL}"><picture>')
    assert '<source media="(prefers-color-scheme: dark)" srcset="pith-YBK5PTAK-dark.svg">' in html
    assert '<img src="pith-YBK5PTAK.svg" alt="pith: YBK5PTAK" height="20">' in html
    custom = badge.snippet("html", N, 'https://x.org/b.svg?a=1&b="2"')
    assert 'src="https://x.org/b.svg?a=1&amp;b=&#34;2&#34;"' in custom and "<source" not in custom


def test_markdown_and_rst_snippets():
    assert badge.snippet("md", N).strip() == f"[![pith: YBK5PTAK](pith-YBK5PTAK.svg)]({URL})"
    rst = badge.snippet("rst", N).splitlines()
    assert rst == [".. image:: pith-YBK5PTAK.svg", "   :alt: pith: YBK5PTAK", f"   :target: {URL}"]


# -- the command line ---------------------------------------------------------------------------
def test_cli_svg_png_qr_files(tmp_path):
    p = pithtex_cli("badge", BODY, "--record", str(SEED_PATH), "-o", str(tmp_path / "v.svg"))
    assert p.returncode == 0 and "verified" in said((tmp_path / "v.svg").read_text())
    p = pithtex_cli("badge", BODY, "--format", "png", "--scale", "2", "--theme", "dark", "-o", str(tmp_path / "b.png"))
    assert p.returncode == 0
    assert Image.open(tmp_path / "b.png").size == (2 * badge.layout(N, False).width, 40)
    assert pithtex_cli("badge", BODY, "-f", "qr", "-o", str(tmp_path / "q.svg")).returncode == 0
    assert parse((tmp_path / "q.svg").read_text()).get("role") == "img"
    assert pithtex_cli("badge", BODY, "-f", "qr", "-o", str(tmp_path / "q.png")).returncode == 0
    assert Image.open(tmp_path / "q.png").format == "PNG"


def test_cli_record_that_fails_gives_an_invalid_badge_a_note_and_exit_1(tmp_path, seed):
    seed["canonical_record"]["source"]["version"] = 4
    (tmp_path / "t.json").write_text(json.dumps(seed))
    p = pithtex_cli("badge", BODY, "--record", str(tmp_path / "t.json"))
    assert p.returncode == 1 and "verified" not in said(p.stdout)
    assert 'aria-label="pith: YBK5PTAK, invalid"' in p.stdout
    assert "the badge says invalid: " in p.stderr and len(p.stderr.splitlines()) == 1


def test_cli_online_badge(fake, tmp_path):
    env = {"XDG_CACHE_HOME": str(tmp_path / "c")}
    fake.record(BODY, Reply.json(json.loads(SEED_PATH.read_text())))
    p = pithtex_cli("badge", BODY, "--online", "--base-url", fake.base, env=env)
    assert p.returncode == 0 and 'aria-label="pith: YBK5PTAK, verified"' in p.stdout
    env["XDG_CACHE_HOME"] = str(tmp_path / "d")
    p = pithtex_cli("badge", BODY, "--online", "--base-url", closed_port_url(), env=env)
    assert p.returncode == 3 and "verified" not in said(p.stdout) and "cannot reach" in p.stderr
    assert 'aria-label="pith: YBK5PTAK, unchecked"' in p.stdout


def test_cli_snippets_and_embed(tmp_path):
    p = pithtex_cli("badge", BODY, "--format", "md", "--image-url", "https://example.org/p.svg")
    assert p.stdout.strip() == f"[![pith: YBK5PTAK](https://example.org/p.svg)]({URL})" and not p.stderr
    p = pithtex_cli("badge", BODY, "--format", "html")
    assert URL in p.stdout and "pithtex badge YBK5PTAKOSCXY2WMLIIB7DMYH6 -o pith-YBK5PTAK.svg" in p.stderr
    p = pithtex_cli("badge", BODY, "--format", "embed", "-o", str(tmp_path / "badge.html"))
    assert p.returncode == 0
    assert sorted(x.name for x in tmp_path.iterdir()) == ["badge.html", "pith-badge.js"]
    assert f'<pith-badge number="{BODY}"' in (tmp_path / "badge.html").read_text()


def test_cli_errors_are_one_clean_line(tmp_path):
    assert "invalid Pith Number" in assert_clean_error(pithtex_cli("badge", "NOTANUMBER"))
    assert "look-up alias" in assert_clean_error(pithtex_cli("badge", BODY[:8]))
    p = pithtex_cli("badge", BODY, "-o", str(tmp_path / "no" / "such" / "b.svg"))
    assert "does not exist" in assert_clean_error(p)
    assert "no such file" in assert_clean_error(pithtex_cli("badge", BODY, "--record", str(tmp_path / "x.json")))
    assert not list(tmp_path.iterdir())


def test_png_without_dejavu_falls_back_to_pillows_font(monkeypatch):
    monkeypatch.setattr(badge, "FONT_PATHS", ("/nonexistent/DejaVuSans.ttf",))
    assert badge.png_font_path() is None
    img = Image.open(io.BytesIO(badge.png(N, None, "dark", 2)))
    assert img.size == (2 * badge.layout(N, False).width, 40)
