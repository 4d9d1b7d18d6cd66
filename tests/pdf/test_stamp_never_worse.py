"""A stamp never makes a file worse: `qpdf --check`'s verdict after is never below the one before.

Trailer values are not copied blindly: /Size is computed from the objects that exist, so a
hostile `/Size 4000000000` (qpdf: "integer out of range" once copied) stays the input's
problem alone. Property-tested over fuzzed trailers, the test PDFs and the corpus when swept.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pithtex.errors import PithError
from pithtex.number import PithNumber
from pithtex.pdf.stamp import Options, stamp_file

from ..conftest import BODY, pdf_sources
from ..pdfkit import make_pdf, qpdf_check

NUMBER = PithNumber.parse(BODY)
FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
_SIZE = re.compile(rb"/Size (\d+)")


@pytest.fixture(scope="module")
def seeds(tmp_path_factory) -> dict[str, bytes]:
    folder = tmp_path_factory.mktemp("seeds")
    return {"table": make_pdf(folder / "t.pdf").read_bytes(),
            "streams": make_pdf(folder / "s.pdf", streams=True).read_bytes()}


def stamp_not_worse(data: bytes, folder: Path, badge: bool = False) -> tuple[int, int | None]:
    """(verdict before, verdict after or None when refused); asserts after <= before."""
    inp, out = folder / "in.pdf", folder / "out.pdf"
    out.unlink(missing_ok=True)
    inp.write_bytes(data)
    before = qpdf_check(inp)
    try:
        stamp_file(inp, out, Options(NUMBER, badge=badge))
    except PithError:
        assert not out.exists()
        return before, None
    after = qpdf_check(out)
    assert after <= before, (before, after)
    return before, after


def test_absurd_size_is_not_copied(seeds, tmp_path: Path):
    data = _SIZE.sub(b"/Size 4000000000", seeds["table"])
    before, after = stamp_not_worse(data, tmp_path)
    assert after is not None and after <= before
    tail = (tmp_path / "out.pdf").read_bytes()[len(data):]
    sizes = [int(n) for n in _SIZE.findall(tail)]
    assert sizes and all(n < 20 for n in sizes), sizes


@FUZZ
@given(kind=st.sampled_from(["table", "streams"]), badge=st.booleans(),
       size=st.one_of(st.integers(-5, 20), st.integers(2**31 - 2, 2**33), st.just(-2**40)),
       key=st.sampled_from([b"/Size", b"/Prev", b"/Root", b"/Info", b"/ID"]),
       junk=st.sampled_from([b"%d", b"%d 0 R", b"[%d]", b"(%d)", b"/N%d", b"%d.5", b"<< /A %d >>"]))
def test_fuzzed_trailer_values_never_make_it_worse(seeds, tmp_path_factory, kind, badge, size, key, junk):
    data = seeds[kind]
    cut = data.rindex(b"trailer") if kind == "table" else data.rindex(b"/Type /XRef")
    head, tail = data[:cut], data[cut:]
    value = junk.replace(b"%d", str(size).encode())
    pattern = re.compile(re.escape(key) + rb" (?:\[[^\]]*\]|\d+ \d+ R|\d+)")
    mutated = pattern.sub(key + b" " + value, tail, count=1) if pattern.search(tail) else \
        tail.replace(b"<<", b"<< " + key + b" " + value, 1)
    stamp_not_worse(head + mutated, tmp_path_factory.mktemp("n"), badge)


@pytest.mark.parametrize("src", pdf_sources(), ids=lambda p: p.name[:24])
@pytest.mark.parametrize("badge", [False, True])
def test_test_pdfs_never_worse(tmp_path: Path, src: Path, badge: bool):
    stamp_not_worse(src.read_bytes(), tmp_path, badge)


@pytest.mark.parametrize("kind", ["table", "streams"])
def test_prev_naming_an_object_is_refused_not_made_worse(seeds, tmp_path: Path, kind: str):
    # Found by the fuzz above: `/Prev 6 0 R` names nothing in the input (qpdf: clean), but
    # the stamp's new object 6 made qpdf find a stream there and rebuild the file.
    data = seeds[kind]
    if kind == "table":
        cut = data.rindex(b"trailer")
        data = data[:cut] + data[cut:].replace(b"<<", b"<< /Prev 6 0 R", 1)
    else:  # into the xref stream's own dictionary, beside its /Type
        cut = data.rindex(b"/Type /XRef")
        data = data[:cut] + b"/Prev 6 0 R " + data[cut:]
    _, after = stamp_not_worse(data, tmp_path)
    assert after is None  # refused: no object of ours can give that /Prev a meaning


def test_reference_in_xref_stream_parameters_is_refused_not_made_worse(seeds, tmp_path: Path):
    # Also found by the fuzz: `/DecodeParms << /Prev 3 0 R … >>` in an xref stream reads
    # clean in qpdf, but after an update qpdf resolves it mid-xref and caches object 3 as null.
    data = seeds["streams"]
    cut = data.rindex(b"/Type /XRef")
    data = data[:cut] + data[cut:].replace(b"/DecodeParms <<", b"/DecodeParms << /Prev 3 0 R", 1)
    before, after = stamp_not_worse(data, tmp_path)
    assert before == 0 and after is None
