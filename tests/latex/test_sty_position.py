"""The badge placed by where the title lands (issue #23), on minimal classes of ten kinds.

Each fixture in tests/fixtures/titles/ is a class or paper that pith.sty placed wrongly
when it recognised title blocks by the class's conventions: a hang in the title capture,
a fallback off the page, a title page set at \\begin{document}, a \\maketitle that sets the
front page and a table of contents, a title set by hand, a flush-left block, a \\title
that stores a counter; and three met in real papers of the second round (JSS, OUP, MDPI):
a title block in a box set at \\begin{document}, a title given in the body, a title in
the class's own stores. Each is compiled twice (arXiv runs at least two passes; the first
run has no positions yet) with real TeX, and the PDF is read back: the badge's link and
page with pypdf, the words' boxes with `pdftotext -bbox`.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from ..conftest import BODY, URL
from ..texrun import STY, compile_tex, flat_log
from .test_sty_placement import Word, page_words, words_of

FIXTURES = Path(__file__).parents[1] / "fixtures" / "titles"
BADGE = f"pith:{BODY}"


@dataclass(frozen=True)
class Badge:
    page: int
    link: tuple[float, float, float, float]   # x0, top, x1, bottom; y grows downwards
    word: Word
    visible: tuple[float, float, float, float]  # the page's visible box, the same way


def compile_fixture(tmp_path: Path, name: str, route: str = "pdflatex", passes: int = 2, edit=None):
    """tests/fixtures/titles/<name>.tex (and its class) compiled `passes` times by `route`."""
    for source in FIXTURES.iterdir():
        if source.suffix in (".tex", ".cls"):
            shutil.copy(source, tmp_path / source.name)
    shutil.copy(STY, tmp_path / "pith.sty")
    if edit is not None:
        tex = tmp_path / f"{name}.tex"
        tex.write_text(edit(tex.read_text()))
    run = compile_tex(tmp_path, route, name=name, passes=passes)
    assert run.pdf is not None, run.log[-1500:]
    assert "! " not in "\n".join(line[:2] for line in run.log.splitlines()), run.log[-1500:]
    return run


def the_badge(pdf: Path) -> Badge:
    """The document's one badge link, its page and the badge's word inside it."""
    from pypdf import PdfReader

    reader = PdfReader(str(pdf))
    links = []
    for n, page in enumerate(reader.pages, 1):
        for annot in page.get("/Annots") or []:
            annot = annot.get_object()
            if annot.get("/A") and annot["/A"].get("/URI") == URL:
                links.append((n, [float(v) for v in annot["/Rect"]], page))
    assert len(links) == 1, links
    n, (x0, y0, x1, y1), page = links[0]
    media = [float(v) for v in page.mediabox]
    crop = [float(v) for v in page.cropbox]
    left, bottom = max(media[0], crop[0]), max(media[1], crop[1])
    right, top = min(media[2], crop[2]), min(media[3], crop[3])
    # pdftotext measures from the MediaBox's top left corner.
    link = (min(x0, x1) - media[0], media[3] - max(y0, y1), max(x0, x1) - media[0], media[3] - min(y0, y1))
    visible = (left - media[0], media[3] - top, right - media[0], media[3] - bottom)
    inside = [w for w in page_words(pdf, n) if w.text == BADGE and link[0] - 1 <= w.x0 and w.x1 <= link[2] + 1
              and link[1] - 1 <= w.top and w.bottom <= link[3] + 1]
    assert len(inside) == 1, (inside, link)
    return Badge(n, link, inside[0], visible)


def assert_visible(badge: Badge) -> None:
    """Inside the page's visible box, and clear of arXiv's stamp band (x < 40 bp)."""
    x0, top, x1, bottom = badge.link
    left, vtop, right, vbottom = badge.visible
    assert left + 40 <= x0 and x1 <= right and vtop <= top and bottom <= vbottom, (badge.link, badge.visible)


def line_of(words: list[Word], word: Word) -> list[Word]:
    return [w for w in words if abs(w.top - word.top) < 1]


def centre(words: list[Word]) -> float:
    return (min(w.x0 for w in words) + max(w.x1 for w in words)) / 2


def assert_under(badge: Badge, words: list[Word], last: str, first_after: str | None = None) -> None:
    """Right under the block whose lowest line holds `last` (within two lines), above `first_after`."""
    lowest = max(words_of(words, {last.lower()}), key=lambda w: w.bottom)
    assert 0 < badge.word.top - lowest.bottom < 30, (badge.word, lowest)
    if first_after:
        after = words_of(words, {first_after.lower()})
        assert after and all(badge.word.bottom < w.top for w in after), (badge.word, after)


def assert_centred_on(badge: Badge, words: list[Word], word: str) -> None:
    line = line_of(words, words_of(words, {word.lower()})[0])
    assert abs((badge.link[0] + badge.link[2]) / 2 - centre(line)) < 2.0, (badge.link, centre(line))


def assert_flush_left_with(badge: Badge, words: list[Word], word: str) -> None:
    """The badge's link starts where the line holding `word` starts."""
    left = min(w.x0 for w in line_of(words, words_of(words, {word.lower()})[0]))
    assert abs(badge.link[0] - left) < 2.0, (badge.link, left)


