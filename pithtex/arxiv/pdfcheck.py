"""After compiling: is the pith number in the PDF, and is the badge where arXiv leaves it alone?

Everything is read by `pithtex.pdf.facts` (the one reader of a PDF's pith facts): Info,
XMP, page 1's pith links with their rectangles and /OutputIntents. arXiv stamps its own
grey text into the left margin of page 1, so nothing of ours may start in the left
`ARXIV_BAND` (40 pt) of the page.
"""

from __future__ import annotations

from pathlib import Path

from .. import brand
from ..pdf.facts import ARXIV_BAND, Facts, facts_of
from .diagnostic import Diagnostic, error, warning

LEFT_BAND_PT = ARXIV_BAND


def inspect_metadata(pdf: Path | Facts) -> dict:
    """{'info': body|None, 'xmp': body|None}, read by the one reader of pith metadata."""
    sources = (pdf if isinstance(pdf, Facts) else facts_of(pdf, pages=1)).sources
    return {key: sources[key].body if key in sources else None for key in ("info", "xmp")}


def page_one(pdf: Path | Facts) -> dict:
    """Page 1's pith links with their rectangles (from the page's left edge), and /OutputIntents."""
    facts = pdf if isinstance(pdf, Facts) else facts_of(pdf, pages=1)
    left = facts.page1_left
    links = [{"uri": lk.uri, "body": lk.number.body,
              "rect": [round(lk.rect[0] - left, 2), round(lk.rect[1], 2), round(lk.rect[2] - left, 2),
                       round(lk.rect[3], 2)] if lk.rect else None} for lk in facts.page1_links]
    return {"links": links, "output_intents": facts.output_intents}


def pith_checks(pdf: Path, number: str | None, route: str, badge: str = "title",
                metadata: bool = True) -> tuple[dict, list[Diagnostic]]:
    """Facts about the compiled PDF and the errors that mean the pith metadata was lost.

    `badge` and `metadata` are what the paper asked pith for: no badge is expected with
    badge=none, and a manual badge may sit on a later page (a warning, not an error).
    """
    facts = facts_of(pdf, pages=1)
    meta = inspect_metadata(facts)
    p1 = page_one(facts)
    in_band = [lk for lk in p1["links"] if lk["rect"] and lk["rect"][0] < LEFT_BAND_PT]
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
