"""Encrypted PDFs (standard handler R2-R6, empty user password): stamped, read back decrypted, reverted.

Every test PDF (made here, tests/fixtures/pdf, and the corpus when swept) is encrypted by `qpdf --encrypt` in each
variant; the stamp must pass `qpdf --check`, keep `qpdf --show-encryption` as it was, be
read back decrypted by pikepdf and pypdf, be idempotent, and revert to the exact bytes.
"""

from __future__ import annotations

from pathlib import Path

import pikepdf
import pytest
from pypdf import PdfReader

from pithtex.number import PithNumber
from pithtex.pdf.facts import facts_of
from pithtex.pdf.stamp import Options, revert_file, stamp_file

from ..conftest import BODY, assert_clean_error, pdf_sources, pithtex_cli
from ..pdfkit import ENCRYPTIONS, encrypt, make_pdf, qpdf_check, sample_pdfs, show_encryption

NUMBER = PithNumber.parse(f"pith:2021:{BODY}")
MADE = ("table.pdf", "streams.pdf", "pdfa.pdf")  # made by pdfkit in this run


def _unencrypted(path: Path) -> bool:
    return b"/Encrypt" not in path.read_bytes()


@pytest.fixture(scope="module")
def samples(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("samples")
    return {p.name: p for p in sample_pdfs(folder) if p.parent == folder}


@pytest.mark.parametrize("variant", sorted(ENCRYPTIONS))
@pytest.mark.parametrize("source", [*MADE, *pdf_sources(_unencrypted)],
                         ids=lambda s: s if isinstance(s, str) else s.name[:24])
def test_encrypted_variant_is_stamped_and_reverted(samples, tmp_path: Path, source, variant: str):
    """Each test PDF (made here, tests/fixtures/pdf, the corpus when swept) in each variant."""
    src = samples[source] if isinstance(source, str) else source
    name = src.name
    locked = encrypt(src, tmp_path / "in.pdf", variant)
    before = locked.read_bytes()
    out = tmp_path / "out.pdf"
    outcome = stamp_file(locked, out, Options(NUMBER))
    assert outcome.status == "stamped"
    data = out.read_bytes()
    assert data.startswith(before) and locked.read_bytes() == before
    assert qpdf_check(out) <= qpdf_check(locked)
    assert show_encryption(out) == show_encryption(locked), "same handler, key and permissions"
    assert facts_of(out).number == NUMBER
    if not _opens(locked):
        return  # a damaged input pikepdf cannot open either: "not worse" is all there is to ask
    with pikepdf.open(out) as pdf:
        assert str(pdf.docinfo["/PithNumber"]) == BODY
        assert str(pdf.docinfo["/PithURL"]) == NUMBER.url
        packet = pdf.Root.Metadata.read_bytes()
        assert NUMBER.long.encode() in packet and BODY.encode() in packet
        if name == "table.pdf":
            assert str(pdf.docinfo["/Title"]) == "A test", "the old Info entries stay readable"
    reader = PdfReader(out)
    assert reader.is_encrypted and reader.metadata["/PithNumber"] == BODY
    if "clear-meta" not in variant:  # pypdf 7.1 decrypts cleartext metadata as if it were not
        assert BODY.encode() in reader.trailer["/Root"]["/Metadata"].get_data()
    tail = data[len(before):]
    clear = "clear-meta" in variant
    assert (NUMBER.long.encode() in tail) == clear, "the XMP is in the clear exactly when /EncryptMetadata false"
    assert b"/PithNumber (" + BODY.encode() not in tail, "Info strings are always encrypted"
    again = tmp_path / "again.pdf"
    assert stamp_file(out, again, Options(NUMBER)).status == "unchanged"
    assert again.read_bytes() == data
    revert_file(out, tmp_path / "back.pdf")
    assert (tmp_path / "back.pdf").read_bytes() == before


def _opens(path: Path) -> bool:
    try:
        pikepdf.open(path).close()
    except pikepdf.PdfError:
        return False
    return True


@pytest.mark.parametrize("variant", ["aes-128-R4", "aes-256-R6", "rc4-128-R3"])
def test_badge_and_attachment_are_encrypted_too(samples, tmp_path: Path, variant: str):
    from ..conftest import SEED_PATH, SEED_TITLE
    from ..pdfkit import make_pdf

    # Info /Title is encrypted too: stamp --record reads it to know the PDF is the record's paper
    locked = encrypt(make_pdf(tmp_path / "plain.pdf", title=SEED_TITLE, shows_title=True), tmp_path / "in.pdf", variant)
    out = tmp_path / "out.pdf"
    proc = pithtex_cli("stamp", str(locked), "-o", str(out), "--record", str(SEED_PATH), "--badge",
                       "--attach-record")
    assert proc.returncode == 0, proc.stderr
    assert qpdf_check(out) == 0 and show_encryption(out) == show_encryption(locked)
    with pikepdf.open(out) as pdf:
        annots = pdf.pages[0].Annots
        assert any(str(a.A.URI) == NUMBER.url for a in annots)
        files = pdf.attachments
        assert "pith-record.json" in files
        assert files["pith-record.json"].get_file().read_bytes() == SEED_PATH.read_bytes()
    seen = facts_of(out)
    assert seen.attachment == NUMBER.with_year(None) or seen.attachment.body == BODY
    assert [lk.number.body for lk in seen.page1_links] == [BODY]


def test_user_password_needed_then_given(tmp_path: Path):
    plain = make_pdf(tmp_path / "plain.pdf")
    locked = encrypt(plain, tmp_path / "locked.pdf", "aes-256-R6", user="s3cret")
    before = locked.read_bytes()
    out = tmp_path / "out.pdf"
    err = assert_clean_error(pithtex_cli("stamp", str(locked), "-o", str(out), "--number", BODY), 1)
    assert "needs a password" in err and not out.exists()
    err = assert_clean_error(pithtex_cli("inspect", str(locked)), 1)
    assert "needs a password" in err
    err = assert_clean_error(pithtex_cli("verify", str(locked), "--offline"), 1)
    assert "needs a password" in err and "no Pith Number" not in err
    err = assert_clean_error(pithtex_cli("stamp", str(locked), "-o", str(out), "--number", BODY,
                                         "--password", "wrong"), 1)
    assert "password" in err
    for pw in ("s3cret", "owner-pw"):
        proc = pithtex_cli("stamp", str(locked), "-o", str(out), "--number", BODY, "--password", pw)
        assert proc.returncode == 0, proc.stderr
        with pikepdf.open(out, password="s3cret") as pdf:
            assert str(pdf.docinfo["/PithNumber"]) == BODY
        assert show_encryption(out, "s3cret") == show_encryption(locked, "s3cret")
    assert locked.read_bytes() == before


def test_verify_reads_the_number_of_an_encrypted_pdf(tmp_path: Path):
    locked = encrypt(make_pdf(tmp_path / "plain.pdf"), tmp_path / "locked.pdf", "aes-128-R4")
    out = tmp_path / "out.pdf"
    stamp_file(locked, out, Options(NUMBER))
    proc = pithtex_cli("verify", str(out), "--offline", env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert proc.returncode == 3, proc.stderr  # offline without a cached record: undecided, but read
    assert BODY in proc.stdout + proc.stderr and "carries no Pith Number" not in proc.stderr
    proc = pithtex_cli("inspect", str(out), "--json")
    assert proc.returncode == 0 and '"encrypted": true' in proc.stdout and BODY in proc.stdout


def identity_filter_pdf(path: Path, streams: str, strings: str) -> Path:
    """A V4/R4 file with one crypt filter /Identity (qpdf cannot make these): built by hand.

    O and U follow Algorithms 3 and 5 for an empty user password; what is encrypted uses
    AES-128 (AESV2). pikepdf (qpdf) reading the Title back checks the construction.
    """
    import hashlib

    from pithtex.pdf import crypt

    id0 = bytes(range(16))
    owner = hashlib.md5(crypt.PAD, usedforsecurity=False).digest()  # padded empty owner pw → key
    for _ in range(50):
        owner = hashlib.md5(owner, usedforsecurity=False).digest()
    o = crypt.rc4(owner, crypt.PAD)
    for i in range(1, 20):
        o = crypt.rc4(bytes(b ^ i for b in owner), o)
    params = crypt.Parameters(4, 4, 16, o, b"", b"", b"", -4, id0, True, crypt.Method("none"), crypt.Method("none"),
                              {})
    key = crypt.file_key_r4(params, b"")
    u = crypt.u_value(params, key) + bytes(16)
    method = {"Identity": crypt.Method("none"), "StdCF": crypt.Method("aes128")}
    sec = crypt.Security(crypt.Parameters(4, 4, 16, o, u, b"", b"", -4, id0, True, method[strings],
                                          method[streams], method), key, None)
    from pithtex.pdf.objects import HexString, Name, Ref, Stream, indirect_object

    objects = {
        1: {Name("Type"): Name("Catalog"), Name("Pages"): Ref(2)},
        2: {Name("Type"): Name("Pages"), Name("Kids"): [Ref(3)], Name("Count"): 1},
        3: {Name("Type"): Name("Page"), Name("Parent"): Ref(2), Name("MediaBox"): [0, 0, 612, 792],
            Name("Contents"): Ref(4)},
        4: Stream({}, b"0 0 1 rg 72 72 100 100 re f\n"),
        5: {Name("Title"): "Identity test", Name("Producer"): "hand"},
        6: {Name("Filter"): Name("Standard"), Name("V"): 4, Name("R"): 4, Name("Length"): 128, Name("P"): -4,
            Name("O"): HexString(o), Name("U"): HexString(u), Name("StmF"): Name(streams),
            Name("StrF"): Name(strings), Name("CF"): {Name("StdCF"): {
                Name("CFM"): Name("AESV2"), Name("AuthEvent"): Name("DocOpen"), Name("Length"): 16}}},
    }
    out = bytearray(b"%PDF-1.6\n%\xe2\xe3\xcf\xd3\n")
    offsets = {}
    for num, value in objects.items():
        offsets[num] = len(out)
        out += indirect_object(Ref(num), value if num == 6 else sec.encrypt(Ref(num), value))
    xref = len(out)
    out += b"xref\n0 7\n0000000000 65535 f\r\n" + b"".join(b"%010d 00000 n\r\n" % offsets[n] for n in range(1, 7))
    out += (b"trailer\n<< /Size 7 /Root 1 0 R /Info 5 0 R /Encrypt 6 0 R /ID [<%s> <%s>] >>\nstartxref\n%d\n%%%%EOF\n"
            % (id0.hex().encode(), id0.hex().encode(), xref))
    path.write_bytes(bytes(out))
    return path


@pytest.mark.parametrize("streams,strings", [("Identity", "StdCF"), ("StdCF", "Identity")])
def test_identity_crypt_filters(tmp_path: Path, streams: str, strings: str):
    locked = identity_filter_pdf(tmp_path / "in.pdf", streams, strings)
    assert qpdf_check(locked) == 0
    with pikepdf.open(locked) as pdf:
        assert str(pdf.docinfo["/Title"]) == "Identity test"
    out = tmp_path / "out.pdf"
    stamp_file(locked, out, Options(NUMBER))
    assert qpdf_check(out) == 0 and show_encryption(out) == show_encryption(locked)
    with pikepdf.open(out) as pdf:
        assert str(pdf.docinfo["/PithNumber"]) == BODY and str(pdf.docinfo["/Title"]) == "Identity test"
        assert NUMBER.long.encode() in pdf.Root.Metadata.read_bytes()
    tail = out.read_bytes()[len(locked.read_bytes()):]
    assert (NUMBER.long.encode() in tail) == (streams == "Identity"), "the XMP is encrypted exactly when /StmF says"
    assert (b"/PithNumber (" + BODY.encode() in tail) == (strings == "Identity"), "strings: as /StrF says"
    revert_file(out, tmp_path / "back.pdf")
    assert (tmp_path / "back.pdf").read_bytes() == locked.read_bytes()


def test_libreoffice_file_with_a_user_password(tmp_path: Path):
    """A real file from another tool (LibreOffice, R3 RC4-128, user password "openpassword")."""
    from ..conftest import fixture_pdf

    src = fixture_pdf("005")
    out = tmp_path / "out.pdf"
    proc = pithtex_cli("stamp", str(src), "-o", str(out), "--number", BODY, "--password", "openpassword")
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes().startswith(src.read_bytes())
    assert show_encryption(out, "openpassword") == show_encryption(src, "openpassword")
    with pikepdf.open(out, password="openpassword") as pdf:
        assert str(pdf.docinfo["/PithNumber"]) == BODY
    proc = pithtex_cli("inspect", str(out), "--password", "openpassword", "--json")
    assert proc.returncode == 0 and f'"number": "{BODY}"' in proc.stdout
    back = tmp_path / "back.pdf"
    assert pithtex_cli("stamp", str(out), "--revert", "-o", str(back)).returncode == 0
    assert back.read_bytes() == src.read_bytes()
