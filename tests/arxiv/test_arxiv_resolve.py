"""arXiv ids: strict parsing, and `verify arXiv:ID` / `badge --arxiv ID` against a real local resolver.

The resolver is only ever asked which number a paper has; the record is then verified like
any other, so a resolver naming a record that does not hash to that number, or a record of
another paper or version, gives "invalid" (exit code 1), never "verified".
"""

from __future__ import annotations

import json

import pytest

from pithtex.arxiv.ids import ArxivId, looks_like, source_problem
from pithtex.errors import InvalidNumber
from pithtex.number import PithNumber
from pithtex.verify import verify_document

from ..conftest import BODY, assert_clean_error, pithtex_cli, seed_doc
from ..recordkit import TestKey, canonical, full_record
from ..resolverkit import FakeResolver, Reply

RESOLVE = "/api/pith-number/resolve"
OTHER = PithNumber("A" * 26)


def cli(fake: FakeResolver, tmp_path, *args: str, **env: str):
    return pithtex_cli(*args, "--base-url", fake.base, env={"XDG_CACHE_HOME": str(tmp_path / "cache"), **env})


# -- parsing ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "paper", "version"), [
    ("2104.04473", "2104.04473", None),
    ("arXiv:2104.04473v5", "2104.04473", 5),
    ("ARXIV:2104.04473", "2104.04473", None),
    (" 0704.0001 ", "0704.0001", None),  # the first new-style id
    ("1412.9999v12", "1412.9999", 12),  # four digits until December 2014
    ("1501.00001", "1501.00001", None),  # five from January 2015
    ("hep-th/9901001", "hep-th/9901001", None),
    ("arXiv:hep-lat/0305021v2", "hep-lat/0305021", 2),
    ("math.AG/0309136", "math.AG/0309136", None),  # an old-style id with a subject class
    ("cond-mat/0703999", "cond-mat/0703999", None),  # the last old-style month
])
def test_valid_ids(text, paper, version):
    got = ArxivId.parse(text)
    assert (got.paper, got.version) == (paper, version) and looks_like(text)
    assert str(got) == paper + (f"v{version}" if version else "") and got.prefixed == f"arXiv:{got}"


@pytest.mark.parametrize(("text", "why"), [
    ("2104/04473", "not an arXiv id"),
    ("2104.0447", "have 5 digits"),
    ("1412.00001", "have 4 digits"),
    ("0703.0001", "start in April 2007"),
    ("2113.00001", "month 13"),
    ("2104.00000", "starts at 1"),
    ("2104.04473v0", "v1, v2"),
    ("2104.04473v", "not an arXiv id"),
    ("2104.04473 v2", "not an arXiv id"),
    ("hep-th/0704001", "run from 9108 to 0703"),
    ("hep-th/9101001", "run from 9108 to 0703"),
    ("foo-th/9901001", "not an arXiv archive"),
    ("math.ag/0309136", "not an arXiv id"),
    ("HEP-TH/9901001", "not an arXiv id"),
    ("", "not an arXiv id"),
    ("arXiv:", "not an arXiv id"),
    ("2104.04473" * 10, "too long"),
    ("pith:2021:" + BODY, "not an arXiv id"),
])
def test_invalid_ids_say_why(text, why):
    with pytest.raises(InvalidNumber, match="invalid arXiv id") as info:
        ArxivId.parse(text)
    assert why in str(info.value) and "\n" not in str(info.value) and len(str(info.value)) < 300
    assert not looks_like(text)


def test_source_check_ties_the_record_to_the_paper_and_version():
    record = canonical(arxiv_id="2104.04473", version=5)
    assert source_problem(record, ArxivId.parse("2104.04473"))[0] == "pass"
    assert source_problem(record, ArxivId.parse("2104.04473v5"))[0] == "pass"
    assert source_problem(record, ArxivId.parse("2104.04473v2")) == (
        "fail", "asked for arXiv:2104.04473v2, but the record is of arXiv:2104.04473v5")
    assert source_problem(record, ArxivId.parse("2104.04474"))[0] == "fail"
    assert source_problem({"metadata": {}}, ArxivId.parse("2104.04473"))[0] == "fail"
    assert verify_document(seed_doc(), arxiv=ArxivId.parse("2104.04473v5")).exit_code == 0
    report = verify_document(seed_doc(), arxiv=ArxivId.parse("2104.04473v2"))
    assert report.exit_code == 1 and report.checks["arxiv"].status == "fail" and not report.verified