ROUTES = ["pdflatex", "dvips", "xelatex"]


# -- kind 1: a size command defined with \def in the title ---------------------------------
def test_def_size_command_in_the_title_neither_hangs_nor_garbles(tmp_path):
    run = compile_fixture(tmp_path, "defsize", passes=1)
    from pypdf import PdfReader

    assert str(PdfReader(str(run.pdf)).metadata["/PithTitle"]) == "A Quokka Title"
    badge = the_badge(run.pdf)
    words = page_words(run.pdf, 1)
    assert badge.page == 1 and words_of(words, {"quokka"})
    assert_under(badge, words, "numbat", "kelp")


# -- kind 2: \voffset and \hoffset of -1in, no stored title ----------------------------------
@pytest.mark.parametrize("route", ROUTES)
def test_offsets_of_the_class_keep_the_fallback_on_the_page(tmp_path, route):
    first = compile_fixture(tmp_path, "offsets", route, passes=1)
    assert_visible(the_badge(first.pdf))   # the first run: the top of the page, on it
    run = compile_fixture(tmp_path, "offsets", route, passes=1)
    badge = the_badge(run.pdf)
    words = page_words(run.pdf, 1)
    assert badge.page == 1
    assert_visible(badge)
    # The second: under the title set by hand and its author, not above them.
    assert_under(badge, words, "lovelace", "kelp")
    assert_centred_on(badge, words, "quokka")
    assert "No title block found before page 1" in flat_log(run.log)


# -- kind 3: the title page built at \begin{document}, \maketitle a no-op ---------------------
@pytest.mark.parametrize("route", ROUTES)
def test_title_page_built_at_begin_document_carries_the_badge(tmp_path, route):
    first = compile_fixture(tmp_path, "begindoc", route, passes=1)
    first_badge = the_badge(first.pdf)
    assert first_badge.page == 1   # the first run: on the title page, at its top
    assert_visible(first_badge)
    run = compile_fixture(tmp_path, "begindoc", route, passes=1)
    badge = the_badge(run.pdf)
    words = page_words(run.pdf, 1)
    assert badge.page == 1 and words_of(words, {"quokka"})
    assert_visible(badge)
    assert_under(badge, words, "numbat", "wombat")   # under the date, above the press's line
    assert_centred_on(badge, words, "numbat")
    assert "Package pith Warning" not in run.log


# -- kind 4: \maketitle sets the front page, then a table of contents --------------------------
@pytest.mark.parametrize(("route", "manual"), [("pdflatex", False), ("pdflatex", True), ("dvips", True),
                                               ("xelatex", False)])
def test_front_page_then_contents_badge_on_the_front_page(tmp_path, route, manual):
    def to_manual(text: str) -> str:   # the fix the warning suggests: badge=manual, \pithbadge
        return (text.replace("\\usepackage{pith}", "\\usepackage[badge=manual]{pith}")
                .replace("\\maketitle\n", "\\maketitle\n\\pithbadge\n"))

    run = compile_fixture(tmp_path, "frontpage", route, edit=to_manual if manual else None)
    assert_on_the_front_page(run, "numbat")


