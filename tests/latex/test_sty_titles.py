"""The badge under title blocks pith.sty did not find before, and withheld from review copies.

Real compiles read back with `pdftotext -bbox` (where each word is) and pypdf (links, Info,
XMP). Classes that TeX Live has are used as they are (Elsevier cas-dc, KOMA-Script,
beamer and its themes); IOP's iopart, LIPIcs and the conferences' style files are not in
TeX Live, so each test writes a small stand-in of its own that signals its title block or
its review mode the way the real file does (the same class or package name, option
names and \\if flags), and nothing else of it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ..conftest import BODY, URL, example_paper
from ..texrun import compile_tex, flat_log, read_facts, write_doc
from .test_sty_placement import Word, bare, compile_paper, page_words, words_of

BADGE = f"pith:{BODY}"
NUMBER = f"\\usepackage{{pith}}\n\\pithnumber{{{BODY}}}\n"
PT_TO_BP = 72 / 72.27


def badge_on(pdf: Path, pages: int) -> tuple[int, Word]:
    """The one page among the first `pages` that carries the badge, and its word."""
    pages = min(pages, read_facts(pdf).pages)
    found = [(n, w) for n in range(1, pages + 1) for w in page_words(pdf, n) if w.text == BADGE]
    assert len(found) == 1, found
    return found[0]


def landed(log: str) -> list[str]:
    """What pith.sty wrote to the log about where the badge went."""
    return re.findall(r"^pith badge: (.*)$", log, re.M)


# -- title blocks ------------------------------------------------------------------------
CAS = ("\\documentclass[a4paper]{cas-dc}\n\\usepackage{natbib}\n" + NUMBER +
       "\\begin{document}\n\\shorttitle{Quokka}\\shortauthors{Lovelace}\n"
       "\\title[mode=title]{The Quokka Title of the Paper}\n\\author[1]{Ada Lovelace}\n"
       "\\affiliation[1]{organization={Bletchley Park},country={UK}}\n"
       "\\begin{abstract}Numbat abstract text.\\end{abstract}\n"
       "\\begin{graphicalabstract}Wombat graphical abstract\\end{graphicalabstract}\n"
       "\\begin{highlights}\\item Wombat highlight\\end{highlights}\n"
       "\\begin{keywords}alpha \\sep beta\\end{keywords}\n\\maketitle\n\\section{Intro}\nKelp reef tide.\n"
       "\\end{document}\n")


def test_cas_dc_badge_on_the_title_page_after_graphical_abstract_and_highlights(tmp_path):
    run = compile_paper(tmp_path, CAS, "pdflatex")
    page, badge = badge_on(run.pdf, 3)
    words = page_words(run.pdf, page)
    title, abstract = words_of(words, {"quokka"}), words_of(words, {"numbat"})
    body = words_of(words, {"kelp", "tide"})
    # Pages 1 and 2 are the graphical abstract and the highlights; the title is on page 3.
    assert page == 3 and title and abstract
    # Under the whole title block (title, authors, abstract), above the text; flush left
    # as the block is.
    assert badge.top > max(w.bottom for w in title + abstract)
    assert all(badge.bottom < w.top for w in body if w.top > title[0].top)
    assert abs(badge_left(run.pdf, page) - line_left(words, title[0])) < 2.0
    assert landed(run.log) == ["page 3, title"]
    assert "Package pith Warning" not in run.log


def line_left(words: list[Word], word: Word) -> float:
    """Where the line that holds `word` starts."""
    return min(w.x0 for w in words if abs(w.top - word.top) < 1)


def badge_left(pdf: Path, page: int) -> float:
    """The left edge of the badge's link (the logo is drawn inside it, left of the text)."""
    from pypdf import PdfReader

    reader = PdfReader(str(pdf))
    p = reader.pages[page - 1]
    rects = [[float(v) for v in a.get_object()["/Rect"]] for a in p.get("/Annots") or []
             if a.get_object().get("/A") and a.get_object()["/A"].get("/URI") == URL]
    assert len(rects) == 1, rects
    return min(rects[0][0], rects[0][2]) - float(p.mediabox[0])