# -- verify arXiv:ID ------------------------------------------------------------------------------
def test_verify_arxiv_genuine(fake, tmp_path):
    fake.route(RESOLVE, Reply.json({"pith_number": f"pith:2021:{BODY}"}))
    fake.record(BODY, Reply.json(seed_doc()))
    p = cli(fake, tmp_path, "verify", "arXiv:2104.04473", "--online")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(f"pith:2021:{BODY}  verified  (arXiv:2104.04473 via {fake.base}/pith/{BODY}.json)")
    assert "[ok  ] resolve    the resolver names" in p.stdout
    assert "[ok  ] arxiv      the record is of arXiv:2104.04473v5" in p.stdout
    assert [r.path for r in fake.requests] == [f"{RESOLVE}?arxiv=2104.04473&json=true", f"/pith/{BODY}.json"]
    p = cli(fake, tmp_path, "verify", "2104.04473v5", "--json")  # a bare id, no such file: an arXiv id
    report = json.loads(p.stdout)
    assert p.returncode == 0 and report["state"] == "verified" and report["verified"] is True
    assert report["arxiv"] == "2104.04473v5" and report["checks"]["arxiv"] == "pass"
    assert fake.requests[-2].path == f"{RESOLVE}?arxiv=2104.04473v5&json=true"


def test_verify_arxiv_with_the_record_in_the_answer(fake, tmp_path):
    fake.route(RESOLVE, Reply.json(seed_doc()))
    p = cli(fake, tmp_path, "verify", "arXiv:2104.04473", "--json")
    assert p.returncode == 0 and json.loads(p.stdout)["state"] == "verified"
    assert [r.path.split("?")[0] for r in fake.requests] == [RESOLVE]  # no second fetch


def test_old_style_id_is_sent_encoded(fake, tmp_path):
    key = TestKey("lab-key")
    doc = full_record(canonical(arxiv_id="hep-th/9901001", version=2, submitted_at="1999-01-04T00:00:00Z"), key)
    fake.route(RESOLVE, Reply.json({"pith_number": doc["pith_number"]}))
    fake.record(PithNumber.parse(doc["pith_number"]).body, Reply.json(doc))
    p = cli(fake, tmp_path, "verify", "hep-th/9901001v2", "--keys", str(key.key_file(tmp_path)))
    # a key from --keys verifies, worded as such: never as the registry's signature
    assert p.returncode == 0 and ("  verified, signed by lab-key, a key --keys added, not the Pith registry  "
                                  "(arXiv:hep-th/9901001v2 via") in p.stdout, p.stdout + p.stderr
    assert fake.requests[0].path == f"{RESOLVE}?arxiv=hep-th%2F9901001v2&json=true"


def test_a_record_that_does_not_hash_to_the_named_number_is_invalid(fake, tmp_path):
    fake.route(RESOLVE, Reply.json({"pith_number": OTHER.body}))
    fake.record(OTHER.body, Reply.json(seed_doc()))  # a genuine record, but of another number
    p = cli(fake, tmp_path, "verify", "arXiv:2104.04473")
    assert p.returncode == 1 and "  invalid  (" in p.stdout
    assert f"[FAIL] expected   asked for {OTHER.body}, but the record hashes to {BODY}" in p.stdout
    assert not (tmp_path / "cache" / "records" / f"{OTHER.body}.json").exists()  # never cached
    # the same lie with the record inside the answer
    fake.route(RESOLVE, Reply.json({**seed_doc(), "pith_number": OTHER.body}))
    p = cli(fake, tmp_path, "verify", "arXiv:2104.04473", "--json")
    assert p.returncode == 1 and json.loads(p.stdout)["state"] == "invalid"
    assert json.loads(p.stdout)["checks"]["expected"] == "fail"