def assert_on_the_front_page(run, last: str) -> None:
    """On page 1, the front page (no `Contents` there), under its block's line with `last`."""
    badge = the_badge(run.pdf)
    words = page_words(run.pdf, 1)
    assert badge.page == 1 and not words_of(words, {"contents"}), badge
    assert_visible(badge)
    assert_under(badge, words, last)
    assert_centred_on(badge, words, "quokka")


# -- kind 5: no \maketitle, the title set by hand -----------------------------------------------
@pytest.mark.parametrize("route", ROUTES)
def test_title_set_by_hand_badge_below_it_not_in_the_top_margin(tmp_path, route):
    run = compile_fixture(tmp_path, "byhand", route)
    badge = the_badge(run.pdf)
    words = page_words(run.pdf, 1)
    title = words_of(words, {"quokka"})
    assert badge.page == 1 and title
    assert_visible(badge)
    assert badge.word.top > max(w.bottom for w in title)   # below the title, not above it
    assert_under(badge, words, "university", "introduction")   # under the whole block
    assert_centred_on(badge, words, "quokka")


# -- kind 5, the fallback's cases: what stands above or around a title set by hand ---------------
# A small line above the title (a preprint number, a journal's header) is page 1's first
# paragraph: the badge goes under the paragraph of the largest type in the top part, and under
# the lines that follow it in its environment or box (the authors), never between them.
@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(("name", "first_after"), [("preprint", "introduction"), ("header", "kelp"),
                                                   ("minipage", "kelp"), ("vboxed", "kelp")])
def test_hand_set_title_under_a_small_line_or_in_a_box_gets_the_badge_under_its_block(tmp_path, route, name,
                                                                                     first_after):
    run = compile_fixture(tmp_path, name, route)
    badge = the_badge(run.pdf)
    words = page_words(run.pdf, 1)
    title = words_of(words, {"quokka"})
    assert badge.page == 1 and title
    assert_visible(badge)
    assert badge.word.top > max(w.bottom for w in title)
    assert_under(badge, words, "university", first_after)
    assert_centred_on(badge, words, "quokka")


def test_a_crop_box_inside_the_paper_keeps_the_fallback_visible(tmp_path):
    """A class whose pages show less than the paper (a CropBox inside the MediaBox, its top edge
    lower than the top margin's middle): from the second run, the badge is under the title,
    inside the visible box."""
    run = compile_fixture(tmp_path, "cropped")
    badge = the_badge(run.pdf)
    assert badge.visible[1] > 40
    assert_visible(badge)
    assert_under(badge, page_words(run.pdf, 1), "lovelace", "kelp")


def test_the_fallback_is_not_taken_by_a_float_of_larger_type_above_the_title(tmp_path):
    """A figure whose type is larger than the hand-set title lands at the top of page 1: the
    page's largest paragraph is the float's, which is no title; the badge stays under the
    title set by hand, outside the figure."""
    run = compile_fixture(tmp_path, "floattop")
    badge = the_badge(run.pdf)
    words = page_words(run.pdf, 1)
    assert badge.page == 1
    assert_visible(badge)
    caption = words_of(words, {"figure"})
    assert caption and all(w.bottom < badge.word.top for w in caption), (badge.word, caption)
    assert_under(badge, words, "university", "introduction")


@pytest.mark.parametrize("route", ROUTES)
def test_the_fallback_is_aligned_as_the_hand_set_title_sets_its_lines(tmp_path, route):
    """A title block set by hand, ragged right at the left margin: the badge under it is flush
    left with it, as the title's paragraph sets its lines (it was centred on the text block)."""
    run = compile_fixture(tmp_path, "handleft", route)
    badge = the_badge(run.pdf)
    words = page_words(run.pdf, 1)
    assert badge.page == 1
    assert_visible(badge)
    assert_under(badge, words, "numbat", "kelp")
    assert_flush_left_with(badge, words, "quokka")
    assert third_run_agrees(tmp_path, "handleft", route, badge)


