"""Red-team findings (issue 11c): hostile text and settings that got through the hardening.

Each test replays one attack against the real command line: a record, a file name or a
server that carries terminal escape sequences, a badge drawn from such a record, a deadline
or time limit that is no limit at all, a base URL with a password in it.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from defusedxml import ElementTree

from .conftest import assert_clean_error, pithtex_cli
from .recordkit import TestKey, canonical, full_record
from .resolverkit import FakeResolver, Reply, serving

# What a terminal obeys: C0 (but tab and newline), DEL, C1 and the bidi overrides/isolates.
OBEYED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
ESCAPES = "\x1b[2J\x1b]0;owned\x07\x1b[31m\u009b31m\u202e\r"


@pytest.fixture
def server() -> FakeResolver:
    with serving() as s:
        yield s


def hostile_record(tmp_path: Path) -> tuple[Path, Path, str]:
    """A record signed by a test key, whose stated hash, aliases and paper title carry escapes."""
    key = TestKey()
    doc = full_record(canonical(), key)
    doc["canonical_sha256"] = "deadbeef" + ESCAPES + "<&>"
    doc["aliases"].append({"alias_kind": "pith_short_" + ESCAPES, "alias_value": "ZZ" + ESCAPES})
    doc["paper"] = {"title": "T" + ESCAPES}
    path = tmp_path / f"rec{ESCAPES.replace('/', '')}.json"
    path.write_text(json.dumps(doc))
    return path, key.key_file(tmp_path), doc["pith_number"]


def assert_inert(*texts: str) -> None:
    for text in texts:
        assert not OBEYED.search(text), repr(text)


def test_record_fields_and_file_names_reach_the_terminal_inert(tmp_path):
    record, keys, _number = hostile_record(tmp_path)
    p = pithtex_cli("verify", str(record), "--keys", str(keys))
    assert p.returncode == 1, p.stderr
    assert_inert(p.stdout, p.stderr)
    assert "\\u001b[31m" in p.stdout  # shown, not obeyed
    missing = pithtex_cli("verify", str(tmp_path / f"no{ESCAPES.replace('/', '')}.json"))
    assert_inert(assert_clean_error(missing, 2), missing.stdout)


def test_json_output_stays_valid_and_exact(tmp_path):
    record, keys, _number = hostile_record(tmp_path)
    p = pithtex_cli("verify", str(record), "--keys", str(keys), "--json")
    assert_inert(p.stdout, p.stderr)
    report = json.loads(p.stdout)  # the \uXXXX spelling is JSON's own: values come back exact
    assert report["details"]["hash"].endswith("deadbeef" + ESCAPES + "<&>")


def test_key_id_served_by_a_resolver_reaches_the_terminal_inert(tmp_path, server):
    key = TestKey("k" + ESCAPES)
    doc = full_record(canonical(), key)
    body = doc["pith_number"].split(":")[-1]
    server.record(body, Reply.json(doc))
    p = pithtex_cli("verify", body, "--online", "--base-url", server.base,
                    env={"XDG_CACHE_HOME": str(tmp_path)})
    assert p.returncode == 3, p.stderr
    assert_inert(p.stdout, p.stderr)
    assert "not a pinned registry key" in p.stdout


def test_a_badge_from_a_hostile_record_is_well_formed_svg(tmp_path):
    record, keys, number = hostile_record(tmp_path)
    out = tmp_path / "badge.svg"
    p = pithtex_cli("badge", number, "--record", str(record), "--keys", str(keys), "-o", str(out))
    assert p.returncode == 1, p.stderr  # an invalid record: the badge says so, and exit 1
    assert_inert(p.stderr)
    title = ElementTree.parse(out).getroot().find("{http://www.w3.org/2000/svg}title").text
    # controls and bidi characters spelled out (safetext.shown), none left to act in a tooltip
    assert "invalid" in title and "\\u001b[31m" in title and "\\u202e" in title and "<&>" in title
    assert not any(c in title for c in "\x1b\x07\x9b\u202e\ufffd"), title


@pytest.mark.parametrize("value", ["inf", "1e309", "nan", "abc", "0", "-1"])
def test_a_pith_timeout_that_is_no_deadline_is_refused(tmp_path, server, value):
    # `inf` used to crash the watchdog thread and leave the fetch without any deadline.
    server.route("/pith/RPPXGBFWI63E5JJ2CJKDOVW64I.json", Reply(drip=0.5, body=b"x" * 100))
    p = pithtex_cli("verify", "RPPXGBFWI63E5JJ2CJKDOVW64I", "--online", "--base-url", server.base,
                    env={"XDG_CACHE_HOME": str(tmp_path), "PITH_TIMEOUT": value}, timeout=60)
    assert "PITH_TIMEOUT" in assert_clean_error(p, 2) and "finite number of seconds" in p.stderr
    assert not server.requests


@pytest.mark.parametrize("value", ["inf", "1e309", "nan", "0", "-5"])
def test_check_time_limit_must_be_finite(tmp_path, value):
    (tmp_path / "main.tex").write_text("\\documentclass{article}\\begin{document}\\def\\a{\\a}\\a\\end{document}\n")
    for command in ("check", "bundle"):
        out = ["-o", str(tmp_path / "out.tar.gz")] if command == "bundle" else []
        p = pithtex_cli(command, str(tmp_path), "--timeout", value, *out, timeout=30)
        assert "--timeout" in assert_clean_error(p, 2) and "finite number of seconds" in p.stderr


@pytest.mark.parametrize(("url", "says"), [
    ("http://user:s3cret@127.0.0.1:1", "user name or password"),
    ("http://127.0.0.1:99999", "host or port"),
    ("http://a\x1b[31mb", "control characters"),
    ("http://127.0.0.1:1/?x=1", "query or fragment"),
])
def test_odd_base_urls_are_refused_without_echoing_secrets(tmp_path, url, says):
    for how in (["--base-url", url], []):
        p = pithtex_cli("verify", "RPPXGBFWI63E5JJ2CJKDOVW64I", "--online", *how,
                        env={"XDG_CACHE_HOME": str(tmp_path), "PITH_BASE_URL": url})
        err = assert_clean_error(p, 2)
        assert says in err and "s3cret" not in err
        assert_inert(err)
    assert not (tmp_path / "pithtex").exists()  # nothing cached under a name holding the password


# -- inputs that are not regular files: a FIFO waited forever, /dev/zero filled memory ---------
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "in.fifo"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("command", [
    ["verify", "{input}"],
    ["number", "--record", "{input}"],
    ["inspect", "{input}"],
    ["stamp", "{input}", "-o", "{tmp}/out.pdf", "--number", "RPPXGBFWI63E5JJ2CJKDOVW64I"],
    ["stamp", "{input}", "--in-place", "--number", "RPPXGBFWI63E5JJ2CJKDOVW64I"],
    ["verify", "--keys", "{input}", "{seed}"],
])
@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "/dev/urandom"])
def test_inputs_that_never_end_are_refused_at_once(tmp_path, command, kind):
    from .conftest import SEED_PATH

    source = fifo(tmp_path) if kind == "fifo" else Path(kind)
    args = [a.format(input=source, tmp=tmp_path, seed=SEED_PATH) for a in command]
    # A FIFO used to block here, and /dev/zero to be read without end: the refusal names the
    # kind of file, which is known before a byte is read (the timeout is a hang guard only).
    p = pithtex_cli(*args, timeout=300)
    err = assert_clean_error(p, 2)
    assert "not a regular file" in err, err
    assert sorted(x.name for x in tmp_path.iterdir()) == (["in.fifo"] if kind == "fifo" else [])


# -- uploads: an archive that is no file, a hostile 00README.json ------------------------------
@pytest.mark.parametrize("kind", ["fifo", "link-to-/dev/zero"])
@pytest.mark.parametrize("name", ["paper.tar.gz", "paper.zip"])
def test_an_archive_that_never_ends_is_refused_at_once(tmp_path, kind, name):
    archive = tmp_path / name
    if kind == "fifo":
        os.mkfifo(archive)  # waited forever for a writer
    else:
        archive.symlink_to("/dev/zero")  # was read until the machine ran out of memory
    for command in (["check", str(archive)], ["bundle", str(archive), "-o", str(tmp_path / "out.tar.gz")]):
        p = pithtex_cli(*command, timeout=30)
        assert "not a regular file" in assert_clean_error(p, 2)
    assert sorted(x.name for x in tmp_path.iterdir()) == [name]


PAPER = "\\documentclass{article}\\begin{document}hi\\end{document}\n"


@pytest.mark.parametrize(("readme", "says"), [
    ('{"sources": "main.tex", "process": [1]}', "'sources' must be a list"),
    ('{"process": ["pdflatex"]}', "'process' must be an object"),
    ("[" * 50000 + "]" * 50000, "nested too deeply"),
    ('{"process": {"compiler": ["x"]}}', "does not run"),
])
def test_a_hostile_00readme_is_unusable_input_not_a_bug(tmp_path, readme, says):
    (tmp_path / "main.tex").write_text(PAPER)
    (tmp_path / "00README.json").write_text(readme)
    for command in ("check", "bundle"):
        extra = ["-o", str(tmp_path.parent / f"{tmp_path.name}.tar.gz")] if command == "bundle" else []
        assert says in assert_clean_error(pithtex_cli(command, str(tmp_path), *extra, timeout=60), 2)


def test_a_00readme_that_is_a_link_is_not_part_of_the_upload(tmp_path):
    # arXiv keeps no links, and every other linked file is skipped; this one was read (any size).
    (tmp_path / "main.tex").write_text(PAPER)
    elsewhere = tmp_path.parent / f"{tmp_path.name}-readme.json"
    elsewhere.write_text('{"process": {"compiler": "not-a-compiler"}}')
    (tmp_path / "00README.json").symlink_to(elsewhere)
    p = pithtex_cli("check", str(tmp_path), "--json", timeout=120)
    assert "not-a-compiler" not in p.stdout + p.stderr
    assert p.returncode == 0, p.stdout + p.stderr


# -- the resolver cache: entries replaced by links, FIFOs and devices ----------------------------
def cached_entry(tmp_path: Path, server: FakeResolver) -> tuple[str, Path, Path]:
    """A record served and cached by one online verify: (number body, key file, cache entry)."""
    key = TestKey()
    doc = full_record(canonical(), key)
    body = doc["pith_number"].split(":")[-1]
    server.record(body, Reply.json(doc))
    keys = key.key_file(tmp_path)
    p = pithtex_cli("verify", body, "--online", "--base-url", server.base, "--keys", str(keys),
                    env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert p.returncode == 0, p.stderr
    [entry] = (tmp_path / "cache").rglob(f"{body}.json")
    return body, keys, entry


def test_a_link_planted_in_the_cache_cannot_aim_its_write_elsewhere(tmp_path, server):
    body, keys, entry = cached_entry(tmp_path, server)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    entry.unlink()
    entry.symlink_to(victim)  # the next good answer used to be written into victim.txt
    p = pithtex_cli("verify", body, "--online", "--base-url", server.base, "--keys", str(keys),
                    env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert p.returncode == 0, p.stderr
    assert victim.read_text() == "precious\n"
    assert not entry.is_symlink() and json.loads(entry.read_text())["number"] == body


@pytest.mark.parametrize("plant", ["fifo", "/dev/zero", "/dev/urandom"])
def test_a_cache_entry_that_never_ends_is_ignored(tmp_path, server, plant):
    body, keys, entry = cached_entry(tmp_path, server)
    entry.unlink()
    if plant == "fifo":
        os.mkfifo(entry)  # --offline used to wait forever here
    else:
        entry.symlink_to(plant)  # and to read this until the machine ran out of memory
    p = pithtex_cli("verify", body, "--offline", "--base-url", server.base, "--keys", str(keys),
                    env={"XDG_CACHE_HOME": str(tmp_path / "cache")}, timeout=30)
    assert "no cached record" in assert_clean_error(p, 3)


# -- papers: a loop that writes to a side file, not to the log ----------------------------------
def test_a_paper_that_fills_a_side_file_is_stopped_at_the_files_cap(tmp_path):
    # \write to a file of its own: the log stays small, so only the time limit stopped it,
    # after some 5 GB written into /tmp (2 minutes at ~45 MB/s).
    line = "\\s" * 80
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\\begin{document}\\immediate\\openout5=big.txt\n"
        "\\def\\s{" + "x" * 120 + "}\\def\\a{\\immediate\\write5{" + line + "}\\a}\\a\\end{document}\n")
    # The cap, not the time limit, stops it: files_too_large and not timed_out say which (the
    # time limit is beyond anything a loaded machine takes to write 20 MB; no clock is read here).
    p = pithtex_cli("check", str(tmp_path), "--json", "--timeout", "600",
                    env={"PITHTEX_LOG_CAP": str(2**20)}, timeout=900)  # files cap: 20 MB
    assert p.returncode == 1, p.stderr
    report = json.loads(p.stdout)
    [route] = report["routes"]
    assert route["files_too_large"] is True and route["timed_out"] is False and route["log_too_large"] is False
    assert [d["rule"] for d in report["diagnostics"] if d["severity"] == "error"] == ["files-too-large"]


# -- newlines: one value printed on a report's line must not start a line of its own ------------
def test_a_record_cannot_forge_a_report_line(tmp_path):
    key = TestKey()
    doc = full_record(canonical(), key)
    doc["canonical_sha256"] = "x\n  [ok  ] signature  valid Ed25519 signature by pith-v1-2026-05 over the hash"
    record = tmp_path / "spoof.json"
    record.write_text(json.dumps(doc))
    p = pithtex_cli("verify", str(record), "--keys", str(key.key_file(tmp_path)))
    assert p.returncode == 1, p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == 9 and lines[1].startswith("  [FAIL] hash"), p.stdout  # one line per check
    assert lines[-1].startswith("  invalid: recomputed") and "x\\u000a" in lines[-1]  # the summary: one line too
    assert not any(ln.startswith("  [ok  ] signature  valid Ed25519 signature by pith-v1") for ln in lines)


def test_file_names_with_newlines_stay_on_their_line(tmp_path):
    from .fskit import small_pdf

    source = small_pdf(tmp_path / "a\nFAKE: stamped.pdf")
    p = pithtex_cli("stamp", str(source), "-o", str(tmp_path / "o\nx.pdf"), "--number", "RPPXGBFWI63E5JJ2CJKDOVW64I")
    assert p.returncode == 0, p.stderr
    assert len(p.stdout.splitlines()) == 1 and "a\\u000aFAKE" in p.stdout
    assert (tmp_path / "o\nx.pdf").is_file()


def test_sty_never_writes_through_a_link_in_a_paper_folder(tmp_path):
    # A cloned paper repository may hold pith.sty -> ~/.bashrc; `sty --force` replaced ~/.bashrc.
    paper, victim = tmp_path / "paper", tmp_path / "bashrc"
    paper.mkdir()
    victim.write_text("precious\n")
    (paper / "pith.sty").symlink_to(victim)
    assert "symbolic link" in assert_clean_error(pithtex_cli("sty", str(paper)), 1)
    p = pithtex_cli("sty", str(paper), "--force")
    assert p.returncode == 0, p.stderr
    assert victim.read_text() == "precious\n"
    sty = paper / "pith.sty"
    assert not sty.is_symlink() and "\\ProvidesPackage{pith}" in sty.read_text()


# -- hostile answers that were already handled, kept as guards ------------------------------------
def test_a_gzip_bomb_is_cut_off_at_the_record_size(tmp_path, server):
    import gzip

    bomb = gzip.compress(b"\0" * (24 * 2**20), 9)  # 24 KB on the wire, 24 MB decoded
    server.route("/pith/RPPXGBFWI63E5JJ2CJKDOVW64I.json", Reply(body=bomb, headers={"Content-Encoding": "gzip"}))
    p = pithtex_cli("verify", "RPPXGBFWI63E5JJ2CJKDOVW64I", "--online", "--base-url", server.base,
                    env={"XDG_CACHE_HOME": str(tmp_path)})
    assert "more than a Pith record may have" in assert_clean_error(p, 3)


def test_a_server_that_closes_mid_body_is_said_plainly(tmp_path, server):
    server.route("/pith/RPPXGBFWI63E5JJ2CJKDOVW64I.json",
                 Reply(body=b"{}", headers={"Content-Length": "100"}, length=False))
    p = pithtex_cli("verify", "RPPXGBFWI63E5JJ2CJKDOVW64I", "--online", "--base-url", server.base,
                    env={"XDG_CACHE_HOME": str(tmp_path)})
    err = assert_clean_error(p, 3)
    assert "closed the connection before the answer was complete" in err and "IncompleteRead" not in err


# -- snippets: a given image URL must stay one URL in Markdown, reST and srcset ------------------
@pytest.mark.parametrize(("fmt", "given"), [
    ("md", "x.svg) [click](javascript:alert(1)"),
    ("rst", "x.svg\n   :target: javascript:alert(1)"),
    ("html", "d.svg 2x, evil.svg"),
])
def test_an_image_url_cannot_break_out_of_its_snippet(fmt, given):
    p = pithtex_cli("badge", "RPPXGBFWI63E5JJ2CJKDOVW64I", "-f", fmt, "--image-url", given, "--dark-image-url", given)
    assert p.returncode == 0, p.stderr
    out = p.stdout.strip()
    if fmt == "md":  # one image inside one link, and nothing else
        assert re.fullmatch(r"\[!\[[^\]]*\]\([^()\s]+\)\]\(https://[^()\s]+\)", out), out
    elif fmt == "rst":
        assert out.splitlines()[0] == ".. image:: x.svg%0A%20%20%20:target:%20javascript:alert%281%29"
        assert [ln.split(":")[1] for ln in out.splitlines()[1:]] == ["alt", "target"]
    else:
        assert 'srcset="d.svg%202x%2C%20evil.svg"' in out and 'src="d.svg%202x%2C%20evil.svg"' in out
    assert "%25" not in pithtex_cli("badge", "RPPXGBFWI63E5JJ2CJKDOVW64I", "-f", fmt,
                                    "--image-url", "https://ex.org/a%20b.svg").stdout  # kept as given


# -- an input truncated by another program while pithtex reads it -------------------------------
TRUNCATE_WHILE_OPEN = """
import os, sys
from pithtex.pdf.reader import PdfFile, read_failure, READ_FAILURES

path = sys.argv[1]
with PdfFile(path) as pdf:
    os.truncate(path, 0)  # latexmk rewriting the PDF while it is stamped
    try:
        print(len(list(pdf.pages())), pdf.catalog().get("Type"))
    except READ_FAILURES as exc:
        print(read_failure(path, exc))
"""


def test_an_input_truncated_while_open_is_one_clear_line(tmp_path):
    # A mapped file cut short killed the process with SIGBUS (exit 135, no message) when a
    # page past the new end was touched; the reader now reads what it needs with pread, and
    # a read past the new end is a sentence (not a snapshot of the whole file in memory).
    import subprocess
    import sys

    source = small_pdf_with_padding(tmp_path / "in.pdf")
    size = source.stat().st_size
    p = subprocess.run([sys.executable, "-c", TRUNCATE_WHILE_OPEN, str(source)], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, (p.returncode, p.stderr)
    assert p.stdout.strip() == (f"{source}: the file shrank from {size:,} "
                                "to 0 bytes while it was read (another program is rewriting it?); "
                                "try again when it is done")


def small_pdf_with_padding(path: Path) -> Path:
    from .fskit import small_pdf

    return small_pdf(path, padding=2 * 2**20)  # the page tree lies beyond the first pages of the file
