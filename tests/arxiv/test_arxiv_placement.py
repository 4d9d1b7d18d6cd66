"""`pithtex check` says where the badge landed, from the compiled PDF and pith.sty's log line,
and does not call TeX Live's own files (mwe's example images) missing.

Each case is a real check run (real TeX in the sandbox, the PDF read back) on a small paper
written here: cas-dc, whose title comes after a graphical abstract and highlights; a paper
with no title block (the top-of-page fallback); a review copy (a stand-in acl.sty that
signals `review` as the real one does); a plain article with figures from TeX Live.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pithtex.arxiv.logparse import BadgeNote, parse_log

from ..conftest import BODY, pithtex_cli
from ..latex.test_sty_titles import CAS, VENUES

NUMBER = f"\\usepackage{{pith}}\n\\pithnumber{{{BODY}}}\n"


def checked(tmp_path: Path, text: str, extra: dict[str, str] | None = None) -> tuple[int, dict, str]:
    """`pithtex check` on a folder holding paper.tex, pith.sty and `extra` files: exit code,
    the JSON report and the human one."""
    folder = tmp_path / "paper"
    folder.mkdir()
    assert pithtex_cli("sty", str(folder)).returncode == 0
    (folder / "paper.tex").write_text(text)
    for name, body in (extra or {}).items():
        (folder / name).write_text(body)
    p = pithtex_cli("check", str(folder), "--json", timeout=600)
    assert "Traceback" not in p.stderr, p.stderr
    human = pithtex_cli("check", str(folder), timeout=600)
    return p.returncode, json.loads(p.stdout), human.stdout


def warnings(report: dict) -> list[str]:
    return [d["rule"] for d in report["diagnostics"] if d["severity"] == "warning"]


def test_badge_under_the_title_on_page_three_is_reported_there(tmp_path):
    text = CAS.replace("\\usepackage{natbib}", "\\usepackage{natbib}\\usepackage{graphicx}")
    code, j, human = checked(tmp_path, text.replace("Kelp reef tide.", "Kelp reef tide. "
                                                    "\\includegraphics[width=2cm]{example-image-a}"))
    # Page 1 is the graphical abstract: no error for a missing link there, the link is on page 3.
    assert code == 0 and j["ok"], j["diagnostics"]
    route = j["routes"][0]["pith"]
    assert route["badge"] == {"how": "title", "page": 3, "linked": True}
    assert warnings(j) == ["pith-badge-page"]
    assert "badge under the title on p.3" in human and "pith badge and metadata intact" in human
    # example-image-a comes with TeX Live (mwe): not a missing file.
    assert "missing-file" not in [d["rule"] for d in j["diagnostics"]]


def test_fallback_position_is_a_warning(tmp_path):
    text = ("\\documentclass{article}\n\\usepackage{graphicx}\n" + NUMBER +
            "\\begin{document}\nText.\n\\includegraphics{example-image-b}\n\\end{document}\n")
    code, j, human = checked(tmp_path, text)
    assert code == 0 and j["routes"][0]["pith"]["badge"] == {"how": "fallback", "page": 1, "linked": True}
    assert warnings(j) == ["pith-badge-fallback"]
    assert "badge placed by pith's fallback on p.1 (no title block found)" in human
    # ... and the page shows it under the page's first text: never in the top margin above it
    assert j["routes"][0]["pith"]["placement"]["faults"] == []


def test_review_copy_is_reported_as_withheld(tmp_path):
    text = ("\\documentclass{article}\n\\usepackage[review]{acl}\n" + NUMBER +
            "\\title{T}\\author{A}\n\\begin{document}\n\\maketitle\nText.\n\\end{document}\n")
    code, j, human = checked(tmp_path, text, {"acl.sty": VENUES["acl"] + "\n"})
    route = j["routes"][0]["pith"]
    # No badge and no metadata are expected of a review copy: a warning, not an error.
    assert code == 0 and route["badge"] == {"how": "withheld", "why": "ACL review mode"}
    assert route["info"] is None and route["xmp"] is None and route["page1_links"] == []
    assert warnings(j) == ["pith-hidden"]
    assert "badge and metadata withheld (ACL review mode)" in human and "intact" not in human


def test_log_lines_are_read_into_notes():
    log = ("[1\npith badge: page 3, title\n]\npith badge: page 4, manual\n"
           "pith badge: withheld, ICLR submission mode (no \\iclrfinalcopy)\npith badge: page x, title\n")
    assert parse_log(log).badge_notes == [BadgeNote("title", 3), BadgeNote("manual", 4),
                                          BadgeNote("withheld", why="ICLR submission mode (no \\iclrfinalcopy)")]


def errors(report: dict) -> list[str]:
    return [d["rule"] for d in report["diagnostics"] if d["severity"] == "error"]


SHIFTED = ("\\NeedsTeXFormat{LaTeX2e}\\ProvidesClass{shifted}\\LoadClass{article}\n"
           # A class that measures its layout from the page's corner: TeX's 1in origin undone.
           "\\voffset=-1in \\hoffset=-1in \\oddsidemargin=72pt \\evensidemargin=72pt \\topmargin=36pt\n")


def test_a_badge_above_the_page_fails_the_check(tmp_path):
    text = ("\\documentclass{article}\n\\usepackage[badge=manual]{pith}\n\\pithnumber{" + BODY + "}\n"
            "\\title{A Title}\\author{Ann}\n\\begin{document}\n\\maketitle\n"
            "\\noindent\\raisebox{5in}[0pt][0pt]{\\pithbadge}Text.\n\\end{document}\n")
    code, j, human = checked(tmp_path, text)
    assert code == 1 and not j["ok"] and errors(j) == ["pith-badge-off-page"]
    # Info and XMP are there: the place is the fault, by name
    assert j["verdict"] == "badge misplaced: off the visible page (1 error)"
    assert "not on the visible page" in human and "intact" not in human and "margin clear" not in human


def test_the_verdict_on_a_shifted_class_agrees_with_the_page(tmp_path):
    # A class with \voffset=\hoffset=-1in and no title block pith knows: the check once said
    # "OK ... badge at the top of p.1 ... margin clear" with the link 72 pt above the page.
    text = ("\\documentclass{shifted}\n" + NUMBER + "\\begin{document}\n"
            "\\begin{center}\\Large\\bfseries A Hand-Set Title\\end{center}\nText of the paper.\n\\end{document}\n")
    code, j, human = checked(tmp_path, text, {"shifted.cls": SHIFTED})
    on_page = compiled_link_on_page(tmp_path / "own", text, {"shifted.cls": SHIFTED})
    assert ("pith-badge-off-page" in errors(j)) == (not on_page)
    assert (code == 0) == on_page and ("pith badge and metadata intact" in human) == on_page
    if on_page:  # then the page shows it under the title, which the check read back
        assert j["routes"][0]["pith"]["placement"]["faults"] == []


def compiled_link_on_page(folder: Path, text: str, extra: dict[str, str]) -> bool:
    """The badge link inside page 1's MediaBox, read with pypdf from our own latex + dvips run."""
    from pypdf import PdfReader

    from ..texrun import compile_tex, write_doc

    write_doc(folder, text)
    for name, body in extra.items():
        (folder / name).write_text(body)
    run = compile_tex(folder, "dvips", passes=2)
    assert run.pdf is not None, run.log[-2000:]
    page = PdfReader(run.pdf).pages[0]
    x0, y0, x1, y1 = (float(v) for v in page.mediabox)
    rects = [[float(v) for v in a.get_object()["/Rect"]] for a in page.get("/Annots") or []
             if BODY in str(a.get_object()["/A"].get("/URI", ""))]
    assert rects, "no badge link on page 1"
    return all(x0 <= r[0] and r[2] <= x1 and y0 <= r[1] and r[3] <= y1 for r in rects)


