"""Damage is refused in one sentence (exit 2); a bug of ours surfaces as a bug (exit 70).

Only what a damaged file can raise (PdfSyntaxError, Damaged, EncryptionError, OSError) is
turned into "damaged or not a PDF"; an injected TypeError/KeyError must reach the top
level as "internal error" (exit 70), with its traceback under PITHTEX_DEBUG=1.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import BODY, ROOT, assert_clean_error, pithtex_cli
from ..pdfkit import Writer, make_pdf


def self_referencing_objstm() -> bytes:
    """Info lives in object stream 5, and the xref says object 5 itself lives in stream 5."""
    w = Writer(b"%PDF-1.5\n")
    w.obj(1, b"<< /Type /Catalog /Pages 2 0 R >>")
    w.obj(2, b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
    w.obj(3, b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>")
    xref_at = len(w.out)
    rows = b"".join(bytes([1]) + w.offsets.get(n, 0).to_bytes(2, "big") + b"\x00" for n in range(4))
    rows = bytes([0, 0, 0, 255]) + rows[4:] + bytes([2, 0, 5, 0, 2, 0, 5, 0])  # 4 and 5 in stream 5
    rows += bytes([1]) + xref_at.to_bytes(2, "big") + b"\x00"
    w.out += (b"6 0 obj\n<< /Type /XRef /Size 7 /W [1 2 1] /Root 1 0 R /Info 4 0 R /Length %d >>\nstream\n"
              % len(rows)) + rows + b"\nendstream\nendobj\n"
    return w.end(xref_at)


def test_self_referencing_object_stream_is_damage_not_recursion(tmp_path: Path):
    bad = tmp_path / "loop.pdf"
    bad.write_bytes(self_referencing_objstm())
    for args in (["stamp", str(bad), "--number", BODY, "-o", str(tmp_path / "o.pdf")], ["inspect", str(bad)]):
        err = assert_clean_error(pithtex_cli(*args), 2)
        assert "damaged" in err and "Recursion" not in err and "refers to itself" in err
    assert not (tmp_path / "o.pdf").exists()


INJECT = """
import sys
import pithtex.pdf.facts as facts
def broken(*args, **kwargs):
    raise {exc}("injected bug")
facts.{target} = broken
from pithtex.cli import main
sys.exit(main(sys.argv[1:]))
"""


def run_with_bug(exc: str, target: str, *args: str, debug: bool = False) -> subprocess.CompletedProcess:
    env = {"PITHTEX_DEBUG": "1"} if debug else {}
    import os

    return subprocess.run([sys.executable, "-c", INJECT.format(exc=exc, target=target), *args], capture_output=True,
                          text=True, timeout=60, cwd=ROOT, env={**os.environ, **env})


@pytest.mark.parametrize("exc,target", [("TypeError", "read_links"), ("KeyError", "read_info"),
                                        ("IndexError", "signature_state")])
@pytest.mark.parametrize("command", ["stamp", "inspect", "verify"])
def test_injected_bug_surfaces_as_a_bug(tmp_path: Path, exc: str, target: str, command: str):
    pdf = make_pdf(tmp_path / "ok.pdf")
    args = {"stamp": ["stamp", str(pdf), "--number", BODY, "-o", str(tmp_path / "o.pdf")],
            "inspect": ["inspect", str(pdf)], "verify": ["verify", str(pdf), "--offline"]}[command]
    proc = run_with_bug(exc, target, *args)
    assert proc.returncode == 70, proc.stderr
    assert "internal error" in proc.stderr and "cannot be read" not in proc.stderr
    assert "damaged" not in proc.stderr
    proc = run_with_bug(exc, target, *args, debug=True)
    assert proc.returncode != 0 and "Traceback" in proc.stderr and f"{exc}: " in proc.stderr
    assert not (tmp_path / "o.pdf").exists()


def test_injected_bug_in_a_batch_is_reported_as_a_bug_and_the_rest_goes_on(tmp_path: Path):
    first, second = make_pdf(tmp_path / "a.pdf"), make_pdf(tmp_path / "b.pdf")
    out = tmp_path / "out"
    out.mkdir()
    args = ["stamp", str(first), str(second), "--number", BODY, "-o", str(out)]
    proc = run_with_bug("TypeError", "read_links", *args)
    assert proc.returncode == 70, proc.stderr
    assert proc.stderr.count("this is a bug in pithtex: TypeError") == 2, proc.stderr
    assert "Traceback" not in proc.stderr and list(out.iterdir()) == []
    proc = run_with_bug("TypeError", "read_links", *args, debug=True)
    assert proc.returncode == 70 and "Traceback" in proc.stderr