TITLEPAGE_FRONT = ("\\title{The Quokka Title}\n\\author{Ada Lovelace}\n\\date{Wombat 2024}\n"
                   "\\begin{document}\n\\maketitle\nKelp reef tide.\n\\end{document}\n")


@pytest.mark.parametrize("documentclass", ["\\documentclass[titlepage=true]{scrartcl}",
                                           "\\documentclass[titlepage=true,twoside]{scrartcl}",
                                           "\\documentclass[titlepage]{article}"])
def test_title_page_carries_the_badge_under_the_date(tmp_path, documentclass):
    run = compile_paper(tmp_path, f"{documentclass}\n{NUMBER}{TITLEPAGE_FRONT}", "pdflatex")
    page, badge = badge_on(run.pdf, 2)
    words = page_words(run.pdf, 1)
    date = words_of(words, {"wombat"})
    assert page == 1 and date
    # Right under the date (within a few lines), centred on it as the title page is.
    assert 0 < badge.top - date[0].bottom < 30
    line = [w for w in words if abs(w.top - date[0].top) < 1]
    left = badge_left(run.pdf, 1)
    centre = (min(w.x0 for w in line) + max(w.x1 for w in line)) / 2
    assert abs((left + badge.x1) / 2 - centre) < 2.0
    assert landed(run.log) == ["page 1, title"]
    assert "Badge placed under the date on the title page" in flat_log(run.log)


# iopart: \title, \author and \address set the title block where they stand, flush left;
# \maketitle is only \newpage. A stand-in with the same structure (not IOP's code).
IOPART = r"""\ProvidesClass{iopart}[2000/01/01 stand-in for IOP's iopart]
\LoadClass{article}
\renewcommand\maketitle{\newpage}
\renewcommand\title[1]{\vspace*{3pc}{\Large\bfseries\raggedright\noindent #1\par}}
\renewcommand\author[1]{\vspace*{1.5pc}{\raggedright\noindent\bfseries #1\par}}
\newcommand\address[1]{{\raggedright\noindent #1\par}}
\renewenvironment{abstract}{\vspace{16pt}\noindent{\bfseries Abstract.}\quad}{\par}
"""
IOPART_PAPER = ("\\documentclass{iopart}\n" + NUMBER + "\\begin{document}\n\\title{The Quokka Title}\n"
                "\\author{Ada Lovelace}\n\\address{Bletchley Park, Wombat Lane}\n"
                "\\begin{abstract}Numbat abstract.\\end{abstract}\n\\maketitle\n"
                "\\section{Intro}\nKelp reef tide.\n\\end{document}\n")

# LIPIcs: a flush-left title block, and lineno numbering every line; `anonymous` lets
# \authoranonymous be \relax. A stand-in with the same signals (not Dagstuhl's code).
LIPICS = r"""\ProvidesClass{lipics-v2021}[2000/01/01 stand-in for LIPIcs]
\DeclareOption{anonymous}{\let\authoranonymous\relax}
\ProcessOptions\relax
\LoadClass{article}
\RequirePackage[left]{lineno}
\linenumbers
\renewcommand\maketitle{\par\begingroup\parindent0pt\raggedright
  {\LARGE\sffamily\bfseries\@title\par}\vskip 1em{\@author\par}\endgroup}
"""
LIPICS_PAPER = ("\\documentclass{lipics-v2021}\n" + NUMBER + "\\title{The Quokka Title}\n"
                "\\author{Ada Lovelace, Bletchley Park}\n\\begin{document}\n\\maketitle\n"
                "\\begin{abstract}Numbat abstract.\\end{abstract}\n\\section{Intro}\n"
                + "Kelp reef tide coral shoal. " * 60 + "\n\\end{document}\n")


@pytest.mark.parametrize(("cls", "paper"), [(IOPART, IOPART_PAPER), (IOPART, IOPART_PAPER.replace("\\maketitle\n", "")),
                                            (LIPICS, LIPICS_PAPER)],
                         ids=["iopart", "iopart-without-maketitle", "lipics"])