@pytest.mark.parametrize("route", ROUTES)
def test_a_spanning_float_under_the_block_leaves_the_badge_clear(tmp_path, route):
    """The abstract is a second spanning float, stacked under the \\twocolumn[...] block into
    the space the block ends with; its rule (0.4 pt, some 5 pt above the word `Abstract')
    went through the badge when the badge came after that space."""
    run = compile_fixture(tmp_path, "spanfloat", route)
    badge = the_badge(run.pdf)
    words = page_words(run.pdf, 1)
    assert badge.page == 1
    assert_visible(badge)
    heading = words_of(words, {"abstract"})
    assert heading and heading[0].top - badge.word.bottom > 9, (badge.word, heading)
    assert_under(badge, words, "lovelace")
    assert_centred_on(badge, words, "quokka")


@pytest.mark.parametrize("route", ROUTES)
def test_a_title_block_the_first_section_emits_gets_the_badge_under_its_abstract(tmp_path, route):
    """IUCr's class stores no title (no marks can find it) and its first \\section sets the
    block: the badge is the abstract box's last line, flush left in the block's column (it
    was the page's first line, above the title)."""
    run = compile_fixture(tmp_path, "boxedblock", route)
    badge = the_badge(run.pdf)
    words = page_words(run.pdf, 1)
    assert badge.page == 1
    assert_visible(badge)
    assert_under(badge, words, "dune", "introduction")
    assert_flush_left_with(badge, words, "quokka")
    assert "under iucr's abstract" in flat_log(run.log)


# -- placed inside a box: the authors in a tabular, text right after it ----------------------------
# (fixture, the last word of the block, the first word after it)
BOXED_AUTHORS = [("tabauthors", "university", "kelp"), ("vboxauthors", "university", "abstract")]


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(("name", "last", "after"), BOXED_AUTHORS, ids=[b[0] for b in BOXED_AUTHORS])
def test_a_badge_after_authors_in_a_box_takes_a_line_of_its_own(tmp_path, route, name, last, after):
    """The lowest mark is in a tabular (no line can follow it there). tabauthors: in a
    paragraph; the badge goes below it, so the text after it moves down instead of lying
    under it. vboxauthors: in an \\hbox of the class's title \\vbox, no paragraph around it
    (as JSS); the badge is that vbox's next line, above the abstract the vbox sets next (it
    went below the next paragraph, over the abstract's heading)."""
    run = compile_fixture(tmp_path, name, route)
    badge = the_badge(run.pdf)
    words = page_words(run.pdf, 1)
    assert badge.page == 1
    assert_visible(badge)
    assert_under(badge, words, last, after)
    assert_centred_on(badge, words, "quokka")
    x0, top, x1, bottom = badge.link
    assert not [w for w in words if w.text != BADGE and w.x0 < x1 and x0 < w.x1 and w.top < bottom and top < w.bottom]
    assert third_run_agrees(tmp_path, name, route, badge)


def third_run_agrees(tmp_path: Path, name: str, route: str, badge: Badge) -> bool:
    third = the_badge(compile_fixture(tmp_path, name, route, passes=1).pdf)
    return (third.page, third.link) == (badge.page, badge.link)


# -- kind 6: a flush-left title block with a long title -----------------------------------------
@pytest.mark.parametrize("route", ROUTES)
def test_flush_left_block_with_a_long_title_gets_a_flush_left_badge(tmp_path, route):
    run = compile_fixture(tmp_path, "flushleft", route)
    badge = the_badge(run.pdf)
    words = page_words(run.pdf, 1)
    title = words_of(words, {"quokka"})
    assert badge.page == 1 and title
    assert_visible(badge)
    assert_under(badge, words, "numbat", "kelp")
    assert_flush_left_with(badge, words, "quokka")


def judged_by_the_check(pdf: Path, badge: Badge, title: str) -> tuple[str, ...]:
    """What `pithtex check`'s own judgement of the page (pithtex/arxiv/placement.py) finds wrong."""
    from pithtex.arxiv import placement

    pages = [placement.read_page(pdf, i) for i in range(badge.page)]
    return placement.judge(pages, BODY, badge.link, False, title).faults


