"""Records: canonical JSON, hashes, every shape in the wild, and safe loading."""

from __future__ import annotations

import json

import pytest

from pithtex.errors import RecordError
from pithtex.record import (
    abstract_sha256,
    canonical_json,
    canonical_of,
    canonical_sha256,
    load_document,
    number_of,
    parse_document,
    title_sha256,
)

from .conftest import BODY, SEED_PATH, SEED_SHA256
from .recordkit import canonical


def test_seed_hashes_to_its_number(seed):
    record = canonical_of(seed)
    assert canonical_sha256(record).hex() == SEED_SHA256
    assert number_of(record).long == f"pith:2021:{BODY}"


def test_seed_title_hash_matches_the_real_title(seed):
    assert title_sha256(seed["paper"]["title"]) == seed["canonical_record"]["metadata"]["title_canon_sha256"]


def test_canonical_json_is_sorted_compact_utf8():
    assert canonical_json({"b": 1, "a": ["é", {"d": 2, "c": 3}]}) == '{"a":["é",{"c":3,"d":2}],"b":1}'.encode()


def test_key_order_never_changes_the_hash(seed):
    record = seed["canonical_record"]
    shuffled = json.loads(json.dumps(record, sort_keys=True)[::1])
    reordered = {k: record[k] for k in reversed(list(record))}
    assert canonical_sha256(reordered) == canonical_sha256(record) == canonical_sha256(shuffled)


def test_three_shapes_give_the_same_record(seed):
    bare = seed["canonical_record"]
    bundle = {"events": [], "canonical_record": bare, "state": {"x": 1}}
    for shape in (seed, bundle, bare):
        assert canonical_sha256(canonical_of(shape)).hex() == SEED_SHA256


def test_unicode_titles_and_old_style_ids_hash_stably():
    record = canonical(title="Über die Größe — 量子", arxiv_id="hep-th/9901001", license="")
    again = json.loads(canonical_json(record))
    assert canonical_sha256(again) == canonical_sha256(record)
    assert number_of(record).year == 2024
    record["metadata"]["license"] = "Licence « libre » 量子"
    assert "量子".encode() in canonical_json(record)  # raw UTF-8, not \u escapes


def test_text_rules_live_in_one_place():
    assert title_sha256("Hello, World!") == title_sha256("hello, world!")
    assert abstract_sha256("  Two\n\t words  ") == abstract_sha256("two words")
    assert title_sha256("Two  spaces") != title_sha256("Two spaces")  # titles keep their spacing


@pytest.mark.parametrize(("data", "message"), [
    (b"", "the file is empty"),
    (b"   \n", "the file is empty"),
    (b"\x00\xffjunk", "not UTF-8"),
    (b"{not json", "not valid JSON"),
    (b"[1, 2]", "a JSON object, not a list"),
    (b'"text"', "not a string"),
    (b'{"a": 1}', "no 'canonical_record'"),
    (b'{"canonical_record": []}', "'canonical_record' is a list"),
    (b'{"canonical_record": {"schema_version": "1.0", "source": 1, "metadata": {}}}', "'source' must be an object"),
    (b"[" * 100000 + b"]" * 100000, "JSON nested more than 100 deep"),
])
def test_bad_documents_are_refused_with_a_reason(data, message):
    with pytest.raises(RecordError) as info:
        parse_document(data, name="x.json")
    assert message in str(info.value)


def test_huge_input_is_refused_before_parsing():
    with pytest.raises(RecordError, match="too large"):
        parse_document(b" " * (16 * 1024 * 1024 + 1))


def test_load_document_names_the_file(tmp_path):
    with pytest.raises(RecordError, match=r"missing\.json: no such file"):
        load_document(tmp_path / "missing.json")
    with pytest.raises(RecordError, match="is a folder"):
        load_document(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(RecordError, match=r"bad.json: not valid JSON"):
        load_document(bad)
    assert load_document(SEED_PATH)["canonical_sha256"] == SEED_SHA256
