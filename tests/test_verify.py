"""Offline verification: the seed verifies; any change is caught by the right check."""

from __future__ import annotations

import base64
import copy
import json

import pytest

from pithtex.number import PithNumber
from pithtex.trust import KeyRing, PublicKey, keys_from_json, pinned_keys
from pithtex.verify import verify_document

from .conftest import BODY, SEED_PATH, SEED_SHA256
from .recordkit import TestKey, canonical, full_record

TITLE = "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM"


def statuses(report):
    return {name: check.status for name, check in report.checks.items()}


def test_seed_verifies_with_every_check(seed):
    report = verify_document(seed, title=TITLE)
    assert report.verified and report.exit_code == 0
    assert report.key_id == "pith-v1-2026-05"
    assert report.canonical_sha256 == SEED_SHA256
    assert set(statuses(report).values()) == {"pass"}
    assert set(report.checks) >= {"hash", "number", "year", "aliases", "receipt", "key", "signature", "title"}


def _leaves(value, path=()):
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _leaves(inner, (*path, key))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            yield from _leaves(inner, (*path, i))
    else:
        yield path


def _changed(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    return value + "x" if value else "x"


def _set(document, path, new):
    target = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new


SEED_CANONICAL = json.loads(SEED_PATH.read_text())["canonical_record"]


@pytest.mark.parametrize("path", list(_leaves(SEED_CANONICAL)))
def test_changing_any_canonical_field_fails_the_hash(seed, path):
    target = seed["canonical_record"]
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = _changed(target[path[-1]])
    report = verify_document(seed)
    assert report.exit_code == 1 and not report.verified
    assert report.checks["hash"].status == "fail"
    assert report.checks["signature"].status == "fail"


@pytest.mark.parametrize("where", ["record", "receipt"])
@pytest.mark.parametrize("position", [0, 31, 63])
def test_changing_any_stated_hash_character_fails_the_hash(seed, where, position):
    holder = seed if where == "record" else seed["receipt"]
    digits = holder["canonical_sha256"]
    flipped = "0" if digits[position] != "0" else "1"
    holder["canonical_sha256"] = digits[:position] + flipped + digits[position + 1:]
    report = verify_document(seed)
    assert report.checks["hash"].status == "fail" and report.exit_code == 1
    assert where in report.checks["hash"].detail
    assert report.checks["signature"].status == "pass"  # the signature is over the real hash


def test_wrong_stated_number_fails_the_number_check(seed):
    seed["pith_number"] = "pith:2021:AAAAAAAAAAAAAAAAAAAAAAAAAA"
    report = verify_document(seed)
    assert report.checks["number"].status == "fail" and report.exit_code == 1


def test_unparseable_stated_number_fails_the_number_check(seed):
    seed["pith_number"] = "pith:2021:NOT-A-NUMBER"
    assert verify_document(seed).checks["number"].status == "fail"


def test_wrong_year_fails_the_year_check(seed):
    seed["pith_number"] = f"pith:2020:{BODY}"
    report = verify_document(seed)
    assert report.checks["year"].status == "fail" and report.checks["number"].status == "pass"


def test_alias_that_is_not_a_prefix_fails(seed):
    seed["short_pith_number"] = "pith:AAAAAAAA"
    assert verify_document(seed).checks["aliases"].status == "fail"


def test_mislabelled_alias_length_fails(seed):
    seed["aliases"].append({"alias_kind": "pith_short_12", "alias_value": BODY[:8]})
    assert verify_document(seed).checks["aliases"].status == "fail"


def test_forged_signature_fails(seed):
    sig = seed["receipt"]["signature_b64"]
    seed["receipt"]["signature_b64"] = ("A" if sig[0] != "A" else "B") + sig[1:]
    report = verify_document(seed)
    assert report.checks["signature"].status == "fail" and report.exit_code == 1


def test_signature_that_is_not_base64_fails(seed):
    seed["receipt"]["signature_b64"] = "!!not base64!!"
    assert verify_document(seed).checks["signature"].status == "fail"


def test_truncated_signature_fails(seed):
    seed["receipt"]["signature_b64"] = base64.b64encode(b"\x00" * 10).decode()
    assert verify_document(seed).checks["signature"].status == "fail"


def test_no_receipt_cannot_be_decided(seed):
    del seed["receipt"]
    report = verify_document(seed)
    assert report.exit_code == 3 and not report.verified
    assert report.checks["receipt"].status == "unknown"


def test_unknown_key_id_is_never_verified(seed):
    seed["receipt"]["key_id"] = "someone-else-2030"
    report = verify_document(seed)
    assert report.exit_code == 3 and not report.verified
    assert report.checks["key"].status == "unknown" and report.checks["signature"].status == "unknown"


def test_valid_signature_under_unpinned_key_is_unknown_not_verified():
    key = TestKey("not-pinned")
    report = verify_document(full_record(canonical(), key))
    assert report.exit_code == 3 and not report.verified


def test_fingerprint_mismatch_fails(seed):
    seed["receipt"]["public_key_fingerprint"] = "00" * 16
    assert verify_document(seed).checks["key"].status == "fail"


def test_unsupported_algorithm_cannot_be_decided(seed):
    seed["receipt"]["algorithm"] = "rsa"
    report = verify_document(seed)
    assert report.checks["receipt"].status == "unknown" and report.exit_code == 3


@pytest.mark.parametrize("fields", [
    {"title": "Über Größen — 量子 and ∑"},
    {"arxiv_id": "hep-th/9901001", "submitted_at": "1999-01-04T00:00:00Z"},
    {"license": ""},
    {"cross": ["math.PR", "cs.DS", "stat.ML"]},
])
def test_synthetic_records_signed_by_a_test_key(fields):
    key = TestKey()
    keys = pinned_keys().extended(KeyRing([PublicKey(key.key_id, key.raw_public)]))
    document = full_record(canonical(**fields), key)
    report = verify_document(document, keys)
    assert report.verified, report.checks
    if "title" in fields:
        assert verify_document(document, keys, title=fields["title"]).checks["title"].status == "pass"
        assert verify_document(document, keys, title="Another").checks["title"].status == "fail"


def test_keys_in_any_order_still_verify():
    key = TestKey()
    keys = KeyRing([PublicKey(key.key_id, key.raw_public)])
    document = full_record(canonical(), key)
    reordered = {k: document[k] for k in reversed(list(document))}
    reordered["canonical_record"] = {k: document["canonical_record"][k]
                                     for k in reversed(list(document["canonical_record"]))}
    assert verify_document(reordered, keys).verified


def test_bare_record_has_no_receipt_so_cannot_be_decided(seed):
    report = verify_document(copy.deepcopy(seed["canonical_record"]))
    assert report.exit_code == 3
    assert report.checks["hash"].status == "unknown" and report.number.body == BODY


def test_expected_number_is_checked(seed):
    assert verify_document(seed, expect=PithNumber(BODY)).checks["expected"].status == "pass"
    other = verify_document(seed, expect=PithNumber("A" * 26))
    assert other.checks["expected"].status == "fail" and other.exit_code == 1


def test_pinned_key_matches_its_published_fingerprint():
    key = pinned_keys().get("pith-v1-2026-05")
    assert key is not None and key.fingerprint == "8d4b5ee74e4693bcd1df2446408b0d54"


def test_a_key_file_with_a_wrong_fingerprint_is_refused():
    from pithtex.errors import KeyFileError
    with pytest.raises(KeyFileError, match="does not match its fingerprint"):
        keys_from_json({"keys": [{"key_id": "k", "public_key_hex": "11" * 32, "fingerprint": "00" * 16}]}, "k.json")
