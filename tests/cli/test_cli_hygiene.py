"""What the command line prints of a signed or foreign string, and its messages about a server."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pithtex import safetext

from ..conftest import BODY, assert_clean_error, pithtex_cli
from ..recordkit import TestKey, canonical, full_record
from ..resolverkit import FakeResolver, Reply

HIDDEN = "\u200b\u00ad\u202e\u2066\ufeff\x07\x00"  # zero-width, soft hyphen, bidi, BOM, BEL, NUL
KEY = TestKey("lab-key-2")


def test_shown_spells_out_every_control_format_and_bidi_character():
    text = safetext.shown("A" + HIDDEN + "B\u2028C")
    assert text.isprintable() and text.isascii(), text
    assert text == "A\\u200b\\u00ad\\u202e\\u2066\\ufeff\\u0007\\u0000B C"
    assert safetext.shown("Title\u201d, arXiv:2401.99999", quote=True) == "\u201cTitle\\u201d, arXiv:2401.99999\u201d"
    tagged = safetext.visible('{"t": "\U000e0041"}')  # a tag character, beyond the BMP: JSON stays JSON
    assert tagged == '{"t": "\\udb40\\udc41"}' and json.loads(tagged) == {"t": "\U000e0041"}


def test_a_signed_title_is_quoted_and_cleaned_in_verify(tmp_path):
    title = f"Real{HIDDEN} title\u201d, arXiv:2401.99999"
    record = full_record(canonical(title=title), KEY)
    record["paper"] = {"title": title}
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    proc = pithtex_cli("verify", str(path), "--keys", str(KEY.key_file(tmp_path)))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (paper,) = [line for line in proc.stdout.splitlines() if line.startswith("  Paper: ")]
    assert paper.isprintable() and not any(c in paper for c in HIDDEN), repr(paper)
    assert "\u201cReal\\u200b" in paper and "title\\u201d, arXiv:2401.99999\u201d" in paper


def test_a_key_id_with_invisible_characters_is_refused(tmp_path):
    record = full_record(canonical(), KEY)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    keys = json.loads(KEY.key_file(tmp_path).read_text())
    keys["keys"][0]["key_id"] = "pith-v1-2026-05\u200b"  # looks exactly like the registry's key id
    bad = tmp_path / "bad-keys.json"
    bad.write_text(json.dumps(keys))
    err = assert_clean_error(pithtex_cli("verify", str(path), "--keys", str(bad)))
    assert "pith-v1-2026-05\\u200b" in err and "invisible" in err


def test_a_non_integer_is_quoted_as_the_record_writes_it(tmp_path):
    record = full_record(canonical(), KEY)
    text = json.dumps(record).replace('"version": 1}', '"version": 5E0}', 1)
    assert "5E0" in text
    path = tmp_path / "record.json"
    path.write_text(text)
    proc = pithtex_cli("verify", str(path), "--keys", str(KEY.key_file(tmp_path)))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "holds 5E0 at source.version" in proc.stdout and "5.0" not in proc.stdout, proc.stdout


@pytest.fixture
def hangs_up() -> Iterator[str]:
    """A real server on 127.0.0.1 that reads each request and closes without an answer."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                conn.recv(65536)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        # closing the socket does not wake a thread blocked in accept(): a last connection does,
        # and the thread is gone before the next test (a live thread keeps readers from forking)
        socket.create_connection(server.getsockname()).close()
        thread.join()
        server.close()


def test_a_dropped_connection_is_said_in_words(hangs_up, tmp_path):
    proc = pithtex_cli("verify", BODY, "--online", "--base-url", hangs_up,
                       env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert proc.returncode == 3, proc.stdout + proc.stderr
    said = proc.stdout + proc.stderr
    host = hangs_up.removeprefix("http://")
    assert f"the connection was dropped by {host} before it answered" in said, said
    assert "('" not in said and "RemoteDisconnected" not in said and "Connection aborted" not in said, said


def test_a_record_too_large_says_bytes_once(fake: FakeResolver, tmp_path: Path):
    fake.record(BODY, Reply(body=b"{" + b" " * (5 * 1024 * 1024) + b"}"))
    proc = pithtex_cli("verify", BODY, "--online", "--base-url", fake.base,
                       env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert proc.returncode == 3
    said = proc.stdout + proc.stderr
    assert f"sent {5 * 1024 * 1024 + 2:,} bytes, more than a Pith record may have (4,194,304 bytes)" in said, said
    assert "bytes bytes" not in said
