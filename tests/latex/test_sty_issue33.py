"""The badge where a reader expects it in classes that build their title block their own way
(issue #33): a minimal class or paper per fault met in real papers, each compiled twice
(arXiv runs at least two passes; the first run has no positions yet) with real TeX, the PDF
read back: the badge's link and page with pypdf, the words' boxes with `pdftotext -bbox`.
"""

from __future__ import annotations

import shutil

import pytest

from ..texrun import flat_log
from .test_sty_placement import page_words, words_of
from .test_sty_position import (
    FIXTURES,
    ROUTES,
    assert_centred_on,
    assert_flush_left_with,
    assert_under,
    assert_visible,
    compile_fixture,
    the_badge,
)


# -- a \thanks that takes the authors' end mark into the footnote area (SIAM) --------------------
@pytest.mark.parametrize("route", ROUTES)
def test_a_mark_moved_into_a_footnote_is_not_the_end_of_the_block(tmp_path, route):
    """SIAM's \\maketitle splits each author at its \\thanks and makes the rest the note's
    text: the authors' end mark was typeset in the footnote at the page's foot, and the badge
    followed it there, under the notes."""
    _run, badge, words = placed(tmp_path, "thanksend", route)
    assert_under(badge, words, "lovelace", "abstract")
    assert all(badge.word.bottom < w.top for w in words_of(words, {"numbat"}))   # above the note
    assert_centred_on(badge, words, "quokka")


# -- a title block that fills page 1 to its foot in boxes that cannot break (PoS) ------------------
@pytest.mark.parametrize("route", ROUTES)
def test_a_block_that_runs_to_the_page_s_foot_puts_the_badge_under_the_title(tmp_path, route):
    """PoS sets a collaboration's authors as one \\vtop and their addresses as one \\vbox: page 1
    ends with them, and the badge after the block's last mark opened page 2. With no room
    below the block on its page, the badge goes right under the title, and the log says why.
    A third run judges the second's marks, where the addresses went on to page 2: the same."""
    for passes in (2, 3):
        (folder := tmp_path / f"passes{passes}").mkdir()
        run, badge, words = placed(folder, "longcollab", route, passes=passes)
        assert_under(badge, words, "report", "lovelace")
        assert_flush_left_with(badge, words, "quokka")
        assert "Badge placed under the title: the title block runs to the foot of page 1" in flat_log(run.log)


@pytest.mark.parametrize("route", ROUTES)
def test_an_item_first_typeset_on_a_later_page_does_not_move_the_badge_under_the_title(tmp_path, route):
    """Only an item that starts on the title's page and ends on the next runs the block past
    page 1: a date the class sets at the paper's end (its marks on page 2) is no part of it,
    and the badge stays under the authors."""
    run, badge, words = placed(tmp_path, "latedate", route, passes=3)
    assert_under(badge, words, "lovelace", "kelp")
    assert "Badge placed under the title" not in flat_log(run.log)


# -- /PithTitle: clean or left out with one warning -------------------------------------------------
def pith_title(pdf) -> str | None:
    from pypdf import PdfReader

    title = PdfReader(str(pdf)).metadata.get("/PithTitle")
    return None if title is None else str(title)


def placed(tmp_path, fixture: str, route: str, passes: int = 2):
    """A fixture compiled, its badge (on page 1, visible) and page 1's words."""
    run = compile_fixture(tmp_path, fixture, route, passes=passes)
    badge = the_badge(run.pdf)
    words = page_words(run.pdf, 1)
    assert badge.page == 1
    assert_visible(badge)
    return run, badge, words


@pytest.mark.parametrize("route", ROUTES)
def test_a_title_measured_in_a_box_first_is_left_out_of_info_with_one_warning(tmp_path, route):
    """aastex7's \\@title sets the title in \\setbox0=\\vbox{\\let\\footnote...} before it typesets
    it: the assignments sit inside braces, where the token search did not look, and /PithTitle
    read `0=Title Title'."""
    run = compile_fixture(tmp_path, "measured", route, passes=1)
    assert pith_title(run.pdf) is None
    assert flat_log(run.log).count("Package pith Warning: The title holds commands that are not text") == 1
    assert the_badge(run.pdf).page == 1


