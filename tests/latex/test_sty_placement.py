"""Where the badge lands on page 1, per class and variant, read from the PDF's text boxes.

Each case compiles a small paper (title, two authors, an abstract, a few columns of
text) with pith.sty, then reads every word's box with `pdftotext -bbox` and the link's
rectangle with pypdf. The badge belongs to the title block: on page 1, below the
title and the authors, above the first line of body text in either column (so in a
two-column paper it spans the page, not the left column), above or below the abstract
as the class places the abstract (in the column, or in the spanning block), centred on
the text block, and clear of the left 40 pt where arXiv stamps.
"""

from __future__ import annotations

import html
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from ..conftest import BODY, URL
from ..texrun import compile_tex, flat_log, read_facts, write_doc

# Words that occur only in the body text: the first column's start and the text block's
# edges are read from them. Distinct from every word of the front matter.
FILLER_WORDS = ("kelp", "reef", "tide", "coral", "shoal", "lagoon", "atoll", "drift", "swell", "foam",
                "brine", "dune", "cove", "inlet", "estuary", "marsh", "delta", "fjord", "harbour",
                "jetty", "pier", "quay", "buoy", "anchor", "mooring", "ballast", "rudder", "keel",
                "hull", "mast", "sail")
TITLE_WORD = "Quokka"            # in the title
AUTHOR_WORD = "Lovelace"         # in the author block
ABSTRACT_WORD = "Numbat"         # first and last word of the abstract


def filler(paragraphs: int = 14) -> str:
    words = FILLER_WORDS
    out = []
    for p in range(paragraphs):
        sentence = [words[(p * 7 + i * 3) % len(words)] for i in range(90)]
        out.append(" ".join(sentence).capitalize() + ".")
    return "\n\n".join(out)


ABSTRACT_TEXT = (f"{ABSTRACT_WORD} abstract text that says what the paper shows, in a few "
                 f"plain sentences about identifiers and their placement. {ABSTRACT_WORD}")
TITLE = f"Placement of the {TITLE_WORD} Badge in Spanning Title Blocks"


def plain_front(maketitle_first: bool) -> str:
    """Title, authors and abstract the way article-like classes take them."""
    abstract = f"\\begin{{abstract}}\n{ABSTRACT_TEXT}\n\\end{{abstract}}\n"
    head = f"\\title{{{TITLE}}}\n\\author{{Ada {AUTHOR_WORD} \\and Alan Turing}}\n"
    return head + ("\\maketitle\n" + abstract if maketitle_first else abstract + "\\maketitle\n")


IEEE_FRONT = (f"\\title{{{TITLE}}}\n\\author{{\\IEEEauthorblockN{{Ada {AUTHOR_WORD}}}\n"
              "\\IEEEauthorblockA{Analytical Engine Society}\n\\and\n"
              "\\IEEEauthorblockN{Alan Turing}\n\\IEEEauthorblockA{Bletchley Park}}\n"
              f"\\maketitle\n\\begin{{abstract}}\n{ABSTRACT_TEXT}\n\\end{{abstract}}\n")
REVTEX_FRONT = (f"\\title{{{TITLE}}}\n\\author{{Ada {AUTHOR_WORD}}}\n"
                "\\affiliation{Analytical Engine Society}\n\\author{Alan Turing}\n"
                "\\affiliation{Bletchley Park}\n"
                f"\\begin{{abstract}}\n{ABSTRACT_TEXT}\n\\end{{abstract}}\n\\maketitle\n")
ACM_FRONT = (f"\\title{{{TITLE}}}\n\\author{{Ada {AUTHOR_WORD}}}\n"
             "\\affiliation{\\institution{Analytical Engine Society}\\country{UK}}\n"
             "\\author{Alan Turing}\n\\affiliation{\\institution{Bletchley Park}\\country{UK}}\n"
             f"\\begin{{abstract}}\n{ABSTRACT_TEXT}\n\\end{{abstract}}\n\\maketitle\n")
