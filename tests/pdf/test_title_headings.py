"""Page 1's title is its title, not the headings below it (issue 32, found on papers-we-love's
PDFs): "Abstract" or "1 Introduction", set large in the top part below the authors, is no part
of the title a refusal quotes or a record's title is matched against; a banner larger than the
title, and a title's line set apart by a badge's small print beside it, stay. And a metadata
title with no word in it ("()") is not quoted as what the PDF names, and small capitals read as
words."""

from __future__ import annotations

from pathlib import Path

import pytest

from pithtex.pdf.page import read_page_one, title_text
from pithtex.pdf.shown import shown_of
from pithtex.verify import check_paper

from ..conftest import seed_doc
from ..viewkit import TITLE_A, line, paper


def _title(path: Path) -> str:
    return title_text(read_page_one(path)).replace("\n", " ")


@pytest.mark.parametrize("heading", ["Abstract", "1 Introduction", "§1 Introduction", "II. RELATED WORK",
                                     "Introduction", "2."])
def test_a_heading_below_the_authors_is_no_part_of_the_title(tmp_path, heading):
    page = paper(tmp_path / "p.pdf", line(TITLE_A, 20, 700) + line(heading, 17, 620))
    assert _title(page) == TITLE_A


def test_a_refusal_quotes_the_title_without_the_heading(tmp_path):
    page = paper(tmp_path / "p.pdf", line(TITLE_A, 20, 700) + line("Abstract", 17, 620))
    check = check_paper(seed_doc(), shown_of(page))  # the seed record: another paper
    assert check.status == "unknown"
    assert f'its title reads "{TITLE_A}";' in check.detail


def test_a_heading_beside_the_title_block_stays_where_nothing_sets_it_apart(tmp_path):
    """No smaller line of words between them: the line is the title's own, whatever it reads."""
    page = paper(tmp_path / "p.pdf", line("Efficient Routing", 20, 700) + line("1 In Sparse Expert Networks", 17, 676))
    assert _title(page) == "Efficient Routing 1 In Sparse Expert Networks"


def test_a_banner_larger_than_a_short_title_keeps_the_title(tmp_path):
    content = (line("Journal of Sparse Networks", 24, 745) + line("Contents lists available online", 9, 728)
               + line("Tilings", 20, 700))
    assert _title(paper(tmp_path / "p.pdf", content)) == "Journal of Sparse Networks Tilings"


def test_a_title_line_set_apart_by_a_badge_beside_it_stays(tmp_path):
    content = (line("Efficient Routing in", 20, 720) + line("Artifact", 8, 706, x=520)
               + line("Sparse Expert Networks", 20, 690))
    assert _title(paper(tmp_path / "p.pdf", content)) == TITLE_A


def test_a_footnote_mark_sets_nothing_apart(tmp_path):
    content = (line("Efficient Routing in Sparse", 20, 720) + line("*", 8, 706, x=400)
               + line("1 Expert Networks", 17, 690))
    assert _title(paper(tmp_path / "p.pdf", content)) == "Efficient Routing in Sparse 1 Expert Networks"


def test_a_metadata_title_with_no_letter_or_digit_names_nothing():
    """hyperref's empty title reaches some XMP as "()": a refusal quoted it as what the PDF names."""
    from pithtex.pdf.shown import Shown

    shown = Shown(page1=f"{TITLE_A}\nA. Author", largest=TITLE_A, xmp_title="()", info_title=" - ")
    assert shown.named() == []
    check = check_paper(seed_doc(), shown)
    assert check.status == "unknown" and "XMP" not in check.detail and "Info" not in check.detail


def test_small_capitals_read_as_words_and_a_raised_mark_stays_apart(tmp_path):
    """A capital at 20 pt and small capitals at 14 pt on its baseline are one word (ViT's title
    read "A N I MAGE IS W ORTH"); a footnote's mark raised right after a word is not part of it."""
    capital = 0.667 * 20  # Helvetica's A: 667/1000 em
    small = 9.501 * 14  # "N IMAGE IS WORTH" in Helvetica's widths
    content = (line("A", 20, 720) + line("N IMAGE IS WORTH", 14, 720, x=72 + capital)
               + line("1", 9, 727, x=72 + capital + small))
    assert _title(paper(tmp_path / "p.pdf", content)).startswith("AN IMAGE IS WORTH 1 A. Author")
