"""One canonical form, two implementations: every vector in tests/fixtures/canon-vectors.json
gets the same verdict from Python (record.py + verify.py, and the `pithtex verify` command)
and from pith-badge.js in Chromium and Firefox ESR (the ES module on the bytes served, and
the element on the page). The file states each verdict; both readers are held to it.
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from pithtex.brand import STATE_OF_EXIT
from pithtex.errors import RecordError
from pithtex.record import MAX_DEPTH, MAX_DIGITS, canonical_of, number_of, parse_document, title_sha256
from pithtex.trust import KeyRing, keys_from_json, pinned_keys
from pithtex.verify import verify_document
from pithtex.web import assets as webassets

from . import browserkit
from .conftest import pithtex_cli

VECTORS_PATH = Path(__file__).resolve().parent / "fixtures" / "canon-vectors.json"
VECTORS = json.loads(VECTORS_PATH.read_text("utf-8"))
EXIT = VECTORS["verdicts"]  # verified 0, invalid 1, refused 2, unchecked 3
# What the element's face says for each verdict: a refused answer decides nothing.
FACE = {"verified": "verified", "invalid": "invalid", "refused": "unchecked", "unchecked": "unchecked"}
NAMES = [v["name"] for v in VECTORS["vectors"]]


def data_of(vector: dict) -> bytes:
    if "base64" in vector:
        return base64.b64decode(vector["base64"])
    deep = vector.get("deep", 0)
    return vector["text"].replace("@DEEP@", "[" * deep + "]" * deep).encode("utf-8")


def ring() -> KeyRing:
    return pinned_keys().extended(KeyRing(keys_from_json(VECTORS["keys"], "canon-vectors.json")))


def python_verdict(data: bytes, keys: KeyRing) -> str:
    try:
        document = parse_document(data)
    except RecordError:
        return "refused"
    return STATE_OF_EXIT[verify_document(document, keys).exit_code]


def test_the_file_covers_what_the_issue_names():
    texts = {v["name"]: data_of(v) for v in VECTORS["vectors"]}
    assert VECTORS["rules"]["max_depth"] == MAX_DEPTH and VECTORS["rules"]["max_digits"] == MAX_DIGITS
    assert b'"version": 5.0' in texts["float-5.0"] and b'"version": 1e0' in texts["exponent-1e0"]
    assert b'"version": -0}' in texts["minus-zero"] and b"9007199254740993" in texts["integers-beyond-2^53"]
    assert b"[" * 200_000 + b"]" in texts["nested-200000-deep"]
    assert texts["bom"].startswith(b"\xef\xbb\xbf") and "😀".encode() in texts["non-bmp-keys-and-strings"]
    assert all(e in texts["every-escape"] for e in (rb"\"", rb"\\", rb"\/", rb"\b", rb"\f", rb"\n", rb"\r", rb"\t",
                                                    rb"\u0000", rb"\u001F", rb"\u00E9"))
    assert {"verified", "invalid", "refused", "unchecked"} == {v["verdict"] for v in VECTORS["vectors"]}
    assert len(NAMES) == len(set(NAMES)) > 50


@pytest.mark.parametrize("name", NAMES)
def test_python_gives_each_vector_its_verdict(name):
    vector = next(v for v in VECTORS["vectors"] if v["name"] == name)
    data = data_of(vector)
    assert python_verdict(data, ring()) == vector["verdict"], vector["why"]
    if vector.get("title"):  # the title rule: paper.title authenticates against the signed hash
        document = parse_document(data)
        assert title_sha256(document["paper"]["title"]) == canonical_of(document)["metadata"]["title_canon_sha256"]


def test_the_command_line_gives_each_vector_its_exit_code(tmp_path):
    """`pithtex verify FILE`: the verdict's exit code, one line on stderr, never a traceback (or 70)."""
    key_file = tmp_path / "keys.json"
    key_file.write_text(json.dumps(VECTORS["keys"]))
    wrong = []
    for vector in VECTORS["vectors"]:
        path = tmp_path / f"{vector['name'].replace('^', '')}.json"
        path.write_bytes(data_of(vector))
        proc = pithtex_cli("verify", str(path), "--keys", str(key_file))
        if proc.returncode != EXIT[vector["verdict"]] or "Traceback" in proc.stderr:
            wrong.append((vector["name"], proc.returncode, proc.stderr[-300:]))
        if vector["verdict"] == "refused":
            assert proc.stderr.count("\n") == 1 and str(path) in proc.stderr, (vector["name"], proc.stderr)
    assert wrong == []


# -- the browsers ---------------------------------------------------------------------------
@pytest.fixture
def server() -> Iterator[browserkit.PageServer]:
    with browserkit.page_server() as s:
        yield s


@pytest.mark.parametrize("browser", ["chromium", "firefox"])
def test_browsers_give_each_vector_the_same_verdict(server, browser, tmp_path):
    keys = ring()
    server.route("/pith-badge.mjs", webassets.render_script(module=True, base_url=server.base), "text/javascript")
    listed, items, faces = [], [], {}
    for i, vector in enumerate(VECTORS["vectors"]):
        data = data_of(vector)
        url = server.route(f"/v/{i}.json", data, "application/json")
        listed.append({"name": vector["name"], "url": url})
        verdict = python_verdict(data, keys)
        assert verdict == vector["verdict"], vector["name"]
        try:  # the element is given the number Python computes (any, for what it refuses)
            body = number_of(canonical_of(parse_document(data))).body
        except RecordError:
            body = "A" * 26
        items.append(f'<li><pith-badge id="v{i}" number="{body}" src="{url}"></pith-badge></li>')
        faces[f"v{i}"] = (vector["name"], FACE[verdict])
    config = json.dumps({"keys": VECTORS["keys"]}).replace("<", "\\u003c")
    body = (f'<script type="application/json" id="config">{config}</script>'
            f'<script type="application/json" id="vectors" data-module="/pith-badge.mjs">'
            f'{html.escape(json.dumps(listed), quote=False)}</script><ul>{"".join(items)}</ul>')
    url, token = browserkit.page(server, "/vectors.html", body, scenario="vectors", script="/pith-badge.mjs",
                                 module=True)
    report = browserkit.run(browser, server, url, token, tmp_path)
    assert report.get("failure") is None, report.get("failure")
    assert report["settled"] and report["errors"] == []
    found = report["vectors"]
    expected = {v["name"]: v["verdict"] for v in VECTORS["vectors"]}
    wrong = {name: found.get(name) for name in NAMES if (found.get(name) or {}).get("verdict") != expected[name]}
    assert wrong == {}
    titles = [v["name"] for v in VECTORS["vectors"] if v.get("title")]
    assert titles and all(found[name]["title"] for name in titles)
    faced = {ident: report["badges"][ident]["state"] for ident in faces}
    assert faced == {ident: face for ident, (_, face) in faces.items()}, [
        (faces[i][0], faced[i], report["badges"][i]["title"]) for i in faces if faced[i] != faces[i][1]]
    # a refused answer says why, on the face's tooltip too
    deep = next(i for i, (name, _) in faces.items() if name == "nested-200000-deep")
    assert f"nested more than {MAX_DEPTH} deep" in report["badges"][deep]["title"]