def test_inspect_names_a_link_outside_the_page(tmp_path):
    from ..texrun import compile_tex, write_doc

    write_doc(tmp_path, "\\documentclass{article}\n\\usepackage[badge=manual]{pith}\n\\pithnumber{" + BODY
              + "}\n\\begin{document}\n\\noindent\\raisebox{5in}[0pt][0pt]{\\pithbadge}Text.\n\\end{document}\n")
    run = compile_tex(tmp_path, "pdflatex")
    assert run.pdf is not None
    p = pithtex_cli("inspect", str(run.pdf))
    assert p.returncode == 0 and "link off the page  p.1 at (" in p.stdout and "nobody sees or clicks it" in p.stdout
    j = json.loads(pithtex_cli("inspect", str(run.pdf), "--json").stdout)
    assert [off["page"] for off in j["links_off_page"]] == [1] and j["links_off_page"][0]["rect"][3] > 792


PAGEBREAK = ("\\NeedsTeXFormat{LaTeX2e}\\ProvidesClass{frontpage}\\LoadClass{article}\n"
             # A class whose \maketitle sets a whole front page, then the contents.
             "\\let\\frontpage@title\\maketitle\n"
             "\\renewcommand\\maketitle{\\frontpage@title\\newpage\\tableofcontents\\newpage}\n")