def title_lines(words: list[Word], word: str) -> list[list[Word]]:
    """The title's lines: the line holding `word` and those of the same type size next to it."""
    first = line_of(words, words_of(words, {word.lower()})[0])
    size = first[0].bottom - first[0].top
    lines = sorted({round(w.top, 1) for w in words if abs((w.bottom - w.top) - size) < 0.5})
    return [line_of(words, next(w for w in words if round(w.top, 1) == top)) for top in lines
            if abs(top - first[0].top) < 3 * size]


# -- kind 6 again: flush-left blocks that no one-line item shows -------------------------------
# ceurart: a two-column class whose flush-left block keeps its authors in a store of its own,
# so only the title (two lines) carries marks; PoS: a flush-left front page built at
# \begin{document}, title and authors on two lines each. The old pith.sty voted only with
# items on one line, found none and centred the badge on the page.
@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("name", ["leftcols", "leftpage"])
def test_a_block_flush_left_on_several_lines_gets_a_badge_flush_with_it(tmp_path, route, name):
    run = compile_fixture(tmp_path, name, route)
    badge = the_badge(run.pdf)
    words = page_words(run.pdf, 1)
    lines = title_lines(words, "quokka")
    assert badge.page == 1 and len(lines) == 2
    assert_visible(badge)
    assert_under(badge, words, "numbat" if name == "leftcols" else "road", "kelp")
    block_left = min(w.x0 for w in lines[0])
    assert abs(badge.link[0] - block_left) < 2.0, (badge.link, block_left)
    if route == "pdflatex":
        assert judged_by_the_check(run.pdf, badge, "A Quokka Title") == ()


def test_a_flush_left_block_indented_gets_the_badge_at_its_own_edge(tmp_path):
    """A flush-left block whose lines start 2 cm right of the text block (a list's margin): the badge
    starts where the block does, not at the text block's edge (nor centred)."""
    indent = "\\renewenvironment{flushleft}{\\list{}{\\leftmargin=2cm}\\raggedright\\item\\relax}{\\endlist}\n"
    run = compile_fixture(tmp_path, "leftpage", edit=lambda tex: tex.replace("\\begin{document}",
                                                                           indent + "\\begin{document}"))
    badge = the_badge(run.pdf)
    words = page_words(run.pdf, 1)
    lines = title_lines(words, "quokka")
    block_left = min(w.x0 for w in lines[0])
    kelp = words_of(words, {"kelp"})[0]   # the text after the block, at the text block's edge
    assert block_left - kelp.x0 > 50   # 2 cm
    assert abs(badge.link[0] - block_left) < 2.0, (badge.link, block_left)


# -- likeapj: a title centred on an axis right of the text block's, given after \begin{document}
@pytest.mark.parametrize("route", ROUTES)
def test_a_block_centred_off_the_text_blocks_axis_gets_the_badge_on_its_own(tmp_path, route):
    """The old pith.sty saw no marks (\\title came after \\begin{document}, where the stores are
    wrapped) and centred the badge on the text block, 0.025\\textwidth left of the title's axis."""
    run = compile_fixture(tmp_path, "wideaxis", route)
    badge = the_badge(run.pdf)
    words = page_words(run.pdf, 1)
    lines = title_lines(words, "quokka")
    assert badge.page == 1 and len(lines) == 2
    assert abs(centre(lines[0]) - centre(lines[1])) < 1.0   # the title is centred, on one axis
    kelp = words_of(words, {"kelp"})[0]
    text_centre = kelp.x0 + 345 / 2   # article's 10pt \textwidth from the text block's edge (\noindent)
    assert centre(lines[0]) - text_centre > 5, (centre(lines[0]), text_centre)
    assert_under(badge, words, "lovelace", "kelp")
    assert abs((badge.link[0] + badge.link[2]) / 2 - centre(lines[0])) < 2.0, (badge.link, centre(lines[0]))
    if route == "pdflatex":
        assert judged_by_the_check(run.pdf, badge, "A Quokka Title Centred") == ()


WIDEAXIS_TITLE = "\\title{A Quokka Title Centred on an Axis Right of the Text Block's Own}\n"
WIDEAXIS_PITH = "\\usepackage{pith}\n\\pithnumber{YBK5PTAKOSCXY2WMLIIB7DMYH6}\n"


