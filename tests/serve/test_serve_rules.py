"""The server's rules in process, with a clock the test moves: which ids are refused before
any I/O, when a verified answer is served from memory, rechecked, served stale, then
unchecked; the per-client rate. The resolver is the suite's, on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import pytest

from pithtex.number import PithNumber
from pithtex.serve import checking, ids
from pithtex.serve.config import from_environment
from pithtex.serve.gate import Rate
from pithtex.serve.policy import Policy

from ..conftest import BODY, seed_doc
from ..resolverkit import FakeResolver, Reply


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("name", ["../etc/passwd", "evil.com/x", "http:", "A" * 65, "ybk5ptak", "arxiv/../x",
                                  "arxiv/2401.00001/x", "pith:2021:" + BODY + "/x", "<b>", "a b"])
def test_ids_that_are_no_number_or_arxiv_id_are_refused(name: str):
    with pytest.raises(ids.BadRequest) as refused:
        ids.target(name)
    assert refused.value.status in (400, 404) and name not in str(refused.value)


def test_every_form_of_a_number_is_one_target():
    keys = {ids.target(form).key for form in (BODY, f"pith:{BODY}", f"pith:2021:{BODY}", BODY.lower())}
    assert keys == {f"pith:{BODY}"}
    assert ids.target("arxiv/hep-th/9901001").key == "arxiv:hep-th/9901001"


@pytest.mark.parametrize("raw", [b"/badge/%2e%2e/x.svg", b"/badge/a%2Fb.svg", b"/badge/../x.svg", b"/badge//x.svg",
                                 b"/badge/./x.svg", b"/badge/a\\b.svg", b"/badge/\xc3\xa9.svg", b"/" + b"a" * 201])
def test_raw_paths_no_id_needs_are_refused(raw: bytes):
    assert ids.raw_path_problem(raw) is not None
    assert ids.raw_path_problem(f"/badge/pith:2021:{BODY}.svg".encode()) is None


def policy(fake: FakeResolver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: Clock) -> Policy:
    monkeypatch.setenv("PITH_SERVE_CACHE", str(tmp_path))
    monkeypatch.setenv("PITH_SERVE_RECHECK", "300")
    monkeypatch.setenv("PITH_SERVE_STALE", "3600")
    monkeypatch.setenv("PITH_SERVE_TIMEOUT", "5")
    monkeypatch.setenv("PITH_BASE_URL", fake.base)
    settings = from_environment()
    return Policy(settings, checking.client_for(settings), clock)


def test_recent_then_rechecked_then_stale_then_unchecked(fake: FakeResolver, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch):
    clock = Clock()
    rules = policy(fake, tmp_path, monkeypatch, clock)
    target = ids.target(BODY)
    fake.record(BODY, Reply.json(seed_doc(), etag='"r1"'))
    first = rules.answer(target)
    assert first.state.verified and first.checked and first.number == PithNumber(BODY, 2021)
    clock.now += 299
    assert rules.recent(target) is not None  # served from memory, the resolver not asked
    clock.now += 2
    assert rules.recent(target) is None
    again = rules.answer(target)  # asked again: a 304 for the record's ETag
    assert again.state.verified and again.stale_age is None and again.verified_at == clock.now
    assert fake.requests[-1].headers.get("if-none-match") == '"r1"'
    fake.record(BODY, Reply(503))
    clock.now += 1000
    stale = rules.answer(target)
    assert stale.state.verified and stale.stale_age == 1000
    clock.now += 2601  # 3601 s since the resolver last confirmed it: past PITH_SERVE_STALE
    late = rules.answer(target)
    assert late.state.word == "unchecked" and late.stale_age is None


def test_a_restarted_process_reads_verified_answers_back_and_verifies_them_again(
        fake: FakeResolver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    clock = Clock()
    target = ids.target(BODY)
    fake.record(BODY, Reply.json(seed_doc()))
    assert policy(fake, tmp_path, monkeypatch, clock).answer(target).state.verified
    fake.record(BODY, Reply(503))
    clock.now += 500
    restarted = policy(fake, tmp_path, monkeypatch, clock)
    assert restarted.answer(target).stale_age == 500
    # an entry altered on disk no longer verifies: never served
    for entry in (tmp_path / "verified").glob("*.json"):
        entry.write_text(entry.read_text().replace('"cs.', '"xx.'))
    assert policy(fake, tmp_path, monkeypatch, clock).answer(target).state.word == "unchecked"


def test_an_answer_the_resolver_now_calls_invalid_replaces_the_kept_one(fake: FakeResolver, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch):
    clock = Clock()
    rules = policy(fake, tmp_path, monkeypatch, clock)
    target = ids.target(BODY)
    fake.record(BODY, Reply.json(seed_doc()))
    assert rules.answer(target).state.verified
    tampered = seed_doc()
    tampered["canonical_record"]["metadata"]["primary_cat"] = "cs.LG"
    fake.record(BODY, Reply.json(tampered))
    clock.now += 301
    assert rules.answer(target).state.word == "invalid"
    fake.record(BODY, Reply(503))
    assert rules.answer(target).state.word == "unchecked"  # the verified answer was dropped


def test_the_server_room_sits_between_the_command_line_and_the_client():
    """docs/design.md: only cli/serve.py imports pithtex.serve; pithtex.serve imports no cli."""
    import ast

    package = Path(__file__).resolve().parents[2] / "pithtex"
    importers = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and (node.level or node.module.startswith("pithtex")):
                parts, inside = node.module.split("."), path.parent.name == "serve"
                if not inside and "serve" in parts:
                    importers.add(path.relative_to(package).as_posix())
                if inside:
                    assert "cli" not in parts, (path, node.module)
    assert importers <= {"cli/serve.py"}, importers
    assert "cli/serve.py" in importers


def test_rate_is_a_token_bucket_per_client():
    clock = Clock()
    rate = Rate(2.0, 3, clock)
    assert [rate.allow("a") for _ in range(4)] == [True, True, True, False]
    assert rate.allow("b")  # another client has its own bucket
    clock.now += 0.5  # one token back
    assert [rate.allow("a"), rate.allow("a")] == [True, False]
