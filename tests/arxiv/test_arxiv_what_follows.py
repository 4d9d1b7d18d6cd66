"""`check` judges the badge as a reader does (issue 33): below the title block and above what
follows it (the body text, the footnotes), never inside a block of text; the verdict names the
fault ("badge misplaced" when Info and XMP are there); `bbl-missing` and `package-missing` only
when the compiled paper really reads a .bib, or misses a package.

The misplaced badges are real TeX runs with the badge put there by hand (`\\pithbadge`), judged
as if pith had put it there (its log line "under the title"), which is what siamart's footnotes
and bmcart's abstract panel made pith do: the page is what is judged, not how it got so.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pithtex.arxiv import report
from pithtex.arxiv.logparse import BadgeNote
from pithtex.arxiv.pdfcheck import pith_checks

from ..conftest import BODY, ROOT, pithtex_cli
from ..texrun import compile_tex, write_doc

HEAD = ("\\documentclass{article}\n\\usepackage{hyperref}\n\\usepackage[badge=BADGE]{pith}\n"
        f"\\pithnumber{{{BODY}}}\n\\title{{Footnotes Under a Long Title}}\n"
        "\\author{Ada Lovelace\\thanks{Analytical Engine Society, London. Funded by a grant of the Society.}\n"
        "  \\and Alan Turing\\thanks{Bletchley Park, Milton Keynes.}}\n\\date{}\n")
ABSTRACT = ("We describe how a content-addressed identifier for a preprint can travel inside the paper itself, "
            "printed as a linked badge and written into the metadata of the PDF by every engine.")
PROSE = ("Identifiers for papers are usually issued by a registry and trusted as such. A content-addressed "
         "identifier is different: it is a hash of a canonical record, so a reader can recompute it.")

# The verdict's headline for each: the fault by name, not "badge misplaced" alone.
HEADLINES = {"under the footnotes": "under the footnotes", "inside a block of text": "inside the abstract",
             "not below the title block's last line": "between the title and the authors",
             "below the start of the body text": "below the start of the body text"}

PAGES = {
    # siamart: the badge at the page's foot, under the \thanks footnotes
    "under the footnotes": ("\\usepackage{fancyhdr}\\pagestyle{fancy}\\fancyhf{}\\renewcommand{\\headrulewidth}{0pt}\n"
                            "\\fancyfoot[C]{\\pithbadge}\n\\begin{document}\n\\maketitle\\thispagestyle{fancy}\n"
                            f"\\begin{{abstract}}\n{ABSTRACT}\n\\end{{abstract}}\n{PROSE}\n\\end{{document}}\n"),
    # bmcart: inside the abstract, between its "Background" and "Results" paragraphs
    "inside a block of text": ("\\begin{document}\n\\maketitle\n\\begin{abstract}\nBackground: " + PROSE + "\n\n"
                               "\\noindent\\hfill\\pithbadge\\hfill\\null\n\nResults: " + ABSTRACT + "\n"
                               "\\end{abstract}\n\\section{Introduction}\n" + PROSE + "\n\\end{document}\n"),
    # jinstpub: between the title and the authors
    "not below the title block's last line": ("\\author{\\pithbadge\\\\[2ex] Ada Lovelace and Alan Turing}\n"
                                              "\\begin{document}\n\\maketitle\n\\begin{abstract}\n" + ABSTRACT
                                              + "\n\\end{abstract}\n\\section{Introduction}\n" + PROSE
                                              + "\n\\end{document}\n"),
    # a badge in the body, below its first heading
    "below the start of the body text": ("\\begin{document}\n\\maketitle\n\\begin{abstract}\n" + ABSTRACT + "\n"
                                         "\\end{abstract}\n\\section{Introduction}\n" + PROSE + "\n\n"
                                         "\\begin{center}\\pithbadge\\end{center}\n\\end{document}\n"),
}


def compiled(tmp_path: Path, name: str, body: str, badge: str = "manual") -> Path:
    folder = tmp_path / name.replace(" ", "-")
    write_doc(folder, HEAD.replace("BADGE", badge) + body)
    run = compile_tex(folder, "pdflatex", passes=2)
    assert run.pdf is not None, run.log[-2000:]
    return run.pdf


@pytest.mark.parametrize("where", list(PAGES))
def test_a_badge_where_a_reader_does_not_expect_it_is_misplaced(where: str, tmp_path: Path):
    pdf = compiled(tmp_path, where, PAGES[where])
    shown, diags = pith_checks(pdf, BODY, "pdflatex", notes=[BadgeNote("title", 1)])
    assert shown["info"] == BODY and shown["xmp"] == BODY  # the metadata is there: the place is the fault
    errors = [d for d in diags if d.severity == "error"]
    assert [d.rule for d in errors] == ["pith-badge-misplaced"], diags
    assert f"it lies {where}" in errors[0].message or f"it is {where}" in errors[0].message, errors[0].message
    assert where in " ".join(shown["placement"]["faults"])
    assert report.failure(diags) == f"badge misplaced: {HEADLINES[where]} (1 error)"


def test_the_verdict_names_each_pith_fault_in_words():
    from pithtex.arxiv.catalogue import COMPILE_ERROR, PDF_NO_BADGE_LINK, PDF_NO_XMP, PITH_BADGE_MISPLACED
    from pithtex.arxiv.diagnostic import error

    def said(*rules):
        return report.failure([error(rule, "m", "f", route="latex") for rule in rules])

    assert said(PITH_BADGE_MISPLACED) == "badge misplaced (1 error)"
    assert said(PDF_NO_BADGE_LINK) == "badge missing (1 error)"
    assert said(PDF_NO_XMP, PITH_BADGE_MISPLACED) == "loses pith metadata and badge misplaced (2 errors)"
    assert said(PITH_BADGE_MISPLACED, COMPILE_ERROR) == "would fail on arXiv (2 errors)"
    # the placement's own words, and the plain rule's folded into them
    specific = error(PITH_BADGE_MISPLACED, "m", "f", route="latex", says="badge misplaced: under the footnotes")
    assert report.failure([specific]) == "badge misplaced: under the footnotes (1 error)"
    assert report.failure([specific, error(PITH_BADGE_MISPLACED, "m", "f")]) == ("badge misplaced: under the "
                                                                                  "footnotes (2 errors)")


@pytest.mark.parametrize("option", ["", "titlepage"])
def test_footnotes_below_pith_own_badge_are_fine(option: str, tmp_path: Path):
    # The same \thanks-heavy title block, the badge where pith puts it: under the title block,
    # above the abstract (on a title page: under the date), the footnotes far below.
    folder = tmp_path / "thanks"
    head = HEAD.replace("BADGE", "title").replace("{article}", f"[{option}]{{article}}")
    write_doc(folder, head + "\\begin{document}\n\\maketitle\n\\begin{abstract}\n"
              + ABSTRACT + "\n\\end{abstract}\n\\section{Introduction}\n" + PROSE + "\n\\end{document}\n")
    shutil.copy(ROOT / "latex" / "pith.sty", folder / "pith.sty")
    p = pithtex_cli("check", str(folder), "--json", timeout=300)
    j = json.loads(p.stdout)
    assert p.returncode == 0 and j["ok"], j["diagnostics"]
    assert j["verdict"] == "arXiv-safe on latex; pith badge and metadata intact"
    placement = j["routes"][0]["pith"]["placement"]
    assert placement["faults"] == [] and placement["title_text"] == "Footnotes Under a Long Title"


# -- bbl-missing and package-missing, from what the compile read --------------------------------

SWITCHED = ("\\documentclass{article}\n\\newif\\ifbiblatex\n\\biblatexfalse\n\\ifbiblatex\n"
            "  \\usepackage{biblatex}\n  \\addbibresource{refs.bib}\n\\fi\n\\begin{document}\n"
            "A citation~\\cite{knuth84}.\n\\ifbiblatex\n  \\printbibliography\n\\else\n"
            "\\begin{thebibliography}{9}\n\\bibitem{knuth84} D. E. Knuth, The TeXbook, 1984.\n"
            "\\end{thebibliography}\n\\fi\n\\end{document}\n")


def paper(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "paper"
    folder.mkdir()
    (folder / "paper.tex").write_text(text)
    shutil.copy(ROOT / "tests" / "fixtures" / "arxiv" / "plain" / "refs.bib", folder / "refs.bib")
    return folder


def test_an_addbibresource_in_a_switched_off_branch_is_no_missing_bbl(tmp_path: Path):
    # The jacow paper: an inline thebibliography; biblatex and its .bib only in a branch it turns off.
    p = pithtex_cli("check", str(paper(tmp_path, SWITCHED)), "--json", timeout=300)
    j = json.loads(p.stdout)
    rules = [d["rule"] for d in j["diagnostics"]]
    assert "bbl-missing" not in rules and "package-missing" not in rules, j["diagnostics"]
    assert p.returncode == 0 and j["verdict"] == "arXiv-safe on latex"


@pytest.mark.parametrize("switch", ["\\biblatexfalse", "\\biblatextrue"])
def test_a_bibliography_the_compile_reads_still_wants_its_bbl(switch: str, tmp_path: Path):
    # The same paper with \bibliography (BibTeX) in the branch: on, the compile reads refs.bib
    # (\bibdata in the .aux) and the .bbl is missing; off, it reads none.
    text = (SWITCHED.replace("\\usepackage{biblatex}\n  \\addbibresource{refs.bib}\n", "")
            .replace("\\printbibliography", "\\bibliographystyle{plain}\\bibliography{refs}")
            .replace("\\biblatexfalse", switch))
    p = pithtex_cli("check", str(paper(tmp_path, text)), "--json", timeout=300)
    j = json.loads(p.stdout)
    missing = [d for d in j["diagnostics"] if d["rule"] == "bbl-missing"]
    if switch == "\\biblatextrue":
        assert p.returncode == 1 and len(missing) == 1 and "paper.bbl is not" in missing[0]["message"]
    else:
        assert p.returncode == 0 and missing == [], j["diagnostics"]


def test_a_page_the_view_cannot_read_leaves_the_badge_s_place_unjudged(tmp_path: Path):
    # Page 1 draws 41,000 tiny rules: over what the page view reads (pithtex/pdf/seen.py,
    # MAX_CONTENT and MAX_PAINTS). The metadata is checked, the badge's place is not known,
    # and the verdict says so instead of "pith badge and metadata intact".
    folder = tmp_path / "busy"
    write_doc(folder, HEAD.replace("BADGE", "title") + "\\begin{document}\n\\maketitle\n\\newcount\\n \\n=0\n"
              "\\noindent\\rlap{\\loop\\rule{.2pt}{.2pt}\\kern-.2pt\\advance\\n by 1 \\ifnum\\n<41000 \\repeat}\n"
              + PROSE + "\n\\end{document}\n")
    p = pithtex_cli("check", str(folder), "--json", timeout=300)
    j = json.loads(p.stdout)
    assert p.returncode == 0 and j["routes"][0]["pith"]["placement"] is None
    assert j["verdict"] == ("arXiv-safe on latex; pith metadata intact, the badge's place not judged "
                            "(the page could not be read)")
