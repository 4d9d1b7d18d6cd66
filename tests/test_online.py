"""`pithtex verify ID|PDF --online` as a user runs it, against a real local resolver."""

from __future__ import annotations

import json

import pytest

from .conftest import BODY, assert_clean_error, pithtex_cli
from .pdfkit import make_pdf
from .recordkit import TestKey, canonical, full_record
from .resolverkit import FakeResolver, Reply, closed_port_url
from .test_resolver import bad_signature, seed_doc, tampered

PATH = f"/pith/{BODY}.json"


def online(fake: FakeResolver, tmp_path, *args: str, env: dict | None = None):
    environment = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PITH_BASE_URL": "", **(env or {})}
    return pithtex_cli("verify", *args, "--base-url", fake.base, env=environment)


def as_json(proc) -> dict:
    return json.loads(proc.stdout)


def test_good_record_verifies_check_by_check(fake, tmp_path):
    fake.record(BODY, Reply.json(seed_doc()))
    p = online(fake, tmp_path, BODY, "--online", "--json")
    assert p.returncode == 0, p.stderr
    j = as_json(p)
    assert j["verified"] is True and j["number"] == BODY and j["long"] == f"pith:2021:{BODY}"
    assert j["checks"]["fetch"] == "pass" and j["checks"]["signature"] == "pass"
    assert j["key_id"] == "pith-v1-2026-05" and j["canonical_sha256"].startswith("c055d7cc")
    human = online(fake, tmp_path, f"pith:2021:{BODY.lower()}")  # an ID implies --online
    assert human.returncode == 0 and "  verified  (" in human.stdout and "[ok  ] fetch" in human.stdout


@pytest.mark.parametrize(("document", "failing"), [
    (tampered(), "expected"), (bad_signature(), "signature")], ids=["tampered", "bad-signature"])
def test_a_record_that_fails_exits_1(fake, tmp_path, document, failing):
    fake.record(BODY, Reply.json(document))
    p = online(fake, tmp_path, BODY, "--online", "--json")
    assert p.returncode == 1, p.stderr
    j = as_json(p)
    assert j["verified"] is False and j["checks"][failing] == "fail" and j["checks"]["fetch"] == "pass"


def test_forged_receipt_claiming_the_registry_key_fails(fake, tmp_path):
    forger = TestKey("pith-v1-2026-05")  # the registry's key id, but not its key
    doc = full_record(canonical(title="Forged"), forger)
    doc["receipt"].pop("public_key_fingerprint")
    body = doc["pith_number"].split(":")[-1]
    fake.record(body, Reply.json(doc))
    p = online(fake, tmp_path, body, "--json")
    assert p.returncode == 1 and as_json(p)["checks"]["signature"] == "fail"


def test_unknown_key_is_undecided_and_keys_file_decides(fake, tmp_path):
    key = TestKey("mirror-1")
    doc = full_record(canonical(title="Mirror"), key)
    body = doc["pith_number"].split(":")[-1]
    fake.record(body, Reply.json(doc))
    p = online(fake, tmp_path, body, "--json")
    assert p.returncode == 3 and as_json(p)["checks"]["key"] == "unknown"
    p = online(fake, tmp_path, body, "--keys", str(key.key_file(tmp_path)), "--json")
    assert p.returncode == 0 and as_json(p)["verified"] is True


def test_500_then_200_retries_and_verifies(fake, tmp_path):
    fake.record(BODY, Reply(500), Reply(502), Reply.json(seed_doc()))
    p = online(fake, tmp_path, BODY, "--json")
    assert p.returncode == 0 and len(fake.hits(PATH)) == 3


