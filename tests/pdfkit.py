"""Small real PDFs made in the tests themselves (pikepdf, qpdf): no shared files needed.

`sample_pdfs(folder)` makes a few kinds of file stamping meets (classic xref table, xref
and object streams, an XMP packet, a PDF/A-2B claim).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pikepdf

PDFA_XMP = b"""<?xpacket begin="\xef\xbb\xbf" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/"
 xmlns:dc="http://purl.org/dc/elements/1.1/">
<pdfaid:part>2</pdfaid:part><pdfaid:conformance>B</pdfaid:conformance>
<dc:description><rdf:Alt><rdf:li xml:lang="x-default">a test</rdf:li></rdf:Alt></dc:description>
</rdf:Description></rdf:RDF></x:xmpmeta>
<?xpacket end="w"?>"""

# qpdf --encrypt variants: the standard handler's revisions and methods stamping must keep.
ENCRYPTIONS = {
    "rc4-40-R2": ["40"],
    "rc4-128-R3": ["128", "--use-aes=n"],
    "rc4-128-R4": ["128", "--use-aes=n", "--force-V4"],
    "aes-128-R4": ["128", "--use-aes=y"],
    "aes-128-R4-clear-meta": ["128", "--use-aes=y", "--cleartext-metadata"],
    "aes-256-R5": ["256", "--force-R5"],
    "aes-256-R6": ["256"],
    "aes-256-R6-clear-meta": ["256", "--cleartext-metadata"],
}


def make_pdf(path: Path, *, streams: bool = False, xmp: bytes | None = None, pages: int = 1,
             title: str = "A test") -> Path:
    pdf = pikepdf.new()
    for i in range(pages):
        page = pdf.add_blank_page(page_size=(612, 792))
        page.Contents = pdf.make_stream(b"BT /F1 12 Tf 72 700 Td (page %d) Tj ET" % (i + 1))
        page.Resources = pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=pikepdf.Dictionary(
            Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Helvetica)))
    pdf.docinfo["/Title"] = title
    if xmp is not None:
        pdf.Root.Metadata = pdf.make_stream(xmp, Type=pikepdf.Name.Metadata, Subtype=pikepdf.Name.XML)
    mode = pikepdf.ObjectStreamMode.generate if streams else pikepdf.ObjectStreamMode.disable
    pdf.save(path, object_stream_mode=mode, deterministic_id=True)
    return path


def sample_pdfs(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    return [make_pdf(folder / "table.pdf"), make_pdf(folder / "streams.pdf", streams=True),
            make_pdf(folder / "pdfa.pdf", xmp=PDFA_XMP, pages=3)]


def encrypt(src: Path, dst: Path, variant: str, user: str = "") -> Path:
    proc = subprocess.run(["qpdf", "--allow-weak-crypto", "--encrypt", user, "owner-pw", *ENCRYPTIONS[variant],
                           "--", str(src), str(dst)], capture_output=True, timeout=60)
    assert proc.returncode in (0, 3), proc.stderr  # 3: qpdf repaired a damaged input while writing
    return dst


def qpdf_check(path: Path) -> int:
    """qpdf --check's verdict as a rank: 0 clean, 1 warnings, 2 errors."""
    rc = subprocess.run(["qpdf", "--check", str(path)], capture_output=True, timeout=60).returncode
    return {0: 0, 3: 1}.get(rc, 2)


def show_encryption(path: Path, password: str = "") -> str:
    return subprocess.run(["qpdf", f"--password={password}", "--show-encryption", str(path)],
                          capture_output=True, text=True, timeout=60).stdout


def pdfa_file(path: Path, part: str, title: str | None = None) -> Path:
    """A one-page pikepdf file whose XMP claims PDF/A-`part`b (a claim only, not a valid PDF/A),
    with `title` as its XMP dc:title when given."""
    with pikepdf.new() as pdf:
        pdf.add_blank_page()
        with pdf.open_metadata(set_pikepdf_as_editor=False) as meta:
            meta["pdfaid:part"] = part
            meta["pdfaid:conformance"] = "B"
            if title is not None:
                meta["dc:title"] = title
        pdf.save(path)
    return path


PDFA4_XMP = b"""<?xpacket begin="\xef\xbb\xbf" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/"
 xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmp="http://ns.adobe.com/xap/1.0/">
<pdfaid:part>4</pdfaid:part><pdfaid:rev>2020</pdfaid:rev>%s
<xmp:ModifyDate>2024-05-01T10:00:00Z</xmp:ModifyDate>
<dc:title><rdf:Alt><rdf:li xml:lang="x-default">a PDF/A-4 test</rdf:li></rdf:Alt></dc:title>
</rdf:Description></rdf:RDF></x:xmpmeta>
<?xpacket end="w"?>"""


def pdfa4_file(path: Path, *, info: dict[str, str] | None = None, conformance: str = "") -> Path:
    """A one-page PDF 2.0 file whose XMP claims PDF/A-4 (rev 2020; `conformance` "F" or "E"
    for PDF/A-4f/4e). ISO 19005-4 6.1.3: no Info dictionary, or one with /ModDate alone
    (`info`, e.g. {"/ModDate": "D:20240501100000Z"}). A claim with the parts a stamp meets,
    not a fully valid PDF/A-4 (no output intent, fonts unembedded)."""
    with pikepdf.new() as pdf:
        pdf.add_blank_page()
        extra = f"<pdfaid:conformance>{conformance}</pdfaid:conformance>".encode() if conformance else b""
        pdf.Root.Metadata = pdf.make_stream(PDFA4_XMP % extra, Type=pikepdf.Name.Metadata,
                                            Subtype=pikepdf.Name.XML)
        if info is not None:
            pdf.trailer.Info = pdf.make_indirect(pikepdf.Dictionary(info))
        elif "/Info" in pdf.trailer:
            del pdf.trailer["/Info"]
        pdf.save(path, force_version="2.0", fix_metadata_version=False)
    return path
