"""`check` judges the badge from the page as verify's view reads it (issue 33, item 2): one real
TeX run per verdict, the badge put where a reader would or would not expect it (`\\pithbadge`,
judged as if pith had put it there: the page is what is judged), and check's verdict with the
fault named in its headline.

The flush-left title block with the badge between the title and the author list is the case
the pdftotext judge let pass: under a flush-left title it could not tell an author line from
the body's first line. The view's lines can: a paragraph is a justified block, or a sentence.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pithtex.arxiv import placement, report
from pithtex.arxiv.logparse import BadgeNote
from pithtex.arxiv.pdfcheck import pith_checks

from ..conftest import BODY, pithtex_cli
from ..texrun import compile_tex, write_doc

ABSTRACT = ("We describe how a content-addressed identifier for a preprint can travel inside the paper itself, "
            "printed as a linked badge and written into the metadata of the PDF by every engine that makes it.")
PROSE = ("Identifiers for papers are usually issued by a registry and trusted as such. A content-addressed "
         "identifier is different: it is a hash of a canonical record, so a reader can recompute it. ") * 2
TITLE = "Quokkas Counted by a Content-Addressed Census"
AUTHORS = "Ada Lovelace \\and Alan Turing"

# A class of its own whose title block is set flush left, as many journals' are (jinstpub, PoS):
# title, authors, affiliation and date one under the other at the left edge.
FLUSHLEFT = ("\\NeedsTeXFormat{LaTeX2e}\\ProvidesClass{leftblock}\\LoadClass{article}\n"
             "\\newcommand\\affiliation[1]{\\gdef\\leftblock@aff{#1}}\n"
             "\\renewcommand\\maketitle{\\begin{flushleft}{\\LARGE\\bfseries\\@title\\par}\\vskip 1em\n"
             "  {\\large\\@author\\par}\\vskip .5em {\\small\\leftblock@aff\\par}\\vskip .5em\n"
             "  {\\small\\@date\\par}\\end{flushleft}}\n").replace("@", "AT")


def document(body: str, cls: str = "article", author: str = AUTHORS, extra: str = "") -> str:
    return (f"\\documentclass{{{cls}}}\n\\usepackage{{hyperref}}\n\\usepackage[badge=manual]{{pith}}\n"
            f"\\pithnumber{{{BODY}}}\n{extra}\\title{{{TITLE}}}\n\\author{{{author}}}\n\\date{{5 December 2026}}\n"
            f"\\begin{{document}}\n{body}\n\\end{{document}}\n")


def flushleft(body: str, author: str = "Ada Lovelace, Alan Turing") -> tuple[str, dict[str, str]]:
    text = document(body, "leftblock", author, "\\affiliation{Analytical Engine Society, London}\n")
    return text, {"leftblock.cls": FLUSHLEFT.replace("AT", "@")}


ABSTRACT_ENV = f"\\begin{{abstract}}\n{ABSTRACT}\n\\end{{abstract}}\n"
INTRO = f"\\section{{Introduction}}\n{PROSE}\n"

CASES: dict[str, tuple[str, dict[str, str], str]] = {
    # where the badge is: (paper, extra files, the headline's fault; "" when it is right)
    "right": (document(f"\\maketitle\n\\begin{{center}}\\pithbadge\\end{{center}}\n{ABSTRACT_ENV}{INTRO}"), {}, ""),
    "right, flush left": (*flushleft(f"\\maketitle\n\\noindent\\pithbadge\\par\n{ABSTRACT_ENV}{INTRO}"), ""),
    "between, centred": (document(f"\\maketitle\n{ABSTRACT_ENV}{INTRO}",
                                  author="\\pithbadge\\\\[2ex] Ada Lovelace and Alan Turing"),
                         {}, "between the title and the authors"),
    # (forty authors under article's \\maketitle run from page 1 on to page 2: pith.sty itself puts
    # the badge under the title, the one place left on page 1, and check agrees)
    "under the title, the block filling the page": (
        document(f"\\maketitle\n{ABSTRACT_ENV}{INTRO}", author=" \\and ".join(
            f"Author {i}\\\\ Institute of Things {i}\\\\ City {i}" for i in range(40))).replace(
            "[badge=manual]", ""), {}, ""),
    # (acmsiggraph: a teaser's full-width caption, the badge under it, then two columns whose
    # lines together span the caption's edges: no block the badge splits)
    "under a full-width caption, above two columns": (
        document(f"\\twocolumn[\\maketitle\\noindent {PROSE}\\par\\begin{{center}}\\pithbadge\\end{{center}}]\n"
                 f"{ABSTRACT_ENV}{INTRO}{PROSE}{PROSE}"), {}, ""),
    "beside an author": (document(f"\\maketitle\n{ABSTRACT_ENV}{INTRO}", author="\\pithbadge\\\\[2ex] " + AUTHORS),
                         {}, "beside other text"),
    "between, flush left": (*flushleft(f"\\maketitle\n{ABSTRACT_ENV}{INTRO}",
                                       author="\\pithbadge\\\\[1ex] Ada Lovelace, Alan Turing"),
                            "between the title and the authors"),
    # (a note of its own, with no mark, after the authors' notes: SIAM's \\maketitle put it there)
    "under the footnotes": (document("\\maketitle\\thispagestyle{empty}\n{\\let\\thefootnote\\relax"
                                     "\\footnotetext{\\hfill\\pithbadge\\hfill\\null}}\n" + ABSTRACT_ENV + INTRO,
                                     author="Ada Lovelace\\thanks{Analytical Engine Society, London.} \\and "
                                            "Alan Turing\\thanks{Bletchley Park, Milton Keynes.}"),
                            {}, "under the footnotes"),
    "inside the abstract": (document("\\maketitle\n\\begin{abstract}\n" + PROSE + "\n\n\\noindent\\hfill\\pithbadge"
                                     "\\hfill\\null\n\n" + ABSTRACT + "\n\\end{abstract}\n" + INTRO), {},
                            "inside the abstract"),
    # (bmcart's abstract frame, drawn after the notes' column, once hid the end of the badge there)
    "partly covered": (document(f"\\maketitle\n\\begin{{center}}\\pithbadge\\llap{{\\color{{white}}"
                                f"\\rule[-3pt]{{40pt}}{{12pt}}}}\\end{{center}}\n{ABSTRACT_ENV}{INTRO}",
                                extra="\\usepackage{xcolor}\n"), {}, "partly covered"),
    "in the stamp band": (document("\\maketitle\n\\noindent\\hspace*{-\\oddsidemargin}\\hspace*{-1in}"
                                   "\\hspace*{12pt}\\pithbadge\\par\n" + ABSTRACT_ENV + INTRO), {},
                          "in arXiv's stamp band"),
}


def compiled(tmp_path: Path, text: str, extra: dict[str, str]) -> Path:
    write_doc(tmp_path, text)
    for name, body in extra.items():
        (tmp_path / name).write_text(body)
    run = compile_tex(tmp_path, "pdflatex", passes=2)
    assert run.pdf is not None, run.log[-2000:]
    return run.pdf


@pytest.mark.parametrize("case", list(CASES))
def test_check_names_where_the_badge_is(case: str, tmp_path: Path):
    text, extra, fault = CASES[case]
    pdf = compiled(tmp_path, text, extra)
    shown, diags = pith_checks(pdf, BODY, "pdflatex", notes=[BadgeNote("title", 1)])
    assert shown["info"] == BODY and shown["xmp"] == BODY
    judged = shown["placement"]
    errors = [d for d in diags if d.severity == "error"]
    if not fault:
        assert errors == [] and judged["faults"] == [], diags
        assert judged["title_text"] == TITLE
        return
    assert judged["headline"] == fault, judged
    assert "pith-badge-misplaced" in [d.rule for d in errors], diags
    assert report.failure(diags).startswith(f"badge misplaced: {fault} ("), report.failure(diags)


def test_the_command_line_says_the_fault_in_its_verdict(tmp_path: Path):
    # End to end: a \\pithbadge the author placed is held to a warning where it is misplaced
    # (between the title and the authors, flush left), an error in arXiv's band.
    text, extra, fault = CASES["between, flush left"]
    write_doc(tmp_path / "between", text)
    for name, body in extra.items():
        (tmp_path / "between" / name).write_text(body)
    p = pithtex_cli("check", str(tmp_path / "between"), "--json", timeout=300)
    j = json.loads(p.stdout)
    said = [d for d in j["diagnostics"] if d["rule"] == "pith-badge-misplaced"]
    assert p.returncode == 0 and [d["severity"] for d in said] == ["warning"], j["diagnostics"]
    assert "'Ada Lovelace, Alan Turing' comes after it (between the title and the authors)" in said[0]["message"]
    text, extra, fault = CASES["in the stamp band"]
    write_doc(tmp_path / "band", text)
    p = pithtex_cli("check", str(tmp_path / "band"), "--json", timeout=300)
    j = json.loads(p.stdout)
    assert p.returncode == 1 and j["verdict"] == f"badge misplaced: {fault} (1 error)", j["diagnostics"]
    assert [d["says"] for d in j["diagnostics"] if d["severity"] == "error"] == [f"badge misplaced: {fault}"]


def test_a_title_block_that_runs_onto_page_two_ends_there(tmp_path: Path):
    # PoS, cas-dc with many authors: the block fills page 1, the badge ends it on page 2 (its
    # last line, under the date), above the abstract.
    names = "\\\\ ".join(f"Author Number{i}, Institute {i}, City {i}" for i in range(60))
    text, extra = flushleft(f"\\maketitle\n{ABSTRACT_ENV}{INTRO}", author=names)
    pdf = compiled(tmp_path, text.replace("\\date{5 December 2026}", "\\date{5 December 2026\\\\ \\pithbadge}"), extra)
    pages = [placement.read_page(pdf, i) for i in range(2)]
    on = [i for i, page in enumerate(pages) for ln in page.lines if BODY in ln.text]
    assert on == [1], on  # the badge is on page 2
    shown, diags = pith_checks(pdf, BODY, "pdflatex", notes=[BadgeNote("title", 2)])
    assert shown["placement"]["faults"] == [], shown["placement"]
    assert [d.rule for d in diags if d.severity == "error"] == []


def test_the_page_is_read_in_its_own_box_when_the_page_tree_holds_it(tmp_path: Path):
    # dvipdfmx writes an A4 MediaBox once, on the page tree: the view read pages as US Letter
    # and lost the title in the top 50 pt of an A4 page, and the badge under it.
    write_doc(tmp_path, document(f"\\maketitle\n\\begin{{center}}\\pithbadge\\end{{center}}\n{ABSTRACT_ENV}{INTRO}")
              .replace("{article}", "[a4paper]{article}").replace("\\begin{document}",
                                                                  "\\addtolength{\\topmargin}{-1.75in}\n"
                                                                  "\\begin{document}"))
    run = compile_tex(tmp_path, "dvipdfmx", passes=2)
    assert run.pdf is not None, run.log[-2000:]
    import pypdfium2
    from pypdf import PdfReader

    tree = PdfReader(run.pdf).trailer["/Root"]["/Pages"]  # (qpdf would push it down to each page)
    assert "/MediaBox" in tree and "/MediaBox" not in tree["/Kids"][0].get_object()
    doc = pypdfium2.PdfDocument(str(run.pdf))
    assert doc[0].get_cropbox() == (0, 0, 612, 792)  # the trap: the page's own keys, or US Letter
    doc.close()
    page = placement.read_page(run.pdf, 0)
    assert (page.width, page.height) == pytest.approx((595.28, 841.89), abs=0.1)
    assert page.lines[0].text.startswith("Quokkas Counted") and page.lines[0].box[1] < 50
    shown, _ = pith_checks(run.pdf, BODY, "dvipdfmx", notes=[BadgeNote("title", 1)])
    assert shown["placement"]["faults"] == [] and shown["placement"]["title_text"] == TITLE


@pytest.mark.parametrize("route", ["xelatex", "lualatex", "dvips", "dvipdfmx"])
def test_every_route_s_page_reads_the_same(route: str, tmp_path: Path):
    # The same flush-left page by each route: other fonts, other text objects, the A4-less
    # page tree of (x)dvipdfmx; the verdict is the page's, not the route's.
    for case in ("right, flush left", "between, flush left"):
        text, extra, fault = CASES[case]
        folder = tmp_path / case.replace(" ", "-").replace(",", "")
        write_doc(folder, text)
        for name, body in extra.items():
            (folder / name).write_text(body)
        run = compile_tex(folder, route, passes=2)
        assert run.pdf is not None, run.log[-2000:]
        shown, _ = pith_checks(run.pdf, BODY, route, notes=[BadgeNote("title", 1)])
        assert shown["placement"]["headline"] == fault, (case, shown["placement"])


BOUNDED = """
import json, os, signal, sys
from pithtex.pdf import view
from pithtex.workers import bounded
real = view.read_view
def dying(*args, **kwargs):  # PDFium aborting on the page, or the kernel's OOM killer
    if bounded.inside and sys.argv[2] == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    return real(*args, **kwargs)
