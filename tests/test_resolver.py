"""The resolver client against a real local HTTP server: every network failure mode."""

from __future__ import annotations

import base64
import json

import pytest

from pithtex.errors import InvalidNumber, PithError
from pithtex.number import PithNumber
from pithtex.record import number_of
from pithtex.resolver import Resolver, ResolverError, base_url, cache_dir
from pithtex.trust import KeyRing, PublicKey, pinned_keys
from pithtex.verify import verify_document

from .conftest import BODY, seed_doc
from .recordkit import TestKey, canonical, full_record
from .resolverkit import FakeResolver, Reply, closed_port_url

N = PithNumber(BODY)
PATH = f"/pith/{BODY}.json"


def tampered() -> dict:
    doc = seed_doc()
    doc["canonical_record"]["metadata"]["primary_cat"] = "cs.LG"
    return doc


def bad_signature() -> dict:
    doc = seed_doc()
    sig = bytearray(base64.b64decode(doc["receipt"]["signature_b64"]))
    sig[0] ^= 1
    doc["receipt"]["signature_b64"] = base64.b64encode(bytes(sig)).decode()
    return doc


def client(fake: FakeResolver, tmp_path, **kw) -> Resolver:
    kw.setdefault("backoff", 0.01)
    return Resolver(fake.base, cache=tmp_path / "cache", **kw)


def test_valid_record_is_fetched_verified_and_cached(fake, tmp_path):
    fake.record(BODY, Reply.json(seed_doc(), etag='"v1"'))
    got = client(fake, tmp_path).fetch_record(N)
    assert got.source == "network" and got.url == fake.base + PATH
    assert verify_document(got.document, expect=N).verified
    assert len(list((tmp_path / "cache" / "records").rglob(f"{BODY}.json"))) == 1
    assert fake.requests[0].headers["accept"] == "application/json"
    assert "pithtex/" in fake.requests[0].headers["user-agent"]


def test_tampered_record_fails_verification_and_is_not_cached(fake, tmp_path):
    fake.record(BODY, Reply.json(tampered()))
    got = client(fake, tmp_path).fetch_record(N)
    report = verify_document(got.document, expect=N)
    assert report.exit_code == 1 and report.checks["expected"].status == "fail"
    assert not list((tmp_path / "cache").rglob("*.json"))


def test_bad_signature_fails(fake, tmp_path):
    fake.record(BODY, Reply.json(bad_signature()))
    report = verify_document(client(fake, tmp_path).fetch_record(N).document, expect=N)
    assert report.checks["signature"].status == "fail" and not report.verified


def test_unknown_key_is_undecided_unless_trusted(fake, tmp_path):
    key = TestKey("mirror-key")
    doc = full_record(canonical(title="Mirror paper"), key)
    number = number_of(doc["canonical_record"])
    fake.record(number.body, Reply.json(doc))
    got = client(fake, tmp_path).fetch_record(number)
    assert verify_document(got.document, expect=number).exit_code == 3
    ring = pinned_keys().extended(KeyRing([PublicKey(key.key_id, key.raw_public)]))
    assert verify_document(got.document, ring, expect=number).verified


def test_500_then_200_is_retried(fake, tmp_path):
    fake.record(BODY, Reply(500), Reply.json(seed_doc()))
    got = client(fake, tmp_path).fetch_record(N)
    assert verify_document(got.document, expect=N).verified
    assert len(fake.hits(PATH)) == 2


def test_persistent_500_gives_up_after_bounded_retries(fake, tmp_path):
    fake.record(BODY, Reply(503))
    with pytest.raises(ResolverError, match=r"answered HTTP 503 3 times; cannot decide") as exc:
        client(fake, tmp_path, retries=2).fetch_record(N)
    assert exc.value.exit_code == 3 and len(fake.hits(PATH)) == 3


def test_4xx_is_not_retried(fake, tmp_path):
    fake.record(BODY, Reply(403))
    with pytest.raises(ResolverError, match="HTTP 403"):
        client(fake, tmp_path).fetch_record(N)
    assert len(fake.hits(PATH)) == 1