def test_flush_left_title_blocks_get_a_flush_left_badge(tmp_path, cls, paper):
    name = re.search(r"\\ProvidesClass\{([^}]+)\}", cls)[1]
    (tmp_path).mkdir(exist_ok=True)
    (tmp_path / f"{name}.cls").write_text(cls)
    run = compile_paper(tmp_path, paper, "pdflatex")
    page, badge = badge_on(run.pdf, 2)
    words = page_words(run.pdf, 1)
    title = words_of(words, {"quokka"})
    # iopart's title block ends with the abstract (its \\maketitle, when there is one,
    # follows it and ends the page); LIPIcs' with the authors, the abstract following.
    last = words_of(words, {"numbat"} if name == "iopart" else {"lovelace"})
    below = words_of(words, {"kelp"} if name == "iopart" else {"kelp", "numbat"})
    assert page == 1 and title and last and (not below) == ("\\maketitle" in paper and name == "iopart")
    assert badge.top > last[0].bottom and abs(badge_left(run.pdf, 1) - line_left(words, title[0])) < 2.0
    assert all(badge.bottom < w.top for w in below)
    # No line number beside it (lineno numbers the LIPIcs text lines, at the left).
    numbers = [w for w in words if w.text.isdigit() and w.x1 < title[0].x0]
    assert all(not (w.top < (badge.top + badge.bottom) / 2 < w.bottom) for w in numbers), numbers
    if name == "lipics-v2021":
        assert numbers, "lineno numbers the body lines"
    assert landed(run.log) == ["page 1, title"] and "Package pith Warning" not in run.log


# beamer: the badge inside the title frame, under title, author and date, clear of the
# headline and footline each theme draws (their heights read from the log).
BEAMER = (f"\\documentclass{{beamer}}\n\\usetheme{{{{THEME}}}}\n{NUMBER}"
          "\\title{The Quokka Title}\\author{Ada Lovelace}\\institute{Bletchley}\\date{Wombat 2024}\n"
          "\\begin{document}\n\\begin{frame}\\titlepage\n\\typeout{PITHTEST \\the\\headheight\\space"
          "\\the\\footheight\\space\\the\\paperheight}\\end{frame}\n\\section{Intro}\n"
          "\\begin{frame}{Kelp}Kelp reef.\\end{frame}\n\\section{More}\n\\begin{frame}{Tide}Tide.\\end{frame}\n"
          "\\end{document}\n")


@pytest.mark.parametrize("theme", ["default", "Berlin", "Warsaw", "Madrid", "metropolis"])
def test_beamer_badge_in_the_title_frame(tmp_path, theme):
    write_doc(tmp_path, BEAMER.replace("{THEME}", theme))
    compile_tex(tmp_path, "pdflatex")  # the .nav gives the headline its sections next time
    run = compile_paper(tmp_path, BEAMER.replace("{THEME}", theme), "pdflatex")
    page, badge = badge_on(run.pdf, 3)
    words = page_words(run.pdf, 1)
    title, author, date = (words_of(words, {w}) for w in ("quokka", "lovelace", "wombat"))
    assert page == 1 and title and author and date
    first = [min(g, key=lambda w: w.top) for g in (title, author, date)]
    assert badge.top > max(w.bottom for w in first) and badge.top - first[2].bottom < 30
    head, foot, height = (float(x[:-2]) * PT_TO_BP
                          for x in re.search(r"PITHTEST (\S+) (\S+) (\S+)", run.log).groups())
    assert badge.top > head and badge.bottom < height - foot, (badge, head, foot, height)
    # Aligned with the date line: centred in most themes, flush left in metropolis', whose
    # text starts 1 cm from the page's edge, inside the 40 bp band where arXiv stamps page 1:
    # the badge then starts just right of that band, not in it.
    left = badge_left(run.pdf, 1)
    if theme == "metropolis":
        assert first[2].x0 < 40 <= left < 41.5, (left, first[2].x0)
    else:
        assert abs((left + badge.x1) / 2 - (first[2].x0 + first[2].x1 + 0) / 2) < 25
        assert abs((left + badge.x1) / 2 - (title[0].x0 + max(w.x1 for w in title)) / 2) < 25
    assert landed(run.log) == ["page 1, title"] and "Package pith Warning" not in run.log