@pytest.mark.parametrize("given", ["in the body", "in the preamble"])
def test_marks_leave_the_title_where_the_class_sets_it(tmp_path, given):
    """wideaxis's \\@title ends the paragraph \\noindent began before any text (as likeapj's
    does) and ends with a space: the marks add no line and keep no space (the old pith.sty's
    marks, with \\title in the preamble, made that empty paragraph a line and kept the space)."""
    def edit(pith: str):
        def change(tex: str) -> str:
            tex = tex.replace(WIDEAXIS_PITH, pith)
            if given == "in the preamble":
                tex = tex.replace(WIDEAXIS_TITLE, "").replace("\\begin{document}", WIDEAXIS_TITLE + "\\begin{document}")
            return tex
        return change

    lines = {}
    for pith in (WIDEAXIS_PITH, ""):
        folder = tmp_path / ("with" if pith else "without")
        folder.mkdir()
        words = page_words(compile_fixture(folder, "wideaxis", edit=edit(pith)).pdf, 1)
        lines[pith] = [(w.text, w.x0, w.top) for line in title_lines(words, "quokka") for w in line]
    assert len(lines[""]) > 5 and lines[WIDEAXIS_PITH] == lines[""]


# -- kind 7: \title stores a short form and a counter with the title ----------------------------
def test_title_with_a_counter_leaves_pith_title_out_with_one_warning(tmp_path):
    run = compile_fixture(tmp_path, "counted", passes=1)
    from pypdf import PdfReader

    info = PdfReader(str(run.pdf)).metadata
    assert info["/PithNumber"] == BODY and "/PithTitle" not in info
    assert flat_log(run.log).count("Package pith Warning: The title holds commands that are not text") == 1
    badge = the_badge(run.pdf)
    assert badge.page == 1
    assert_under(badge, page_words(run.pdf, 1), "numbat", "kelp")


# -- stability: the judgement reads nothing the badge's own position changes --------------------
@pytest.mark.parametrize("name", ["begindoc", "byhand", "flushleft", "preprint", "minipage"])
def test_third_run_places_the_badge_as_the_second(tmp_path, name):
    second = the_badge(compile_fixture(tmp_path, name).pdf)
    third = the_badge(compile_fixture(tmp_path, name, passes=1).pdf)
    assert (second.page, second.link) == (third.page, third.link)


# -- the marks never leak into what a class or hyperref reads from the stores -----------------
def test_marks_stay_out_of_strings_read_from_the_title(tmp_path):
    """hyperref's pdfusetitle reads \\@title at \\begin{document} (the marks are dropped from
    PDF strings); a class that detokenizes \\@title after \\maketitle, as quantumarticle
    does for its pdftitle, reads the author's title (the marks are gone once typeset)."""
    text = ("\\documentclass{article}\n\\usepackage[pdfusetitle]{hyperref}\n\\usepackage{pith}\n"
            f"\\pithnumber{{{BODY}}}\n\\title{{A Quokka Title}}\\author{{Ann Lovelace}}\\date{{Numbat 2024}}\n"
            # \\maketitle as a class's: the block, then the stores read as strings.
            "\\makeatletter\n\\renewcommand\\maketitle{\\@maketitle\\typeout{PITHTEST["
            "\\detokenize\\expandafter{\\@title}|\\detokenize\\expandafter{\\@author}]}}\n\\makeatother\n"
            "\\begin{document}\n\\maketitle\nKelp reef tide.\n\\end{document}\n")
    (tmp_path / "strings.tex").write_text(text)
    shutil.copy(STY, tmp_path / "pith.sty")
    compile_tex(tmp_path, "pdflatex", name="strings")
    run = compile_tex(tmp_path, "pdflatex", name="strings")
    from pypdf import PdfReader

    info = PdfReader(str(run.pdf)).metadata
    assert str(info["/Title"]) == "A Quokka Title" and str(info["/Author"]) == "Ann Lovelace"
    assert "PITHTEST[A Quokka Title|Ann Lovelace]" in run.log and "pith@mark" not in run.log.split("PITHTEST")[1]
    assert the_badge(run.pdf).page == 1


