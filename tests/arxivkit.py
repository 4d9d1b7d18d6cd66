"""arXiv-like PDFs made in the tests: page 1 with a title, body text, and arXiv's stamp (the grey
identifier arXiv prints up the left margin), old style or new; and arXiv's stamp added to a
real PDF (a TeX run's), as arXiv adds it to every PDF it serves."""

from __future__ import annotations

from pathlib import Path

import pikepdf

NEW_STAMP = "arXiv:2401.00001v1  [cs.CL]  2 Jan 2024"
OLD_STAMP = "arXiv:hep-th/9901001v2  6 Jan 1999"


def _escaped(text: str) -> bytes:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("latin-1")


def stamp_ops(stamp: str, height: float = 792.0) -> bytes:
    """arXiv's stamp: 20 pt Times, grey, turned 90 degrees, at x = 32 pt up the left margin."""
    y = height / 2 - 180
    return b"q BT /FStamp 20 Tf 0.5 g 0 1 -1 0 32 %.1f Tm (%s) Tj ET Q\n" % (y, _escaped(stamp))


def _font(base: str) -> pikepdf.Dictionary:
    return pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name("/" + base),
                              Encoding=pikepdf.Name.WinAnsiEncoding)


def arxiv_pdf(path: Path, title: str = "A Test Paper", stamp: str | None = NEW_STAMP, *,
              extra: bytes = b"", body: str = "Some text of the paper, set in the body size.",
              info_title: str | None = None, links: tuple[str, ...] = (), xmp: bytes | None = None) -> Path:
    """A one-page paper: `title` at 17 pt near the top, authors and 10 pt body text, arXiv's
    `stamp` in the margin (None: no stamp), `extra` content operators drawn last."""
    pdf = pikepdf.new()
    page = pdf.add_blank_page(page_size=(612, 792))
    lines = [b"BT /F1 17 Tf 100 700 Td (%s) Tj ET" % _escaped(title), b"BT /F1 12 Tf 250 670 Td (A. Author) Tj ET"]
    lines += [b"BT /F1 10 Tf 72 %d Td (%s) Tj ET" % (600 - 12 * i, _escaped(body)) for i in range(30)]
    ops = b"\n".join(lines) + b"\n" + (stamp_ops(stamp) if stamp else b"") + extra
    page.Contents = pdf.make_stream(ops)
    page.Resources = pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=_font("Helvetica"), FStamp=_font("Times-Roman")))
    if links:
        page.Annots = pdf.make_indirect(pikepdf.Array([pdf.make_indirect(pikepdf.Dictionary(
            Type=pikepdf.Name.Annot, Subtype=pikepdf.Name.Link, Rect=[100, 100 + 20 * i, 300, 115 + 20 * i],
            A=pikepdf.Dictionary(S=pikepdf.Name.URI, URI=uri))) for i, uri in enumerate(links)]))
    if info_title is not None:
        pdf.docinfo["/Title"] = info_title
    if xmp is not None:
        pdf.Root.Metadata = pdf.make_stream(xmp, Type=pikepdf.Name.Metadata, Subtype=pikepdf.Name.XML)
    pdf.save(path, deterministic_id=True)
    return path


def add_stamp(src: Path, dst: Path, stamp: str = NEW_STAMP) -> Path:
    """`src` with arXiv's stamp drawn on page 1 (as arXiv does to the PDF it compiles)."""
    with pikepdf.open(src) as pdf:
        page = pdf.pages[0]
        height = float(page.mediabox[3])
        page.contents_coalesce()
        fonts = page.obj.Resources.get("/Font") or pikepdf.Dictionary()
        fonts["/FStamp"] = _font("Times-Roman")
        page.obj.Resources["/Font"] = fonts
        page.contents_add(pdf.make_stream(stamp_ops(stamp, height)), prepend=False)
        pdf.save(dst)
    return dst
