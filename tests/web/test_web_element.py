"""<pith-badge> in two real headless browsers (Debian's chromium and firefox-esr), pages on 127.0.0.1.

Each page runs tests/web/harness.js, which reports back what the element did (see
tests/browserkit.py). One page per concern: every state (and axe-core, and the panel by
keyboard), live attribute changes and colour-scheme switching, a strict CSP with Trusted
Types loading the ES module from the `npm pack` tarball, and a browser without Ed25519.
Screenshots of each state go to out/screenshots/ (docs/screenshots/ holds the copies docs/web.md shows).
"""

from __future__ import annotations

import base64
import html
import json
import re
import subprocess
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from pithtex import brand
from pithtex.number import PithNumber
from pithtex.trust import KeyRing, PublicKey, fingerprint, pinned_keys
from pithtex.verify import verify_document
from pithtex.web import assets as webassets

from .. import browserkit, drivers
from ..conftest import BODY, ROOT, SEED_PATH
from ..recordkit import TestKey, canonical, full_record
from ..resolverkit import closed_port_url

BROWSERS = ["chromium", "firefox"]
SHOTS = ROOT / "out" / "screenshots"
AXE = ROOT / "web" / "node_modules" / "axe-core" / "axe.min.js"
STATE_OF_EXIT = {0: brand.VERIFIED, 1: brand.INVALID, 3: brand.UNCHECKED}
HOSTILE = '"><img src=x onerror="document.title=1"><script>alert(1)</script>&amp;'
# A page's styles that would distort a badge if they reached into it (selectors do not pierce
# the shadow root; inherited properties would, but for :host{all:initial}).
HOSTILE_CSS = ("main{letter-spacing:4px;text-transform:lowercase;word-spacing:9px;font-size:19px} "
               "text,button,rect,circle{display:none!important} ul{line-height:2} "
               ".clip{float:right;overflow:hidden;height:24px;position:relative;z-index:0}")  # a card that clips
# A key the keys attribute offers under the registry's id: left out, in pithtex.brand's words.
CLASH_IN_ATTRIBUTE = ("the keys attribute: key 'pith-v1-2026-05' takes the id of a pinned Pith registry key; refused "
                      "(the pinned key stays the only key of that id)")
# What a shadow root may hold: the element's own parts, nothing from a record.
OWN_TAGS = {"a", "b", "button", "circle", "clipPath", "div", "g", "li", "linearGradient", "p", "path", "rect",
            "span", "stop", "svg", "text", "title", "ul", "style"}


@pytest.fixture
def server() -> Iterator[browserkit.PageServer]:
    with browserkit.page_server() as s:
        yield s


def copy(doc):
    return json.loads(json.dumps(doc))


def key_entry(key: TestKey, fp: str | None = None) -> dict[str, str]:
    fp = fp or fingerprint(key.raw_public)
    return {"key_id": key.key_id, "public_key_hex": key.raw_public.hex(), "fingerprint": fp}


def body_of(doc) -> str:
    return doc["pith_number"].split(":")[-1]


def snippet(number: str, ident: str, attrs: str = "", src: str | None = None) -> str:
    """The embed snippet's element (its light DOM is the fallback badge), with an id."""
    element = webassets.embed_snippet(PithNumber(number), src=src).split("\n", 1)[1]
    return element.replace("<pith-badge ", f'<pith-badge id="{ident}" {attrs} ', 1)


def item(element: str, ident: str, sentinel: bool = True) -> str:
    """A list item: the badge, then its name, whose position must not move when the badge upgrades."""
    mark = f' data-sentinel="{ident}"' if sentinel else ""
    return f"<li>{element} <span{mark}>{ident}</span></li>"


def crop(report, ident: str, out: Path, pad: int = 4, extra=None) -> None:
    """Cut one badge (and its open panel) out of the page's screenshot."""
    r = report["badges"][ident]["rect"]
    box = [r["x"], r["y"], r["x"] + r["w"], r["y"] + r["h"]]
    if extra:
        box = [min(box[0], extra["x"]), min(box[1], extra["y"]), max(box[2], extra["x"] + extra["w"]),
               max(box[3], extra["y"] + extra["h"])]
    k = report["dpr"]
    with Image.open(report["screenshot"]) as im:
        im.crop(tuple(round(v * k) + d for v, d in zip(box, (-pad, -pad, pad, pad), strict=True))).save(out)


