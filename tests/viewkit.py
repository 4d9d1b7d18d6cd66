"""One-page arXiv-like papers for issue 32 ("see page 1 as a reader does"): each forgery of the
issue, which visibly shows paper B while its text layer holds paper A's title, and a genuine
twin with the same machinery (an annotation, a form field, a form XObject, a re-encoded font,
an optional-content layer) beside its title. Made with pikepdf, no shared files.
"""

from __future__ import annotations

from pathlib import Path

import pikepdf

from .arxivkit import NEW_STAMP, stamp_ops

TITLE_A = "Efficient Routing in Sparse Expert Networks"  # the record's paper
TITLE_B = "Attention Is All You Need"  # the paper a reader sees on the forgery
HELVETICA = pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Helvetica,
                               Encoding=pikepdf.Name.WinAnsiEncoding)
TIMES = pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name("/Times-Roman"),
                           Encoding=pikepdf.Name.WinAnsiEncoding)
TITLE_Y = 700


def escaped(text: str) -> bytes:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("latin-1")


def line(text: str, size: float, y: float, x: float = 72, font: bytes = b"/F1") -> bytes:
    return b"BT %s %g Tf %g %g Td (%s) Tj ET\n" % (font, size, x, y, escaped(text))


def body() -> bytes:
    """Authors at 12 pt and 30 lines of 10 pt body text."""
    filler = "The method is evaluated on several tasks and compared with earlier work."
    return line("A. Author and B. Author", 12, 660, 200) + b"".join(line(filler, 10, 560 - 12 * i) for i in range(30))


def paper(path: Path, content: bytes, *, resources: dict | None = None, stamp: str | None = NEW_STAMP,
          annots: list | None = None, edit=None) -> Path:
    """A Letter page drawing `content` (Helvetica as /F1), arXiv's stamp, body text; `edit(pdf,
    page)` adds what a case needs (fonts, forms, layers) before it is saved."""
    pdf = pikepdf.new()
    page = pdf.add_blank_page(page_size=(612, 792))
    page.Resources = pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=HELVETICA, FStamp=TIMES), **(resources or {}))
    page.Contents = pdf.make_stream(content + body() + (stamp_ops(stamp) if stamp else b""))
    if edit is not None:
        edit(pdf, page)
    pdf.save(path, deterministic_id=True)
    return path


def form(pdf: pikepdf.Pdf, content: bytes, bbox: tuple[float, ...] = (0, 0, 612, 792), **extra) -> pikepdf.Object:
    return pdf.make_stream(content, Type=pikepdf.Name.XObject, Subtype=pikepdf.Name.Form, BBox=list(bbox),
                           Resources=pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=HELVETICA)), **extra)


def _appearance(pdf: pikepdf.Pdf, rect: list[float], text: str) -> pikepdf.Object:
    """An opaque white box reading `text` at 20 pt: what a viewer draws for the annotation."""
    width, height = rect[2] - rect[0], rect[3] - rect[1]
    return form(pdf, b"q 1 1 1 rg 0 0 %g %g re f Q\n" % (width, height) + line(text, 20, 2, 6),
                (0, 0, width, height))


def _annotated(kind: str, rect: list[float], text: str):
    def edit(pdf: pikepdf.Pdf, page: pikepdf.Page) -> None:
        annot = pikepdf.Dictionary(Type=pikepdf.Name.Annot, Rect=rect, F=4,
                                   AP=pikepdf.Dictionary(N=_appearance(pdf, rect, text)))
        if kind == "widget":
            annot.Subtype, annot.FT = pikepdf.Name.Widget, pikepdf.Name.Tx
            annot.T, annot.V = pikepdf.String("note"), pikepdf.String(text)
            annot.DA = pikepdf.String("/Helv 20 Tf 0 g")
        else:
            annot.Subtype = pikepdf.Name.Square
        annot = pdf.make_indirect(annot)
        page.Annots = pdf.make_indirect(pikepdf.Array([annot]))
        if kind == "widget":
            pdf.Root.AcroForm = pikepdf.Dictionary(Fields=[annot], DA=pikepdf.String("/Helv 0 Tf 0 g"))
    return edit


OVER_TITLE = [66, TITLE_Y - 8, 560, TITLE_Y + 24]
BESIDE_TITLE = [66, 200, 560, 232]  # lower on the page, over body text


def annotated(path: Path, *, forged: bool, kind: str = "annotation") -> Path:
    """A's title, and an annotation (or a text field) whose opaque appearance reads B's title:
    drawn over A's title (forged), or lower on the page (genuine)."""
    return paper(path, line(TITLE_A, 20, TITLE_Y),
                 edit=_annotated(kind, OVER_TITLE if forged else BESIDE_TITLE, TITLE_B))


def scaled_form(path: Path, *, forged: bool) -> Path:
    """A's title at 25 pt in a form XObject drawn at 0.02 (0.5 pt on the page) under B's title
    (forged), or the same form drawn at 0.8 (20 pt: genuine)."""
    def edit(pdf: pikepdf.Pdf, page: pikepdf.Page) -> None:
        page.Resources.XObject = pikepdf.Dictionary(Fm1=form(pdf, line(TITLE_A, 25, 0, 0), (0, 0, 30000, 40)))
    scale = 0.02 if forged else 0.8
    placed = b"q %g 0 0 %g 72 %g cm /Fm1 Do Q\n" % (scale, scale, TITLE_Y - 30 if forged else TITLE_Y)
    return paper(path, (line(TITLE_B, 20, TITLE_Y) if forged else b"") + placed, edit=edit)


