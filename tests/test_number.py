"""PithNumber: every accepted form parses, every bad form says exactly why."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pithtex.errors import InvalidNumber
from pithtex.number import PithAlias, PithNumber, body_of_sha256, parse_reference

from .conftest import BODY, SEED_SHA256

BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
bodies = st.text(alphabet=BASE32, min_size=26, max_size=26)
years = st.integers(min_value=1000, max_value=9999)


def test_seed_hash_gives_seed_number():
    assert PithNumber.from_sha256(SEED_SHA256).body == BODY
    assert PithNumber.from_sha256(bytes.fromhex(SEED_SHA256)).body == BODY


def test_body_is_base32_of_whole_hash_not_of_first_16_bytes():
    raw = bytes.fromhex(SEED_SHA256)
    assert body_of_sha256(raw) == base64.b32encode(raw)[:26].decode()
    assert body_of_sha256(raw) != base64.b32encode(raw[:16]).decode().rstrip("=")


@pytest.mark.parametrize("text", [
    BODY, BODY.lower(), f"pith:{BODY}", f"PITH:{BODY.lower()}", f"  pith:2021:{BODY}\n", f"\tPith:2021:{BODY} ",
])
def test_accepted_forms(text):
    n = PithNumber.parse(text)
    assert n.body == BODY
    assert n.short == "pith:YBK5PTAK"
    assert n.url == f"https://pith.science/pith/{BODY}"


def test_long_form_keeps_year_and_bare_body_has_none():
    assert PithNumber.parse(f"pith:2021:{BODY}").long == f"pith:2021:{BODY}"
    assert PithNumber.parse(BODY).long is None
    assert PithNumber.parse(BODY, year=2021).long == f"pith:2021:{BODY}"


def test_year_given_twice_must_agree():
    with pytest.raises(InvalidNumber, match="says year 2021, but 2020 was given"):
        PithNumber.parse(f"pith:2021:{BODY}", year=2020)


@given(bodies, years)
def test_every_body_round_trips_through_every_form(body, year):
    n = PithNumber(body, year)
    for form in (n.body, n.prefixed, n.long, n.body.lower(), f"  {n.long.lower()}  "):
        again = PithNumber.parse(form, year=year)
        assert again == n
    assert PithNumber.parse(n.long).year == year
    assert n.short == "pith:" + body[:8]
    for length in (8, 12, 16):
        alias = parse_reference(n.alias(length))
        assert isinstance(alias, PithAlias) and alias.matches(n)


@given(st.binary(min_size=32, max_size=32))
def test_every_digest_gives_a_valid_number(raw):
    n = PithNumber.from_sha256(raw)
    assert PithNumber.parse(n.body) == n
    assert n.body == base64.b32encode(raw).decode()[:26]


@pytest.mark.parametrize(("text", "message"), [
    ("", "it is empty"),
    ("   ", "it is empty"),
    ("pith:", "nothing follows 'pith:'"),
    ("pith:2021:", "nothing follows the year"),
    ("YBK5PTAKOSCXY2WMLIIB7DMYH", "has 25 characters; a Pith Number has 26"),
    ("YBK5PTAKOSCXY2WMLIIB7DMYH6A", "has 27 characters; a Pith Number has 26"),
    ("YBK5PTA", "has 7 characters"),
    ("YBK50TAKOSCXY2WMLIIB7DMYH6", "character '0' at position 5 is not base32 (A-Z, 2-7)"),
    ("YBK5PTAKOSCXY2WMLIIB7DMY81", "character '8' at position 25 is not base32"),
    ("YBK5PTAKOSCXY 2WMLIIB7DMYH", "character ' ' at position 14 is not base32"),
    ("YBK5PTAKOSCXY2WMLIIB7DMYH6=", "'=' padding is not part of a Pith Number"),
    ("pith:21:YBK5PTAKOSCXY2WMLIIB7DMYH6", "the year '21' must be exactly four digits"),
    ("pith:20211:YBK5PTAKOSCXY2WMLIIB7DMYH6", "the year '20211' must be exactly four digits"),
    ("pith:2021:2022:YBK5PTAKOSCXY2WMLIIB7DMYH6", "too many ':' parts"),
    ("doi:10.1/x", "character ':' at position 4"),
])
def test_each_invalid_input_has_its_own_message(text, message):
    with pytest.raises(InvalidNumber) as info:
        PithNumber.parse(text)
    assert message in str(info.value)
    assert str(info.value).startswith("invalid Pith Number")


@pytest.mark.parametrize("length", [8, 12, 16])
def test_short_prefixes_are_aliases_not_numbers(length):
    ref = parse_reference(BODY[:length].lower())
    assert ref == PithAlias(BODY[:length])
    assert ref.paper_url == "https://pith.science/paper/YBK5PTAK"
    with pytest.raises(InvalidNumber, match="only a look-up alias"):
        PithNumber.parse(BODY[:length])


def test_non_text_is_refused():
    with pytest.raises(InvalidNumber, match="is text"):
        parse_reference(12345)  # type: ignore[arg-type]


def test_as_dict_lists_every_form():
    d = PithNumber.parse(f"pith:2021:{BODY}").as_dict()
    assert d["body"] == BODY and d["long"] == f"pith:2021:{BODY}" and d["year"] == 2021
    assert d["aliases"] == {"8": "YBK5PTAK", "12": "YBK5PTAKOSCX", "16": "YBK5PTAKOSCXY2WM"}