# -- the project's examples of these title blocks (the manual shows their page 1) ------------
# beamer: the first frame's headline and footline heights (beamer sets them per frame).
HEAD_FOOT = ("\\AddToHookNext{shipout/before}{\\typeout{PITHTEST \\the\\headheight\\space"
             "\\the\\footheight\\space\\the\\paperheight}}\n")


def example_run(tmp_path: Path, cls: str):
    """examples/<cls> compiled twice with pdflatex (beamer's headline needs its .nav), the
    probe above added to a copy for beamer."""
    folder = example_paper(cls, tmp_path / cls)
    if cls == "beamer":
        tex = folder / "paper.tex"
        tex.write_text(tex.read_text().replace("\\begin{document}", HEAD_FOOT + "\\begin{document}", 1))
    compile_tex(folder, "pdflatex")
    run = compile_tex(folder, "pdflatex")
    assert run.pdf is not None and "! " not in "\n".join(line[:2] for line in run.log.splitlines()), run.log[-1500:]
    assert landed(run.log) == ["page 1, title"] and "Package pith Warning" not in run.log
    return run


def linked_badge(pdf: Path) -> tuple[int, Word]:
    """The page that holds the document's one badge link (pypdf), and the badge's word on
    it: the one inside that link (the examples also print \\pithlong in their text)."""
    from pypdf import PdfReader

    reader = PdfReader(str(pdf))
    links = [(n, [float(v) for v in a.get_object()["/Rect"]], page.mediabox)
             for n, page in enumerate(reader.pages, 1) for a in page.get("/Annots") or []
             if a.get_object().get("/A") and a.get_object()["/A"].get("/URI") == URL]
    assert len(links) == 1, links
    n, (x0, y0, x1, y1), box = links[0]
    left, top = float(box[0]), float(box[3])
    inside = [w for w in page_words(pdf, n) if w.text == BADGE
              and min(x0, x1) - left - 1 <= w.x0 and w.x1 <= max(x0, x1) - left + 1
              and top - max(y0, y1) - 1 <= w.top and w.bottom <= top - min(y0, y1) + 1]
    assert len(inside) == 1, inside
    return n, inside[0]


def test_example_cas_dc_badge_flush_left_under_the_title_block(tmp_path):
    run = example_run(tmp_path, "cas-dc")
    page, badge = linked_badge(run.pdf)
    words = page_words(run.pdf, 1)
    title, abstract = words_of(words, {"papers"}), words_of(words, {"engine"})  # title, abstract's end
    heading = words_of(words, {"introduction"})
    assert page == 1 and title and abstract and heading
    # Under the title block (title, authors, abstract and keywords), above section 1, flush
    # left with the title.
    assert badge.top > max(w.bottom for w in title + abstract) and badge.bottom < heading[0].top
    assert abs(badge_left(run.pdf, 1) - line_left(words, title[0])) < 2.0


def test_example_scrartcl_badge_under_the_date_on_its_title_page(tmp_path):
    run = example_run(tmp_path, "scrartcl")
    page, badge = linked_badge(run.pdf)
    words = page_words(run.pdf, 1)
    date = words_of(words, {"december"})
    assert page == 1 and date and not words_of(words, {"introduction"})  # page 1 is the title page
    assert 0 < badge.top - date[0].bottom < 30
    line = [w for w in words if abs(w.top - date[0].top) < 1]
    centre = (min(w.x0 for w in line) + max(w.x1 for w in line)) / 2
    assert abs((badge_left(run.pdf, 1) + badge.x1) / 2 - centre) < 2.0


