"""The embed snippet and the rendered script; Unicode records canonicalised like Python, in both browsers.

The element's states, attributes, CSP and accessibility are in test_web_element.py.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator

import pytest

from pithtex.number import PithNumber
from pithtex.record import canonical_json
from pithtex.trust import KeyRing, PublicKey, pinned_keys
from pithtex.verify import verify_document
from pithtex.web import assets as webassets
from pithtex.web import shape as badgeshape

from .. import browserkit
from ..conftest import BODY, pithtex_cli
from ..recordkit import TestKey, canonical, full_record


@pytest.fixture
def server() -> Iterator[browserkit.PageServer]:
    with browserkit.page_server() as s:
        yield s


def element(number: str, ident: str, src: str) -> str:
    return webassets.embed_snippet(PithNumber(number), src=src).split("\n", 1)[1].replace(
        "<pith-badge ", f'<pith-badge id="{ident}" ', 1)


@pytest.mark.parametrize("browser", ["chromium", "firefox"])
def test_unicode_records_canonicalise_like_python(server, browser, tmp_path):
    key = TestKey("unicode-test-key")
    record = canonical(title="Über Grüße — 日本語", cross=["math.CO", "cs.DM"])
    record["metadata"].update({
        "note": 'Grüße — 日本語 😀 "quoted" back\\slash \u0007 bell \u2028 line \x7f del é',
        "\ufffd replacement": 1, "😀 emoji key": 2, "é": [True, False, None, -3], "z": {"b": 1, "a": ""},
    })
    doc = full_record(record, key)
    body = doc["pith_number"].split(":")[-1]
    ring = pinned_keys().extended(KeyRing([PublicKey(key.key_id, key.raw_public)]))
    assert verify_document(doc, ring).verified
    assert "😀".encode() in canonical_json(record)  # raw UTF-8, not \u escapes
    server.route("/pith-badge.js", webassets.render_script(keys=ring, base_url=server.base), "text/javascript")
    page = element(body, "unicode", server.json("/u.json", doc))
    url, token = browserkit.page(server, "/u.html", page)
    found = browserkit.run(browser, server, url, token, tmp_path)["badges"]
    assert found["unicode"]["state"] == "verified", found["unicode"]["title"]


def test_without_javascript_it_is_a_plain_linked_badge():
    n = PithNumber(BODY)
    snippet = webassets.embed_snippet(n)
    assert snippet.startswith('<script src="pith-badge.js" defer></script>\n')
    light_dom = snippet.split('">', 1)[1]
    assert light_dom.startswith(f'<a href="https://pith.science/pith/{BODY}"><svg ')
    # it says what is true without the script: unchecked, at the width the checked badge takes
    assert 'aria-label="pith: YBK5PTAK, unchecked"' in light_dom and "verified" not in light_dom
    assert f'width="{webassets.embed_width(n)}"' in light_dom and "style=" not in snippet  # strict CSP: no inline style


def test_cdn_snippet_pins_the_module_by_its_hash():
    snippet = webassets.embed_snippet(PithNumber(BODY), cdn=True, base_url="https://mirror.example")
    module = webassets.render_script(module=True)
    expected = f'<script type="module" src="{webassets.cdn_url()}" integrity="{webassets.integrity(module)}" '
    assert snippet.startswith(expected + 'crossorigin="anonymous"></script>\n')
    assert 'base-url="https://mirror.example"' in snippet
    assert f"/npm/pith-badge@{webassets.brand.VERSION}/dist/pith-badge.mjs" in snippet


def test_script_bakes_in_only_the_pinned_keys_by_default():
    script = webassets.render_script()
    key = next(iter(pinned_keys()))
    assert base64.b64encode(key.raw).decode() in script and key.fingerprint in script
    assert script.count('"fingerprint"') == len(pinned_keys())
    # no third-party code and nothing fetched but the record: the only URLs are these two
    assert set(re.findall(r"https?://[^\s\"'`<>/]+", script)) == {"http://www.w3.org", "https://pith.science"}
    assert not re.search(r"^\s*import\b|\bimport\(|\brequire\(|innerHTML|outerHTML|insertAdjacentHTML|eval\(",
                         script, re.M)


def test_the_element_draws_badgeshapes_table():
    """One drawing: the script carries badgeshape's table, not a drawing of its own."""
    script = webassets.render_script()
    values = json.loads(re.search(r"^const C = (.*);$", script, re.M).group(1))
    for state in ("checking", "verified", "invalid", "unchecked"):
        shape = badgeshape.shape(state, webassets.embed_status_width())
        assert values["shapes"][state] == badgeshape.to_json(shape)
    assert values["reading"]["alphabet"] == "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
    assert script.count("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") == 1


