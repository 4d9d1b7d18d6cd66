"""The self-verifying <pith-badge> in real headless Chromium, against pages served on 127.0.0.1.

One page per script (the script defines the element once): the default script with only
the pinned registry key, and one rendered with a test key as well, for records with
Unicode that must be canonicalised exactly as Python does.
"""

from __future__ import annotations

import base64
import json
import re
import subprocess
from collections.abc import Iterator
from html.parser import HTMLParser

import pytest

from pithtex import badge, webassets
from pithtex.number import PithNumber
from pithtex.record import canonical_json
from pithtex.trust import KeyRing, PublicKey, pinned_keys
from pithtex.verify import verify_document

from .conftest import BODY, SEED_PATH
from .recordkit import TestKey, canonical, full_record
from .resolverkit import FakeResolver, Reply, closed_port_url, serving

CHROMIUM = "/usr/bin/chromium"


@pytest.fixture
def fake() -> Iterator[FakeResolver]:
    with serving() as server:
        yield server


class Badges(HTMLParser):
    """Collects every <pith-badge>'s attributes and the width of the svg drawn inside it."""

    def __init__(self) -> None:
        super().__init__()
        self.found: dict[str, dict[str, str]] = {}
        self._current: str | None = None

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        if tag == "pith-badge":
            self._current = a.get("id", "")
            self.found[self._current] = a
        elif tag == "svg" and self._current is not None and "svg_width" not in self.found[self._current]:
            self.found[self._current]["svg_width"] = a.get("width", "")
            self.found[self._current]["svg_label"] = a.get("aria-label", "")

    def handle_endtag(self, tag):
        if tag == "pith-badge":
            self._current = None


def run_chromium(url: str, tmp_path) -> dict[str, dict[str, str]]:
    proc = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=5000", "--dump-dom", url],
        capture_output=True, text=True, timeout=90,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    parser = Badges()
    parser.feed(proc.stdout)
    assert parser.found, proc.stdout[-2000:]
    return parser.found


def page(fake: FakeResolver, script: str, badges: list[tuple[str, str, str | None]]) -> str:
    """Serve a page with one embed per (id, number, src); return its URL."""
    parts = ["<!doctype html><meta charset='utf-8'><title>t</title>"]
    for ident, number, src in badges:
        snippet = webassets.embed_snippet(PithNumber(number), src=src)
        snippet = snippet.split("\n", 1)[1]  # one script tag for the page, below
        parts.append(snippet.replace("<pith-badge ", f'<pith-badge id="{ident}" ', 1))
    parts.append('<script src="/pith-badge.js"></script>')
    fake.route("/page.html", Reply(body="".join(parts).encode(), headers={"Content-Type": "text/html; charset=utf-8"}))
    fake.route("/pith-badge.js", Reply(body=script.encode(), headers={"Content-Type": "text/javascript"}))
    return f"{fake.base}/page.html"


def serve_json(fake: FakeResolver, path: str, document) -> str:
    fake.route(path, Reply.json(document))
    return path