# -- the states page ------------------------------------------------------------------------
def states_page(server: browserkit.PageServer, other: browserkit.PageServer):
    """Every state, with the Python verifier's exit code for each record the page serves."""
    seed = json.loads(SEED_PATH.read_text())
    lab, lab2, rotated = TestKey("lab-key"), TestKey("lab-key-2"), TestKey("pith-v2-2027-01")
    docs: dict[str, tuple[dict, KeyRing]] = {}
    pinned = pinned_keys()

    def record(ident: str, doc, ring: KeyRing = pinned) -> str:
        docs[ident] = (doc, ring)
        return server.json(f"/r/{ident}.json", doc)

    tampered = copy(seed)
    tampered["canonical_record"]["metadata"]["primary_cat"] = "cs.LG"
    quiet = copy(tampered)
    quiet.pop("canonical_sha256")
    quiet["receipt"].pop("canonical_sha256")
    forged = copy(seed)
    sig = bytearray(base64.b64decode(forged["receipt"]["signature_b64"]))
    sig[5] ^= 0x40
    forged["receipt"]["signature_b64"] = base64.b64encode(bytes(sig)).decode()
    bad_alias = copy(seed)
    bad_alias["aliases"][-1]["alias_value"] = "YBK5PTAA"
    bad_year = copy(seed)
    bad_year["pith_number"] = f"pith:2020:{BODY}"
    bad_fp = copy(seed)
    bad_fp["receipt"]["public_key_fingerprint"] = "00" * 16
    bad_sig = copy(seed)
    bad_sig["receipt"]["signature_b64"] = "bm90IGEgc2lnbmF0dXJl"
    no_receipt = copy(seed)
    no_receipt.pop("receipt")
    bad_algo = copy(seed)
    bad_algo["receipt"]["algorithm"] = "rsa"
    lab_doc = full_record(canonical(title="Signed by a lab key"), lab)
    rotated_doc = full_record(canonical(title="Signed after a rotation"), rotated)
    big = full_record(canonical(title="Big", version=2**60), lab)
    # hostile and huge: a 200 kB title with markup, a 200 kB unsigned field, signed by a key the page pins
    hostile_doc = full_record(canonical(title=HOSTILE * 4000, arxiv_id=HOSTILE), lab)
    hostile_doc["paper"] = {"title": HOSTILE * 4000, "abstract_excerpt": "x" * 200_000}
    hostile_key = full_record(canonical(title="Hostile key id"), TestKey(HOSTILE * 500))
    config_doc = full_record(canonical(title="Pinned page-wide"), lab2)
    # an unsigned title that would reverse the words after it (a bidi override) to hide them
    bidi = copy(seed)
    bidi["paper"]["title"] = "Real (its hash is the signed title_canon_sha256)\u202e"
    lab_ring = pinned.extended(KeyRing([PublicKey(lab.key_id, lab.raw_public)]))
    lab2_ring = pinned.extended(KeyRing([PublicKey(lab2.key_id, lab2.raw_public)]))
    lab_keys = html.escape(json.dumps([key_entry(lab)]), quote=True)
    # a key the page adds under the registry's own id, and a record forged under it
    impostor = TestKey("pith-v1-2026-05")
    forged_as_registry = full_record(canonical(title="Attention Is All You Need"), impostor)
    clash_keys = html.escape(json.dumps([key_entry(impostor)]), quote=True)
    clash_ring = pinned.extended(KeyRing([PublicKey(impostor.key_id, impostor.raw_public)]),
                                 source="the keys attribute")
    assert clash_ring.refused  # the command line leaves it out too
    clash = CLASH_IN_ATTRIBUTE
    wrong_fp = html.escape(json.dumps([key_entry(lab, "11" * 16)]), quote=True)
    server.route("/500.json", "no", status=500)
    server.route("/broken.json", json.dumps(seed)[:300], "application/json")
    no_cors = other.base + other.json("/no-cors.json", seed, cors=False)  # another origin
    with_cors = other.base + other.json("/cors.json", seed)
    server.json("/slow.json", seed, delay=25)
    huge = json.dumps({"padding": "x" * (5 * 1024 * 1024)})  # past the element's 4 MiB cap
    server.route("/huge.json", huge, "application/json")
    server.route("/huge-stream.json", huge, "application/json", length=False)
    server.json("/pith/" + BODY + ".json", seed)
    server.json("/api/pith-number/resolve?arxiv=2104.04473&json=true", {"pith_number": seed["pith_number"]})
    server.json("/api/pith-number/resolve?arxiv=2401.99999&json=true", {"pith_number": seed["pith_number"]})
    liar = copy(tampered)  # names the seed's number, but its record hashes to another
    server.json("/api/pith-number/resolve?arxiv=2104.04474&json=true", liar)
    base = f'base-url="{server.base}"'
    rows = [  # (id, element html, expected state, fragment of the reason)
        ("verified", snippet(BODY, "verified", "", record("verified", seed)), "verified",
         "pith-v1-2026-05 signed"),
        ("resolver", snippet(BODY, "resolver", base), "verified", "signed that hash"),
        ("tampered", snippet(BODY, "tampered", "", record("tampered", tampered)), "invalid", "stated hash"),
        ("quiet", snippet(BODY, "quiet", "", record("quiet", quiet)), "invalid", f"not to {BODY}"),
        ("forged", snippet(BODY, "forged", "", record("forged", forged)), "invalid",
         "signature does not verify under pith-v1-2026-05"),
        ("alias", snippet(BODY, "alias", "", record("alias", bad_alias)), "invalid",
         "pith_short_8 YBK5PTAA is not a prefix"),
        ("year", snippet(BODY, "year", "", record("year", bad_year)), "invalid",
         "names year 2020, but submitted_at says 2021"),
        ("other", snippet("A" * 26, "other", "", "/r/verified.json"), "invalid", f"hashes to {BODY}, not to AAAA"),
        ("fingerprint", snippet(BODY, "fingerprint", "", record("fingerprint", bad_fp)), "invalid",
         "names fingerprint 0000"),
        ("badsig", snippet(BODY, "badsig", "", record("badsig", bad_sig)), "invalid",
         "not a base64 Ed25519 signature"),
        ("unpinned", snippet(body_of(lab_doc), "unpinned", "", record("unpinned", lab_doc)), "unchecked",
         "signed by lab-key, which this page does not pin"),
        ("rotated", snippet(body_of(rotated_doc), "rotated", "", record("rotated", rotated_doc)), "unchecked",
         "signed by pith-v2-2027-01, which this page does not pin"),
        ("noreceipt", snippet(BODY, "noreceipt", "", record("noreceipt", no_receipt)), "unchecked", "no receipt"),
        ("algorithm", snippet(BODY, "algorithm", "", record("algorithm", bad_algo)), "unchecked",
         "not an ed25519 signature"),
        ("unreachable", snippet(BODY, "unreachable", "", closed_port_url() + "/x.json"), "unchecked",
         "could not fetch"),
        ("http500", snippet(BODY, "http500", "", "/500.json"), "unchecked", "answered HTTP 500"),
        ("huge", snippet(BODY, "huge", "", "/huge.json"), "unchecked", "too large"),
        ("hugestream", snippet(BODY, "hugestream", "", "/huge-stream.json"), "unchecked", "too large"),
        ("malformed", snippet(BODY, "malformed", "", "/broken.json"), "unchecked", "not valid JSON"),
        ("nocors", snippet(BODY, "nocors", "", no_cors), "unchecked", "no CORS header"),
        ("cors", snippet(BODY, "cors", "", with_cors), "verified", "signed that hash"),
        ("bignumber", snippet(body_of(big), "bignumber", f"keys='{lab_keys}'", record("bignumber", big, lab_ring)),
         "verified", "lab-key signed that hash"),  # 2**60, read from the record's text: exact
        ("clashforged", snippet(body_of(forged_as_registry), "clashforged", f'keys="{clash_keys}"',
                                record("clashforged", forged_as_registry, clash_ring)), "invalid",
         f"not the pinned 8d4b5ee74e4693bcd1df2446408b0d54; {clash}"),
        ("clashgenuine", snippet(BODY, "clashgenuine", f'keys="{clash_keys}"',
                                 record("clashgenuine", seed, clash_ring)),
         "verified", "pith-v1-2026-05 signed that hash"),
        ("longyear", snippet(BODY, "longyear", "", "/r/verified.json").replace(BODY, f"pith:1999:{BODY}", 1),
         "invalid", "the number names year 1999, but the record's submitted_at is in 2021"),
        ("longyearok", snippet(BODY, "longyearok", "", "/r/verified.json").replace(BODY, f"pith:2021:{BODY}", 1),
         "verified", "signed that hash"),
        ("numberarxiv", snippet(BODY, "numberarxiv", 'arxiv="arXiv:2104.04473"', "/r/verified.json"), "verified",
         "signed that hash"),
        ("numberarxivother", snippet(BODY, "numberarxivother", 'arxiv="2401.99999"', "/r/verified.json"), "invalid",
         "the record is of arXiv:2104.04473v5, not of arXiv:2401.99999"),
        ("numberarxivversion", snippet(BODY, "numberarxivversion", 'arxiv="2104.04473v3"', "/r/verified.json"),
         "invalid", "not of arXiv:2104.04473v3"),
        ("keysattr", snippet(body_of(hostile_doc), "keysattr", f'keys="{lab_keys}"',
                             record("keysattr", hostile_doc, lab_ring)), "verified", "lab-key signed that hash"),
        ("wrongfp", snippet(body_of(lab_doc), "wrongfp", f'keys="{wrong_fp}"', "/r/unpinned.json"), "unchecked",
         "does not match its fingerprint"),
        ("pagewide", snippet(body_of(config_doc), "pagewide", "", record("pagewide", config_doc, lab2_ring)),
         "verified", "lab-key-2 signed"),
        ("bidi", snippet(BODY, "bidi", "", record("bidi", bidi)), "verified", "signed that hash"),
        ("hostilekey", snippet(body_of(hostile_key), "hostilekey", "", record("hostilekey", hostile_key)), "unchecked",
         "which this page does not pin"),
        ("arxiv", f'<pith-badge id="arxiv" arxiv="arXiv:2104.04473v5" {base}></pith-badge>', "verified",
         "signed that hash"),
        ("arxivother", f'<pith-badge id="arxivother" arxiv="2401.99999" {base}></pith-badge>', "invalid",
         "not of arXiv:2401.99999"),
        ("arxivliar", f'<pith-badge id="arxivliar" arxiv="2104.04474" {base}></pith-badge>', "invalid", "stated hash"),
        ("twin", f'<span hidden>{snippet(BODY, "hiddentwin", "", "/r/verified.json")}</span>'
                 + snippet(BODY, "twin", "", "/r/verified.json"), "verified", "signed that hash"),
        ("checking", snippet(BODY, "checking", "data-stays-checking", "/slow.json"), "checking", "checking"),
        ("badnumber", f'<pith-badge id="badnumber" number="{html.escape(HOSTILE * 50, quote=True)}"></pith-badge>',
         "unchecked", "not a Pith Number"),
        # first on the page, at the right, in a box that clips: its panel is left open (for axe
        # and the screenshot) and covers none of the badges cut out for docs/screenshots
        ("panel", '<div class="clip">' + snippet(BODY, "panel", "data-open-panel", "/r/verified.json") + "</div>",
         "verified", "signed that hash"),
    ]
    config = json.dumps({"keys": [key_entry(lab2)]}).replace("<", "\\u003c")
    # Badges without a snippet (no number to draw a fallback for) go below the measured part.
    unsized = ("arxiv", "arxivother", "arxivliar", "badnumber")
    items = "".join(item(element, ident) for ident, element, *_ in rows if ident not in (*unsized, "panel"))
    rest = "".join(item(element, ident, False) for ident, element, *_ in rows if ident in unsized)
    panel = next(element for ident, element, *_ in rows if ident == "panel")
    body = (f'{panel}<h1>pith-badge states</h1><script type="application/json" id="config">{config}</script>'
            f'<ul>{items}</ul><p data-sentinel="end">end</p><ul>{rest}</ul>')
    return body, {ident: (state, fragment) for ident, _, state, fragment in rows}, docs