ELS_FRONT = (f"\\begin{{frontmatter}}\n\\title{{{TITLE}}}\n\\author{{Ada {AUTHOR_WORD}}}\n"
             "\\author{Alan Turing}\n\\affiliation{organization={Bletchley Park},country={UK}}\n"
             f"\\begin{{abstract}}\n{ABSTRACT_TEXT}\n\\end{{abstract}}\n\\end{{frontmatter}}\n")
LLNCS_FRONT = (f"\\title{{{TITLE}}}\n\\author{{Ada {AUTHOR_WORD} \\and Alan Turing}}\n"
               "\\institute{Analytical Engine Society \\and Bletchley Park}\n\\maketitle\n"
               f"\\begin{{abstract}}\n{ABSTRACT_TEXT}\n\\end{{abstract}}\n")

SPANNING = "Badge placed in the title block across both columns"
REVTEX = "Badge placed at the end of revtex's title block"
REVTEX_PREPRINT = "Badge placed under the authors in revtex's title block (preprint)"
AFTER = "Badge placed after \\maketitle"


@dataclass(frozen=True)
class Variant:
    documentclass: str
    front: str
    abstract: str        # "column": the abstract comes after the badge; "block": before it
    log: str             # the log line that says where the badge went
    columns: int = 2
    body_on_page_1: bool = True


VARIANTS = {
    "article-twocolumn": Variant("\\documentclass[twocolumn]{article}", plain_front(True), "column", SPANNING),
    # The spanning block many authors build themselves, around \\maketitle and the abstract.
    "article-twocolumn-own-block": Variant(
        "\\documentclass[twocolumn]{article}",
        "\\twocolumn[\\begin{@twocolumnfalse}\n" + plain_front(True) + "\\end{@twocolumnfalse}]\n",
        "column", AFTER),
    "article": Variant("\\documentclass{article}", plain_front(True), "column", AFTER, 1),
    "IEEEtran-journal": Variant("\\documentclass[journal]{IEEEtran}", IEEE_FRONT, "column", SPANNING),
    "IEEEtran-conference": Variant("\\documentclass[conference]{IEEEtran}", IEEE_FRONT, "column", SPANNING),
    "revtex4-2-reprint": Variant("\\documentclass[aps,prd,reprint]{revtex4-2}", REVTEX_FRONT, "block", REVTEX),
    # The class breaks the page before the abstract in preprint style: page 1 is title and
    # authors only, so the badge goes under the authors.
    "revtex4-2-preprint": Variant("\\documentclass[aps,prd,preprint]{revtex4-2}", REVTEX_FRONT, "column",
                                  REVTEX_PREPRINT, 1, body_on_page_1=False),
    "acmart-sigconf": Variant("\\documentclass[sigconf,nonacm]{acmart}", ACM_FRONT, "column", SPANNING),
    "acmart-acmsmall": Variant("\\documentclass[acmsmall,nonacm]{acmart}", ACM_FRONT, "block", AFTER, 1),
    "acmart-manuscript": Variant("\\documentclass[manuscript,nonacm]{acmart}", ACM_FRONT, "block", AFTER, 1),
    "elsarticle-5p": Variant("\\documentclass[5p]{elsarticle}", ELS_FRONT, "block", SPANNING),
    "elsarticle-preprint": Variant("\\documentclass[preprint]{elsarticle}", ELS_FRONT, "block", AFTER, 1),
    "llncs": Variant("\\documentclass{llncs}", LLNCS_FRONT, "column", AFTER, 1),
}
# pdflatex everywhere; arXiv's default route (latex -> dvips -> ps2pdf), xelatex and lualatex on some.
CASES = [(name, "pdflatex") for name in VARIANTS]
CASES += [(name, "dvips") for name in ("article-twocolumn", "IEEEtran-journal", "revtex4-2-reprint",
                                       "acmart-sigconf", "elsarticle-5p")]
