"""Edits made after the stamp are never lost: --revert and --force see updates appended later.

Policy (docs/pdf.md, "Later edits"): `--revert` refuses, naming what the later updates change,
unless --force; a new stamp (also `--force` with another number) is appended on top of
them, never replacing our old update; a signature appended after the stamp therefore
stays valid (its signed byte range is kept as a prefix) and only --force cuts it off.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pikepdf
import pytest

from ..conftest import BODY, assert_clean_error, pithtex_cli
from ..pdfkit import make_pdf, qpdf_check

OTHER = "AAAAAAAAAAAAAAAAAAAAAAAAAA"


def stamped(tmp_path: Path, **kwargs) -> tuple[Path, bytes]:
    pdf = make_pdf(tmp_path / "paper.pdf", **kwargs)
    original = pdf.read_bytes()
    proc = pithtex_cli("stamp", str(pdf), "--in-place", "--number", BODY)
    assert proc.returncode == 0, proc.stderr
    return pdf, original


def exiftool_edit(pdf: Path) -> None:
    subprocess.run(["exiftool", "-q", "-Title=Later title", "-XMP-dc:Description=later description",
                    "-overwrite_original", str(pdf)], check=True, timeout=60)


@pytest.mark.parametrize("streams", [False, True])
def test_revert_refuses_to_drop_exiftool_edits(tmp_path: Path, streams: bool):
    pdf, original = stamped(tmp_path, streams=streams)
    exiftool_edit(pdf)
    edited = pdf.read_bytes()
    out = tmp_path / "back.pdf"
    err = assert_clean_error(pithtex_cli("stamp", str(pdf), "--revert", "-o", str(out)), 1)
    assert "the Info dictionary" in err and "the XMP metadata" in err and "would lose" in err
    assert not out.exists() and pdf.read_bytes() == edited
    proc = pithtex_cli("stamp", str(pdf), "--revert", "--force", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes() == original, "--force: back to the original, later edits dropped as asked"


def test_force_with_another_number_keeps_exiftool_edits(tmp_path: Path):
    pdf, _original = stamped(tmp_path)
    exiftool_edit(pdf)
    edited = pdf.read_bytes()
    assert_clean_error(pithtex_cli("stamp", str(pdf), "--number", OTHER, "--in-place"), 1)
    proc = pithtex_cli("stamp", str(pdf), "--number", OTHER, "--in-place", "--force")
    assert proc.returncode == 0, proc.stderr
    data = pdf.read_bytes()
    assert data.startswith(edited), "stacked on top: nothing after our old update is dropped"
    assert qpdf_check(pdf) == 0
    with pikepdf.open(pdf) as doc:
        assert str(doc.docinfo["/Title"]) == "Later title"
        assert str(doc.docinfo["/PithNumber"]) == OTHER
        with doc.open_metadata() as meta:
            assert "later description" in str(meta.get("dc:description"))
    # Our newest update is now the last one again: revert cuts exactly it off.
    proc = pithtex_cli("stamp", str(pdf), "--revert", "--in-place")
    assert proc.returncode == 0, proc.stderr
    assert pdf.read_bytes() == edited


def append_signature(pdf: Path) -> bytes:
    """Append an update as a signer would: a /Sig value, a signature field, /SigFlags 3."""
    data = pdf.read_bytes()
    with pikepdf.open(pdf) as doc:
        root = doc.Root.objgen[0]
        pages = doc.Root.Pages.objgen[0]
        size = int(doc.trailer.Size)
        info = doc.trailer.Info.objgen[0]
        id0 = bytes(doc.trailer.ID[0])
    prev = int(data[data.rindex(b"startxref") + 9:].split()[0])
    sig, field = size, size + 1
    out = bytearray(data)
    offsets = {}

    def obj(num: int, body: bytes) -> None:
        offsets[num] = len(out)
        out.extend(b"%d 0 obj\n" % num + body + b"\nendobj\n")

    obj(sig, b"<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /adbe.pkcs7.detached /ByteRange [0 10 20 30]"
             b" /Contents <" + b"00" * 64 + b"> >>")
    obj(field, b"<< /FT /Sig /T (Signature1) /V %d 0 R /Rect [0 0 0 0] /Subtype /Widget /F 132 >>" % sig)
    obj(root, b"<< /Type /Catalog /Pages %d 0 R /AcroForm << /Fields [%d 0 R] /SigFlags 3 >> >>" % (pages, field))
    xref = len(out)
    out += b"xref\n"
    for num in sorted(offsets):
        out += b"%d 1\n%010d 00000 n\r\n" % (num, offsets[num])
    out += (b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R /Prev %d /ID [<%s> <%s>] >>\nstartxref\n%d\n%%%%EOF\n"
            % (field + 1, root, info, prev, id0.hex().encode(), id0.hex().encode(), xref))
    pdf.write_bytes(bytes(out))
    return bytes(out)


def test_signature_after_the_stamp_is_never_cut_without_force(tmp_path: Path):
    pdf, original = stamped(tmp_path)
    signed = append_signature(pdf)
    assert qpdf_check(pdf) == 0
    err = assert_clean_error(pithtex_cli("stamp", str(pdf), "--revert", "--in-place"), 1)
    assert "a signature" in err
    assert pdf.read_bytes() == signed
    err = assert_clean_error(pithtex_cli("stamp", str(pdf), "--in-place", "--number", BODY, "--badge"), 1)
    assert "signed PDF" in err
    # Metadata with another number (--force): a new update on top; the signed bytes stay a prefix.
    proc = pithtex_cli("stamp", str(pdf), "--in-place", "--number", OTHER, "--force")
    assert proc.returncode == 0, proc.stderr
    assert pdf.read_bytes().startswith(signed) and qpdf_check(pdf) == 0
    proc = pithtex_cli("inspect", str(pdf), "--json")
    assert '"signed": true' in proc.stdout
    proc = pithtex_cli("stamp", str(pdf), "--revert", "--in-place")  # cuts only our newest update
    assert proc.returncode == 0 and pdf.read_bytes() == signed
    proc = pithtex_cli("stamp", str(pdf), "--revert", "--in-place", "--force")
    assert proc.returncode == 0 and pdf.read_bytes() == original
