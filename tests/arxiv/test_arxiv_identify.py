"""Which arXiv paper a PDF says it is (issue 24, item 1): the stamp first, then the PDF's own
link or DOI, never a citation and never a guess. Pure functions over the texts a PDF offers."""

from __future__ import annotations

import pytest

from pithtex.arxiv.identify import doi_ids, identify, link_id, stamp_id
from pithtex.arxiv.ids import ArxivId
from pithtex.pdf.reader import html_problem


@pytest.mark.parametrize(("stamp", "paper", "version"), [
    ("arXiv:1706.03762v5  [cs.CL]  6 Dec 2017", "1706.03762", 5),
    ("arXiv:2104.04473v2 [cs.CL] 23 Aug 2021", "2104.04473", 2),
    ("arXiv:1412.6980v9 [cs.LG] 30 Jan 2017", "1412.6980", 9),  # four digits before 2015
    ("arXiv:hep-th/9901001v2  6 Jan 1999", "hep-th/9901001", 2),  # old style, no category
    ("arXiv:math/0309136v1 [math.AG] 8 Sep 2003", "math/0309136", 1),
    ("arXiv:cond-mat/0703999v3 [cond-mat.str-el] 1 Apr 2007", "cond-mat/0703999", 3),
    ("arXiv:math.AG/0309136v1 8 Sep 2003", "math.AG/0309136", 1),
    ("  arXiv : 1706.03762v5\n[cs.CL]\n6 Dec 2017", "1706.03762", 5),  # as a text layer may split it
])
def test_stamps(stamp, paper, version):
    assert stamp_id(stamp) == ArxivId(paper, version)
    found = identify(stamp, uris=["https://arxiv.org/abs/2301.00001"])  # the stamp outranks a link
    assert found is not None and found.arxiv == ArxivId(paper, version) and found.from_stamp
    assert found.describe() == f"arXiv's stamp {ArxivId(paper, version)}"


@pytest.mark.parametrize("text", [
    None, "", "arXiv", "Preprint. Under review.", "arXiv:0703.0001v1 [cs.CL] 1 Mar 2007",  # before new style
    "arXiv:1706.3762v5 [cs.CL]", "arXiv:foo-bar/9901001v1",
    "see arXiv:1706.03762v5 for details",
    "arXiv:hep-th/9901001v26Jan1999",  # spaces lost: v2 or v26? never guessed
])
def test_not_stamps(text):
    assert stamp_id(text) is None


def test_links_and_dois():
    assert link_id("https://arxiv.org/abs/1706.03762v5") == ArxivId("1706.03762", 5)
    assert link_id("http://export.arxiv.org/pdf/hep-th/9901001v2.pdf") == ArxivId("hep-th/9901001", 2)
    assert link_id("https://arxiv.org/abs/1706.03762?context=cs") == ArxivId("1706.03762")
    assert link_id("https://example.org/abs/1706.03762") is None
    assert link_id("https://arxiv.org/list/cs.CL/recent") is None
    assert doi_ids("doi: 10.48550/arXiv.2104.04473 and 10.48550/ARXIV.HEP-TH/9901001") == [ArxivId("2104.04473")]
    assert doi_ids("https://doi.org/10.48550/arXiv.1706.03762v5.") == [ArxivId("1706.03762", 5)]


def test_order_and_one_paper_only():
    link = identify(None, uris=["https://pith.science/pith/X", "https://arxiv.org/abs/2104.04473v3"])
    assert link is not None and (link.arxiv, link.where, link.stamp) == (ArxivId("2104.04473", 3),
                                                                         "page 1's arXiv link", None)
    # a page that links two papers is citing them: neither is its own
    assert identify(None, uris=["https://arxiv.org/abs/2104.04473", "https://arxiv.org/abs/1706.03762"]) is None
    # one paper linked twice, once with its version: that version
    twice = identify(None, uris=["https://arxiv.org/abs/2104.04473", "https://arxiv.org/abs/2104.04473v2"])
    assert twice is not None and twice.arxiv == ArxivId("2104.04473", 2)
    # two versions of one paper: which one this PDF is cannot be told
    assert identify(None, uris=["https://arxiv.org/abs/2104.04473v1", "https://arxiv.org/abs/2104.04473v2"]) is None
    info = identify(None, info=["A title", "10.48550/arXiv.2104.04473"], xmp="10.48550/arXiv.1706.03762")
    assert info is not None and (info.arxiv, info.where) == (ArxivId("2104.04473"), "Info's DOI")
    xmp = identify(None, xmp="<prism:doi>10.48550/arXiv.1706.03762</prism:doi>")
    assert xmp is not None and xmp.where == "XMP's DOI"
    page = identify(None, page_text="Title\nDOI: 10.48550/arXiv.1706.03762")
    assert page is not None and page.where == "page 1's DOI"


def test_citations_are_not_the_pdfs_own():
    """An id in page 1's prose (no stamp, no DOI) names another paper: no id at all."""
    text = "As shown by Vaswani et al. (arXiv:1706.03762v5) and in hep-th/9901001, attention ..."
    assert identify(None, page_text=text) is None
    assert identify("Journal of Machine Learning Research 21 (2020) 1-67", page_text=text) is None


@pytest.mark.parametrize("head", [b"<!DOCTYPE html><html>", b"\n  <html lang=en>", b"\xef\xbb\xbf<!doctype HTML>",
                                  b'<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml">'])
def test_html_saved_as_pdf(head):
    assert "HTML page" in (html_problem(head) or "")


@pytest.mark.parametrize("head", [b"%PDF-1.5\n", b"<?xml version='1.0'?><record/>", b"{}"])
def test_not_html(head):
    assert html_problem(head) is None
