"""After compiling: is the pith number in the PDF, and is the badge where arXiv leaves it alone?

Everything is read once by `pithtex.pdf.facts` (the one reader of a PDF's pith facts) and used
as the typed `Facts` it returns: Info, XMP, page 1's pith links with their rectangles and
/OutputIntents; only the report's own summary is plain data. arXiv stamps its own
grey text into the left margin of page 1, so nothing of ours may start in the left
`brand.ARXIV_BAND` (40 pt) of the page.

Where the badge sits is judged from the page itself (placement.py), read as `verify` reads a
page (placement.read_page): the badge's text and link must be on the visible page, below the
title block and above what follows it, aligned with the title, over no other text, out of
arXiv's band. pith.sty's log line says which page to look at; the PDF decides.
"""

from __future__ import annotations

from pathlib import Path

from .. import brand
from ..pdf.facts import Link, facts_of
from ..value import TYPE_CHECKING
from . import placement
from .catalogue import (
    PDF_LEFT_BAND,
    PDF_NO_BADGE_LINK,
    PDF_NO_INFO,
    PDF_NO_XMP,
    PDF_NUMBER_MISMATCH,
    PDFA_OUTPUTINTENTS,
    PITH_BADGE_FALLBACK,
    PITH_BADGE_MISPLACED,
    PITH_BADGE_OFF_PAGE,
    PITH_BADGE_PAGE,
    PITH_HIDDEN,
)
from .diagnostic import Diagnostic, error, warning
from .logparse import BadgeNote

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Reader = Callable[[Path, int], placement.Page]  # (the PDF, a page's index) -> the page as read

LEFT_BAND_PT = brand.ARXIV_BAND


def _shifted(link: Link, left: float) -> list[float] | None:
    """A link's rectangle measured from the page's left edge (as the report shows it)."""
    if not link.rect:
        return None
    x0, y0, x1, y1 = link.rect
    return [round(x0 - left, 2), round(y0, 2), round(x1 - left, 2), round(y1, 2)]


def pith_checks(pdf: Path, number: str | None, route: str, badge: str = "title",
                metadata: bool = True, notes: list[BadgeNote] | tuple[BadgeNote, ...] = (),
                read: Reader | None = placement.read_page) -> tuple[dict[str, Any], list[Diagnostic]]:
    """Facts about the compiled PDF and the errors that mean the pith metadata was lost.

    `badge` and `metadata` are what the paper asked pith for: no badge is expected with
    badge=none, and a manual badge may sit on a later page (a warning, not an error).
    `notes` are pith.sty's own log lines: where the badge landed, or that a review copy
    withheld it (then neither badge nor metadata is expected).
    """
    landed = next((n for n in notes if n.how != "withheld"), None)
    withheld = next((n for n in notes if n.how == "withheld"), None)
    page = landed.page if landed and landed.page else 1
    facts = facts_of(pdf, pages=page)
    meta = {key: facts.sources[key].body if key in facts.sources else None for key in ("info", "xmp")}
    page1: list[dict[str, Any]] = [{"uri": lk.uri, "body": lk.number.body, "rect": _shifted(lk, facts.page1_left)}
                                   for lk in facts.page1_links]
    in_band = [lk for lk in page1 if lk["rect"] and lk["rect"][0] < LEFT_BAND_PT]
    on_page = [lk for lk in facts.links if lk.page == page - 1]
    shown = {"info": meta["info"], "xmp": meta["xmp"], "page1_links": page1,
             "left_band_clear": not in_band, "output_intents": facts.output_intents,
             "badge": _placement(landed, withheld, bool(on_page))}
    diags = _placement_diagnostics(landed, withheld, route, badge)
    if withheld:
        badge, metadata = "none", False
    if facts.output_intents:
        diags.append(warning(PDFA_OUTPUTINTENTS, "the PDF has /OutputIntents: arXiv will not add its stamp",
                             PDFA_OUTPUTINTENTS.fix, route=route))
    if number is None:
        return shown, diags
    for where, key, missing in (("Info dictionary (/PithNumber)", "info", PDF_NO_INFO),
                                ("XMP metadata (pith:number)", "xmp", PDF_NO_XMP)):
        if meta[key] is None and not metadata:
            continue
        if meta[key] is None:
            diags.append(error(missing, f"the {route} PDF has no Pith Number in its {where}", missing.fix,
                               route=route))
        elif meta[key] != number:
            diags.append(error(PDF_NUMBER_MISMATCH, f"the {route} PDF's {where} says {meta[key]}, "
                               f"the source says {number}", PDF_NUMBER_MISMATCH.fix, route=route))
    if badge != "none" and not any(lk.number.body == number for lk in on_page):
        report = warning if badge == "manual" else error  # a manual badge may be on a later page
        diags.append(report(PDF_NO_BADGE_LINK, f"page {page} of the {route} PDF has no link to "
                            f"{brand.number_url(number)}", PDF_NO_BADGE_LINK.fix, route=route))
    ours = next((lk for lk in on_page if lk.number.body == number), None)
    if read is not None and badge != "none" and ours is not None:
        title = facts.info.get("PithTitle") or facts.titles.get("Title")
        judged, found = _judge_placement(pdf, read, ours, number, page, landed, route, title)
        shown["placement"] = judged
        diags += found
    for lk in in_band:
        diags.append(error(PDF_LEFT_BAND, f"a pith link on page 1 of the {route} PDF starts at x={lk['rect'][0]} pt,"
                           f" inside the left {LEFT_BAND_PT:g} pt where arXiv stamps", PDF_LEFT_BAND.fix, route=route,
                           says="badge misplaced: in arXiv's stamp band"))
    return shown, diags