def test_example_beamer_badge_in_the_title_frame_clear_of_the_bars(tmp_path):
    run = example_run(tmp_path, "beamer")
    page, badge = linked_badge(run.pdf)
    words = page_words(run.pdf, 1)
    date, title = words_of(words, {"december"}), words_of(words, {"identifier"})
    assert page == 1 and date and title
    # Warsaw's headline names the sections (the first one opens before the title frame).
    headline = [w for w in words if bare(w) == "introduction"]
    head, foot, height = (float(x[:-2]) * PT_TO_BP
                          for x in re.search(r"PITHTEST (\S+) (\S+) (\S+)", run.log).groups())
    assert headline and all(w.bottom <= head for w in headline) and head > 0 and foot > 0
    assert 0 < badge.top - date[0].bottom < 30 and badge.top > head and badge.bottom < height - foot
    line = [w for w in words if abs(w.top - date[0].top) < 1]
    centre = (min(w.x0 for w in line) + max(w.x1 for w in line)) / 2
    assert abs((badge_left(run.pdf, 1) + badge.x1) / 2 - centre) < 2.0


def test_no_title_block_warns_and_says_so_in_the_log(tmp_path):
    text = "\\documentclass{article}\n" + NUMBER + "\\begin{document}\nKelp reef.\n\\end{document}\n"
    run = compile_paper(tmp_path, text, "pdflatex")
    assert landed(run.log) == ["page 1, fallback"]
    assert "Package pith Warning: No title block found before page 1" in flat_log(run.log)


def test_manual_badge_says_where_it_went(tmp_path):
    text = ("\\documentclass{article}\n\\usepackage[badge=manual]{pith}\n\\pithnumber{" + BODY + "}\n"
            "\\begin{document}\nKelp.\\newpage Reef \\pithbadge.\n\\end{document}\n")
    run = compile_paper(tmp_path, text, "pdflatex")
    assert landed(run.log) == ["page 2, manual"] and "Package pith Warning" not in run.log


