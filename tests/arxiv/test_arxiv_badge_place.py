"""`check`'s placement judgement on PDFs made here, read back by the real pdftotext.

Each PDF is a page (or two) of Helvetica text placed by hand and a link to the number's page,
so the verdict on every arrangement is known: a badge under a centred or a flush-left title,
one above the title (the top-margin fallback), one centred under a flush-left title, one over
other text, one outside the page or its CropBox, one on page 2 while the title is on page 1.
"""

from __future__ import annotations

from pathlib import Path

import pikepdf

from pithtex.arxiv.logparse import BadgeNote
from pithtex.arxiv.pdfcheck import pith_checks

from ..conftest import BODY, URL

BADGE = f"pith:{BODY}"
Text = tuple[float, float, float, str]  # x, y (baseline, from the bottom), size, text


def width(text: str, size: float) -> float:
    """About Helvetica's advance widths (the tests' positions need no more than a few points)."""
    narrow = {"i": 222, "l": 222, "j": 222, "t": 278, "f": 278, "r": 333, " ": 278, ":": 278, "I": 278}
    return sum(narrow.get(c, 556 if c.islower() or c.isdigit() else 667) for c in text) * size / 1000


def make_page(pdf: pikepdf.Pdf, texts: list[Text], link: tuple[float, float, float, float] | None,
              crop: list[float] | None = None) -> None:
    page = pdf.add_blank_page(page_size=(612, 792))
    ops = b"".join(b"BT /F1 %.2f Tf %.2f %.2f Td (%s) Tj ET\n" % (size, x, y, text.encode("latin-1"))
                   for x, y, size, text in texts)
    page.Contents = pdf.make_stream(ops)
    page.Resources = pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=pikepdf.Dictionary(
        Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Helvetica)))
    if crop:
        page.obj.CropBox = pikepdf.Array(crop)
    if link:
        annot = pdf.make_indirect(pikepdf.Dictionary(
            Type=pikepdf.Name.Annot, Subtype=pikepdf.Name.Link, Rect=pikepdf.Array(list(link)),
            A=pikepdf.Dictionary(S=pikepdf.Name.URI, URI=pikepdf.String(URL))))
        page.obj.Annots = pdf.make_indirect(pikepdf.Array([annot]))


def centred(y: float, size: float, text: str, centre: float = 306) -> Text:
    return (centre - width(text, size) / 2, y, size, text)


def badge_at(x: float, y: float) -> tuple[Text, tuple[float, float, float, float]]:
    """The badge's text at x (baseline y) and its link around it, a logo's width wider on the left."""
    return (x, y, 7, BADGE), (x - 9, y - 2, x + width(BADGE, 7), y + 7)


def judged(tmp_path: Path, pages: list[tuple[list[Text], tuple[float, float, float, float] | None]],
           crop: list[float] | None = None, title: str | None = None, page: int = 1):
    """pith_checks on the PDF, with the badge's log line naming `page`: (placement facts, rules)."""
    path = tmp_path / "p.pdf"
    with pikepdf.new() as pdf:
        for texts, link in pages:
            make_page(pdf, texts, link, crop)
        pdf.docinfo["/PithNumber"] = BODY
        if title:
            pdf.docinfo["/PithTitle"] = title
        pdf.save(path)
    shown, diags = pith_checks(path, BODY, "pdflatex", notes=[BadgeNote("title", page)])
    placement = [d for d in diags if d.rule.startswith("pith-badge")]
    return shown["placement"], placement


BODY_TEXT = [(72, 560 - 14 * i, 10, "Body text of the paper runs across the whole column here.") for i in range(8)]
TITLE = "A Title Set Large"


def test_a_centred_badge_under_a_centred_title_passes(tmp_path: Path):
    text, link = badge_at(306 - width(BADGE, 7) / 2 + 4.5, 640)
    facts, found = judged(tmp_path, [([centred(700, 20, TITLE), centred(670, 12, "Ann Author"), text,
                                       *BODY_TEXT], link)])
    assert found == [] and facts["faults"] == []
    assert facts["title_text"] == TITLE and facts["badge"][1] > facts["title"][3]


def test_a_badge_above_the_title_fails_and_names_the_fix(tmp_path: Path):
    text, link = badge_at(306 - width(BADGE, 7) / 2 + 4.5, 760)  # the top margin: the old fallback
    _, found = judged(tmp_path, [([centred(700, 20, TITLE), text, *BODY_TEXT], link)], title=TITLE)
    assert [(d.rule, d.severity) for d in found] == [("pith-badge-misplaced", "error")]
    assert "above the end of the title ('A Title Set Large')" in found[0].message
    assert "\\pithbadge" in found[0].fix
    # Without a title in the metadata (pith's fallback) the page's first text is the mark.
    (tmp_path / "untitled").mkdir()
    _, found = judged(tmp_path / "untitled", [([centred(700, 20, TITLE), text, *BODY_TEXT], link)])
    assert "above the end of the page's first text and its largest line" in found[0].message


def test_without_a_title_under_the_first_text_will_do(tmp_path: Path):
    # pith's fallback under the page's first line, though a larger line (a figure's) comes later
    text, link = badge_at(234, 725)
    lines = [(72, 740, 10, "First words of the page."), centred(500, 20, "A FIGURE LABEL"), *BODY_TEXT]
    facts, found = judged(tmp_path, [([*lines, text], link)])
    assert found == [] and facts["faults"] == []