def test_slow_server_times_out_without_retrying(fake, tmp_path):
    fake.record(BODY, Reply.json(seed_doc(), delay=30))
    with pytest.raises(ResolverError, match=r"did not answer within 0.3 s; cannot decide"):
        client(fake, tmp_path, timeout=0.3).fetch_record(N)
    assert len(fake.hits(PATH)) == 1


@pytest.mark.parametrize("length", [True, False], ids=["content-length", "streamed"])
def test_oversized_response_is_cut_off(fake, tmp_path, length):
    fake.record(BODY, Reply(body=b"[" + b"1," * 100_000 + b"1]", length=length))
    with pytest.raises(ResolverError, match="more than a Pith record may have"):
        client(fake, tmp_path, max_bytes=50_000).fetch_record(N)
    assert not (tmp_path / "cache" / "records").exists()


def test_malformed_json_is_a_clear_error_and_never_cached(fake, tmp_path):
    text = json.dumps(seed_doc()).encode()
    fake.record(BODY, Reply(body=text[: len(text) // 2]))
    with pytest.raises(ResolverError, match=r"not valid JSON .*; cannot decide"):
        client(fake, tmp_path).fetch_record(N)
    assert not (tmp_path / "cache" / "records").exists()


def test_json_that_is_not_a_record(fake, tmp_path):
    fake.record(BODY, Reply.json({"error": "rate limited"}))
    with pytest.raises(ResolverError, match="not a Pith record"):
        client(fake, tmp_path).fetch_record(N)


def test_etag_revalidation_uses_the_cache_on_304(fake, tmp_path):
    fake.record(BODY, Reply.json(seed_doc(), etag='"abc"'))
    first = client(fake, tmp_path).fetch_record(N)
    second = client(fake, tmp_path).fetch_record(N)
    assert first.source == "network" and second.source == "revalidated"
    hits = fake.hits(PATH)
    assert "if-none-match" not in hits[0].headers and hits[1].headers["if-none-match"] == '"abc"'
    assert second.document == first.document


def test_a_cache_entry_says_when_it_verified_and_a_304_renews_it(fake, tmp_path):
    """`verified_at` is written with the entry and again when the resolver answers 304 for it;
    `cached_verified_at` reads it, never the file's mtime, and is None for an entry without it."""
    fake.record(BODY, Reply.json(seed_doc(), etag='"abc"'))
    resolver = client(fake, tmp_path)
    assert resolver.cached_verified_at(N) is None  # nothing cached yet
    resolver.fetch_record(N)
    [path] = (tmp_path / "cache" / "records").rglob(f"{BODY}.json")
    entry = json.loads(path.read_text())
    first = entry["verified_at"]
    assert resolver.cached_verified_at(N) == first
    entry["verified_at"] = first - 86400  # as if it verified a day ago
    path.write_text(json.dumps(entry))
    assert resolver.cached_verified_at(N) == first - 86400  # the file was just written: its mtime is not the age
    assert client(fake, tmp_path).fetch_record(N).source == "revalidated"
    assert resolver.cached_verified_at(N) >= first  # the resolver vouched for it again
    del entry["verified_at"]  # an entry an older pithtex wrote
    path.write_text(json.dumps(entry))
    assert resolver.cached_verified_at(N) is None
    assert client(fake, tmp_path, offline=True).fetch_record(N).source == "cache"  # and it is still used


def test_304_without_a_cache_is_not_trusted(fake, tmp_path):
    fake.record(BODY, Reply(304))
    with pytest.raises(ResolverError, match="no cached copy"):
        client(fake, tmp_path).fetch_record(N)


def test_offline_reads_only_the_cache(fake, tmp_path):
    with pytest.raises(ResolverError, match="working offline forbids the network; cannot decide"):
        client(fake, tmp_path, offline=True).fetch_record(N)
    fake.record(BODY, Reply.json(seed_doc()))
    client(fake, tmp_path).fetch_record(N)
    before = len(fake.requests)
    got = client(fake, tmp_path, offline=True).fetch_record(N)
    assert got.source == "cache" and len(fake.requests) == before
    assert verify_document(got.document, expect=N).verified


def test_corrupt_cache_is_ignored_then_replaced(fake, tmp_path):
    fake.record(BODY, Reply.json(seed_doc()))
    client(fake, tmp_path).fetch_record(N)
    [entry] = (tmp_path / "cache").rglob(f"{BODY}.json")
    entry.write_text("{broken")
    with pytest.raises(ResolverError, match=r"no cached record .* that verifies"):
        client(fake, tmp_path, offline=True).fetch_record(N)
    assert client(fake, tmp_path).fetch_record(N).source == "network"  # no If-None-Match for junk
    assert "if-none-match" not in fake.hits(PATH)[-1].headers
    assert client(fake, tmp_path, offline=True).fetch_record(N).source == "cache"


def test_fallback_to_content_negotiation(fake, tmp_path):
    fake.route(f"/pith/{BODY}", Reply.json(seed_doc()))
    got = client(fake, tmp_path).fetch_record(N)
    assert got.url == f"{fake.base}/pith/{BODY}" and verify_document(got.document, expect=N).verified
    assert fake.hits(f"/pith/{BODY}")[0].headers["accept"] == "application/ld+json"


def test_not_found_anywhere(fake, tmp_path):
    with pytest.raises(ResolverError, match=f"has no record for {BODY} \\(HTTP 404\\)"):
        client(fake, tmp_path).fetch_record(N)


def test_unreachable_server(tmp_path):
    r = Resolver(closed_port_url(), cache=tmp_path, backoff=0.01)
    with pytest.raises(ResolverError, match=r"cannot reach .* after 3 tries; cannot decide"):
        r.fetch_record(N)


def test_resolve_arxiv(fake, tmp_path):
    fake.route("/api/pith-number/resolve", Reply.json({"pith_number": f"pith:2021:{BODY}"}))
    assert client(fake, tmp_path).resolve_arxiv("2104.04473") == PithNumber(BODY, 2021)
    assert fake.requests[-1].path == "/api/pith-number/resolve?arxiv=2104.04473&json=true"
    assert client(fake, tmp_path).resolve_arxiv("hep-lat/0305021v2").body == BODY
    assert fake.requests[-1].path.endswith("arxiv=hep-lat%2F0305021v2&json=true")
    with pytest.raises(InvalidNumber, match="invalid arXiv id"):
        client(fake, tmp_path).resolve_arxiv("2104/04473")
    fake.route("/api/pith-number/resolve", Reply.json({"pith_number": "nonsense"}))
    with pytest.raises(ResolverError, match="pith_number is not usable"):
        client(fake, tmp_path).resolve_arxiv("2104.04473")
    fake.route("/api/pith-number/resolve", Reply(404))
    with pytest.raises(ResolverError, match=r"knows no Pith Number for arXiv:2104\.04473"):
        client(fake, tmp_path).resolve_arxiv("2104.04473")


def test_base_url_and_cache_dir_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("PITH_BASE_URL", "http://mirror.example:8080/")
    assert base_url() == "http://mirror.example:8080" and base_url("https://x.org") == "https://x.org"
    monkeypatch.delenv("PITH_BASE_URL")
    assert base_url() == "https://pith.science"
    with pytest.raises(PithError, match="must start with http"):
        base_url("ftp://x")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir() == tmp_path / "pithtex"


def test_a_failing_server_falls_back_to_the_cached_copy(fake, tmp_path):
    fake.record(BODY, Reply.json(seed_doc()), Reply(500))
    client(fake, tmp_path).fetch_record(N)
    got = client(fake, tmp_path).fetch_record(N)
    assert got.source == "stale" and "answered HTTP 500 3 times" in got.detail
    assert verify_document(got.document, expect=N).verified


def test_a_resolver_error_is_made_whole_and_crosses_a_process_whole(fake, tmp_path):
    """The step that failed and the number it was fetching are the error's own fields, given
    where it is raised, and a worker's error keeps them when pickled back to the parent."""
    import pickle

    with pytest.raises(ResolverError, match="HTTP 404") as caught:
        client(fake, tmp_path).fetch_record(N)
    again = pickle.loads(pickle.dumps(caught.value))
    assert (again.step, again.number, again.arxiv, again.exit_code) == ("fetch", N, None, 3)
    assert str(again) == str(caught.value) and again.as_report()["checks"] == {"fetch": "unknown"}