@pytest.mark.parametrize("browser", BROWSERS)
def test_every_state_in_a_real_browser(server, browser, tmp_path):
    assert AXE.is_file(), "axe-core is missing: run `make web-deps` (npm install in web/)"
    server.route("/pith-badge.js", webassets.render_script(base_url=server.base), "text/javascript")
    server.route("/axe.min.js", AXE.read_bytes(), "text/javascript")
    with browserkit.page_server() as other:
        body, expected, docs = states_page(server, other)
        run_states(server, browser, tmp_path, body, expected, docs)


def run_states(server: browserkit.PageServer, browser: str, tmp_path: Path, body: str,
               expected: dict[str, tuple[str, str]], docs: dict[str, tuple[dict, KeyRing]]) -> None:
    """The states page in `browser`: each badge's state and reason, and the page around them."""
    # The browser must agree with the command line: verified 0, invalid 1, unchecked 3.
    for ident, (doc, ring) in docs.items():
        assert STATE_OF_EXIT[verify_document(doc, ring).exit_code] == expected[ident][0], ident
    url, token = browserkit.page(server, "/states.html", body, axe=True, head=f"<style>{HOSTILE_CSS}</style>")
    report = browserkit.run(browser, server, url, token, tmp_path, size=(1000, 1500))
    assert report.get("failure") is None, report.get("failure")
    assert report["settled"] and report["errors"] == []
    found = report["badges"]
    for ident, (state, fragment) in expected.items():
        b = found[ident]
        assert b["state"] == state, (ident, b["title"])
        assert fragment in b["title"] and fragment in b["panel"], (ident, b["title"])
        assert b["label"].startswith(("pith: YBK5PTAK, ", "pith: ?, ", "pith: arXiv, ", "pith: ")), b["label"]
        assert re.match(rf"pith: [^,]+, {state}($|: |, signed by )", b["label"]), (ident, b["label"])
        # nothing from a record becomes markup; every string shown is capped
        assert set(b["tags"]) <= OWN_TAGS and b["danglingRefs"] == [], (ident, b["tags"], b["danglingRefs"])
        assert len(b["title"]) <= 320 and len(b["panel"]) <= 3000, (ident, len(b["title"]), len(b["panel"]))
        assert b["inherited"] == ["normal", "none", "0px"] and b["panelFont"] == ["13px", "normal"], (ident, b)
        assert all(link.startswith(("http://127.0.0.1:", brand.BASE_URL)) for link in b["links"]), b["links"]
    # the fallback badge reserved exactly the room the checked badge takes: nothing moved
    assert report["before"]["sentinels"] == report["after"]["sentinels"]
    assert not report["before"]["defined"]
    assert found["verified"]["svgWidth"] == webassets.embed_width(PithNumber(BODY))
    assert found["badnumber"]["label"] == "pith: ?, unchecked"
    # once verified, the name and the tooltip say which paper: the authenticated title, shortened, and the arXiv id
    paper = "arXiv:2104.04473v5, “Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM”"
    assert found["verified"]["label"] == f"pith: YBK5PTAK, verified: {paper}"
    assert found["verified"]["title"].startswith(f"verified: {paper}; the record hashes to pith:{BODY}")
    assert found["verified"]["signer"] == "registry" and "the Pith registry's" in found["verified"]["panel"]
    assert "“" not in found["tampered"]["label"] and "Megatron" not in found["tampered"]["title"]
    assert found["bidi"]["label"] == "pith: YBK5PTAK, verified: arXiv:2104.04473v5"  # its title is not the signed one
    # a key the page added: verified, but never the registry's face
    for ident in ("keysattr", "pagewide"):
        b = found[ident]
        key_id = {"keysattr": "lab-key", "pagewide": "lab-key-2"}[ident]
        added = f"signed by {key_id}, a key this page added, not the Pith registry"
        assert b["signer"] == "page" and added in b["title"] and added in b["panel"] and "page key" in b["panel"], b
        assert f", verified, {added}" in b["label"], b["label"]
    assert found["pagewide"]["title"].startswith("verified: arXiv:2401.00001v1; signed by lab-key-2")  # no paper.title
    # the registry's key id is reserved: the page's key of that id is left out, by name, and the
    # registry key is never replaced: the forged record is invalid, the genuine one verified
    assert found["clashgenuine"]["signer"] == "registry"
    assert f"refused key: {CLASH_IN_ATTRIBUTE}" in found["clashgenuine"]["panel"]
    assert found["clashforged"]["signer"] is None and "page key" not in found["clashforged"]["panel"]
    assert found["hostilekey"]["title"].count("…") == 1
    keysattr = found["keysattr"]["panel"]
    assert "title: " in keysattr and HOSTILE[:20] in keysattr and keysattr.count("…") >= 2
    assert "its hash is the signed title_canon_sha256" in found["verified"]["panel"]
    assert "2104.04473v5 (from the signed record)" in found["verified"]["panel"]
    assert "not covered" not in found["verified"]["panel"]
    assert "\u202e" not in found["bidi"]["panel"] and "\\u202e (not covered by the signature)" in found["bidi"]["panel"]
    # two badges for one number, one hidden: each draws in its own shadow root, and their fallback
    # drawings (the light DOM) hold no id twice in the document, each url(#id) its own
    assert found["twin"]["state"] == found["hiddentwin"]["state"] == "verified"
    assert found["twin"]["ids"] == found["hiddentwin"]["ids"] and found["twin"]["rect"]["w"] > 0
    ids = report["documentIds"]
    twice = sorted(i for i in ids if ids.count(i) > 1)
    assert twice == [] and len([i for i in ids if i.startswith("rYBK5PTAK")]) > 20, twice
    assert report["fallbackRefs"] and all(report["fallbackRefs"])
    # the panel: a real button (keys: test_panel_by_real_keys), opened by a click, closed by Escape
    assert report["keyboard"] == {"focused": True, "click": ["true", False, True], "escape": ["false", True, True],
                                  "controls": True}
    assert report["openPanelOnTop"] == [True, True], (report["openPanel"], report["scroll"])  # no container clips it
    assert report["axe"] == [], json.dumps(report["axe"], indent=1)
    assert report["axePasses"] > 10
    SHOTS.mkdir(parents=True, exist_ok=True)
    for ident in ("verified", "invalid", "unchecked", "checking"):
        name = {"invalid": "tampered", "unchecked": "unreachable"}.get(ident, ident)
        crop(report, name, SHOTS / f"{browser}-{ident}.png")
    crop(report, "panel", SHOTS / f"{browser}-panel.png", extra=report["openPanel"])
    crop(report, "keysattr", SHOTS / f"{browser}-pagekey.png")  # a key the page added: not the registry's face


