"""The badge where a reader expects it in classes that build their title block their own way
(issue #33): a minimal class or paper per fault met in real papers, each compiled twice
(arXiv runs at least two passes; the first run has no positions yet) with real TeX, the PDF
read back: the badge's link and page with pypdf, the words' boxes with `pdftotext -bbox`.
"""

from __future__ import annotations

import pytest

from ..texrun import flat_log
from .test_sty_placement import page_words, words_of
from .test_sty_position import ROUTES, assert_centred_on, assert_under, assert_visible, compile_fixture, the_badge


# -- a \thanks that takes the authors' end mark into the footnote area (SIAM) --------------------
@pytest.mark.parametrize("route", ROUTES)
def test_a_mark_moved_into_a_footnote_is_not_the_end_of_the_block(tmp_path, route):
    """SIAM's \\maketitle splits each author at its \\thanks and makes the rest the note's
    text: the authors' end mark was typeset in the footnote at the page's foot, and the badge
    followed it there, under the notes."""
    run = compile_fixture(tmp_path, "thanksend", route)
    badge = the_badge(run.pdf)
    words = page_words(run.pdf, 1)
    assert badge.page == 1
    assert_visible(badge)
    assert_under(badge, words, "lovelace", "abstract")
    assert all(badge.word.bottom < w.top for w in words_of(words, {"numbat"}))   # above the note
    assert_centred_on(badge, words, "quokka")
