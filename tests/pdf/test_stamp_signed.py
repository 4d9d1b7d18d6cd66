"""Signed PDFs: a metadata stamp keeps approval and certification signatures valid."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from pyhanko.keys import load_cert_from_pemder
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign import signers
from pyhanko.sign.diff_analysis import ModificationLevel
from pyhanko.sign.fields import MDPPerm
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko_certvalidator import ValidationContext

from ..conftest import BODY, assert_clean_error, fixture_pdf, pithtex_cli

# One classic-table input and one xref-stream input.
SOURCES = [fixture_pdf("002"), fixture_pdf("004")]


@pytest.fixture(scope="module")
def credentials(tmp_path_factory) -> tuple[Path, Path]:
    """A self-signed certificate made for this test run only."""
    folder = tmp_path_factory.mktemp("pki")
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "pithtex test signer")])
    now = datetime.datetime.now(datetime.timezone.utc)
    usage = x509.KeyUsage(digital_signature=True, content_commitment=True, key_encipherment=False,
                          data_encipherment=False, key_agreement=False, key_cert_sign=True, crl_sign=True,
                          encipher_only=False, decipher_only=False)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=7))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(usage, critical=True)
            .sign(key, hashes.SHA256()))
    key_path, cert_path = folder / "key.pem", folder / "cert.pem"
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return key_path, cert_path


def sign(src: Path, out: Path, credentials, certify: bool) -> None:
    signer = signers.SimpleSigner.load(str(credentials[0]), str(credentials[1]))
    meta = signers.PdfSignatureMetadata(field_name="Sig1", certify=certify, docmdp_permissions=MDPPerm.ANNOTATE)
    with src.open("rb") as fin, out.open("wb") as fout:
        signers.sign_pdf(IncrementalPdfFileWriter(fin), meta, signer=signer, output=fout)


def validate(path: Path, credentials):
    context = ValidationContext(trust_roots=[load_cert_from_pemder(str(credentials[1]))])
    with path.open("rb") as fh:
        return validate_pdf_signature(PdfFileReader(fh).embedded_signatures[0], context)


@pytest.mark.parametrize("certify", [False, True], ids=["approval", "certification"])
@pytest.mark.parametrize("src", SOURCES, ids=["table", "xref-stream"])
def test_metadata_stamp_keeps_signature_valid(src: Path, certify: bool, credentials, tmp_path: Path):
    signed = tmp_path / "signed.pdf"
    sign(src, signed, credentials, certify)
    assert validate(signed, credentials).bottom_line
    inspected = pithtex_cli("inspect", str(signed), "--json")
    assert '"signed": true' in inspected.stdout
    out = tmp_path / "stamped.pdf"
    proc = pithtex_cli("stamp", str(signed), "--number", BODY, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes().startswith(signed.read_bytes())
    status = validate(out, credentials)
    assert status.intact and status.valid and status.bottom_line
    assert status.modification_level == ModificationLevel.LTA_UPDATES
    assert status.docmdp_ok


def test_badge_on_signed_pdf_refused_unless_forced(credentials, tmp_path: Path):
    signed = tmp_path / "signed.pdf"
    sign(SOURCES[1], signed, credentials, certify=True)
    out = tmp_path / "stamped.pdf"
    err = assert_clean_error(pithtex_cli("stamp", str(signed), "--number", BODY, "--badge", "-o", str(out)), 1)
    assert "signed" in err and "--force" in err
    assert not out.exists()
    forced = pithtex_cli("stamp", str(signed), "--number", BODY, "--badge", "-o", str(out), "--force")
    assert forced.returncode == 0 and "invalidates its certification" in forced.stderr
    status = validate(out, credentials)
    assert status.intact and status.modification_level != ModificationLevel.LTA_UPDATES


def test_default_namespace_xmp_of_a_signed_pdf_stays_valid(credentials, tmp_path: Path, monkeypatch):
    """A packet with a default namespace beside a prefix (pyHanko refused the change when the
    merge wrote `xmlns:=`): the stamped XMP parses and the signature still validates."""
    from .test_xmp_packets import DEFAULT_NS, pdf_with

    signed = tmp_path / "signed.pdf"
    # Signed as other signers leave a file, the packet untouched (pyHanko would rewrite it).
    monkeypatch.setattr(IncrementalPdfFileWriter, "_update_meta", lambda _self: None)
    sign(pdf_with(tmp_path / "in.pdf", DEFAULT_NS), signed, credentials, certify=True)
    monkeypatch.undo()
    import pikepdf

    with pikepdf.open(signed) as pdf:
        assert pdf.Root.Metadata.read_bytes() == DEFAULT_NS
    out = tmp_path / "stamped.pdf"
    proc = pithtex_cli("stamp", str(signed), "--number", BODY, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    status = validate(out, credentials)
    assert status.intact and status.valid and status.bottom_line and status.docmdp_ok
    assert status.modification_level == ModificationLevel.LTA_UPDATES