# -- live attributes, theme and colour scheme -------------------------------------------------
@pytest.mark.parametrize("browser", BROWSERS)
def test_attributes_are_live(server, browser, tmp_path):
    seed = json.loads(SEED_PATH.read_text())
    tampered = copy(seed)
    tampered["canonical_record"]["metadata"]["primary_cat"] = "cs.LG"
    server.route("/pith-badge.js", webassets.render_script(base_url=server.base), "text/javascript")
    server.json("/good.json", seed)
    server.json("/bad.json", tampered)
    server.json("/slow.json", tampered, delay=1.0)  # would say invalid, if its late answer won
    # the framed page declares both schemes, so its badge follows the embedder's (the OS's for it)
    inner, inner_token = browserkit.page(server, "/inner.html", snippet(BODY, "inner", "", "/good.json"),
                                         head='<meta name="color-scheme" content="light dark">')
    data = (f'data-number="{BODY}" data-other="{"A" * 26}" data-good="/good.json" data-tampered="/bad.json" '
            f'data-slow="/slow.json"')
    edge = snippet(BODY, "edge", "", "/good.json")  # at the window's right edge: its panel opens leftwards
    body = (f'<div {data} id="data"></div><p id="spa-slot"></p><p style="text-align:right">{edge}</p>'
            f'<iframe id="scheme" title="badge in a frame" src="{inner}" style="color-scheme:light" '
            'width="300" height="60"></iframe>')
    url, token = browserkit.page(server, "/live.html", body, scenario="live")
    server.event(inner_token).set()  # the frame's own report is not waited for
    report = browserkit.run(browser, server, url, token, tmp_path)
    assert report.get("failure") is None, report.get("failure")
    live = report["live"]
    assert live["empty"]["state"] == "unchecked" and "not a Pith Number" in live["empty"]["title"]
    assert live["first"]["state"] == "verified"
    assert live["tampered"]["state"] == "invalid"
    assert live["otherNumber"]["state"] == "invalid" and "not to AAAA" in live["otherNumber"]["title"]
    assert live["replaced"]["state"] == "verified" and live["afterSlow"]["state"] == "verified"
    assert live["dark"]["theme"] == "dark" and live["dark"]["state"] == "verified"
    assert live["big"]["svgHeight"] == 40 and live["big"]["svgWidth"] == 2 * live["dark"]["svgWidth"]
    assert (live["schemeLight"], live["schemeDark"], live["schemeBack"]) == ("light", "dark", "light")
    assert live["keyboard"]["click"][0] == "true" and live["keyboard"]["escape"][:2] == ["false", True]
    assert report["errors"] == []
    assert report["edge"]["left"] >= 0 and report["edge"]["right"] <= report["edge"]["width"], report["edge"]