def test_a_record_of_another_paper_or_version_is_invalid(fake, tmp_path):
    fake.route(RESOLVE, Reply.json({"pith_number": f"pith:2021:{BODY}"}))
    fake.record(BODY, Reply.json(seed_doc()))  # the seed is arXiv:2104.04473v5
    p = cli(fake, tmp_path, "verify", "arXiv:2104.04474")
    assert p.returncode == 1 and "[FAIL] arxiv      asked for arXiv:2104.04474, but the record is of " \
        "arXiv:2104.04473v5" in p.stdout
    p = cli(fake, tmp_path, "verify", "arXiv:2104.04473v2", "--json")
    assert p.returncode == 1 and json.loads(p.stdout)["checks"]["arxiv"] == "fail"
    p = cli(fake, tmp_path, "verify", "arXiv:2104.04473", "--number", OTHER.body)
    assert p.returncode == 1 and "[FAIL] resolve" in p.stdout


@pytest.mark.parametrize(("reply", "message"), [
    (Reply(404, b"no"), "knows no Pith Number for arXiv:2104.04473 (HTTP 404)"),
    (Reply(200, b"{not json", {"Content-Type": "application/json"}), "the answer is not valid JSON"),
    (Reply.json({"pith_number": "nonsense"}), "pith_number is not usable"),
    (Reply.json({"title": "no number here"}), "the answer names no Pith Number"),
])
def test_resolver_failures_are_unchecked(fake, tmp_path, reply, message):
    fake.route(RESOLVE, reply)
    p = cli(fake, tmp_path, "verify", "arXiv:2104.04473")
    assert message in assert_clean_error(p, 3)
    p = cli(fake, tmp_path, "verify", "arXiv:2104.04473", "--json")
    report = json.loads(p.stdout)
    assert p.returncode == 3 and report["state"] == "unchecked" and report["verified"] is False
    assert report["checks"] == {"resolve": "unknown"} and message in report["details"]["resolve"]


def test_slow_resolver_hits_the_deadline(fake, tmp_path):
    fake.route(RESOLVE, Reply.json({"pith_number": BODY}, delay=30))
    p = cli(fake, tmp_path, "verify", "arXiv:2104.04473", PITH_TIMEOUT="1")
    # The deadline ended it, not the server's 30 s: only the watchdog says "did not answer".
    assert "did not answer within 1 s" in assert_clean_error(p, 3)
    assert sum(r.path.startswith(RESOLVE) for r in fake.requests) == 1  # and it was not retried


def test_offline_and_bad_ids(fake, tmp_path):
    assert "needs the network" in assert_clean_error(cli(fake, tmp_path, "verify", "arXiv:2104.04473", "--offline"), 3)
    assert "month 13" in assert_clean_error(cli(fake, tmp_path, "verify", "arXiv:2113.04473"))
    assert not fake.requests


# -- badge --arxiv ID ------------------------------------------------------------------------------
def test_badge_arxiv(fake, tmp_path):
    fake.route(RESOLVE, Reply.json({"pith_number": f"pith:2021:{BODY}"}))
    fake.record(BODY, Reply.json(seed_doc()))
    p = cli(fake, tmp_path, "badge", "--arxiv", "2104.04473", "--online")
    assert p.returncode == 0 and 'aria-label="pith: YBK5PTAK, verified"' in p.stdout, p.stderr
    p = cli(fake, tmp_path, "badge", "--arxiv", "arXiv:2104.04473", "--format", "md")
    assert p.returncode == 0 and f"https://pith.science/pith/{BODY}" in p.stdout
    fake.route(RESOLVE, Reply.json({"pith_number": OTHER.body}))
    fake.record(OTHER.body, Reply.json(seed_doc()))
    out = tmp_path / "b.svg"
    p = cli(fake, tmp_path, "badge", "--arxiv", "2104.04473", "--online", "-o", str(out))
    assert p.returncode == 1 and 'aria-label="pith: AAAAAAAA, invalid"' in out.read_text()
    assert p.stderr.startswith("pithtex: note: the badge says invalid: expected: asked for AAAA")
    fake.route(RESOLVE, Reply(404))
    assert "knows no Pith Number" in assert_clean_error(cli(fake, tmp_path, "badge", "--arxiv", "2104.04473"), 3)


def test_badge_arxiv_usage_errors(fake, tmp_path):
    assert "--arxiv names the number itself" in assert_clean_error(
        cli(fake, tmp_path, "badge", BODY, "--arxiv", "2104.04473"))
    assert "give a Pith Number (ID) or --arxiv" in assert_clean_error(cli(fake, tmp_path, "badge"))
    assert "invalid arXiv id" in assert_clean_error(cli(fake, tmp_path, "badge", "--arxiv", "2104.4473"))
    assert not fake.requests
