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
             title: str = "A test", shows_title: bool = False) -> Path:
    """`pages` Letter pages reading "page N"; with `shows_title`, page 1 also sets `title`
    large at its top, as a paper does (its Info /Title is `title` either way)."""
    pdf = pikepdf.new()
    for i in range(pages):
        page = pdf.add_blank_page(page_size=(612, 792))
        heading = wrapped(title, 20, 750) if shows_title and i == 0 else b""
        page.Contents = pdf.make_stream(heading + b"BT /F1 12 Tf 72 700 Td (page %d) Tj ET" % (i + 1))
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
    with `title` as its XMP dc:title, and set large at the top of its page, when given."""
    with pikepdf.new() as pdf:
        page = pdf.add_blank_page(page_size=(612, 792))
        if title is not None:
            page.Contents = pdf.make_stream(wrapped(title, 20, 740))
            page.Resources = pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=HELVETICA))
        with pdf.open_metadata(set_pikepdf_as_editor=False) as meta:
            meta["pdfaid:part"] = part
            meta["pdfaid:conformance"] = "B"
            if title is not None:
                meta["dc:title"] = title
        pdf.save(path)
    return path


# -- PDFs written byte by byte: files no library would write (damaged, hybrid, hand-encrypted) --
HEAD = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"


class Writer:
    """A PDF written byte by byte, so every offset and quirk is the test's own."""

    def __init__(self, head: bytes = HEAD) -> None:
        self.out = bytearray(head)
        self.offsets: dict[int, int] = {}

    def obj(self, num: int, body: bytes, gen: int = 0) -> int:
        self.offsets[num] = len(self.out)
        self.out += b"%d %d obj\n" % (num, gen) + body + b"\nendobj\n"
        return self.offsets[num]

    def table(self, entries: dict[int, tuple[int, int, bytes]], trailer: bytes, eol: bytes = b" \n",
              gap: bytes = b"") -> int:
        """An xref table of (offset, generation, n/f) entries, one subsection per run of numbers."""
        start = len(self.out)
        self.out += b"xref\n" + gap
        nums = sorted(entries)
        runs: list[list[int]] = []
        for num in nums:
            if runs and runs[-1][-1] == num - 1:
                runs[-1].append(num)
            else:
                runs.append([num])
        for run in runs:
            self.out += b"%d %d\n" % (run[0], len(run)) + gap
            for num in run:
                off, gen, kind = entries[num]
                self.out += b"%010d %05d %s" % (off, gen, kind) + eol
        self.out += gap + b"trailer\n" + trailer + b"\n"
        return start

    def entries(self, nums=None) -> dict[int, tuple[int, int, bytes]]:
        found = {0: (0, 65535, b"f")}
        found.update({n: (off, 0, b"n") for n, off in self.offsets.items() if nums is None or n in nums})
        return found

    def end(self, startxref: int) -> bytes:
        return bytes(self.out + b"startxref\n%d\n%%%%EOF\n" % startxref)


# -- pages that show (or hide) text: the forgeries of issue 24 and their genuine copies ------
HELVETICA = pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Helvetica)


def run(text: str, size: float, x: float, y: float, ops: bytes = b"") -> bytes:
    """One line of Helvetica at (x, y); `ops` come first (colour, render mode, a clip), in a q/Q pair."""
    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("latin-1")
    return b"q %s BT /F1 %s Tf %s %s Td (%s) Tj ET Q\n" % (ops, _num(size), _num(x), _num(y), escaped)


def wrapped(text: str, size: float, y: float, x: float = 72, width: float = 470, ops: bytes = b"") -> bytes:
    """`text` in lines of about `width` points from `y` down (Helvetica's average letter is ~0.5 em)."""
    per_line = max(1, int(width / (size * 0.5)))
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > per_line:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    lines.append(line)
    return b"".join(run(text, size, x, y - i * size * 1.2, ops) for i, text in enumerate(lines))


def body_text(lines: int = 30, y: float = 560, sentence: str = "") -> bytes:
    """Paragraphs at 10 pt (a page's body), with `sentence` in the middle of them."""
    filler = "The method is evaluated on several tasks and compared with earlier work in detail."
    text = " ".join([filler] * (lines // 2) + ([sentence] if sentence else []) + [filler] * (lines // 2))
    return wrapped(text, 10, y)


def page_pdf(path: Path, content: bytes, *, info_title: str | None = None, xmp_title: str | None = None,
             pith_title: str | None = None, layer: bytes | None = None, layer_on: bool = False,
             layer_how: str = "marked", annotation: str | None = None, uri: str | None = None) -> Path:
    """A one-page Letter PDF drawing `content` (Helvetica as /F1; /GS0 an ExtGState whose fill
    is fully transparent), with `layer` drawn in an optional-content group that the default
    configuration turns on or off: in marked content (`layer_how` "marked"), the same with the
    group off by /BaseState ("base-state"), or as a form XObject whose /OC is the group ("form");
    the given metadata titles, a FreeText annotation and a URI link."""
    pdf = pikepdf.new()
    page = pdf.add_blank_page(page_size=(612, 792))
    resources = pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=HELVETICA),
                                   ExtGState=pikepdf.Dictionary(GS0=pikepdf.Dictionary(ca=0)))
    if layer is not None:
        group = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.OCG, Name=pikepdf.String("Layer")))
        resources.Properties = pikepdf.Dictionary(oc1=group)
        default = pikepdf.Dictionary(ON=[group]) if layer_on else pikepdf.Dictionary(OFF=[group])
        if layer_how == "base-state" and not layer_on:
            default = pikepdf.Dictionary(BaseState=pikepdf.Name.OFF)
        pdf.Root.OCProperties = pikepdf.Dictionary(OCGs=[group], D=default)
        if layer_how == "form":
            form = pdf.make_stream(layer, Type=pikepdf.Name.XObject, Subtype=pikepdf.Name.Form, BBox=[0, 0, 612, 792],
                                   OC=group, Resources=pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=HELVETICA)))
            resources.XObject = pikepdf.Dictionary(Fm1=form)
            content += b"/Fm1 Do\n"
        else:
            content += b"/OC /oc1 BDC\n" + layer + b"EMC\n"
    page.Contents = pdf.make_stream(content)
    page.Resources = resources
    annots = []
    if annotation is not None:
        annots.append(pikepdf.Dictionary(Type=pikepdf.Name.Annot, Subtype=pikepdf.Name.FreeText,
                                         Rect=[72, 600, 540, 700], Contents=pikepdf.String(annotation),
                                         DA=pikepdf.String("/Helv 20 Tf 0 g")))
    if uri is not None:
        annots.append(pikepdf.Dictionary(Type=pikepdf.Name.Annot, Subtype=pikepdf.Name.Link, Rect=[72, 40, 300, 60],
                                         A=pikepdf.Dictionary(S=pikepdf.Name.URI, URI=pikepdf.String(uri))))
    if annots:
        page.Annots = pdf.make_indirect(pikepdf.Array([pdf.make_indirect(a) for a in annots]))
    if info_title is not None:
        pdf.docinfo["/Title"] = info_title
    if pith_title is not None:
        pdf.docinfo["/PithTitle"] = pith_title
    if xmp_title is not None:
        with pdf.open_metadata(set_pikepdf_as_editor=False) as meta:
            meta["dc:title"] = xmp_title
    pdf.save(path, deterministic_id=True)
    return path


def _num(value: float) -> bytes:
    return (b"%d" % value) if float(value).is_integer() else (b"%.3f" % value)


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