# -- review copies -----------------------------------------------------------------------
# Each venue's stand-in: its package name, the options it takes and the flag or macro by
# which the real style file tells review from final (the real files are not in TeX Live).
VENUES = {
    "acl": r"""\ProvidesPackage{acl}
\newif\ifacl@anonymize
\DeclareOption{final}{\acl@anonymizefalse}
\DeclareOption{review}{\acl@anonymizetrue}
\DeclareOption{preprint}{\acl@anonymizefalse}
\ProcessOptions\relax""",
    "neurips_2025": r"""\ProvidesPackage{neurips_2025}
\newif\if@neuripsfinal\@neuripsfinalfalse
\newif\if@preprint\@preprintfalse
\DeclareOption{final}{\@neuripsfinaltrue}
\DeclareOption{preprint}{\@preprinttrue}
\ProcessOptions\relax""",
    "neurips_2026": r"""\ProvidesPackage{neurips_2026}
\newif\if@neuripsfinal\@neuripsfinalfalse
\newif\if@anonymous\@anonymoustrue
\DeclareOption{final}{\@neuripsfinaltrue\@anonymousfalse}
\DeclareOption{dblblindworkshop}{}
\DeclareOption{nonanonymous}{\@anonymousfalse}
\ProcessOptions\relax""",
    "icml2025": r"""\ProvidesPackage{icml2025}
\DeclareOption{accepted}{\gdef\isaccepted{1}}
\newcommand{\ICML@appearing}{Proceedings.}
\ProcessOptions\relax""",
    "iclr2025_conference": r"""\ProvidesPackage{iclr2025_conference}
\newif\ificlrfinal
\iclrfinalfalse
\def\iclrfinalcopy{\iclrfinaltrue}""",
    "tmlr": r"""\ProvidesPackage{tmlr}
\newif\if@accepted\@acceptedfalse
\DeclareOption{accepted}{\@acceptedtrue}
\ProcessOptions\relax""",
    "cvpr": r"""\ProvidesPackage{cvpr}
\DeclareOption{review}{}
\DeclareOption{rebuttal}{}
\DeclareOption{final}{}
\ProcessOptions\relax""",
    "eccv": r"""\ProvidesPackage{eccv}
\newif\ifeccv@review
\DeclareOption{review}{\eccv@reviewtrue}
\DeclareOption{final}{\eccv@reviewfalse}
\ProcessOptions\relax""",
    "colm2025_conference": r"""\ProvidesPackage{colm2025_conference}
\newif\ifcolmsubmission \newif\ifcolmfinal
\colmsubmissiontrue
\DeclareOption{submission}{\colmsubmissiontrue\colmfinalfalse}
\DeclareOption{final}{\colmsubmissionfalse\colmfinaltrue}
\ProcessOptions\relax""",
    "aaai2026": r"""\ProvidesPackage{aaai2026}
\def\showauthors@on{T}
\DeclareOption{submission}{\gdef\showauthors@on{}}
\ProcessOptions\relax""",
}
# Stand-ins for classes whose review copy a command in the preamble makes (or unmakes).
VENUE_CLASSES = {
    "bmvc2k": r"""\ProvidesClass{bmvc2k}
\LoadClass{article}
\newif\ifbmv@review
\def\bmvcreviewcopy#1{\bmv@reviewtrue}""",
    "Interspeech": r"""\ProvidesClass{Interspeech}
\LoadClass{article}
\newif\ifinterspeechfinal
\def\interspeechcameraready{\global\interspeechfinaltrue}""",
}
REVIEW_CASES = [  # (class line, preamble, the mode named, or "" for a public copy)
    ("\\documentclass{bmvc2k}", "\\bmvcreviewcopy{123}", "BMVC review mode"),
    ("\\documentclass{bmvc2k}", "", ""),
    ("\\documentclass{Interspeech}", "", "Interspeech submission mode (no \\interspeechcameraready)"),
    ("\\documentclass{Interspeech}", "\\interspeechcameraready", ""),
    ("\\documentclass{article}", "\\usepackage[review]{acl}", "ACL review mode"),
    ("\\documentclass{article}", "\\usepackage[final]{acl}", ""),
    ("\\documentclass{article}", "\\usepackage[preprint]{acl}", ""),
    ("\\documentclass{article}", "\\usepackage{neurips_2025}", "NeurIPS submission mode"),
    ("\\documentclass{article}", "\\usepackage[preprint]{neurips_2025}", ""),
    ("\\documentclass{article}", "\\usepackage[dblblindworkshop]{neurips_2026}", "NeurIPS submission mode"),
    ("\\documentclass{article}", "\\usepackage[final]{neurips_2026}", ""),
    ("\\documentclass{article}", "\\usepackage{icml2025}", "ICML submission mode (no accepted option)"),
    ("\\documentclass{article}", "\\usepackage[accepted]{icml2025}", ""),
    ("\\documentclass{article}", "\\usepackage{iclr2025_conference}",
     "ICLR submission mode (no \\iclrfinalcopy)"),
    ("\\documentclass{article}", "\\usepackage{iclr2025_conference}\n\\iclrfinalcopy", ""),
    ("\\documentclass{article}", "\\usepackage{tmlr}", "TMLR submission mode (no accepted option)"),
    ("\\documentclass{article}", "\\usepackage[accepted]{tmlr}", ""),
    ("\\documentclass{article}", "\\usepackage{colm2025_conference}", "COLM submission mode"),
    ("\\documentclass{article}", "\\usepackage[final]{colm2025_conference}", ""),
    ("\\documentclass{article}", "\\usepackage[review]{cvpr}", "cvpr review mode"),
    ("\\documentclass{article}", "\\usepackage[rebuttal]{cvpr}", "cvpr rebuttal mode"),
    ("\\documentclass{article}", "\\usepackage[final]{cvpr}", ""),
    ("\\documentclass{llncs}", "\\usepackage[review]{eccv}", "ECCV review mode"),
    ("\\documentclass{article}", "\\usepackage[submission]{aaai2026}", "AAAI submission mode"),
    ("\\documentclass{article}", "\\usepackage{aaai2026}", ""),
    ("\\documentclass[sigconf,review]{acmart}", "", "acmart review mode"),
    ("\\documentclass[anonymous]{lipics-v2021}", "", "LIPIcs anonymous mode"),
    ("\\documentclass{lipics-v2021}", "", ""),
]