def _glyph_name(c: str) -> str:
    names = {" ": "space", ".": "period", **dict(zip("0123456789", ("zero", "one", "two", "three", "four", "five",
                                                                   "six", "seven", "eight", "nine"), strict=True))}
    return names.get(c, c)


def relabelled(path: Path, *, forged: bool) -> Path:
    """A line in Helvetica re-encoded: code i draws the glyph /Differences names, and its
    ToUnicode map reads A's title. Forged: the glyphs spell "Satoshi Nakamoto 31.10.08" (then
    spaces); genuine: they spell A's title, as the map says."""
    shown = "Satoshi Nakamoto 31.10.08" if forged else TITLE_A
    glyphs = [_glyph_name(shown[i]) if i < len(shown) else "space" for i in range(len(TITLE_A))]
    codes = bytes(range(1, len(TITLE_A) + 1))
    cmap = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Relabel def\n"
            b"1 begincodespacerange <00> <FF> endcodespacerange\n%d beginbfchar\n" % len(TITLE_A)
            + b"".join(b"<%02X> <%04X>\n" % (code, ord(c)) for code, c in zip(codes, TITLE_A, strict=True))
            + b"endbfchar endcmap CMapName currentdict /CMap defineresource pop end end\n")

    def edit(pdf: pikepdf.Pdf, page: pikepdf.Page) -> None:
        font = pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Helvetica,
                                  Encoding=pikepdf.Dictionary(Type=pikepdf.Name.Encoding, Differences=[
                                      1, *[pikepdf.Name("/" + name) for name in glyphs]]),
                                  ToUnicode=pdf.make_stream(cmap))
        page.Resources.Font.F2 = font
    hexed = codes.hex().encode()
    return paper(path, b"BT /F2 20 Tf 72 %d Td <%s> Tj ET\n" % (TITLE_Y, hexed), edit=edit)


def view_layer(path: Path, *, forged: bool) -> Path:
    """A's title in an optional-content group whose View usage is OFF (shown in print, hidden on
    screen), under B's visible title (forged); genuine: View usage ON, no other title."""
    def edit(pdf: pikepdf.Pdf, page: pikepdf.Page) -> None:
        state = pikepdf.Name.OFF if forged else pikepdf.Name.ON
        group = pdf.make_indirect(pikepdf.Dictionary(
            Type=pikepdf.Name.OCG, Name=pikepdf.String("Print"),
            Usage=pikepdf.Dictionary(View=pikepdf.Dictionary(ViewState=state),
                                     Print=pikepdf.Dictionary(PrintState=pikepdf.Name.ON))))
        page.Resources.Properties = pikepdf.Dictionary(oc1=group)
        usage = [pikepdf.Dictionary(Event=pikepdf.Name(f"/{event}"), Category=[pikepdf.Name(f"/{event}")],
                                    OCGs=[group]) for event in ("View", "Print")]
        pdf.Root.OCProperties = pikepdf.Dictionary(OCGs=[group], D=pikepdf.Dictionary(ON=[group], AS=usage))
    layer = b"/OC /oc1 BDC\n" + line(TITLE_A, 20, TITLE_Y - (30 if forged else 0)) + b"EMC\n"
    return paper(path, (line(TITLE_B, 20, TITLE_Y) if forged else b"") + layer, edit=edit)


# name: a maker of the forgery (forged=True) and of its genuine twin (forged=False)
CASES = {
    "annotation-over-the-title": lambda path, forged: annotated(path, forged=forged),
    "text-field-over-the-title": lambda path, forged: annotated(path, forged=forged, kind="widget"),
    "form-scaled-to-0.02": lambda path, forged: scaled_form(path, forged=forged),
    "glyphs-say-other-letters": lambda path, forged: relabelled(path, forged=forged),
    "layer-off-on-screen": lambda path, forged: view_layer(path, forged=forged),
}


def figure_then_stamp(path: Path, *, stamp_in_form: bool = False) -> Path:
    """A figure whose labels sit in a form XObject (their form coordinates near 0, the form
    drawn mid-page), then arXiv's stamp drawn after it (or inside a form of its own)."""
    labels = line("Layer 1", 40, 10, 5) + line("Layer 2", 40, 80, 5) + b"0 0 m 300 300 l S\n"

    def edit(pdf: pikepdf.Pdf, page: pikepdf.Page) -> None:
        xobjects = pikepdf.Dictionary(Fig=form(pdf, labels, (0, 0, 400, 400)))
        if stamp_in_form:
            stamp = form(pdf, stamp_ops(NEW_STAMP).replace(b"/FStamp", b"/F1"))
            xobjects.Stamp = stamp
        page.Resources.XObject = xobjects
    figure = b"q 0.25 0 0 0.25 300 420 cm /Fig Do Q\n"
    drawn = b"/Stamp Do\n" if stamp_in_form else b""
    return paper(path, line(TITLE_A, 20, TITLE_Y) + figure + drawn, stamp=None if stamp_in_form else NEW_STAMP,
                 edit=edit)


def figure_above_title(path: Path) -> Path:
    """A figure at the top of page 1 whose labels are set at 60 pt in a form drawn at 0.2 (12 pt on
    the page), above the 17 pt title."""
    def edit(pdf: pikepdf.Pdf, page: pikepdf.Page) -> None:
        page.Resources.XObject = pikepdf.Dictionary(Fig=form(pdf, line("Input Encoder Decoder Output", 60, 10, 5),
                                                             (0, 0, 2000, 100)))
    return paper(path, b"q 0.2 0 0 0.2 100 740 cm /Fig Do Q\n" + line(TITLE_A, 17, TITLE_Y), edit=edit)