CASES += [(name, "xelatex") for name in ("article-twocolumn", "IEEEtran-conference", "revtex4-2-reprint")]
CASES += [("elsarticle-5p", "lualatex")]


def paper(variant: Variant, options: str = "", extra_body: str = "", preamble: str = "") -> str:
    opts = f"[{options}]" if options else ""
    # revtex and acmart take the front matter inside the document, the others anywhere.
    return (f"{variant.documentclass}\n{preamble}\\usepackage{opts}{{pith}}\n\\pithnumber{{{BODY}}}\n"
            f"\\begin{{document}}\n{variant.front}\n\\section{{Introduction}}\n{extra_body}"
            f"{filler()}\n\\end{{document}}\n")


@dataclass(frozen=True)
class Word:
    text: str
    x0: float
    top: float
    x1: float
    bottom: float   # pdftotext's y grows downwards


def page_words(pdf: Path, page: int = 1) -> list[Word]:
    out = subprocess.run(["pdftotext", "-bbox", "-f", str(page), "-l", str(page), str(pdf), "-"],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    pattern = r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>'
    return [Word(html.unescape(m[4]), float(m[0]), float(m[1]), float(m[2]), float(m[3]))
            for m in re.findall(pattern, out)]


def bare(word: Word) -> str:
    return re.sub(r"[^a-z]", "", word.text.lower())


def words_of(words: list[Word], wanted: set[str]) -> list[Word]:
    return [w for w in words if bare(w) in wanted]


def compile_paper(tmp_path: Path, text: str, route: str):
    write_doc(tmp_path, text)
    run = compile_tex(tmp_path, route)
    assert run.pdf is not None, run.log[-1500:]
    assert "! " not in "\n".join(line[:2] for line in run.log.splitlines()), run.log[-1500:]
    return run


def badge_box(run) -> tuple[Word, list[float]]:
    """The badge's word on page 1 and its link's rectangle (x0, top, x1, bottom), top down."""
    facts = read_facts(run.pdf)
    assert facts.link_uris.count(URL) == 1, facts.link_uris
    left, bottom, right, top = facts.page_box
    x0, y0, x1, y1 = facts.link_rects[facts.link_uris.index(URL)]
    link = [min(x0, x1) - left, top - max(y0, y1), max(x0, x1) - left, top - min(y0, y1)]
    assert link[0] >= 40 and link[2] <= right - left and link[1] >= 0 and link[3] <= top - bottom, link
    found = [w for w in page_words(run.pdf) if w.text == f"pith:{BODY}"]
    assert len(found) == 1, "the badge is not on page 1"
    return found[0], link


@pytest.mark.parametrize(("name", "route"), CASES, ids=[f"{n}-{r}" for n, r in CASES])
def test_badge_is_part_of_the_title_block(tmp_path, name, route):
    variant = VARIANTS[name]
    assert_in_title_block(compile_paper(tmp_path, paper(variant), route), variant)


# hyperref wraps \maketitle (revtex takes it back); acmart loads hyperref itself.
@pytest.mark.parametrize("name", ["IEEEtran-conference", "revtex4-2-reprint", "article-twocolumn"])
def test_hyperref_loaded_first_changes_nothing(tmp_path, name):
    variant = VARIANTS[name]
    run = compile_paper(tmp_path, paper(variant, preamble="\\usepackage{hyperref}\n"), "pdflatex")
    assert_in_title_block(run, variant)


def assert_in_title_block(run, variant: Variant) -> None:
    badge, link = badge_box(run)
    words = page_words(run.pdf)
    title = words_of(words, {TITLE_WORD.lower()})
    authors = words_of(words, {AUTHOR_WORD.lower()})
    abstract = words_of(words, {ABSTRACT_WORD.lower()})
    body = words_of(words, set(FILLER_WORDS))
    assert title and authors and (len(body) > 100) == variant.body_on_page_1, (title, authors, len(body))
    # The text block's edges, read from the justified body text (page 2 when page 1 has none).
    edges = body or words_of(page_words(run.pdf, 2), set(FILLER_WORDS))
    block_left, block_right = min(w.x0 for w in edges), max(w.x1 for w in edges)

    # The link covers the badge's text (the logo is drawn to its left, inside the link);
    # pdftotext's word box follows the font's bounding box, TeX's link its own box.
    assert link[0] <= badge.x0 + 1.5 and badge.x1 <= link[2] + 1.5
    assert link[1] <= (badge.top + badge.bottom) / 2 <= link[3]
    # Clear of arXiv's stamp (checked in badge_box), centred on the text block.
    assert abs((link[0] + link[2]) / 2 - (block_left + block_right) / 2) < 2.0, (link, block_left, block_right)
    # Under the title and the authors (their first appearance: acmart repeats the
    # authors in a footnote), above the first line of every column.
    assert badge.top > max(min(group, key=lambda w: w.top).bottom for group in (title, authors))
    assert all(badge.bottom < w.top for w in body)
    middle = (block_left + block_right) / 2
    if body:  # two columns: no line crosses the gutter, and the right column has text
        straddling = [w for w in body if w.x0 < middle < w.x1]
        assert (not straddling and any(w.x0 > middle for w in body)) == (variant.columns == 2)
    if variant.abstract == "block":
        assert abstract and badge.top > max(w.bottom for w in abstract)
    else:  # in the column below, or on a later page
        assert all(badge.bottom < w.top for w in abstract)
    assert variant.log in flat_log(run.log)


def test_badge_manual_stays_where_the_author_puts_it(tmp_path):
    variant = VARIANTS["article-twocolumn"]
    run = compile_paper(tmp_path, paper(variant, "badge=manual", "Kelp \\pithbadge{} reef.\n\n"), "pdflatex")
    badge, _link = badge_box(run)
    body = words_of(page_words(run.pdf), set(FILLER_WORDS))
    # In the left column's text, beside the words written around it; none of the title paths.
    assert min(w.top for w in body) < badge.top and "Badge placed" not in flat_log(run.log)


def test_one_badge_when_the_title_block_spans_two_pages_worth_of_calls(tmp_path):
    """\\twocolumn is unwrapped after \\maketitle: a later \\twocolumn[...] gets no badge."""
    variant = VARIANTS["article-twocolumn"]
    extra = "\\twocolumn[\\section*{Kelp reef spanning heading}]\n"
    run = compile_paper(tmp_path, paper(variant, extra_body=extra), "pdflatex")
    facts = read_facts(run.pdf)
    assert facts.link_uris.count(URL) == 1
    assert flat_log(run.log).count("Badge placed") == 1


# Structures met in real papers (issue #10: public papers compiled with pith added;
# bench/realpapers.py). Conference style files (cvpr, ijcai, aaai) load after pith and
# redefine \maketitle as their own \twocolumn[...] block; icml-like styles set the title
# block with \twocolumn[...] in the document and never call \maketitle.
STYLE_MAKETITLE = ("\\makeatletter\n\\def\\maketitle{\\par\\begingroup\\def\\thefootnote{\\fnsymbol{footnote}}"
                   "\\twocolumn[\\@maketitle]\\@thanks\\endgroup\\setcounter{footnote}{0}"
                   "\\let\\maketitle\\relax\\let\\@maketitle\\relax}\n\\makeatother\n")
OWN_TWOCOLUMN_FRONT = (f"\\twocolumn[\\centering{{\\Large\\bfseries {TITLE}\\par}}\\vskip 1em\n"
                       f"{{Ada {AUTHOR_WORD} \\quad Alan Turing\\par}}\\vskip 1em]\n"
                       f"\\begin{{abstract}}\n{ABSTRACT_TEXT}\n\\end{{abstract}}\n")


def test_style_file_after_pith_that_redefines_maketitle(tmp_path):
    variant = VARIANTS["article-twocolumn"]
    text = paper(variant).replace("\\begin{document}", STYLE_MAKETITLE + "\\begin{document}")
    assert_in_title_block(compile_paper(tmp_path, text, "pdflatex"), variant)


@pytest.mark.parametrize("route", ["pdflatex", "dvips"])
def test_title_block_set_with_twocolumn_and_no_maketitle(tmp_path, route):
    variant = Variant("\\documentclass[twocolumn]{article}", OWN_TWOCOLUMN_FRONT, "column", SPANNING)
    assert_in_title_block(compile_paper(tmp_path, paper(variant), route), variant)


def test_log_says_where_in_plain_words(tmp_path):
    """The log names the path as a reader would type it: `(\\twocolumn[...])`, no l3 code."""
    run = compile_paper(tmp_path, paper(VARIANTS["article-twocolumn"]), "pdflatex")
    assert f"{SPANNING} (\\twocolumn[...])" in flat_log(run.log).replace("\n(pith)", "").replace("  ", " ")


# revtex sets its title block on the main vertical list: a long abstract (aastex
# `twocolumn` papers, whose keywords then start page 2) or a collaboration's author list
# runs past page 1. The .aux of one run tells the next where the block ended; the badge
# then goes under the authors, or under the title, on page 1 (two passes, as papers are
# compiled; checked stable over more passes with bench/realpapers.py).
def revtex_long_front(abstract_repeats: int, extra_authors: int) -> str:
    authors = "".join(f"\\author{{Member {i}}}\n\\affiliation{{Institute number {i}, Some City}}\n"
                      for i in range(extra_authors))
    abstract = " ".join([ABSTRACT_TEXT] * abstract_repeats)
    return (f"\\title{{{TITLE}}}\n\\author{{Ada {AUTHOR_WORD}}}\n\\affiliation{{Analytical Engine Society}}\n"
            f"{authors}\\begin{{abstract}}\n{abstract}\n\\end{{abstract}}\n\\maketitle\n")


@pytest.mark.parametrize(("abstract_repeats", "extra_authors", "where"), [
    (70, 0, "under the authors in revtex's title block (it ran past page 1)"),
    (2, 90, "under the title in revtex's title block (it ran past page 1)"),
], ids=["long-abstract", "long-author-list"])
def test_revtex_title_block_longer_than_page_1(tmp_path, abstract_repeats, extra_authors, where):
    variant = Variant("\\documentclass[aps,prd,reprint]{revtex4-2}",
                      revtex_long_front(abstract_repeats, extra_authors), "column", REVTEX, body_on_page_1=False)
    write_doc(tmp_path, paper(variant))
    compile_tex(tmp_path, "pdflatex")  # no .aux yet: at the end, or at the top of page 1
    run = compile_tex(tmp_path, "pdflatex")
    assert run.pdf is not None and "! " not in "\n".join(line[:2] for line in run.log.splitlines())
    badge, link = badge_box(run)   # on page 1, clear of the left 40 pt
    words = page_words(run.pdf)
    title = words_of(words, {TITLE_WORD.lower()})
    authors = words_of(words, {AUTHOR_WORD.lower()})
    assert badge.top > max(w.bottom for w in title)
    if extra_authors:   # right under the title, above every author
        assert all(badge.bottom < w.top for w in authors)
    else:               # under the authors, above the abstract
        assert badge.top > max(w.bottom for w in authors)
        assert all(badge.bottom < w.top for w in words_of(words, {ABSTRACT_WORD.lower()}))
    # Centred as the title is (the title's line, read from its words).
    line = [w for w in words if abs(w.top - title[0].top) < 1]
    assert abs((link[0] + link[2]) / 2 - (min(w.x0 for w in line) + max(w.x1 for w in line)) / 2) < 2.0
    assert where in " ".join(flat_log(run.log).replace("(pith)", " ").split())
