"""Cases found by running bench/heldout.py over other projects' test PDFs, rebuilt small here.

Each test makes a minimal PDF with the one property a foreign file had (never a copy of
it) and checks what a user sees: stamped and read back by qpdf/pikepdf, or one clean line.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pikepdf

from pithtex.pdf import crypt
from pithtex.pdf.objects import HexString, Name, Ref, Stream, indirect_object

from ..conftest import BODY, assert_clean_error, pithtex_cli
from ..pdfkit import encrypt, make_pdf, qpdf_check


def _stamp(src: Path, out: Path):
    return pithtex_cli("stamp", str(src), "--number", BODY, "-o", str(out))


def test_usage_rights_signature_in_an_encrypted_catalog(tmp_path: Path):
    """A signature dictionary's /Contents stays in the clear in an encrypted file (Adobe's
    usage-rights /Perms /UR3 puts one inside the catalog): it must be neither decrypted on
    reading nor encrypted when our update rewrites the catalog."""
    plain = make_pdf(tmp_path / "plain.pdf")
    signature = b"\x30\x82\x01\x02" * 8
    with pikepdf.open(plain, allow_overwriting_input=True) as pdf:
        pdf.Root.Perms = pikepdf.Dictionary(UR3=pikepdf.Dictionary(
            Type=pikepdf.Name.Sig, Filter=pikepdf.Name("/Adobe.PPKLite"), ByteRange=[0, 10, 20, 30],
            Contents=pikepdf.String(signature)))
        pdf.save(plain)
    locked = encrypt(plain, tmp_path / "locked.pdf", "aes-128-R4")
    assert signature.hex().encode() in locked.read_bytes().lower(), "qpdf leaves /Contents clear"
    out = tmp_path / "out.pdf"
    proc = _stamp(locked, out)
    assert proc.returncode == 0, proc.stderr
    assert qpdf_check(out) == 0
    with pikepdf.open(out) as pdf:
        assert str(pdf.docinfo["/PithNumber"]) == BODY
        assert bytes(pdf.Root.Perms.UR3.Contents) == signature


def test_startxref_pointing_at_the_blank_before_xref(tmp_path: Path):
    """`startxref` (and so /Prev) counting the end of line before `xref`: qpdf warns about
    "extraneous whitespace" and reads on; so do we, and our /Prev points at `xref` itself."""
    good = make_pdf(tmp_path / "good.pdf").read_bytes()
    at = good.rindex(b"\nxref\n") + 1
    tail = good[good.rindex(b"startxref"):]
    assert tail.startswith(b"startxref\n%d\n" % at)
    shifted = tmp_path / "shifted.pdf"
    shifted.write_bytes(good[:-len(tail)] + b"startxref\n%d\n%%%%EOF\n" % (at - 1))
    before = qpdf_check(shifted)
    out = tmp_path / "out.pdf"
    proc = _stamp(shifted, out)
    assert proc.returncode == 0, proc.stderr
    stamped = out.read_bytes()
    assert stamped.startswith(shifted.read_bytes()) and b"/Prev %d " % at in stamped
    assert qpdf_check(out) <= before
    with pikepdf.open(out) as pdf:
        assert str(pdf.docinfo["/PithNumber"]) == BODY


def rc4_pdf(path: Path, bits: int, *, content: bool = True) -> Path:
    """A V2/R3 RC4 file with a /Length of `bits` and an empty user password, built by hand
    (qpdf makes only 40 and 128 bits). O and U follow Algorithms 3 and 5."""
    n = bits // 8
    id0 = bytes(range(16))
    digest = hashlib.md5(crypt.PAD, usedforsecurity=False).digest()  # padded empty owner pw
    for _ in range(50):
        digest = hashlib.md5(digest, usedforsecurity=False).digest()
    o = crypt.rc4(digest[:n], crypt.PAD)
    for i in range(1, 20):
        o = crypt.rc4(bytes(b ^ i for b in digest[:n]), o)
    rc4 = crypt.Method("rc4")
    params = crypt.Parameters(2, 3, n, o, b"", b"", b"", -4, id0, True, rc4, rc4, {})
    key = crypt.file_key_r4(params, b"")
    u = crypt.u_value(params, key) + bytes(16)
    sec = crypt.Security(crypt.Parameters(2, 3, n, o, u, b"", b"", -4, id0, True, rc4, rc4, {}), key, None)
    page = {Name("Type"): Name("Page"), Name("Parent"): Ref(2), Name("MediaBox"): [0, 0, 612, 792]}
    if content:
        page[Name("Contents")] = Ref(4)
    objects = {
        1: {Name("Type"): Name("Catalog"), Name("Pages"): Ref(2)},
        2: {Name("Type"): Name("Pages"), Name("Kids"): [Ref(3)], Name("Count"): 1},
        3: page,
        4: Stream({}, b"0 0 1 rg 72 72 100 100 re f\n") if content else None,
        5: {Name("Filter"): Name("Standard"), Name("V"): 2, Name("R"): 3, Name("Length"): bits, Name("P"): -4,
            Name("O"): HexString(o), Name("U"): HexString(u)},
    }
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = {}
    for num, value in objects.items():
        offsets[num] = len(out)
        out += indirect_object(Ref(num), value if num == 5 or value is None else sec.encrypt(Ref(num), value))
    xref = len(out)
    out += b"xref\n0 6\n0000000000 65535 f\r\n" + b"".join(b"%010d 00000 n\r\n" % offsets[k] for k in range(1, 6))
    out += (b"trailer\n<< /Size 6 /Root 1 0 R /Encrypt 5 0 R /ID [<%s> <%s>] >>\nstartxref\n%d\n%%%%EOF\n"
            % (id0.hex().encode(), id0.hex().encode(), xref))
    path.write_bytes(bytes(out))
    return path


def test_rc4_key_length_cryptography_lacks_is_stamped(tmp_path: Path):
    """A 96-bit RC4 file: cryptography's ARC4 has no 12-byte key, but the same key repeated
    to 24 bytes is the same cipher, so the file opens and our update is encrypted right."""
    locked = rc4_pdf(tmp_path / "rc4-96.pdf", 96)
    with pikepdf.open(locked) as pdf:  # qpdf reads our construction: it is a valid file
        assert len(pdf.pages) == 1
    out = tmp_path / "out.pdf"
    proc = _stamp(locked, out)
    assert proc.returncode == 0, proc.stderr
    assert qpdf_check(out) == 0
    with pikepdf.open(out) as pdf:
        assert str(pdf.docinfo["/PithNumber"]) == BODY
        assert BODY.encode() in pdf.Root.Metadata.read_bytes()


def test_rc4_key_length_with_no_equivalent_is_refused_cleanly(tmp_path: Path):
    """48 bits: the 6-byte file key repeats to 24 bytes, but its 11-byte per-object keys have
    no size cryptography accepts: one clean line, never an internal error (exit 70)."""
    locked = rc4_pdf(tmp_path / "rc4-48.pdf", 48, content=False)
    out = tmp_path / "out.pdf"
    err = assert_clean_error(_stamp(locked, out))
    assert "RC4 with a 88-bit key" in err and not out.exists()


def test_objects_padded_with_long_runs_of_blanks_and_comments(tmp_path: Path):
    """Hand-written test files pad each line to a column with spaces and a `%`: the object
    parser must stay linear there (it used to retry every split of the blanks: minutes)."""
    pad = b" " * 48 + b"%\n"
    objects = [b"<<" + pad + b"/Type /Catalog" + pad + b"/Pages 2 0 R" + pad + b">>" + pad,
               b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<<" + pad + b"/Type /Page" + pad + b"/Parent 2 0 R" + pad + b"/MediaBox [0 0 612 792]" + pad + b">>",
               b"<<" + pad + b"/Title (padded)" + pad + b">>"]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for num, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj" % num + pad + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 5\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<<" + pad + b"/Size 5 /Root 1 0 R /Info 4 0 R" + pad + b">>\nstartxref\n%d\n%%%%EOF\n" % xref
    src = tmp_path / "padded.pdf"
    src.write_bytes(bytes(out))
    assert qpdf_check(src) == 0
    result = tmp_path / "out.pdf"
    proc = pithtex_cli("stamp", str(src), "--number", BODY, "-o", str(result), timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert qpdf_check(result) == 0
    with pikepdf.open(result) as pdf:
        assert str(pdf.docinfo["/PithNumber"]) == BODY and str(pdf.docinfo["/Title"]) == "padded"