view.read_view = dying
from pithtex import client
from pithtex.arxiv import report
said = report.as_dict(client.check_arxiv(sys.argv[1]))
print(json.dumps([bounded.forks, len(bounded.alive), said["files"][0]["verdict"]]))
"""


@pytest.mark.parametrize("reader", ["keep", "kill"])
def test_check_reads_the_page_in_a_bounded_worker(tmp_path: Path, reader: str):
    """check reads the compiled page as verify reads a PDF: in a forked, bounded worker (one
    fork for the one route); a reader killed on the page costs the badge's judgement, said so,
    and not the check, and leaves no worker behind."""
    import shutil
    import subprocess
    import sys

    from ..conftest import ROOT

    paper = tmp_path / "article"
    shutil.copytree(ROOT / "examples" / "article", paper)
    assert pithtex_cli("sty", str(paper)).returncode == 0
    out = subprocess.run([sys.executable, "-c", BOUNDED, str(paper), reader], capture_output=True, text=True,
                         timeout=600)
    forks, alive, verdict = json.loads(out.stdout.strip().splitlines()[-1])
    assert (forks, alive) == (1, 0), out.stderr
    if reader == "keep":
        assert verdict == "arXiv-safe on latex; pith badge and metadata intact", verdict
    else:
        assert verdict.endswith("the badge's place not judged (the page could not be read)"), verdict