@pytest.mark.parametrize("route", ROUTES)
def test_a_title_stored_as_a_class_command_gives_its_argument_as_pith_title(tmp_path, route):
    """aastex 5 stores each \\title as \\make@title{...}, which sets it in `center`: purifying it
    for /PithTitle expanded the list code's conditionals, and an \\iffalse skipped the rest of
    the document (`Incomplete \\iffalse', no PDF)."""
    run = compile_fixture(tmp_path, "titlecmd", route, passes=1)
    assert pith_title(run.pdf) == "A Quokka Title Typeset by a Command of the Class"
    assert the_badge(run.pdf).page == 1


@pytest.mark.parametrize("route", ROUTES)
def test_a_title_page_set_at_begin_document_still_gives_pith_title(tmp_path, route):
    """PoS typesets its front page from the begindocument hook: the title was already typeset
    (its store put back) when pith looked for it, and /PithTitle was left out, with no word."""
    run = compile_fixture(tmp_path, "leftpage", route, passes=1)
    assert pith_title(run.pdf) == "A Quokka Title on a Front Page Set Flush Left, Long Enough for Two Lines"


# -- a title block in macros of the class's own, a class that never sets the paper's size (ametsoc)
@pytest.mark.parametrize("route", ROUTES)
def test_a_title_in_the_class_s_own_macros_is_found_and_the_first_run_stays_off_the_corner(tmp_path, route):
    """ametsoc keeps title, authors and affiliation in \\thetitle, \\theauthors and
    \\theaffiliation (no marks: `No title block found' on every run) and sets \\paperwidth to
    nothing: the first run's badge sat in the page's top left corner, in arXiv's band, an
    overfull box."""
    first = compile_fixture(tmp_path, "ownmacros", route, passes=1)
    first_badge = the_badge(first.pdf)
    assert first_badge.page == 1
    assert_visible(first_badge)
    assert "Overfull \\hbox" not in first.log
    run, badge, words = placed(tmp_path, "ownmacros", route, passes=1)
    assert_under(badge, words, "numbat", "corresponding")   # under the affiliation
    assert_centred_on(badge, words, "quokka")
    assert "Overfull \\hbox" not in run.log
    assert pith_title(run.pdf) == "Quokka Title in a Macro of the Class"


# -- a front matter typeset in place, small notes and a framed abstract after it (BMC) ------------
@pytest.mark.parametrize("route", ROUTES)
def test_the_fallback_stops_at_type_smaller_than_the_body_s(tmp_path, route):
    """bmcart stores no title (`No title block found'): the fallback found the title by its
    size, then followed the notes in \\scriptsize and the abstract's paragraphs after it, and
    put the badge in the abstract's frame. The block ends where type smaller than four fifths
    of the body's begins."""
    _run, badge, words = placed(tmp_path, "setinplace", route)
    assert_under(badge, words, "smith", "correspondence")
    assert all(badge.word.bottom < w.top for w in words_of(words, {"background:", "abstract"}))
    assert_flush_left_with(badge, words, "quokka")


# -- JINST: the block in registers of the package's own, a new page before the contents -----------
@pytest.mark.parametrize("route", ROUTES)
def test_jinstpub_s_badge_goes_under_the_e_mail_line_not_between_title_and_authors(tmp_path, route):
    """jinstpub keeps authors and affiliations in token registers (only the title is marked),
    and its \\maketitle ends with a new page for the contents: the badge after \\maketitle was on
    page 2, and position put it under the title, above the authors."""
    shutil.copy(FIXTURES / "jinstpub.sty", tmp_path / "jinstpub.sty")   # a stand-in, named as JINST's
    _run, badge, words = placed(tmp_path, "jinstblock", route)
    assert_under(badge, words, "email", "abstract")
    assert_flush_left_with(badge, words, "quokka")