def test_a_flush_left_title_wants_a_flush_left_badge(tmp_path: Path):
    long_title = "A Long Title Set Flush Left Across Most of the Line"
    left = [(72, 700, 16, long_title), (72, 676, 11, "Ann Author, Bob Author"), (72, 662, 11, "Some University")]
    text, link = badge_at(306 - width(BADGE, 7) / 2 + 4.5, 640)
    _, found = judged(tmp_path, [([*left, text, *BODY_TEXT], link)], title=long_title)
    assert [d.rule for d in found] == ["pith-badge-misplaced"] and "not aligned with the title" in found[0].message
    text, link = badge_at(81, 640)  # the link (logo first) starts at the title's left edge
    (tmp_path / "left").mkdir()
    facts, found = judged(tmp_path / "left", [([*left, text, *BODY_TEXT], link)], title=long_title)
    assert found == [] and facts["faults"] == []


def test_a_badge_over_other_text_fails(tmp_path: Path):
    text, link = badge_at(200, 560)  # on the first line of the body
    _, found = judged(tmp_path, [([centred(700, 20, TITLE), text, *BODY_TEXT], link)])
    assert [d.rule for d in found] == ["pith-badge-misplaced"] and "over other text" in found[0].message


def test_a_badge_above_the_page_is_invisible(tmp_path: Path):
    # Where a class with \voffset=\hoffset=-1in put the fallback: 72 pt up, off the page.
    text, link = badge_at(234, 800)
    facts, found = judged(tmp_path, [([centred(700, 20, TITLE), text, *BODY_TEXT], link)])
    assert [(d.rule, d.severity) for d in found] == [("pith-badge-off-page", "error")]
    assert "not on the visible page" in found[0].message and "link lies outside the page" in found[0].message
    assert facts["badge"] is None


def test_a_badge_outside_the_crop_box_is_invisible(tmp_path: Path):
    text, link = badge_at(234, 740)  # on the MediaBox, but the CropBox ends at y = 720
    _, found = judged(tmp_path, [([centred(700, 20, TITLE), text, *BODY_TEXT], link)], crop=[0, 0, 612, 720])
    assert [d.rule for d in found] == ["pith-badge-off-page"]


def test_a_badge_on_page_two_when_the_title_is_on_page_one(tmp_path: Path):
    # A class that sets its title page at \begin{document}: the badge went under a heading on page 2.
    text, link = badge_at(234, 680)
    pages = [([centred(700, 24, TITLE), centred(660, 12, "Ann Author")], None),
             ([(72, 720, 14, "Contents"), text, *BODY_TEXT], link)]
    _, found = judged(tmp_path, pages, title=TITLE, page=2)
    # (pith.sty's own line said "under the title on page 2": its warning, pith-badge-page, comes too)
    assert [d.rule for d in found] == ["pith-badge-page", "pith-badge-misplaced"]
    assert "the title is on page 1 ('A Title Set Large'), the badge on page 2" in found[1].message


def test_the_title_is_found_by_its_text_when_it_is_not_the_largest(tmp_path: Path):
    # amsart sets its title in capitals smaller than the body; a running head repeats it.
    title = [(72, 770, 6, "A TITLE SET SMALL"), centred(700, 8, "A TITLE SET SMALL")]
    big_body = [(72, 600 - 16 * i, 12, "Body text in a larger size than the title.") for i in range(5)]
    text, link = badge_at(306 - width(BADGE, 7) / 2 + 4.5, 680)
    facts, found = judged(tmp_path, [([*title, text, *big_body], link)], title="A Title Set Small")
    assert found == [] and facts["title_text"] == "A TITLE SET SMALL" and facts["title"][1] > 80


def test_a_badge_whose_link_alone_is_off_the_page_is_invisible_and_names_the_fix(tmp_path: Path):
    # The text reads fine under the title, but the link was drawn 150 pt higher, above the page:
    # nobody can click the badge. An error, and the fix says what to do.
    text, (x0, y0, x1, y1) = badge_at(306 - width(BADGE, 7) / 2 + 4.5, 640)
    _, found = judged(tmp_path, [([centred(700, 20, TITLE), text, *BODY_TEXT], (x0, y0 + 150, x1, y1 + 150))],
                      title=TITLE)
    assert [(d.rule, d.severity) for d in found] == [("pith-badge-off-page", "error")]
    assert "its link lies outside the visible page" in found[0].message
    assert "pithtex sty --force" in found[0].fix and "\\pithbadge" in found[0].fix


def test_a_badge_outside_the_crop_box_names_the_fix(tmp_path: Path):
    text, link = badge_at(306 - width(BADGE, 7) / 2 + 4.5, 730)  # visible on the MediaBox only
    _, found = judged(tmp_path, [([centred(700, 20, TITLE), text, *BODY_TEXT], link)], crop=[0, 0, 612, 720],
                      title=TITLE)
    assert [(d.rule, d.severity) for d in found] == [("pith-badge-off-page", "error")]
    assert "not visible" in found[0].message and "badge=manual" in found[0].fix
