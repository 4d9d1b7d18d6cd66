"""One reading of a Pith Number's text, three readers: pithtex/number.py, pith.sty and
pith-badge.js all follow number.py's `Reading` and `REASONS` (the sty's and the script's code
is rendered from them), and all three give tests/fixtures/number-vectors.json's answer to
each vector: the body and year, or the same reason in the same words."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from pithtex.errors import InvalidNumber
from pithtex.number import REASONS, PithNumber
from pithtex.web import assets as webassets

from . import browserkit
from .latex.test_sty_options import article, build

VECTORS = json.loads((Path(__file__).parent / "fixtures" / "number-vectors.json").read_text("utf-8"))["vectors"]


def python_reading(text: str) -> dict:
    try:
        n = PithNumber.parse(text)
    except InvalidNumber as exc:
        return {"reason": str(exc).split("': ", 1)[1] if "': " in str(exc) else str(exc)}
    return {"body": n.body, "year": n.year}


def expected(vector: dict) -> dict:
    return {k: vector[k] for k in ("body", "year", "reason") if k in vector}


def test_the_vectors_name_every_reason():
    said = {v["reason"] for v in VECTORS if "reason" in v}
    for key, text in REASONS.items():
        if key == "hint":
            assert any(text in r for r in said)
        else:
            head = text.split("{", 1)[0]
            assert any(r.startswith(head) for r in said), key


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: ascii(v["text"])[:40])
def test_python_reads_each_vector(vector):
    assert python_reading(vector["text"]) == expected(vector)


def test_pith_sty_reads_each_vector(tmp_path):
    """The invalid ones in one document (each is an error and the run goes on), the valid ones
    one document each (the first number given is the paper's)."""
    bad = [v for v in VECTORS if "reason" in v and v.get("tex", True)]
    lines = "".join(f"\\pithnumber{{{v['text']}}}\n" for v in bad)
    facts, log = build(tmp_path / "bad", article(number=None).replace("\\usepackage{pith}\n",
                                                                      "\\usepackage{pith}\n" + lines))
    assert log.count("Package pith Error: Invalid Pith Number") == len(bad)
    for v in bad:
        assert f"Invalid Pith Number '{v['text'].strip()}': {v['reason']}." in log, v["text"]
    assert facts.info_number == ""
    for i, v in enumerate(v for v in VECTORS if "body" in v):
        body = "\\maketitle\n\\typeout{READ=\\pithbody;\\pithlong;}\n"
        facts, log = build(tmp_path / f"ok{i}", article(number=v["text"], body=body))
        long = f"pith:{v['year']}:{v['body']}" if v["year"] else f"pith:{v['body']}"
        assert f"READ={v['body']};{long};" in log and facts.info_number == v["body"], v["text"]


@pytest.fixture
def server() -> Iterator[browserkit.PageServer]:
    with browserkit.page_server() as s:
        yield s


@pytest.mark.parametrize("browser", ["chromium", "firefox"])
def test_browsers_read_each_vector(server, browser, tmp_path):
    server.route("/pith-badge.mjs", webassets.render_script(module=True, base_url=server.base), "text/javascript")
    texts = json.dumps([v["text"] for v in VECTORS]).replace("<", "\\u003c")
    body = f'<script type="application/json" id="numbers" data-module="/pith-badge.mjs">{texts}</script>'
    url, token = browserkit.page(server, "/numbers.html", body, scenario="numbers", script="/pith-badge.mjs",
                                 module=True)
    report = browserkit.run(browser, server, url, token, tmp_path)
    assert report.get("failure") is None, report.get("failure")
    assert report["errors"] == []
    read = report["numbers"]
    wrong = [(v["text"], read[i], expected(v)) for i, v in enumerate(VECTORS) if read[i] != expected(v)]
    assert wrong == []
