"""PDFs that cost little to store and much to read (issue 32, "unbounded work"): each made here,
by the test that needs it, no shared files. A form XObject fan-out (each form draws the one
below it several times), Type 3 glyph procedures full of operators, and a catalog /Metadata
stream that inflates a few hundred kilobytes into hundreds of megabytes.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import pikepdf

from . import viewkit


def fan_out(path: Path, levels: int, width: int = 2) -> Path:
    """Form n draws form n-1 `width` times, form 0 a word: the page draws that word
    width**levels times, in a file of a few kB."""

    def edit(pdf: pikepdf.Pdf, page: pikepdf.Page) -> None:
        child = viewkit.form(pdf, viewkit.line("leaf", 10, 0, 0))
        for _ in range(levels):
            parent = viewkit.form(pdf, b"/C Do q 1 0 0 1 1 1 cm /C Do Q\n" * (width // 2))
            parent.Resources.XObject = pikepdf.Dictionary(C=child)
            child = parent
        page.Resources.XObject = pikepdf.Dictionary(Top=child)
    drawn = b"q 0.1 0 0 0.1 300 300 cm /Top Do Q\n"
    return viewkit.paper(path, viewkit.line(viewkit.TITLE_A, 20, viewkit.TITLE_Y) + drawn, edit=edit)


def type3(path: Path, operators: int = 250_000) -> Path:
    """A Type 3 font whose one glyph procedure is `operators` filled rectangles (3.25 MB decoded
    for 250,000, a few kB stored), drawn once on page 1."""

    def edit(pdf: pikepdf.Pdf, page: pikepdf.Page) -> None:
        heavy = pdf.make_stream(b"0 0 1 1 re f\n" * operators)
        page.Resources.Font.T3 = pikepdf.Dictionary(
            Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type3, FontBBox=[0, 0, 1, 1], FontMatrix=[1, 0, 0, 1, 0, 0],
            CharProcs=pikepdf.Dictionary(a=heavy), Encoding=pikepdf.Dictionary(Differences=[97, pikepdf.Name.a]),
            FirstChar=97, LastChar=97, Widths=[1])
    return viewkit.paper(path, viewkit.line(viewkit.TITLE_A, 20, viewkit.TITLE_Y)
                         + b"BT /T3 10 Tf 72 100 Td (a) Tj ET\n", edit=edit)


def metadata_bomb(path: Path, inflated: int = 400 * 2**20) -> Path:
    """A genuine-looking paper whose catalog /Metadata is one FlateDecode stream of `inflated`
    bytes (an XMP packet's start, then blanks): 400 MiB stored in about 400 KB. Written as an
    incremental update by hand, since pikepdf replaces a packet it cannot parse when it saves."""
    viewkit.paper(path, viewkit.line(viewkit.TITLE_A, 20, viewkit.TITLE_Y))
    with pikepdf.open(path) as pdf:
        root_num = pdf.Root.objgen[0]
        catalog = pdf.Root.unparse(resolved=True)
        size = int(pdf.trailer.Size)
        startxref = _startxref(path.read_bytes())
    packet = zlib.compressobj(9)
    data = packet.compress(b"<?xpacket begin='' id='W5M0MpCehiHzreSzNTczkc9d'?>\n")
    chunk = b" " * 2**20
    for _ in range(inflated // len(chunk)):
        data += packet.compress(chunk)
    data += packet.flush()
    out = bytearray(path.read_bytes())
    meta_num, offsets = size, {}
    offsets[meta_num] = len(out)
    out += (b"%d 0 obj\n<< /Type /Metadata /Subtype /XML /Filter /FlateDecode /Length %d >>\nstream\n"
            % (meta_num, len(data)) + data + b"\nendstream\nendobj\n")
    offsets[root_num] = len(out)
    out += b"%d 0 obj\n" % root_num + catalog[:catalog.rindex(b">>")] + b" /Metadata %d 0 R >>\nendobj\n" % meta_num
    xref = len(out)
    out += b"xref\n"
    for num in sorted(offsets):
        out += b"%d 1\n%010d 00000 n \n" % (num, offsets[num])
    out += b"trailer\n<< /Size %d /Root %d 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n" % (
        meta_num + 1, root_num, startxref, xref)
    path.write_bytes(bytes(out))
    return path


def _startxref(data: bytes) -> int:
    tail = data[data.rindex(b"startxref"):].split()
    return int(tail[1])