@pytest.mark.parametrize(("reply", "env", "fragment"), [
    (Reply(500), {}, "answered HTTP 500 3 times; cannot decide"),
    (Reply.json(seed_doc(), delay=30), {"PITH_TIMEOUT": "0.5"}, "did not answer within 0.5 s"),
    (Reply(body=b"{" + b" " * (5 * 1024 * 1024) + b"}"), {}, "more than a Pith record may have"),
    (Reply(body=b'{"canonical_record": {"schema'), {}, "not valid JSON"),
], ids=["500", "slow", "oversized", "malformed"])
def test_broken_servers_cannot_decide_with_one_clear_line(fake, tmp_path, reply, env, fragment):
    fake.record(BODY, reply)
    p = online(fake, tmp_path, BODY, env=env)
    assert fragment in assert_clean_error(p, 3)
    j = as_json(online(fake, tmp_path, BODY, "--json", env=env))
    assert j["verified"] is False and j["checks"] == {"fetch": "unknown"} and fragment in j["details"]["fetch"]
    assert not list((tmp_path / "cache").rglob("*.json"))


def test_unreachable_and_offline(tmp_path):
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    p = pithtex_cli("verify", BODY, "--online", "--base-url", closed_port_url(), env=env)
    assert "cannot reach" in assert_clean_error(p, 3)
    p = pithtex_cli("verify", BODY, "--offline", env=env)
    assert "working offline forbids the network" in assert_clean_error(p, 3)


def test_etag_cache_and_offline_through_the_cli(fake, tmp_path):
    fake.record(BODY, Reply.json(seed_doc(), etag='"e1"'))
    assert online(fake, tmp_path, BODY).returncode == 0
    p = online(fake, tmp_path, BODY, "--json")
    assert p.returncode == 0 and fake.hits(PATH)[1].headers["if-none-match"] == '"e1"'
    assert "304" in as_json(p)["details"]["fetch"]
    before = len(fake.requests)
    p = online(fake, tmp_path, BODY, "--offline", "--json")
    assert p.returncode == 0 and "offline" in as_json(p)["details"]["fetch"] and len(fake.requests) == before


def test_pdf_argument_reads_the_number_then_fetches(fake, tmp_path):
    from pypdf import PdfWriter

    fake.record(BODY, Reply.json(seed_doc()))
    # a blank page says nothing of which paper it is, and its Info /Title alone cannot either
    for title in (seed_doc()["paper"]["title"], None):
        writer = PdfWriter()
        writer.add_blank_page(200, 200)
        writer.add_metadata({"/PithNumber": BODY, "/PithURL": f"https://pith.science/pith/{BODY}",
                             **({"/Title": title} if title else {})})
        pdf = tmp_path / "paper.pdf"
        with pdf.open("wb") as handle:
            writer.write(handle)
        p = online(fake, tmp_path, str(pdf), "--online", "--json")
        assert p.returncode == 3, p.stderr
        report = as_json(p)
        assert report["verified"] is False and report["checks"]["signature"] == "pass" and fake.hits(PATH)
        said = "metadata alone does not show which paper a PDF is" if title else "page 1 shows no text"
        assert said in report["details"]["paper"]
    shown = make_pdf(tmp_path / "shown.pdf", title=seed_doc()["paper"]["title"], shows_title=True)
    assert pithtex_cli("stamp", str(shown), "--number", BODY, "--in-place").returncode == 0
    p = online(fake, tmp_path, str(shown), "--online", "--json")
    assert p.returncode == 0 and as_json(p)["verified"] is True, p.stdout
    bare = PdfWriter()
    bare.add_blank_page(200, 200)
    with (tmp_path / "bare.pdf").open("wb") as handle:
        bare.write(handle)
    assert "carries no Pith Number" in assert_clean_error(online(fake, tmp_path, str(tmp_path / "bare.pdf")), 3)


def test_bad_arguments_are_clean_errors(fake, tmp_path):
    assert "neither a record file nor a Pith Number" in assert_clean_error(online(fake, tmp_path, "NOTANUMBER"))
    assert "no such file" in assert_clean_error(online(fake, tmp_path, "missing.json"))
    p = online(fake, tmp_path, BODY, "--number", "AAAAAAAAAAAAAAAAAAAAAAAAAA")
    assert "but the number expected is" in assert_clean_error(p)