def review_paper(tmp_path: Path, cls: str, preamble: str, setup: str = "") -> str:
    for name, text in VENUES.items():
        (tmp_path / f"{name}.sty").write_text(text + "\n")
    (tmp_path / "lipics-v2021.cls").write_text(LIPICS)
    for name, text in VENUE_CLASSES.items():
        (tmp_path / f"{name}.cls").write_text(text + "\n")
    # pith after the venue's style, as papers load it (pith reads the mode at \begin{document}).
    front = ("\\title{T}\\author{A}\\affiliation{\\institution{X}\\country{Y}}\\begin{abstract}A.\\end{abstract}"
             if "acmart" in cls else "\\title{T}\\author{A}")
    return (f"{cls}\n{preamble}\n{NUMBER}{setup}\\begin{{document}}\n{front}\n\\maketitle\nText.\n"
            "\\end{document}\n")


@pytest.mark.parametrize(("cls", "preamble", "mode"), REVIEW_CASES,
                         ids=[f"{c.split('{')[-1][:-1]}-{p.split('{')[-1][:-1] if p else 'class'}-"
                              f"{'review' if m else 'public'}{i}" for i, (c, p, m) in enumerate(REVIEW_CASES)])
def test_review_copies_get_no_badge_and_no_metadata(tmp_path, cls, preamble, mode):
    tmp_path.mkdir(exist_ok=True)
    run = compile_paper(tmp_path, review_paper(tmp_path, cls, preamble), "pdflatex")
    facts = read_facts(run.pdf)
    log = flat_log(run.log)
    if mode:
        assert URL not in facts.link_uris and facts.info_number == "" and BODY not in facts.xmp
        assert f"Package pith Warning: {mode}: badge and metadata left out" in log
        assert landed(run.log) == [f"withheld, {mode}"]
    else:
        assert facts.link_uris.count(URL) == 1 and facts.info_number == BODY and BODY in facts.xmp
        assert "left out" not in log and landed(run.log) == ["page 1, title"]


def test_anonymous_false_overrides_a_review_mode(tmp_path):
    tmp_path.mkdir(exist_ok=True)
    text = review_paper(tmp_path, "\\documentclass{article}", "\\usepackage[review]{acl}",
                        "\\pithsetup{anonymous=false}\n")
    run = compile_paper(tmp_path, text, "pdflatex")
    facts = read_facts(run.pdf)
    assert facts.link_uris.count(URL) == 1 and facts.info_number == BODY and "left out" not in run.log



BLOCK_LEFT = "\\typeout{PITHTEST \\the\\dimexpr 1in+\\hoffset+\\oddsidemargin\\relax}\n"


@pytest.mark.parametrize("pith_first", [True, False], ids=["pith-first", "pith-after"])
def test_iclr_camera_ready_badge_flush_left_as_its_title_block(tmp_path, pith_first):
    """ICLR sets title and authors flush left: so is the badge of a camera-ready copy (the
    stand-in's \\maketitle is article's, so the text block's left edge is the measure)."""
    (tmp_path / "iclr2025_conference.sty").write_text(VENUES["iclr2025_conference"] + "\n")
    iclr = "\\usepackage{iclr2025_conference}\n\\iclrfinalcopy\n"
    text = ("\\documentclass{article}\n" + (NUMBER + iclr if pith_first else iclr + NUMBER) + BLOCK_LEFT +
            "\\title{The Quokka Title}\\author{Ada Lovelace}\n\\begin{document}\n\\maketitle\nKelp reef.\n"
            "\\end{document}\n")
    run = compile_paper(tmp_path, text, "pdflatex")
    edge = float(re.search(r"PITHTEST (\S+)pt", run.log)[1]) * PT_TO_BP
    page, badge = badge_on(run.pdf, 1)
    title = words_of(page_words(run.pdf, 1), {"quokka"})
    assert page == 1 and title and badge.top > title[0].bottom
    assert abs(badge_left(run.pdf, 1) - edge) < 1.0, (badge_left(run.pdf, 1), edge)
    assert landed(run.log) == ["page 1, title"]


def test_every_review_mode_the_manual_lists_is_compiled_here():
    from pithtex.latex.options import REVIEW_MODES

    # IEEEtran peerreview and acmart anonymous: tests/latex/test_sty_options.py.
    tried = {mode for _c, _p, mode in REVIEW_CASES} | {"IEEEtran peerreview mode", "acmart anonymous mode"}
    assert {m.logged for m in REVIEW_MODES} <= tried
