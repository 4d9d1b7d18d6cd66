"""A hostile or broken resolver on 127.0.0.1: slow drips end at the deadline, only records
that verify are cached (per resolver), redirects are named, --offline re-verifies."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from pithtex.number import PithNumber
from pithtex.resolver import Resolver, ResolverError

from .conftest import BODY, assert_clean_error, pithtex_cli
from .recordkit import TestKey, canonical, full_record
from .resolverkit import FakeResolver, Reply, serving
from .test_resolver import bad_signature, seed_doc, tampered

PATH = f"/pith/{BODY}.json"


@pytest.fixture
def other() -> Iterator[FakeResolver]:
    with serving() as server:
        yield server


def verify(base: str, tmp_path, *args: str, env: dict | None = None, timeout: float = 60):
    environment = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PITH_BASE_URL": "", **(env or {})}
    return pithtex_cli("verify", *args, "--base-url", base, env=environment, timeout=timeout)


@pytest.mark.parametrize("reply", [
    Reply.json(seed_doc(), drip=0.5),
    Reply.json(seed_doc(), drip=0.5, length=False),
    Reply(body=json.dumps(seed_doc()).encode(), drip=0.5, drip_headers=True),
], ids=["body", "close-delimited-body", "headers"])
def test_a_slow_drip_is_cut_off_at_the_one_deadline(fake, tmp_path, reply):
    # Each byte comes well within any per-read timeout; the whole answer would take hours (the
    # 74 bytes of headers alone 37 s), so only the deadline (PITH_TIMEOUT=5) can end it. The
    # subprocess timeout only catches a hang.
    fake.record(BODY, reply)
    p = verify(fake.base, tmp_path, BODY, "--online", env={"PITH_TIMEOUT": "5"}, timeout=300)
    assert "did not answer within 5 s" in assert_clean_error(p, 3)
    # A timeout is not retried. (On a starved machine the deadline may pass before the server
    # has read the request at all: then it saw none, which is no retry either.)
    assert len(fake.hits(PATH)) <= 1


def test_the_deadline_covers_retries_too(fake, tmp_path):
    fake.record(BODY, Reply(503, delay=0.4))
    with pytest.raises(ResolverError, match="cannot decide"):
        Resolver(fake.base, cache=tmp_path, timeout=1.0, retries=50, backoff=0.05).fetch_record(PithNumber(BODY))
    # Each answer takes at least 0.4 s, so at most 3 can start within the 1 s deadline however
    # loaded the machine is (a count, not a clock): 50 retries would be 51 requests.
    assert len(fake.hits(PATH)) <= 3


def test_a_flipped_signature_never_replaces_the_good_cached_record(fake, tmp_path):
    fake.record(BODY, Reply.json(seed_doc()), Reply.json(bad_signature()), Reply(500))
    assert verify(fake.base, tmp_path, BODY).returncode == 0
    bad = verify(fake.base, tmp_path, BODY, "--json")
    assert bad.returncode == 1 and json.loads(bad.stdout)["checks"]["signature"] == "fail"
    offline = verify(fake.base, tmp_path, BODY, "--offline")
    assert offline.returncode == 0 and "  verified  " in offline.stdout
    stale = verify(fake.base, tmp_path, BODY, "--json")  # the server now fails: the good copy is used
    assert stale.returncode == 0 and "HTTP 500" in json.loads(stale.stdout)["details"]["fetch"]


@pytest.mark.parametrize("document", [tampered(), bad_signature()], ids=["tampered", "flipped-signature"])
def test_a_record_that_fails_is_never_cached(fake, tmp_path, document):
    fake.record(BODY, Reply.json(document))
    assert verify(fake.base, tmp_path, BODY).returncode == 1
    assert not list((tmp_path / "cache").rglob("*.json"))
    assert "offline forbids the network" in assert_clean_error(verify(fake.base, tmp_path, BODY, "--offline"), 3)


def test_an_unsigned_record_is_not_cached(fake, tmp_path):
    doc = seed_doc()
    doc.pop("receipt")
    fake.record(BODY, Reply.json(doc))
    assert verify(fake.base, tmp_path, BODY).returncode == 3
    assert not list((tmp_path / "cache").rglob("*.json"))


def test_the_cache_is_kept_per_resolver(fake, other, tmp_path):
    fake.record(BODY, Reply.json(seed_doc()))
    assert verify(fake.base, tmp_path, BODY).returncode == 0
    assert verify(fake.base, tmp_path, BODY, "--offline").returncode == 0
    # Another resolver (a mirror given with --base-url) never sees, nor replaces, that entry.
    assert "offline forbids" in assert_clean_error(verify(other.base, tmp_path, BODY, "--offline"), 3)
    other.record(BODY, Reply.json(bad_signature()))
    assert verify(other.base, tmp_path, BODY).returncode == 1
    assert verify(fake.base, tmp_path, BODY, "--offline").returncode == 0


def test_offline_re_verifies_with_the_keys_of_this_run(fake, tmp_path):
    key = TestKey("mirror-1")
    doc = full_record(canonical(title="Mirror"), key)
    body = doc["pith_number"].split(":")[-1]
    fake.record(body, Reply.json(doc))
    keys = str(key.key_file(tmp_path))
    assert verify(fake.base, tmp_path, body, "--keys", keys).returncode == 0  # cached: it verified
    assert verify(fake.base, tmp_path, body, "--offline", "--keys", keys).returncode == 0
    # Without the mirror key the cached copy does not verify: ignored, never trusted.
    assert "offline forbids" in assert_clean_error(verify(fake.base, tmp_path, body, "--offline"), 3)


def test_a_cache_entry_edited_on_disk_is_ignored_then_replaced(fake, tmp_path):
    fake.record(BODY, Reply.json(seed_doc()))
    assert verify(fake.base, tmp_path, BODY).returncode == 0
    [entry] = (tmp_path / "cache").rglob(f"{BODY}.json")
    data = json.loads(entry.read_text())
    data["document"]["receipt"]["signature_b64"] = bad_signature()["receipt"]["signature_b64"]
    entry.write_text(json.dumps(data))
    # Never "FAILED" for a genuine number because of a bad cache: it cannot decide offline...
    assert "offline forbids" in assert_clean_error(verify(fake.base, tmp_path, BODY, "--offline"), 3)
    assert verify(fake.base, tmp_path, BODY).returncode == 0  # ...and the next good answer replaces it
    assert verify(fake.base, tmp_path, BODY, "--offline").returncode == 0


def test_a_redirect_to_another_host_is_reported_with_the_url_that_answered(fake, other, tmp_path):
    final = other.base.replace("127.0.0.1", "localhost") + PATH
    fake.record(BODY, Reply.redirect(final))
    other.record(BODY, Reply.json(seed_doc()))
    p = verify(fake.base, tmp_path, BODY, "--json")
    assert p.returncode == 0, p.stderr
    detail = json.loads(p.stdout)["details"]["fetch"]
    assert detail == f"fetched {final} (redirected from {fake.base}{PATH})"
    human = verify(fake.base, tmp_path, BODY)
    assert f"({final})" in human.stdout.splitlines()[0]


def test_redirect_loops_end_with_one_line(fake, tmp_path):
    fake.record(BODY, Reply.redirect(fake.base + PATH))
    assert "too many redirects" in assert_clean_error(verify(fake.base, tmp_path, BODY), 3)


def test_a_redirect_off_http_is_refused(fake, tmp_path):
    fake.record(BODY, Reply.redirect("file:///etc/passwd"))
    assert "a redirect to a non-HTTP URL" in assert_clean_error(verify(fake.base, tmp_path, BODY), 3)
