"""After compiling: is the pith number in the PDF, and is the badge where arXiv leaves it alone?

Info and XMP come from `pithtex.pdf.inspect.inspect_pdf` (the one reader of pith
metadata). Page 1's link annotations are read here with pypdf, because the question is
about page 1 only and about positions: arXiv stamps its own grey text into the left
margin of page 1 (x ≈ 12-32 pt), so nothing of ours may sit in the left 40 pt band.
"""

from __future__ import annotations

import re
from pathlib import Path

from .. import brand
from .diagnostic import Diagnostic, error, warning

LEFT_BAND_PT = 40.0
# Any host: pith's baseurl= option may point at a mirror.
_PITH_URI = re.compile(r"/pith/([A-Za-z2-7]{26})(?![A-Za-z0-9])")


def inspect_metadata(pdf: Path) -> dict:
    """{'info': body|None, 'xmp': body|None}, read by the one reader of pith metadata."""
    from ..pdf.inspect import inspect_pdf

    sources = inspect_pdf(pdf).get("sources") or {}
    return {"info": sources.get("info"), "xmp": sources.get("xmp")}


def page_one(pdf: Path) -> dict:
    """Page 1's pith links with their rectangles, the page's left edge, and /OutputIntents."""
    import logging

    from pypdf import PdfReader

    # pypdf logs harmless oddities of TeX-made PDFs (duplicate keys) to stderr: not ours to show.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    reader = PdfReader(pdf)
    page = reader.pages[0]
    left = float(page.mediabox.left)
    links = []
    for annot in page.get("/Annots") or []:
        a = annot.get_object()
        action = a.get("/A")
        uri = str(action.get_object().get("/URI", "")) if action else ""
        m = _PITH_URI.search(uri)
        if a.get("/Subtype") == "/Link" and m:
            x0, y0, x1, y1 = (float(v) for v in a["/Rect"])
            links.append({"uri": uri, "body": m.group(1).upper(), "rect": [round(min(x0, x1) - left, 2),
                          round(min(y0, y1), 2), round(max(x0, x1) - left, 2), round(max(y0, y1), 2)]})
    intents = "/OutputIntents" in reader.trailer["/Root"]
    return {"links": links, "output_intents": intents}


def pith_checks(pdf: Path, number: str | None, route: str, badge: str = "title",
                metadata: bool = True) -> tuple[dict, list[Diagnostic]]:
    """Facts about the compiled PDF and the errors that mean the pith metadata was lost.

    `badge` and `metadata` are what the paper asked pith for: no badge is expected with
    badge=none, and a manual badge may sit on a later page (a warning, not an error).
    """
    meta = inspect_metadata(pdf)
    p1 = page_one(pdf)
    in_band = [lk for lk in p1["links"] if lk["rect"][0] < LEFT_BAND_PT]
    facts = {"info": meta["info"], "xmp": meta["xmp"], "page1_links": p1["links"],
             "left_band_clear": not in_band, "output_intents": p1["output_intents"]}
    diags: list[Diagnostic] = []
    if p1["output_intents"]:
        diags.append(warning("pdfa-outputintents", "the PDF has /OutputIntents: arXiv will not add its stamp",
                             "drop the PDF/A setting (\\DocumentMetadata pdfstandard, pdfx) for arXiv",
                             route=route))
    if number is None:
        return facts, diags
    for where, key in (("Info dictionary (/PithNumber)", "info"), ("XMP metadata (pith:number)", "xmp")):
        if meta[key] is None and not metadata:
            continue
        if meta[key] is None:
            diags.append(error(f"pdf-no-{key}", f"the {route} PDF has no Pith Number in its {where}",
                               "use the current pith.sty (older copies miss this route)", route=route))
        elif meta[key] != number:
            diags.append(error("pdf-number-mismatch", f"the {route} PDF's {where} says {meta[key]}, "
                               f"the source says {number}", "keep one \\pithnumber and no other writer of "
                               "this metadata", route=route))
    if badge != "none" and not any(lk["body"] == number for lk in p1["links"]):
        report = warning if badge == "manual" else error  # a manual badge may be on a later page
        diags.append(report("pdf-no-badge-link", f"page 1 of the {route} PDF has no link to "
                            f"{brand.number_url(number)}", "make sure \\pithnumber is set before "
                            "\\maketitle and the current pith.sty is uploaded", route=route))
    for lk in in_band:
        diags.append(error("pdf-left-band", f"a pith link on page 1 of the {route} PDF starts at x={lk['rect'][0]} pt,"
                           f" inside the left {LEFT_BAND_PT:g} pt where arXiv stamps", "move the badge "
                           "away from the left margin", route=route))
    return facts, diags