# -- the npm package under a strict CSP with Trusted Types --------------------------------------
@pytest.fixture(scope="module")
def packed(tmp_path_factory) -> dict[str, bytes]:
    """`npm pack` of web/ (no network needed), unpacked: its files by name."""
    out = tmp_path_factory.mktemp("pack")
    proc = subprocess.run(["npm", "pack", "--json", "--pack-destination", str(out)], cwd=ROOT / "web",
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    tarball = out / json.loads(proc.stdout)[0]["filename"]
    with tarfile.open(tarball) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


def test_npm_package(packed):
    names = set(packed)
    assert names == {"package/package.json", "package/README.md", "package/LICENSE", "package/dist/pith-badge.js",
                     "package/dist/pith-badge.mjs", "package/dist/pith-badge.d.ts"}
    assert packed["package/LICENSE"] == (ROOT / "LICENSE").read_bytes()
    meta = json.loads(packed["package/package.json"])
    pyproject = (ROOT / "pyproject.toml").read_text()
    static = re.search(r'^version = "([^"]+)"', pyproject, re.M)
    assert meta["version"] == brand.VERSION == (static.group(1) if static else brand.VERSION)
    assert meta["exports"]["."]["import"] == "./dist/pith-badge.mjs" and meta["types"] == "dist/pith-badge.d.ts"
    assert packed["package/dist/pith-badge.mjs"].decode() == webassets.render_script(module=True)
    readme = packed["package/README.md"].decode()
    assert webassets.cdn_url() in readme and webassets.integrity(webassets.render_script(module=True)) in readme


STRICT_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
              "require-trusted-types-for 'script'; trusted-types 'none'")