def test_module_and_classic_script_differ_only_in_their_wrapping():
    classic, module = webassets.render_script(), webassets.render_script(module=True)
    assert classic.lstrip().startswith("/*") and "(() => {" in classic and "export " not in classic
    assert "export { PithBadge, Refused, Undecidable, readNumber, trustedKeys, verifyDocument };" in module
    assert "(() => {" not in module


def test_render_web_assets(tmp_path):
    written = webassets.render_web_assets(tmp_path / "web")
    names = sorted(p.name for p in written)
    assert names == ["pith-YBK5PTAK-dark.svg", "pith-YBK5PTAK.svg", "pith-badge-example.html", "pith-badge.js",
                     "pith-badge.mjs"]
    assert all(p.stat().st_size > 0 for p in written)
    assert not [p for p in (tmp_path / "web").iterdir() if p.name.startswith(".")]  # no temp files left


def test_cli_embed_cdn_prints_the_snippet_and_writes_no_script(tmp_path):
    proc = pithtex_cli("badge", BODY, "--format", "embed", "--cdn")
    uid = re.compile(r"YBK5PTAKu[0-9a-f]{8}")  # the fallback's ids: random, so two snippets never share one
    assert len(set(uid.findall(proc.stdout))) == 1
    expected = webassets.embed_snippet(PithNumber(BODY), cdn=True)
    assert proc.returncode == 0 and uid.sub("U", proc.stdout) == uid.sub("U", expected)
    assert proc.stderr == ""
    out = tmp_path / "badge.html"
    proc = pithtex_cli("badge", BODY, "--format", "embed", "--cdn", "-o", str(out))
    assert proc.returncode == 0 and sorted(p.name for p in tmp_path.iterdir()) == ["badge.html"]
    proc = pithtex_cli("badge", BODY, "--format", "embed", "-o", str(out))  # self-hosted: the script beside it
    assert (tmp_path / "pith-badge.js").read_text() == webassets.render_script()


def _luminance(hex_colour: str) -> float:
    channels = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("theme", list(webassets.brand.THEMES))
def test_every_segment_holds_wcag_aa_contrast(theme):
    t = webassets.brand.THEMES[theme]
    colours = badgeshape.theme_table(t)
    pairs = [("labelBg", "labelFg"), ("messageBg", "messageFg")]
    pairs += [(f"{state}Bg", "messageFg") for state in ("verified", "invalid", "unchecked", "checking")]
    for bg, fg in pairs:
        assert contrast(colours[bg], colours[fg]) >= 4.5, (theme, bg, colours[bg], colours[fg])
    # a key the page added: its own colour, never the registry's green, at AA with the same text colour
    page_key = t.page_key_bg.hex
    assert contrast(page_key, colours["messageFg"]) >= 4.5
    assert page_key not in (colours["verifiedBg"], colours["messageBg"])
    assert contrast(t.panel_bg.hex, t.panel_fg.hex) >= 4.5 and contrast(t.panel_bg.hex, t.panel_link.hex) >= 4.5


def test_badge_does_not_import_the_web_assets():
    import ast
    from pathlib import Path

    from pithtex.web import badge

    source = ast.parse(Path(badge.__file__).read_text())
    names = {alias.name for node in ast.walk(source) if isinstance(node, ast.ImportFrom) for alias in node.names}
    modules = {node.module for node in ast.walk(source) if isinstance(node, ast.ImportFrom)}
    assert not {"assets", "webassets"} & names and not {"assets", "web.assets"} & {m or "" for m in modules}


def test_render_check_guards_the_web_package(tmp_path):
    import shutil

    from pithtex.generate import CHECKOUT_MARK, check, render_all

    from ..conftest import ROOT

    (tmp_path / CHECKOUT_MARK).parent.mkdir(parents=True)
    shutil.copyfile(ROOT / CHECKOUT_MARK, tmp_path / CHECKOUT_MARK)
    shutil.copyfile(ROOT / "LICENSE", tmp_path / "LICENSE")
    (tmp_path / "web").mkdir()
    written = {p.relative_to(tmp_path).as_posix() for p in render_all(tmp_path)}
    assert {"web/package.json", "web/dist/pith-badge.js", "web/dist/pith-badge.mjs", "web/dist/pith-badge.d.ts",
            "web/README.md", "web/LICENSE"} <= written
    for name in ("package.json", "dist/pith-badge.mjs", "LICENSE"):
        assert (tmp_path / "web" / name).read_bytes() == (ROOT / "web" / name).read_bytes()  # deterministic
    script = tmp_path / "web" / "dist" / "pith-badge.js"
    script.write_text(script.read_text().replace("verified", "verifled", 1))
    assert check(tmp_path) == ["web/dist/pith-badge.js"]