def test_the_fix_the_check_names_works_where_maketitle_ends_with_a_page_break(tmp_path):
    from pithtex.arxiv.catalogue import PITH_BADGE_MISPLACED

    named = "\\date{\\today\\\\ \\pithbadge}"
    assert named in PITH_BADGE_MISPLACED.fix  # the fix is spelt out as the author would write it
    text = ("\\documentclass{frontpage}\n\\usepackage[badge=manual]{pith}\n\\pithnumber{" + BODY + "}\n"
            "\\title{A Front-Page Title}\\author{Ann}" + named + "\n"
            "\\begin{document}\n\\maketitle\n\\section{One}Text.\n\\end{document}\n")
    code, j, human = checked(tmp_path, text, {"frontpage.cls": PAGEBREAK.replace("@", "")})
    route = j["routes"][0]["pith"]
    assert code == 0 and j["ok"], j["diagnostics"]
    assert route["badge"]["page"] == 1 and route["placement"]["faults"] == []
    assert route["placement"]["title_text"] == "A Front-Page Title"
    assert [r for r in warnings(j) if r.startswith("pith-badge")] == []
    assert "pith badge and metadata intact" in human


def test_a_badge_after_such_a_maketitle_is_judged_by_its_page(tmp_path):
    # The old advice, \pithbadge after \maketitle: where that lands is pith.sty's business; the
    # check must say so when it is not the title's page (the contents page behind it).
    text = ("\\documentclass{frontpage}\n\\usepackage[badge=manual]{pith}\n\\pithnumber{" + BODY + "}\n"
            "\\title{A Front-Page Title}\\author{Ann}\n"
            "\\begin{document}\n\\maketitle\n\\pithbadge\n\\section{One}Text.\n\\end{document}\n")
    code, j, human = checked(tmp_path, text, {"frontpage.cls": PAGEBREAK.replace("@", "")})
    route = j["routes"][0]["pith"]
    page = route["badge"]["page"]
    misplaced = [d for d in j["diagnostics"] if d["rule"] == "pith-badge-misplaced"]
    assert code == 0 and bool(misplaced) == (page != 1)
    if misplaced:  # a manual badge: a warning that names the title's page
        assert misplaced[0]["severity"] == "warning"
        assert f"the title is on page 1 ('A Front-Page Title'), the badge on page {page}" in misplaced[0]["message"]
        assert "pith-badge-misplaced" in human


KINDS = Path(__file__).parents[1] / "fixtures" / "titles"


@pytest.mark.parametrize("kind", ["defsize", "offsets", "begindoc", "frontpage", "byhand", "flushleft", "counted",
                                  "preprint", "header", "minipage", "tabauthors"])
def test_check_reads_each_kind_of_issue_23_back_from_the_page(kind, tmp_path):
    # The seven kinds of title block (tests/fixtures/titles): on arXiv's route the check runs
    # TeX again when pith.sty's position marks changed, then judges the page itself.
    extra = {p.name: p.read_text() for p in KINDS.glob(f"{kind}.cls")}
    code, j, human = checked(tmp_path, (KINDS / f"{kind}.tex").read_text(), extra)
    route = j["routes"][0]
    assert code == 0 and j["ok"], j["diagnostics"]
    assert route["runs"] == 2 and route["pith"]["placement"]["faults"] == []
    assert route["pith"]["placement"]["page"] == 1 and "pith badge and metadata intact" in human
    assert not [d for d in j["diagnostics"] if d["rule"] in ("pith-badge-off-page", "pith-badge-misplaced")]


def test_the_manual_fix_after_a_maketitle_that_ends_with_a_page_break_passes_the_check(tmp_path):
    """The fix pith's warnings name, badge=manual and \\pithbadge right after \\maketitle, on a
    class whose \\maketitle sets a front page and then the contents: the check's two runs put the
    badge on the front page, under the block, and nothing is misplaced."""
    text = ((KINDS / "frontpage.tex").read_text().replace("\\usepackage{pith}", "\\usepackage[badge=manual]{pith}")
            .replace("\\maketitle\n", "\\maketitle\n\\pithbadge\n"))
    assert "\\maketitle\n\\pithbadge\n" in text
    code, j, _ = checked(tmp_path, text, {"frontpage.cls": (KINDS / "frontpage.cls").read_text()})
    route = j["routes"][0]
    assert code == 0 and j["ok"], j["diagnostics"]
    assert route["pith"]["badge"]["how"] == "manual" and route["pith"]["placement"]["page"] == 1
    assert route["pith"]["placement"]["faults"] == []
    assert not [d for d in j["diagnostics"] if d["rule"].startswith("pith-badge")]