@pytest.mark.parametrize("browser", BROWSERS)
def test_es_module_from_the_package_under_strict_csp(server, browser, tmp_path, packed):
    seed = json.loads(SEED_PATH.read_text())
    tampered = copy(seed)
    tampered["canonical_record"]["metadata"]["primary_cat"] = "cs.LG"
    server.route("/pith-badge.mjs", packed["package/dist/pith-badge.mjs"], "text/javascript")
    body = "".join(item(snippet(BODY, ident, "", server.json(f"/{ident}.json", doc)), ident)
                   for ident, doc in (("good", seed), ("bad", tampered)))
    body = f'<ul>{body}</ul><p data-sentinel="end">end</p>'
    url, token = browserkit.page(server, "/strict.html", body, script="/pith-badge.mjs", module=True,
                                 headers={"Content-Security-Policy": STRICT_CSP})
    report = browserkit.run(browser, server, url, token, tmp_path)
    assert report.get("failure") is None, report.get("failure")
    assert report["errors"] == []  # no CSP or Trusted Types violation, no exception
    assert report["badges"]["good"]["state"] == "verified" and report["badges"]["bad"]["state"] == "invalid"
    assert report["badges"]["good"]["adopted"] == 1  # a constructable stylesheet, which style-src allows
    assert report["before"]["sentinels"] == report["after"]["sentinels"]  # no layout shift


# -- a browser without Ed25519 in WebCrypto ---------------------------------------------------
NO_ED25519 = """\
"use strict";
// As in a browser whose WebCrypto has no Ed25519: importKey rejects the algorithm.
const importKey = crypto.subtle.importKey.bind(crypto.subtle);
crypto.subtle.importKey = (format, data, algorithm, ...rest) =>
  (algorithm && (algorithm === "Ed25519" || algorithm.name === "Ed25519"))
    ? Promise.reject(new DOMException("Unrecognized name.", "NotSupportedError"))
    : importKey(format, data, algorithm, ...rest);
"""