def _placement(landed: BadgeNote | None, withheld: BadgeNote | None, linked: bool) -> dict[str, Any] | None:
    """Where the badge is, as the report shows it: how it was placed, on which page."""
    if withheld:
        return {"how": "withheld", "why": withheld.why}
    if landed:
        return {"how": landed.how, "page": landed.page, "linked": linked}
    return None  # a pith.sty older than these log lines, or no badge at all


def _placement_diagnostics(landed: BadgeNote | None, withheld: BadgeNote | None, route: str,
                           badge: str) -> list[Diagnostic]:
    if withheld and badge != "none":  # the static rules did not see this review mode
        return [warning(PITH_HIDDEN, f"{route}: {withheld.why}: pith left out the badge and the metadata, "
                        "so this PDF carries no Pith Number", PITH_HIDDEN.fix, route=route)]
    if landed is None or landed.page is None:
        return []
    if landed.how == "fallback":
        return [warning(PITH_BADGE_FALLBACK, f"{route}: pith found no title block before page {landed.page} "
                        f"was shipped out: the badge on page {landed.page} is where pith's fallback puts it, "
                        "not under a title it recognised",
                        PITH_BADGE_FALLBACK.fix,
                        route=route)]
    if landed.how == "title" and landed.page != 1:
        return [warning(PITH_BADGE_PAGE, f"{route}: the badge is under the title on page {landed.page}, "
                        "not on page 1 (the pages before it come first in this class)", "nothing to do if "
                        f"page {landed.page} is the title page; otherwise badge=manual and \\pithbadge",
                        route=route)]
    return []


def _judge_placement(pdf: Path, read: Reader, link: Link, number: str, page: int, landed: BadgeNote | None,
                     route: str, title: str | None) -> tuple[dict[str, Any] | None, list[Diagnostic]]:
    """Where the page shows the badge, and the errors when it is invisible or misplaced. The
    pages before the badge's are read too: the title may be on one of them."""
    pages = [read(pdf, i) for i in range(page)]
    if any(p.problem for p in pages) or link.visible is None:
        return None, []  # a page the view could not read: nothing is claimed either way
    here = pages[-1]
    box = placement.link_box(link.rect, here.box) if link.rect else None
    verdict = placement.judge(pages, number, box, link.off_page, title)
    faults = list(verdict.faults)
    manual = landed is not None and landed.how == "manual"
    judged = {"page": page, "badge": _rounded(verdict.badge), "title": _rounded(verdict.title),
              "title_text": verdict.title_text, "faults": faults, "headline": verdict.headline}
    where = f"{route}: the badge on page {page}"
    if verdict.off_page:
        return judged, [error(PITH_BADGE_OFF_PAGE, f"{where} is not visible: {'; '.join(faults)}",
                              PITH_BADGE_OFF_PAGE.fix, route=route,
                              says=f"badge misplaced: {verdict.headline}")]
    # A \pithbadge the author placed may be meant where it is (a warning), unless it covers text.
    hard = not manual or any(f.startswith("it lies over") for f in faults)
    if faults:
        says = f"badge misplaced: {verdict.headline}"
        if hard:
            return judged, [error(PITH_BADGE_MISPLACED, f"{where} is misplaced: {'; '.join(faults)}",
                                  PITH_BADGE_MISPLACED.fix, route=route, says=says)]
        return judged, [warning(PITH_BADGE_MISPLACED, f"{where} is misplaced: {'; '.join(faults)}",
                                PITH_BADGE_MISPLACED.fix, route=route)]
    return judged, []


def _rounded(box: tuple[float, ...] | None) -> list[float] | None:
    return [round(v, 1) for v in box] if box else None

