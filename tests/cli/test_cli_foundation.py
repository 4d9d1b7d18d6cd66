"""The `number` and `verify` commands as a user runs them: real subprocesses."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ..conftest import BODY, ROOT, SEED_PATH, SEED_SHA256, assert_clean_error, pithtex_cli
from ..recordkit import TestKey, canonical, full_record


def test_number_json_has_every_form():
    p = pithtex_cli("number", f"  pith:2021:{BODY.lower()} ", "--json")
    assert p.returncode == 0, p.stderr
    j = json.loads(p.stdout)
    assert j["body"] == BODY and j["short"] == "pith:YBK5PTAK"
    assert j["long"] == f"pith:2021:{BODY}" and j["url"] == f"https://pith.science/pith/{BODY}"


def test_number_human_output_and_year():
    p = pithtex_cli("number", BODY, "--year", "2021")
    assert p.returncode == 0
    assert f"long   pith:2021:{BODY}" in p.stdout and "short  pith:YBK5PTAK" in p.stdout
    p = pithtex_cli("number", BODY, "--json")
    assert json.loads(p.stdout)["long"] is None


def test_alias_is_accepted_with_a_note():
    p = pithtex_cli("number", "ybk5ptakoscx")
    assert p.returncode == 0
    assert "look-up alias" in p.stderr and "not an identity" in p.stderr
    assert "YBK5PTAKOSCX" in p.stdout


@pytest.mark.parametrize(("arg", "fragment"), [
    ("YBK5PTAKOSCXY2WMLIIB7DMYH", "has 25 characters; a Pith Number has 26"),
    ("YBK50TAKOSCXY2WMLIIB7DMYH6", "character '0' at position 5 is not base32 (A-Z, 2-7)"),
    ("YBK5PTAKOSCXY2WMLIIB7DMYH6=", "padding"),
    ("pith:21:YBK5PTAKOSCXY2WMLIIB7DMYH6", "four digits"),
    ("", "it is empty"),
    ("pith:", "nothing follows 'pith:'"),
    ("YBK5PTA", "has 7 characters"),
])
def test_number_rejects_bad_input_in_one_line(arg, fragment):
    err = assert_clean_error(pithtex_cli("number", arg))
    assert fragment in err


def test_number_needs_exactly_one_input():
    assert "exactly one" in assert_clean_error(pithtex_cli("number"))
    assert "exactly one" in assert_clean_error(pithtex_cli("number", BODY, "--record", str(SEED_PATH)))


def test_unknown_option_is_a_one_line_usage_error():
    assert_clean_error(pithtex_cli("number", BODY, "--colour", "red"))


def test_number_from_record():
    p = pithtex_cli("number", "--record", str(SEED_PATH), "--json")
    j = json.loads(p.stdout)
    assert j["body"] == BODY and j["canonical_sha256"] == SEED_SHA256 and j["long"] == f"pith:2021:{BODY}"


def test_verify_seed_human_and_json():
    p = pithtex_cli("verify", str(SEED_PATH))
    assert p.returncode == 0 and "  verified  (" in p.stdout and "[ok  ] signature" in p.stdout
    j = json.loads(pithtex_cli("verify", str(SEED_PATH), "--json").stdout)
    assert j["verified"] is True and j["key_id"] == "pith-v1-2026-05" and j["number"] == BODY
    assert j["canonical_sha256"] == SEED_SHA256 and set(j["checks"].values()) == {"pass"}


def test_verify_exit_codes(tmp_path, seed):
    tampered = json.loads(json.dumps(seed))
    tampered["canonical_record"]["metadata"]["primary_cat"] = "cs.LG"
    (tmp_path / "t.json").write_text(json.dumps(tampered))
    p = pithtex_cli("verify", str(tmp_path / "t.json"), "--json")
    assert p.returncode == 1 and json.loads(p.stdout)["checks"]["hash"] == "fail"
    del seed["receipt"]
    (tmp_path / "n.json").write_text(json.dumps(seed))
    p = pithtex_cli("verify", str(tmp_path / "n.json"))
    assert p.returncode == 3 and "  unchecked  (" in p.stdout


def test_verify_title_option():
    p = pithtex_cli("verify", str(SEED_PATH), "--title", "Some other title", "--json")
    assert p.returncode == 1 and json.loads(p.stdout)["checks"]["title"] == "fail"


def test_verify_with_a_test_key_file(tmp_path):
    key = TestKey("lab-mirror-1")
    record = tmp_path / "r.json"
    record.write_text(json.dumps(full_record(canonical(title="Ünïcode"), key), ensure_ascii=False))
    assert pithtex_cli("verify", str(record)).returncode == 3
    p = pithtex_cli("verify", str(record), "--keys", str(key.key_file(tmp_path)), "--json")
    assert p.returncode == 0 and json.loads(p.stdout)["key_id"] == "lab-mirror-1"


def test_verify_bad_key_file_is_a_clean_error(tmp_path):
    (tmp_path / "k.json").write_text("{}")
    for keys, fragment in ((tmp_path / "k.json", "needs a 'key_id'"), (tmp_path / "x", "no such key file")):
        assert fragment in assert_clean_error(pithtex_cli("verify", str(SEED_PATH), "--keys", str(keys)))


@pytest.mark.parametrize(("content", "fragment"), [
    (b"", "empty"),
    (b"\x00\xffnot json at all{", "not UTF-8"),
    (b"{" * 50, "not valid JSON"),
    (b"[" * 200000 + b"]" * 200000, "nested more than 100 deep"),
    (b'{"hello": "world"}', "not a Pith record"),
    (b"[]", "not a list"),
])
def test_verify_junk_never_tracebacks(tmp_path, content, fragment):
    path = tmp_path / "junk.json"
    path.write_bytes(content)
    err = assert_clean_error(pithtex_cli("verify", str(path)))
    assert str(path) in err and fragment in err


def test_verify_missing_file_and_folder(tmp_path):
    assert "no such file" in assert_clean_error(pithtex_cli("verify", str(tmp_path / "nope.json")))
    assert "0 files: no PDF found" in assert_clean_error(pithtex_cli("verify", str(tmp_path)))  # a folder: its PDFs


def test_python_dash_m_and_help_teach_by_example():
    p = subprocess.run([sys.executable, "-m", "pithtex", "number", "--help"], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0 and "examples:" in p.stdout and "pith:YYYY:BODY" in p.stdout
    p = subprocess.run([sys.executable, "-m", "pithtex", "--version"], capture_output=True, text=True)
    assert p.stdout.startswith("pithtex ")


def test_library_api_is_importable_from_the_package():
    import pithtex

    n = pithtex.PithNumber.parse(BODY)
    assert pithtex.verify_document(pithtex.load_document(SEED_PATH)).number == n.with_year(2021)