@pytest.mark.parametrize("browser", BROWSERS)
def test_without_ed25519_it_says_unchecked(server, browser, tmp_path):
    seed = json.loads(SEED_PATH.read_text())
    server.route("/pith-badge.js", webassets.render_script(base_url=server.base), "text/javascript")
    server.route("/no-ed25519.js", NO_ED25519, "text/javascript")
    body = item(snippet(BODY, "good", "", server.json("/good.json", seed)), "good")
    url, token = browserkit.page(server, "/noed.html", f"<ul>{body}</ul>",
                                 head='<script src="/no-ed25519.js"></script>')
    report = browserkit.run(browser, server, url, token, tmp_path)
    good = report["badges"]["good"]
    assert good["state"] == "unchecked" and "cannot check Ed25519" in good["title"], good["title"]


# -- the panel by real key presses, and a real colour-scheme switch -----------------------------
PANEL = ("(() => { const k = document.getElementById('k'), b = k.shadowRoot.querySelector('button'); "
         "return [b.getAttribute('aria-expanded'), k.shadowRoot.querySelector('.panel').hidden, "
         "document.activeElement === k && k.shadowRoot.activeElement === b]; })()")


def wait_for(browser, expression: str, wanted, seconds: float = 15):
    deadline = time.monotonic() + seconds
    while (value := browser.evaluate(expression)) != wanted and time.monotonic() < deadline:
        time.sleep(0.05)
    return value


@pytest.mark.parametrize("name", BROWSERS)
def test_panel_by_real_keys(server, name, tmp_path):
    seed = json.loads(SEED_PATH.read_text())
    server.route("/pith-badge.js", webassets.render_script(base_url=server.base), "text/javascript")
    body = f"<h1>keys</h1><ul>{item(snippet(BODY, 'k', '', server.json('/good.json', seed)), 'k')}</ul>"
    url, _ = browserkit.page(server, "/keys.html", body, head='<meta name="color-scheme" content="light dark">')
    browser = drivers.open_browser(name, url, tmp_path)
    try:
        assert wait_for(browser, "document.getElementById('k')?.dataset.state", "verified") == "verified"
        browser.press("Tab")  # the badge is the page's first focusable element
        assert wait_for(browser, PANEL, ["false", True, True]) == ["false", True, True]
        steps = []
        for key in ("Enter", "Escape", " ", " "):
            browser.press(key)
            time.sleep(0.1)  # a second, unwanted toggle would land here
            steps.append(browser.evaluate(PANEL))
        assert steps == [["true", False, True], ["false", True, True], ["true", False, True], ["false", True, True]]
        if name == "chromium":  # the top-level page's scheme (Firefox's is switched in an iframe, above)
            browser.color_scheme("dark")
            assert wait_for(browser, "document.getElementById('k').dataset.theme", "dark") == "dark"
            browser.color_scheme("light")
            assert wait_for(browser, "document.getElementById('k').dataset.theme", "light") == "light"
    finally:
        browser.close()


@pytest.mark.parametrize("name", BROWSERS)
def test_es_module_api_without_the_element(server, name, tmp_path, packed):
    seed = json.loads(SEED_PATH.read_text())
    lab = TestKey("lab-key")
    lab_doc = full_record(canonical(title="Signed by a lab key"), lab)
    server.route("/pith-badge.mjs", packed["package/dist/pith-badge.mjs"], "text/javascript")
    server.json("/good.json", seed)
    server.json("/lab.json", lab_doc)
    entry, wrong = json.dumps(key_entry(lab)), json.dumps(key_entry(lab, "00" * 16))
    clash = json.dumps(key_entry(TestKey("pith-v1-2026-05")))
    url, _ = browserkit.page(server, "/api.html", "<p>api</p>")
    script = f"""(async () => {{
      const m = await import('/pith-badge.mjs');
      const good = await (await fetch('/good.json')).json(), lab = await (await fetch('/lab.json')).json();
      const out = [(await m.verifyDocument(good, {{ number: '{BODY}' }})).state,
                   (await m.verifyDocument(good, {{ number: '{"A" * 26}' }})).state,
                   (await m.verifyDocument(lab)).reason,
                   (await m.verifyDocument(lab, {{ keys: await m.trustedKeys({entry}) }})).state];
      try {{ await m.trustedKeys({wrong}); out.push('accepted'); }} catch (e) {{ out.push(e.message); }}
      out.push((await m.trustedKeys({clash})).refused.map((r) => r.message));
      const text = await (await fetch('/good.json')).text();  // from its text: the same verdict
      out.push((await m.verifyDocument(text, {{ number: '{BODY}', year: '2021' }})).state);
      return [...out, m.STATES, m.VERSION];
    }})()"""
    browser = drivers.open_browser(name, url, tmp_path)
    try:
        wait_for(browser, "location.pathname", "/api.html")
        found = browser.evaluate(script)
    finally:
        browser.close()
    assert found == ["verified", "invalid", "signed by lab-key, which this page does not pin", "verified",
                     "key lab-key in the given keys does not match its fingerprint; this page refuses it",
                     ["the given keys: key 'pith-v1-2026-05' takes the id of a pinned Pith registry key; refused "
                      "(the pinned key stays the only key of that id)"], "verified",
                     ["verified", "invalid", "unchecked"], brand.VERSION]


