"""The small PDF object parser and serialiser behind stamp: round trips and tricky syntax."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pithtex.pdf.objects import HexString, Name, Parser, PdfSyntaxError, Ref, decode_text, serialize, text_string


def parse(data: bytes):
    return Parser(data).parse()


@pytest.mark.parametrize(("data", "value"), [
    (b"<</A 1 0 R/B[1 2.5 -3 .5]>>", {"A": Ref(1, 0), "B": [1, 2.5, -3, 0.5]}),
    (b"(a\\)b\\\\c\\(d\\n\\101)", b"a)b\\c(d\nA"),
    (b"(nested (parens) ok)", b"nested (parens) ok"),
    (b"<4142 43>", b"ABC"),
    (b"/A#20B", "A B"),
    (b"% comment 12 0 obj\n  7", 7),
    (b"[true false null /x]", [True, False, None, "x"]),
    (b"1 0 Rx", 1),
])
def test_parse(data: bytes, value):
    assert parse(data) == value


@pytest.mark.parametrize("bad", [b"<</A 1", b"[1 2", b"(open", b"<<1 2>>", b")", b""])
def test_broken_syntax_raises(bad: bytes):
    with pytest.raises(PdfSyntaxError):
        parse(bad)


def test_deep_nesting_is_refused():
    with pytest.raises(PdfSyntaxError):
        parse(b"[" * 500)


def test_hex_strings_and_names_serialise():
    assert serialize([HexString(b"\x01\xff"), Name("a b/c")]) == b"[<01FF> /a#20b#2Fc]"


@settings(max_examples=80, deadline=None)
@given(st.recursive(
    st.one_of(st.integers(-10**9, 10**9), st.binary(max_size=40), st.booleans(), st.none(),
              st.text(st.characters(min_codepoint=33, max_codepoint=255), max_size=10).map(Name),
              st.builds(Ref, st.integers(1, 10**6), st.integers(0, 5))),
    lambda inner: st.one_of(st.lists(inner, max_size=5),
                            st.dictionaries(st.text("abcXYZ#/ ", min_size=1, max_size=6).map(Name), inner,
                                            max_size=5)),
    max_leaves=20))
def test_round_trip(value):
    assert parse(serialize(value)) == value


@given(st.text(max_size=30))
def test_text_strings_round_trip(text: str):
    assert decode_text(text_string(text)) == text
