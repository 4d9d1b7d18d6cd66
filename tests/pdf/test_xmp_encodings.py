"""XMP packets in UTF-16 and UTF-32 (either byte order), which XMP allows, are read and
written back in their own encoding: stamp, inspect, exiftool reads them, --revert gives the
original bytes.

exiftool reads such packets but writes UTF-8 only, so the fixtures are made here: the same
packet text encoded each way, with and without a leading byte-order mark, with and without
an XML declaration naming the encoding."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pikepdf
import pytest

from pithtex.pdf import xmp

from ..conftest import BODY, URL, assert_clean_error, pithtex_cli
from ..pdfkit import make_pdf

TITLE = "Zoë — 漢字 𝄞"  # Latin-1, the BMP and beyond it (a surrogate pair in UTF-16)
BOMS = {"utf-16-be": b"\xfe\xff", "utf-16-le": b"\xff\xfe", "utf-32-be": b"\x00\x00\xfe\xff",
        "utf-32-le": b"\xff\xfe\x00\x00"}


def packet_text(declaration: str = "") -> str:
    return (f'<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>\n{declaration}'
            '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
            '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">'
            f'<dc:title><rdf:Alt><rdf:li xml:lang="x-default">{TITLE}</rdf:li></rdf:Alt></dc:title>'
            '</rdf:Description></rdf:RDF></x:xmpmeta>\n<?xpacket end="w"?>')


def pdf_with_packet(path: Path, packet: bytes) -> Path:
    """make_pdf's file with `packet` as its XMP stream, byte for byte (pikepdf's save would
    rewrite a packet to set pdf:PDFVersion, in UTF-8: fix_metadata_version=False)."""
    make_pdf(path)
    with pikepdf.open(path, allow_overwriting_input=True) as pdf:
        pdf.Root.Metadata = pdf.make_stream(packet, Type=pikepdf.Name.Metadata, Subtype=pikepdf.Name.XML)
        pdf.save(path, fix_metadata_version=False, deterministic_id=True)
    assert metadata_bytes(path) == packet
    return path


def exif_xmp(path: Path) -> dict[str, str]:
    return json.loads(subprocess.run(["exiftool", "-j", "-XMP:all", str(path)], capture_output=True,
                                     text=True, check=True, timeout=60).stdout)[0]


def metadata_bytes(path: Path) -> bytes:
    with pikepdf.open(path) as pdf:
        return pdf.Root.Metadata.read_bytes()


@pytest.mark.parametrize("encoding", ["utf-8", *BOMS])
def test_the_encoding_is_found(encoding: str):
    data = packet_text().encode(encoding)
    assert xmp.packet_encoding(data) == encoding
    assert xmp.packet_encoding(BOMS.get(encoding, b"\xef\xbb\xbf") + data) == encoding
    assert xmp.pith_of(xmp.parse(data).root) == {"schema_declared": False}


@pytest.mark.parametrize("encoding", list(BOMS))
@pytest.mark.parametrize("form", ["plain", "leading-bom", "xml-declaration"])
def test_a_utf16_or_utf32_packet_is_stamped_in_its_own_encoding(tmp_path: Path, encoding: str, form: str):
    declaration = f'<?xml version="1.0" encoding="{encoding[:6].upper()}"?>' if form == "xml-declaration" else ""
    data = packet_text(declaration).encode(encoding)
    if form == "leading-bom":
        data = BOMS[encoding] + data
    src = pdf_with_packet(tmp_path / "in.pdf", data)
    original = src.read_bytes()
    out = tmp_path / "out.pdf"
    proc = pithtex_cli("stamp", str(src), "--number", BODY, "-o", str(out))
    assert proc.returncode == 0 and not proc.stderr, proc.stderr
    written = metadata_bytes(out)
    assert xmp.packet_encoding(written) == encoding
    assert written.startswith(BOMS[encoding]) == (form == "leading-bom")
    text = written.decode(encoding).removeprefix("\ufeff")
    assert f"<pith:number>{BODY}</pith:number>" in text and TITLE in text
    assert text.startswith('<?xpacket begin="\ufeff"') and text.endswith('<?xpacket end="w"?>')
    found = json.loads(pithtex_cli("inspect", str(out), "--json").stdout)
    assert found["number"] == BODY and found["xmp"] == {"number": BODY, "url": URL}
    # exiftool, reading it independently, sees the title as it saw it before (its UTF-16
    # reader turns a surrogate pair into "??????", in the original as in ours) and pith's
    # properties added.
    before, seen = exif_xmp(src), exif_xmp(out)
    assert TITLE[:9] in seen["Title"] and seen["Title"] == before["Title"]
    assert seen["Number"] == BODY and seen["Url"] == URL
    back = tmp_path / "back.pdf"
    assert pithtex_cli("stamp", str(out), "--revert", "-o", str(back)).returncode == 0
    assert back.read_bytes() == original
    # Stamped again with the same number: nothing is missing, nothing changes.
    again = pithtex_cli("stamp", str(out), "--number", BODY, "--in-place")
    assert again.returncode == 0 and "already" in again.stdout


def test_a_packet_that_is_not_valid_utf16_is_refused_in_one_line(tmp_path: Path):
    data = packet_text().encode("utf-16-le")
    cut = data.index("漢".encode("utf-16-le"))
    broken = data[:cut] + b"\x00\xdc" + data[cut:]  # a lone low surrogate
    src = pdf_with_packet(tmp_path / "in.pdf", broken)
    err = assert_clean_error(pithtex_cli("stamp", str(src), "--number", BODY, "-o", str(tmp_path / "o.pdf")), 1)
    assert "the XMP packet is not valid UTF-16-LE" in err and not (tmp_path / "o.pdf").exists()
    # --force keeps what can be read of it, still in UTF-16.
    proc = pithtex_cli("stamp", str(src), "--number", BODY, "-o", str(tmp_path / "o.pdf"), "--force")
    assert proc.returncode == 0, proc.stderr
    written = metadata_bytes(tmp_path / "o.pdf")
    assert xmp.packet_encoding(written) == "utf-16-le"
    assert "Zoë" in written.decode("utf-16-le") and BODY in written.decode("utf-16-le")