def test_a_first_run_asks_for_the_rerun_that_places_the_badge(tmp_path: Path):
    """The first run reads no positions (no .aux): its log says "Rerun to get" (what latexmk and
    arXiv rerun on, and `pithtex check` too); the second, which read them, says nothing more."""
    from ..texrun import write_doc

    write_doc(tmp_path, "\\documentclass{article}\n\\usepackage{pith}\n\\pithnumber{" + BODY + "}\n"
              "\\title{A Title}\\author{Ann}\n\\begin{document}\\maketitle Text.\\end{document}\n")
    first = flat_log(compile_tex(tmp_path, "pdflatex").log)
    assert "Rerun to get the badge placed right" in first
    second = flat_log(compile_tex(tmp_path, "pdflatex").log)
    assert "Rerun to get the badge placed right" not in second and "Package pith Warning" not in second


def test_page_ones_paragraph_records_leave_its_lines_where_they_were(tmp_path: Path):
    """With no stored title pith records page 1's paragraphs; a record in an empty paragraph
    would give it a line (acmart, whose \\title comes after \\begin{document}, then shipped an
    empty first page). The first run (the badge over the page, at its top) sets every line
    where badge=none sets it."""
    from ..texrun import write_doc

    text = ("\\documentclass{article}\n\\usepackage[badge=OPTION]{pith}\n\\pithnumber{" + BODY + "}\n"
            "\\begin{document}\n\\noindent\\par\\noindent\\par\n{\\Large Quokka heading}\\par\n"
            "\\noindent\\par Kelp reef tide coral shoal lagoon. \\par\n\\end{document}\n")
    tops = {}
    for option in ("none", "title"):
        folder = tmp_path / option
        write_doc(folder, text.replace("OPTION", option))
        shutil.copy(STY, folder / "pith.sty")
        run = compile_tex(folder, "pdflatex")
        assert run.pdf is not None, run.log[-1500:]
        words = page_words(run.pdf, 1)
        tops[option] = [(w.text, round(w.top, 2)) for w in words if w.text != BADGE]
    assert tops["title"] == tops["none"] and "Kelp" in [t for t, _ in tops["none"]]


# -- kind 8: the title block in a \vbox, set from the begindocument hook (JSS) -------------------
@pytest.mark.parametrize("route", ROUTES)
def test_title_block_in_a_box_at_begin_document_gets_one_badge_under_it(tmp_path, route):
    """The badge can only go over the page there (nothing follows a line inside a box), at
    the page's shipout, where the first page's fallback ran first and put a second badge
    at the top of the page."""
    run = compile_fixture(tmp_path, "boxtitle", route)
    badge = the_badge(run.pdf)   # exactly one link
    words = page_words(run.pdf, 1)
    assert badge.page == 1 and [w.text for w in words].count(BADGE) == 1
    assert_visible(badge)
    assert_under(badge, words, "institute", "introduction")
    assert_centred_on(badge, words, "quokka")


# -- kind 9: \title and \author given in the body, each \author appended (OUP) -----------------
def test_title_given_after_begin_document_is_marked_and_the_judgement_holds(tmp_path):
    """Marks for a title given after \\begin{document} are added at \\maketitle; the kernel's
    default \\@author (a warning) is not wrapped, or the authors appended to it would follow
    its end mark, which then came first in the .aux: an arithmetic overflow on the second run."""
    run = compile_fixture(tmp_path, "latetitle")
    aux = (tmp_path / "latetitle.aux").read_text()
    assert "\\pith@pos{1}" in aux and "\\pith@pos{3}" in aux
    badge = the_badge(run.pdf)
    words = page_words(run.pdf, 1)
    assert badge.page == 1
    assert_under(badge, words, "institute", "introduction")
    assert_centred_on(badge, words, "quokka")


# -- kind 10: the class's own stores, \@Title and \@Author, then contents (MDPI) ----------------
@pytest.mark.parametrize("route", ["pdflatex", "xelatex"])
def test_title_in_the_class_s_own_stores_is_found_on_its_page(tmp_path, route):
    assert_on_the_front_page(compile_fixture(tmp_path, "ownstores", route), "institute")