# -- an https page: mixed content is named as such ---------------------------------------------
@pytest.mark.parametrize("browser", BROWSERS)
def test_mixed_content_is_named(browser, tmp_path):
    seed = json.loads(SEED_PATH.read_text())
    ca = browserkit.TestCA(tmp_path / "ca")
    with browserkit.page_server(ca.context) as secure, browserkit.page_server() as plain:
        assert secure.base.startswith("https://")
        secure.route("/pith-badge.js", webassets.render_script(base_url=secure.base), "text/javascript")
        here = secure.json("/good.json", seed)
        loopback = plain.base + plain.json("/good.json", seed)  # http, but on 127.0.0.1
        remote = f"http://records.example.org/pith/{BODY}.json"  # http elsewhere: blocked before any request
        rows = [("secure", here), ("remote", remote), ("loopback", loopback)]
        body = "<ul>" + "".join(item(snippet(BODY, ident, "", src), ident) for ident, src in rows) + "</ul>"
        url, token = browserkit.page(secure, "/mixed.html", body)
        report = browserkit.run(browser, secure, url, token, tmp_path, ca=ca)
    found = report["badges"]
    assert found["secure"]["state"] == "verified", found["secure"]["title"]  # a secure context: WebCrypto works
    remote_says = f"mixed content: this https page may not fetch the http:// record {remote} (browsers block it)"
    assert found["remote"]["state"] == "unchecked" and remote_says in found["remote"]["title"]
    assert remote_says in found["remote"]["panel"] and "no CORS header" not in found["remote"]["title"]
    # browsers let an https page fetch http:// from 127.0.0.1 (a potentially trustworthy origin):
    # the element tries it rather than refusing it as mixed content
    assert found["loopback"]["state"] == "verified", found["loopback"]["title"]


# -- window.pithBadge.keys may not take the registry's key id ----------------------------------
@pytest.mark.parametrize("browser", BROWSERS)
def test_page_wide_key_with_a_registry_id_is_refused(server, browser, tmp_path):
    seed = json.loads(SEED_PATH.read_text())
    impostor = TestKey("pith-v1-2026-05")
    forged = full_record(canonical(title="Attention Is All You Need"), impostor)
    server.route("/pith-badge.js", webassets.render_script(base_url=server.base), "text/javascript")
    rows = [("genuine", BODY, server.json("/good.json", seed)),
            ("forged", body_of(forged), server.json("/f.json", forged))]
    config = json.dumps({"keys": [key_entry(impostor)]})
    body = (f'<script type="application/json" id="config">{config}</script><ul>'
            + "".join(item(snippet(number, ident, "", src), ident) for ident, number, src in rows) + "</ul>")
    url, token = browserkit.page(server, "/clash.html", body)
    report = browserkit.run(browser, server, url, token, tmp_path)
    clash = ("window.pithBadge.keys: key 'pith-v1-2026-05' takes the id of a pinned Pith registry key; refused "
             "(the pinned key stays the only key of that id)")
    genuine, forged = report["badges"]["genuine"], report["badges"]["forged"]
    # the forged record never turns green, and the genuine one stays verified by the registry's key
    assert forged["state"] == "invalid" and forged["title"].endswith(f"; {clash}") and forged["signer"] is None
    assert (genuine["state"], genuine["signer"]) == ("verified", "registry"), genuine["title"]
    for b in (genuine, forged):
        assert f"refused key: {clash}" in b["panel"] and "page key" not in b["panel"]


# -- a page that is not a secure context --------------------------------------------------------
@pytest.mark.parametrize("browser", BROWSERS)
def test_an_insecure_page_says_so(browser, tmp_path):
    """http:// on a name that is not loopback: no WebCrypto, and the reader is told why."""
    seed = json.loads(SEED_PATH.read_text())
    with browserkit.page_server() as server:
        server.route("/pith-badge.js", webassets.render_script(base_url=server.base), "text/javascript")
        body = "<ul>" + item(snippet(BODY, "plain", "", server.json("/good.json", seed)), "plain") + "</ul>"
        url, token = browserkit.page(server, "/plain.html", body)
        url = url.replace("127.0.0.1", "pages.pith.test")
        report = browserkit.run(browser, server, url, token, tmp_path, hosts=("pages.pith.test",))
    b = report["badges"]["plain"]
    assert (b["state"], b["title"]) == ("unchecked", f"unchecked: {webassets.INSECURE}")
    assert webassets.INSECURE in (ROOT / "web" / "README.md").read_text()
