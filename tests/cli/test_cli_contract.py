"""The exit-code contract at the top of the command line: 0-3 for every failure, 70 only for
a real bug (injected here), --json errors on stdout, and the small CLI promises of issue 11."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import BODY, ROOT, SEED_PATH, assert_clean_error, pithtex_cli
from ..fskit import small_pdf
from ..resolverkit import Reply
from ..test_resolver import tampered

# A test-only hook: Python imports `sitecustomize` from PYTHONPATH at start-up, so this file
# plants a bug (an unforeseen exception deep in the library) into the real command line.
INJECT = """
import os
import pithtex.{module} as target

def broken(*args, **kwargs):
    raise {error}("planted by the test")

target.{function} = broken
"""


def with_bug(tmp_path: Path, module: str, function: str, error: str = "TypeError") -> dict:
    folder = tmp_path / "hook"
    folder.mkdir(exist_ok=True)
    (folder / "sitecustomize.py").write_text(INJECT.format(module=module, function=function, error=error))
    return {"PYTHONPATH": str(folder)}


@pytest.mark.parametrize(("module", "function", "error", "args"), [
    ("record", "canonical_of", "TypeError", ["number", "--record", str(SEED_PATH)]),
    ("verify", "verify_document", "KeyError", ["verify", str(SEED_PATH)]),
    ("web.badge", "svg", "IndexError", ["badge", BODY]),
])
def test_an_injected_bug_is_exit_70_not_bad_input(tmp_path, module, function, error, args):
    env = with_bug(tmp_path, module, function, error)
    p = pithtex_cli(*args, env=env)
    err = assert_clean_error(p, 70)
    assert "this is a bug in pithtex" in err and error in err and "planted by the test" in err
    debug = pithtex_cli(*args, env={**env, "PITHTEX_DEBUG": "1"})
    assert debug.returncode == 70
    assert "Traceback (most recent call last)" in debug.stderr and f"{error}: " in debug.stderr
    assert debug.stderr.strip().splitlines()[-1].startswith("pithtex: internal error")


def test_under_debug_a_clean_error_keeps_its_exit_code(tmp_path):
    p = pithtex_cli("verify", str(tmp_path / "missing.json"), env={"PITHTEX_DEBUG": "1"})
    assert p.returncode == 2 and "Traceback" in p.stderr
    assert p.stderr.strip().splitlines()[-1].startswith("pithtex: ") and "no such file" in p.stderr


def test_an_injected_bug_with_json_is_a_json_error(tmp_path):
    p = pithtex_cli("number", "--record", str(SEED_PATH), "--json", env=with_bug(tmp_path, "record", "canonical_of"))
    assert p.returncode == 70
    j = json.loads(p.stdout)
    assert j["exit_code"] == 70 and "this is a bug" in j["error"]


def error_cases(tmp_path: Path, base: str) -> list[tuple[list[str], int]]:
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "not.pdf").write_text("hello")
    return [
        (["number", "NOTANUMBER", "--json"], 2),
        (["number", "--json"], 2),
        (["verify", "missing.json", "--json"], 2),
        (["verify", "bad.json", "--json"], 2),
        (["verify", "2104.04473", "--offline", "--json"], 3),
        (["verify", BODY, "--offline", "--json"], 3),
        (["verify", BODY, "--online", "--base-url", base, "--json"], 3),
        (["verify", BODY, "--online", "--offline", "--json"], 2),
        (["stamp", "missing.pdf", "--number", BODY, "--json"], 2),
        (["stamp", "not.pdf", "--number", BODY, "--json"], 2),
        (["stamp", "in.pdf", "--number", BODY, "-o", "nowhere/x.pdf", "--json"], 2),
        (["inspect", "missing.pdf", "--json"], 2),
        (["check", "missing-folder", "--json"], 2),
        (["bundle", "missing-folder", "-o", "x.tar.gz", "--json"], 2),
        (["bundle", str(ROOT / "examples" / "article"), "-o", "x.zip", "--json"], 2),
        (["badge", "NOTANUMBER", "--json"], 2),
        (["frobnicate", "--json"], 2),
    ]


def test_every_error_with_json_prints_error_and_exit_code_on_stdout(fake, tmp_path):
    small_pdf(tmp_path / "in.pdf")
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PITH_BASE_URL": ""}
    for args, code in error_cases(tmp_path, fake.base):
        p = pithtex_cli(*args, env=env, cwd=tmp_path)
        assert p.returncode == code, (args, p.returncode, p.stderr)
        try:
            j = json.loads(p.stdout)
        except ValueError:
            pytest.fail(f"{args}: stdout is not one JSON document: {p.stdout!r}")
        assert j["exit_code"] == code and j["error"] and j["error"] in p.stderr.replace("\n", " "), (args, j)
        assert "Traceback" not in p.stderr


def test_a_record_with_a_lone_surrogate_is_unusable_input_not_a_bug(tmp_path):
    seed = SEED_PATH.read_text()
    record = tmp_path / "surrogate.json"
    record.write_text(seed.replace('"primary_cat"', '"x": "\\ud800", "primary_cat"', 1))
    assert "lone surrogate \\ud800" in assert_clean_error(pithtex_cli("verify", str(record)))
    assert "lone surrogate" in assert_clean_error(pithtex_cli("number", "--record", str(record)))


def test_online_and_offline_together_is_a_usage_error():
    for command in (["verify", BODY], ["badge", BODY]):
        p = pithtex_cli(*command, "--online", "--offline")
        assert p.returncode == 2 and "not allowed with argument --online" in p.stderr


def test_verify_file_online_is_not_silently_ignored(tmp_path):
    for flag in ("--online", "--offline"):
        err = assert_clean_error(pithtex_cli("verify", str(SEED_PATH), flag))
        assert f"{flag} is for a Pith Number, an arXiv id or a PDF" in err and f"drop {flag}" in err


def test_a_tampered_record_names_the_number_asked_for(fake, tmp_path):
    fake.record(BODY, Reply.json(tampered()))
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    p = pithtex_cli("verify", f"pith:2021:{BODY}", "--base-url", fake.base, env=env)
    assert p.returncode == 1
    headline = p.stdout.splitlines()[0]
    assert headline.startswith(f"pith:2021:{BODY}  invalid"), headline
    assert f"asked for {BODY}, but the record hashes to" in p.stdout


def run_on_a_terminal(*args: str, cwd: Path) -> tuple[int, bytes]:
    """Run pithtex with stdout on a real pseudo-terminal; (exit code, bytes the terminal got)."""
    master, slave = pty.openpty()
    exe = Path(sys.executable).parent / "pithtex"
    proc = subprocess.Popen([str(exe), *args], stdout=slave, stderr=subprocess.PIPE, cwd=cwd)
    os.close(slave)
    code = proc.wait(timeout=60)
    proc.stderr.close()
    got = b""
    while select.select([master], [], [], 0.2)[0]:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        got += chunk
    os.close(master)
    return code, got


def test_a_png_is_never_written_to_a_terminal(tmp_path):
    for args in (["--format", "png"], ["--format", "png", "-o", "-"]):
        code, got = run_on_a_terminal("badge", BODY, *args, cwd=tmp_path)
        assert code == 2 and b"PNG" not in got and got == b""
    assert list(tmp_path.iterdir()) == []


def test_image_formats_refuse_a_mismatched_extension(tmp_path):
    for fmt, name in (("qr", "x.jpg"), ("png", "x.svg"), ("svg", "x.png"), ("qr", "x")):
        err = assert_clean_error(pithtex_cli("badge", BODY, "--format", fmt, "-o", str(tmp_path / name)))
        assert "give a matching file name" in err
    assert list(tmp_path.iterdir()) == []
    p = subprocess.run(  # `-o -` means stdout for badge, as documented
        [str(Path(sys.executable).parent / "pithtex"), "badge", BODY, "--format", "png", "-o", "-"],
        capture_output=True, timeout=60, cwd=tmp_path)
    assert p.returncode == 0 and p.stdout.startswith(b"\x89PNG")
    assert list(tmp_path.iterdir()) == []  # no file named "-"
