"""<pith-badge> on whole pages, in Chromium and Firefox ESR: many badges of one large record, a
server at the edge of the deadline, theme="auto" following the site, and signed strings with
control, format and bidi characters (issue 26).

One page per concern and browser (tests/browserkit.py); the record server counts requests, and
a page script counts the large SHA-256 inputs, so "one fetch, one hash per record" is a count.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterator

import pytest

from pithtex import brand, safetext
from pithtex.limits import MAX_RESPONSE_BYTES, NETWORK_SECONDS
from pithtex.resolver import TIMEOUT
from pithtex.safetext import visible
from pithtex.trust import fingerprint
from pithtex.web import assets as webassets

from .. import browserkit
from ..conftest import BODY, SEED_PATH
from ..recordkit import TestKey, canonical, full_record

BROWSERS = ["chromium", "firefox"]
BADGES = 30


@pytest.fixture
def server() -> Iterator[browserkit.PageServer]:
    with browserkit.page_server() as s:
        yield s


def key_entry(key: TestKey) -> dict[str, str]:
    return {"key_id": key.key_id, "public_key_hex": key.raw_public.hex(), "fingerprint": fingerprint(key.raw_public)}


def number_of(doc) -> str:
    return doc["pith_number"].split(":")[-1]


def big_record(key: TestKey) -> dict:
    """A signed record of about 4 MB (under the 4 MiB cap), most of it inside the signed part."""
    record = canonical(title="A Large Record")
    record["metadata"]["references"] = [{"id": f"ref-{i:06d}", "text": f"Reference number {i} " + "x" * 60}
                                        for i in range(34_000)]
    return full_record(record, key)


# Counts the SHA-256 inputs over 1 MB: hashing a 4 MB record once per badge would show here.
COUNT_DIGESTS = """\
"use strict";
window.pithDigests = 0;
const digest = crypto.subtle.digest.bind(crypto.subtle);
crypto.subtle.digest = (algorithm, data) => {
  if (data.byteLength > 1e6) window.pithDigests++;
  return digest(algorithm, data);
};
// when the 30th badge of the large record was decided (ms since navigation): a figure, never asserted
let decided = 0, allDecided = null;
document.addEventListener("pith-badge-checked", (e) => {
  if (e.target.id.startsWith("b") && ++decided === 30) allDecided = Math.round(performance.now());
}, true);
window.pithScenario = async () => ({ digests: window.pithDigests, decided, allDecided });
"""


def test_one_deadline_for_the_command_line_and_the_element():
    """The element's deadline is the command line's default, rendered in from one constant."""
    assert TIMEOUT == NETWORK_SECONDS
    values = json.loads(webassets.render_script().split("const C = ", 1)[1].split(";\n", 1)[0])
    assert values["limits"]["seconds"] == NETWORK_SECONDS
    assert "DEADLINE_MS = C.limits.seconds * 1000" in webassets.render_script()


@pytest.mark.parametrize("browser", BROWSERS)
def test_thirty_badges_of_a_4mb_record_and_a_late_server(server, browser, tmp_path):
    """30 badges of one 4 MB record: one request, one hash, all verified. A server whose headers
    come 15 s late (the command line waits 20 s) is waited for too."""
    lab = TestKey("lab-key")
    big = big_record(lab)
    text = json.dumps(big)
    assert 3_900_000 < len(text.encode()) <= MAX_RESPONSE_BYTES
    seed = json.loads(SEED_PATH.read_text())
    server.route("/pith-badge.js", webassets.render_script(base_url=server.base), "text/javascript")
    server.route("/count.js", COUNT_DIGESTS, "text/javascript")
    server.route("/big.json", text, "application/json")
    late_delay = 15.0
    assert late_delay < NETWORK_SECONDS
    server.json("/late.json", seed, delay=late_delay)
    body = number_of(big)
    items = "".join(f'<li><pith-badge id="b{i}" number="{body}" src="/big.json"></pith-badge></li>'
                    for i in range(BADGES))
    items += f'<li><pith-badge id="late" number="{BODY}" src="/late.json"></pith-badge></li>'
    config = json.dumps({"keys": [key_entry(lab)]})
    page = f'<script type="application/json" id="config">{config}</script><ul>{items}</ul>'
    url, token = browserkit.page(server, "/thirty.html", page, head='<script src="/count.js"></script>',
                                 settle_ms=int((NETWORK_SECONDS + 10) * 1000))
    report = browserkit.run(browser, server, url, token, tmp_path)
    assert report.get("failure") is None, report.get("failure")
    assert report["settled"] and report["errors"] == []
    states = {ident: b["state"] for ident, b in report["badges"].items()}
    assert states == {**{f"b{i}": "verified" for i in range(BADGES)}, "late": "verified"}, [
        (ident, b["title"]) for ident, b in report["badges"].items() if b["state"] != "verified"]
    assert server.hits["/big.json"] == 1 and server.hits["/late.json"] == 1
    assert report["scenario"]["digests"] == 1 and report["scenario"]["decided"] == BADGES
    assert not any("did not answer" in b["title"] for b in report["badges"].values())


# -- theme="auto": the site's scheme, then the OS's ------------------------------------------
# The steps the page takes (each a change the site's own theme switch would make), and the
# theme the badges must then show. Run by a page script (no inline script), reported back.
THEME_STEPS = """\
"use strict";
const tick = () => new Promise((r) => setTimeout(r, 0));
async function themes() {
  await tick(); await tick();  // the observer's records, then the re-draw
  return [document.getElementById("auto").dataset.theme, document.getElementById("fixed").dataset.theme];
}
const frameTheme = (id) => document.getElementById(id).contentDocument.querySelector("pith-badge")?.dataset.theme;
async function frames() {
  const end = Date.now() + 15000;
  const ready = () => ["framed-light", "framed-plain", "framed-both"].every((id) => frameTheme(id));
  while (Date.now() < end && !ready()) await new Promise((r) => setTimeout(r, 25));
  return { light: frameTheme("framed-light"), plain: frameTheme("framed-plain"), both: frameTheme("framed-both") };
}
window.pithScenario = async () => {
  const root = document.documentElement, body = document.body, out = [];
  const step = async (name, change) => { change(); out.push([name, ...(await themes())]); };
  out.push(["start", ...(await themes())]);
  await step("material slate", () => body.setAttribute("data-md-color-scheme", "slate"));
  await step("material default", () => body.setAttribute("data-md-color-scheme", "default"));
  await step("no material", () => body.removeAttribute("data-md-color-scheme"));
  await step("data-theme dark", () => root.setAttribute("data-theme", "dark"));
  await step("data-theme auto", () => root.setAttribute("data-theme", "auto"));
  await step("no data-theme", () => root.removeAttribute("data-theme"));
  await step("class dark", () => root.classList.add("dark"));
  await step("no class", () => root.classList.remove("dark"));
  await step("color-scheme dark", () => { root.style.colorScheme = "dark"; });
  await step("color-scheme light dark", () => { root.style.colorScheme = "light dark"; });
  await step("no color-scheme", () => { root.style.colorScheme = ""; });
  const meta = document.createElement("meta");
  meta.name = "color-scheme";
  await step("meta dark", () => { meta.content = "dark"; document.head.append(meta); });
  await step("meta light", () => { meta.content = "light"; });
  await step("no meta", () => meta.remove());
  return { steps: out, frames: await frames() };
};
"""
EXPECTED_STEPS = [
    ["start", "light", "light"], ["material slate", "dark", "light"], ["material default", "light", "light"],
    ["no material", "light", "light"], ["data-theme dark", "dark", "light"], ["data-theme auto", "light", "light"],
    ["no data-theme", "light", "light"], ["class dark", "dark", "light"], ["no class", "light", "light"],
    ["color-scheme dark", "dark", "light"], ["color-scheme light dark", "light", "light"],
    ["no color-scheme", "light", "light"], ["meta dark", "dark", "light"], ["meta light", "light", "light"],
    ["no meta", "light", "light"],
]


def framed(number: str, src: str, head: str = "") -> str:
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">{head}<script src="/pith-badge.js" defer>'
            f'</script></head><body><pith-badge number="{number}" src="{src}"></pith-badge></body></html>')


# -- signed strings with control, format and bidi characters ----------------------------------
ZWSP, SHY, RLO, BEL = "\u200b", "\u00ad", "\u202e", "\u0007"
TAG = "\U000e0041"  # a tag character, beyond the BMP
HIDDEN_TITLE = f"Z{ZWSP}w s{SHY}h b{BEL} n\u0000 t{TAG} {RLO}o”, arXiv:9999.99999"
LOOKALIKE = "pith-v1-2026-05" + ZWSP


@pytest.mark.parametrize("browser", BROWSERS)
def test_theme_follows_the_site_and_signed_strings_are_cleaned(server, browser, tmp_path):
    seed = json.loads(SEED_PATH.read_text())
    lab, lookalike = TestKey("lab-key"), TestKey(LOOKALIKE)
    record = canonical(title=HIDDEN_TITLE)
    hidden = full_record(record, lab)
    hidden["paper"] = {"title": HIDDEN_TITLE}
    posing = full_record(canonical(title="Posing as the registry"), lookalike)
    server.route("/pith-badge.js", webassets.render_script(base_url=server.base), "text/javascript")
    server.route("/steps.js", THEME_STEPS, "text/javascript")
    server.json("/seed.json", seed)
    server.json("/hidden.json", hidden)
    server.json("/posing.json", posing)
    # the OS (the embedder's scheme, for a frame) is dark; a light-only site keeps its badges light,
    # and so does a page that declares no scheme; only a page declaring both follows the OS
    server.route("/framed-light.html", framed(BODY, "/seed.json", '<meta name="color-scheme" content="light">'))
    server.route("/framed-plain.html", framed(BODY, "/seed.json"))
    server.route("/framed-both.html", framed(BODY, "/seed.json", '<meta name="color-scheme" content="light dark">'))
    lab_keys = html.escape(json.dumps([key_entry(lab)]), quote=True)
    lookalike_keys = html.escape(json.dumps([key_entry(lookalike)]), quote=True)
    rows = [
        f'<pith-badge id="auto" number="{BODY}" src="/seed.json"></pith-badge>',
        f'<pith-badge id="fixed" number="{BODY}" src="/seed.json" theme="light"></pith-badge>',
        f'<pith-badge id="hidden" number="{number_of(hidden)}" src="/hidden.json" keys="{lab_keys}"></pith-badge>',
        f'<pith-badge id="offered" number="{number_of(posing)}" src="/posing.json" keys="{lookalike_keys}">'
        "</pith-badge>",
        f'<pith-badge id="posing" number="{number_of(posing)}" src="/posing.json"></pith-badge>',
    ]
    frames = ('<iframe id="framed-light" src="/framed-light.html" class="dark-frame"></iframe>'
              '<iframe id="framed-plain" src="/framed-plain.html" class="dark-frame"></iframe>'
              '<iframe id="framed-both" src="/framed-both.html" class="dark-frame"></iframe>')
    body = "<ul>" + "".join(f"<li>{r}</li>" for r in rows) + "</ul>" + frames
    url, token = browserkit.page(server, "/site.html", body, head='<script src="/steps.js"></script>'
                                 '<link rel="stylesheet" href="/frames.css">')
    server.route("/frames.css", ".dark-frame{color-scheme:dark}", "text/css")
    report = browserkit.run(browser, server, url, token, tmp_path)
    assert report.get("failure") is None, report.get("failure")
    assert report["settled"] and report["errors"] == []
    assert report["scenario"]["steps"] == EXPECTED_STEPS
    assert report["scenario"]["frames"] == {"light": "light", "plain": "light", "both": "dark"}
    found = report["badges"]

    # the signed title: verified, every hidden character spelled out as Python's safetext does
    b = found["hidden"]
    assert b["state"] == "verified", b["title"]
    shown = safetext.shown(HIDDEN_TITLE, quote=True)
    for text in (b["label"], b["title"], b["panel"]):
        assert not any(c in text for c in (ZWSP, SHY, RLO, BEL, "\u0000", TAG)), text
    assert "\\u200b" in b["label"] and "\\u0007" in b["title"] and "\\u0000" in b["panel"]
    assert "\\udb40\\udc41" in b["label"] and "\\udb40\\udc41" in b["panel"]
    assert visible(HIDDEN_TITLE) in b["panel"]  # the panel's title line: the command line's rule, to the character
    # the signed arXiv id comes first, and the title's own quote cannot close the title
    assert b["label"] == f"pith: {number_of(hidden)[:8]}, verified, {brand.signed_by_added('lab-key', 'this page')}: " \
        f"arXiv:2401.00001v1, {shown}"
    # a page key: the panel does not claim the server is not trusted
    assert "nothing here trusts the server" not in b["panel"] and "only as trustworthy as the site" in b["panel"]
    assert "nothing here trusts the server" in found["auto"]["panel"]
    # a page key whose id is the registry's plus a zero-width space is refused, by name
    offered = found["offered"]
    refused = brand.key_id_unusable("the keys attribute", safetext.shown(LOOKALIKE, quote=True))
    assert offered["state"] == "unchecked" and refused in offered["title"], offered["title"]
    assert offered["signer"] is None and "page key" not in offered["panel"]
    posing_b = found["posing"]
    assert posing_b["state"] == "unchecked" and "signed by pith-v1-2026-05\\u200b, which this page does not pin" \
        in posing_b["title"], posing_b["title"]
    for b in found.values():
        assert ZWSP not in b["title"] + b["label"] + b["panel"]