def test_pinned_script_says_verified_only_for_the_good_record(fake, tmp_path):
    seed = json.loads(SEED_PATH.read_text())
    tampered = json.loads(json.dumps(seed))
    tampered["canonical_record"]["metadata"]["primary_cat"] = "cs.LG"
    tampered_quietly = json.loads(json.dumps(tampered))  # no stated hashes left to contradict it
    tampered_quietly.pop("canonical_sha256")
    tampered_quietly["receipt"].pop("canonical_sha256")
    forged = json.loads(json.dumps(seed))
    sig = bytearray(base64.b64decode(forged["receipt"]["signature_b64"]))
    sig[5] ^= 0x40
    forged["receipt"]["signature_b64"] = base64.b64encode(bytes(sig)).decode()
    bad_alias = json.loads(json.dumps(seed))  # validly signed, but an unsigned claim is wrong
    bad_alias["aliases"][-1]["alias_value"] = "YBK5PTAA"
    bad_year = json.loads(json.dumps(seed))
    bad_year["pith_number"] = f"pith:2020:{BODY}"
    for doc in (bad_alias, bad_year):
        assert verify_document(doc).exit_code == 1  # what Python says, the browser must say
    test_key = TestKey("lab-key")
    unknown = full_record(canonical(title="Signed by a lab key"), test_key)
    unknown_body = unknown["pith_number"].split(":")[-1]
    impostor_key = TestKey("pith-v1-2026-05")
    impostor = full_record(canonical(title="Impostor"), impostor_key)
    impostor["receipt"].pop("public_key_fingerprint")
    impostor_body = impostor["pith_number"].split(":")[-1]
    fake.record(BODY, Reply.json(seed))
    fake.route("/500.json", Reply(500))
    fake.route("/broken.json", Reply(body=json.dumps(seed).encode()[:300]))
    badges = [
        ("good", BODY, serve_json(fake, "/good.json", seed)),
        ("resolver", BODY, None),
        ("tampered", BODY, serve_json(fake, "/tampered.json", tampered)),
        ("tampered-quietly", BODY, serve_json(fake, "/tq.json", tampered_quietly)),
        ("forged", BODY, serve_json(fake, "/forged.json", forged)),
        ("unknown-key", unknown_body, serve_json(fake, "/unknown.json", unknown)),
        ("impostor", impostor_body, serve_json(fake, "/impostor.json", impostor)),
        ("bad-alias", BODY, serve_json(fake, "/bad-alias.json", bad_alias)),
        ("bad-year", BODY, serve_json(fake, "/bad-year.json", bad_year)),
        ("other-number", "A" * 26, "/good.json"),
        ("unreachable", BODY, closed_port_url() + "/x.json"),
        ("http-500", BODY, "/500.json"),
        ("malformed", BODY, "/broken.json"),
    ]
    script = webassets.render_script(base_url=fake.base)
    found = run_chromium(page(fake, script, badges), tmp_path)
    states = {ident: a.get("data-state") for ident, a in found.items()}
    assert states == {ident: ("verified" if ident in ("good", "resolver") else "unverified") for ident, *_ in badges}
    reasons = {
        "tampered": "stated hash",
        "tampered-quietly": f"not to {BODY}",
        "forged": "signature does not verify under pith-v1-2026-05",
        "unknown-key": "key lab-key is not a pinned registry key",
        "impostor": "signature does not verify",
        "bad-alias": "pith_short_8 YBK5PTAA is not a prefix",
        "bad-year": "names year 2020, but submitted_at says 2021",
        "other-number": f"hashes to {BODY}, not to AAAA",
        "unreachable": "could not fetch the record",
        "http-500": "answered HTTP 500",
        "malformed": "not valid JSON",
    }
    for ident, fragment in reasons.items():
        assert found[ident]["title"].startswith("unverified: ") and fragment in found[ident]["title"], found[ident]
    assert found["good"]["title"].startswith("verified in this browser")
    # the badge drawn in the browser fills exactly the space the snippet reserved: no layout shift
    for ident, a in found.items():
        assert f"width:{a['svg_width']}px" in a["style"], (ident, a)
    assert found["good"]["svg_label"] == "pith: YBK5PTAK, verified"
    assert found["tampered"]["svg_label"] == "pith: YBK5PTAK, unverified"


def test_unicode_records_canonicalise_like_python(fake, tmp_path):
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
    big = full_record(canonical(title="Big", version=2**60), key)
    big_body = big["pith_number"].split(":")[-1]
    badges = [("unicode", body, serve_json(fake, "/u.json", doc)),
              ("big", big_body, serve_json(fake, "/big.json", big))]
    trusting = webassets.render_script(keys=ring, base_url=fake.base)
    found = run_chromium(page(fake, trusting, badges), tmp_path)
    assert found["unicode"]["data-state"] == "verified", found["unicode"]
    assert found["big"]["data-state"] == "unverified" and "cannot reproduce exactly" in found["big"]["title"]


def test_without_javascript_it_is_a_plain_linked_badge():
    n = PithNumber(BODY)
    snippet = webassets.embed_snippet(n)
    assert snippet.startswith('<script src="pith-badge.js" defer></script>\n')
    light_dom = snippet.split('">', 1)[1]
    assert light_dom.startswith(f'<a href="https://pith.science/pith/{BODY}"><svg ')
    assert 'aria-label="pith: YBK5PTAK"' in light_dom and "verified" not in light_dom.replace("unverified", "")
    assert f"width:{webassets.embed_width(n)}px;height:20px" in snippet
    assert webassets.embed_width(n) > badge.layout(n, False).width  # room for the status


def test_script_bakes_in_only_the_pinned_keys_by_default():
    script = webassets.render_script()
    key = next(iter(pinned_keys()))
    assert base64.b64encode(key.raw).decode() in script and key.fingerprint in script
    assert script.count('"fingerprint"') == len(pinned_keys())
    # no third-party code and nothing fetched but the record: the only URLs are these two
    assert set(re.findall(r"https?://[^\s\"'`<>/]+", script)) == {"http://www.w3.org", "https://pith.science"}
    assert not re.search(r"^\s*import\b|\bimport\(|\brequire\(", script, re.M)


def test_render_web_assets(tmp_path):
    written = webassets.render_web_assets(tmp_path / "web")
    names = sorted(p.name for p in written)
    assert names == ["pith-YBK5PTAK-dark.svg", "pith-YBK5PTAK.svg", "pith-badge-example.html", "pith-badge.js"]
    assert all(p.stat().st_size > 0 for p in written)
    assert not [p for p in (tmp_path / "web").iterdir() if p.name.startswith(".")]  # no temp files left
