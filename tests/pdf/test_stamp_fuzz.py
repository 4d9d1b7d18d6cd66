"""Truncated, bit-flipped and garbage files: a clean error (or a sound stamp), never a crash."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pithtex.errors import PithError
from pithtex.number import PithNumber
from pithtex.pdf.facts import inspect_pdf
from pithtex.pdf.stamp import Options, stamp_file

from ..conftest import BODY, assert_clean_error, fixture_pdf, pithtex_cli

# One classic-table file and one xref-stream file, both small.
SEEDS = [fixture_pdf("008").read_bytes(), fixture_pdf("001").read_bytes()]
NUMBER = PithNumber.parse(BODY)
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def attempt(data: bytes, folder: Path, badge: bool = False) -> None:
    """Stamp and inspect `data`: either both work soundly or a PithError says why."""
    for old in folder.iterdir():
        old.unlink()
    inp, out = folder / "in.pdf", folder / "out.pdf"
    inp.write_bytes(data)
    try:
        stamp_file(inp, out, Options(NUMBER, badge=badge))
    except PithError as exc:
        assert str(exc).startswith(str(inp)), exc
        assert not out.exists(), "a refusal leaves no output"
    else:
        assert out.read_bytes().startswith(data)
    assert inp.read_bytes() == data
    try:
        inspect_pdf(inp)
    except PithError as exc:
        assert str(exc).startswith(str(inp)), exc


@FUZZ
@given(seed=st.sampled_from(SEEDS), cut=st.floats(0, 1))
def test_truncated(tmp_path_factory, seed: bytes, cut: float):
    attempt(seed[: int(len(seed) * cut)], tmp_path_factory.mktemp("t"))


@FUZZ
@given(seed=st.sampled_from(SEEDS), flips=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 7)),
                                                   min_size=1, max_size=8), badge=st.booleans())
def test_bit_flipped(tmp_path_factory, seed: bytes, flips, badge: bool):
    data = bytearray(seed)
    for where, bit in flips:
        data[min(len(data) - 1, int(len(data) * where))] ^= 1 << bit
    attempt(bytes(data), tmp_path_factory.mktemp("f"), badge)


@FUZZ
@given(prefix=st.sampled_from([b"", b"%PDF-1.7\n", b"%PDF-1.4\n1 0 obj\n<<"]), junk=st.binary(max_size=2000))
def test_garbage(tmp_path_factory, prefix: bytes, junk: bytes):
    attempt(prefix + junk + b"\nstartxref\n0\n%%EOF", tmp_path_factory.mktemp("g"))


def test_cli_on_broken_files_is_one_line_within_a_time_limit(tmp_path: Path):
    source = fixture_pdf("004")
    cases = {"truncated.pdf": source.read_bytes()[:5000], "empty.pdf": b"",
             "garbage.pdf": bytes(range(256)) * 40}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        proc = pithtex_cli("stamp", str(tmp_path / name), "--number", BODY, timeout=30)
        err = assert_clean_error(proc)
        assert name in err
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(cases), "no output left behind"
