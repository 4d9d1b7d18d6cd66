"""pith.sty on arXiv's HTML: LaTeXML, as arXiv runs it, on every example, the HTML read back.

LaTeXML reads an uploaded pith.sty as TeX source; pith recognises it before any expl3 code
and takes a short LaTeX2e path (pithtex/templates/sty/latexml.sty.j2). Each case is one real
latexmlc run (about a second; in parallel under xdist). How long a conversion takes is
bench/latexml.py's business; here the countable guard is what LaTeXML read: pith.sty, and no
expl3 file at all (interpreting expl3-code.tex is what used to cost minutes).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pithtex.latex.options import CLASS_NAMES

from ..conftest import BODY, URL, example_paper
from ..latexmlrun import complaints, convert, files_read, links, text_of, version
from ..texrun import STY, compile_tex, read_facts

pytestmark = pytest.mark.slow  # a latexmlc run is 1-3 s alone, over 10 s on a loaded machine

# beamer has a test of its own (below): LaTeXML's beamer binding.
CLASSES = tuple(c for c in CLASS_NAMES if c != "beamer")
# Classes LaTeXML has no binding for are read raw, and some bring expl3 with them, whose
# expl3-code.tex LaTeXML then interprets for minutes, with or without pith: cas-dc.cls
# loads expl3 itself; 0.8.8 also reads scrartcl's dependencies raw (bookmark loads expl3),
# 0.8.7 does not. Those examples are tested for stalling there, before pith.sty is read.
STALLS_IN_CLASS = {"0.8.7": {"cas-dc"}, "0.8.8": {"cas-dc", "scrartcl"}}
# beamer has a binding, which converts a title frame with errors of its own (tested below).
# The AMS classes take \URL for their own command, which links its text: without hyperref
# the badge's link text there is the URL itself (the logo stands before it).
URL_AS_TEXT = {"amsart"}


def _no_pith_complaint(log: str) -> None:
    said = [line for line in complaints(log) if "pith" in line.lower()]
    assert not said, said


def _short_path_only(log: str) -> None:
    read = files_read(log)
    assert any(Path(f).name == "pith.sty" for f in read), read
    expl3 = [f for f in read if re.search(r"expl3|(^|/)l3[a-z]", f)]
    assert not expl3, expl3


@pytest.mark.parametrize("cls", CLASSES)
def test_example_html(tmp_path, cls):
    folder = example_paper(cls, tmp_path / cls)
    if cls in STALLS_IN_CLASS[version()]:
        _stalls_in_the_class_before_pith(folder)
        return
    run = convert(folder)
    assert run.html, run.log[-1500:]
    _no_pith_complaint(run.log)
    _short_path_only(run.log)
    badges = [link for link in links(run.html) if link.href == URL]
    assert len(badges) == 1, [link.href for link in links(run.html)]
    badge = badges[0]
    if cls in URL_AS_TEXT:
        assert badge.text.strip() == URL
    else:
        assert badge.text.split() == [f"pith:{BODY}"]
        assert badge.svg, "the logo (inline SVG) is inside the link"
    # After the title and the authors (LaTeXML sets the abstract with them), before section 1.
    html = run.html
    title = html.index("ltx_title_document")
    authors = html.index('class="ltx_authors"')
    first_section = html.index("ltx_title_section")
    assert title < authors < badge.offset < first_section
    # \pithlong and \pithshort in the body come out as text.
    text = text_of(html)
    assert f"pith:{BODY}" in text.replace(f"{URL}", "")
    assert "The short form pith:YBK5PTAK is for display only." in text


def _without_pith(folder: Path) -> None:
    """The example as its authors would have it without pith: the two lines out, the two
    forms in the text written out."""
    tex = folder / "paper.tex"
    text = tex.read_text().replace("\\usepackage{pith}\n", "").replace(f"\\pithnumber{{{BODY}}}\n", "")
    tex.write_text(text.replace("\\pithlong", f"pith:{BODY}").replace("\\pithshort{}", "pith:YBK5PTAK"))
    (folder / "pith.sty").unlink()


def _same_complaints(log: str) -> list[str]:
    """LaTeXML's complaints without where they were (pith's two lines move the line numbers,
    and the two copies' folders differ)."""
    return [re.sub(r"\bline \d+ col \d+|/tmp\S+", "", line) for line in complaints(log)]


def test_beamer_example_html_has_the_badge_and_only_latexmls_own_errors(tmp_path):
    """LaTeXML's beamer binding complains about the title frame with or without pith; pith
    adds no complaint, and its badge is a link on the title frame (after \\titlepage)."""
    with_pith = convert(example_paper("beamer", tmp_path / "with"))
    bare = example_paper("beamer", tmp_path / "without")
    _without_pith(bare)
    without = convert(bare)
    assert with_pith.html and without.html, with_pith.log[-1500:]
    assert _same_complaints(with_pith.log) == _same_complaints(without.log)
    assert any("titlepage" in line for line in complaints(without.log))  # LaTeXML's, pith-less
    _no_pith_complaint(with_pith.log)
    _short_path_only(with_pith.log)
    badges = [link for link in links(with_pith.html) if link.href == URL]
    assert len(badges) == 1 and badges[0].text.split() == [f"pith:{BODY}"] and badges[0].svg
    title_frame = with_pith.html.index("ltx_titlepage")
    assert title_frame < badges[0].offset < with_pith.html.index("The short form")
    assert "The short form pith:YBK5PTAK is for display only." in text_of(with_pith.html)
    assert not [link for link in links(without.html) if link.href == URL]


def _stalls_in_the_class_before_pith(folder: Path) -> None:
    """LaTeXML times out in the expl3 that the class (read raw) loads: the conversion never
    gets to pith.sty, so pith is not the cause. A short timeout is enough to see it (the
    whole conversion takes minutes without pith too)."""
    run = convert(folder, timeout=20)
    read = files_read(run.log)
    assert any(f.endswith("expl3-code.tex") for f in read), read
    stalled = run.log.split("Fatal:timeout", 1)
    assert len(stalled) == 2 and stalled[1].split("\n")[1].strip().startswith("at expl3-code.tex"), run.log[-1500:]
    assert not any(Path(f).name == "pith.sty" for f in read), read
    _no_pith_complaint(run.log)


def test_without_arxivs_preload(tmp_path):
    """latexmlc without latexml.sty preloaded (so no \\iflatexml), reading the .sty raw:
    pith knows LaTeXML by its frontmatter primitive and still links the badge."""
    folder = example_paper("article", tmp_path / "article")
    run = convert(folder, arxiv=False)
    assert run.html, run.log[-1500:]
    _no_pith_complaint(run.log)
    _short_path_only(run.log)
    assert [link.text.split() for link in links(run.html) if link.href == URL] == [[f"pith:{BODY}"]]


# Review copies withhold the badge in the HTML as on the PDF route; anonymous=false shows it.
REVIEW = [("acmart", "[sigconf,nonacm]{acmart}", "[sigconf,nonacm,anonymous]{acmart}", "", 0),
          ("IEEEtran", "[conference]{IEEEtran}", "[peerreview]{IEEEtran}", "", 0),
          ("IEEEtran", "[conference]{IEEEtran}", "[peerreview]{IEEEtran}", "[anonymous=false]", 1)]


@pytest.mark.parametrize(("cls", "old", "new", "options", "badges"), REVIEW,
                         ids=["acmart-anonymous", "IEEEtran-peerreview", "IEEEtran-peerreview-anonymous=false"])
def test_review_copies(tmp_path, cls, old, new, options, badges):
    folder = example_paper(cls, tmp_path / cls)
    tex = folder / "paper.tex"
    tex.write_text(tex.read_text().replace(old, new).replace("\\usepackage{pith}", f"\\usepackage{options}{{pith}}"))
    run = convert(folder)
    assert run.html, run.log[-1500:]
    _no_pith_complaint(run.log)
    assert len([link for link in links(run.html) if link.href == URL]) == badges
    assert "The short form pith:YBK5PTAK is for display only." in text_of(run.html)



# The venues' review modes as arXiv's LaTeXML sees them: the style files beside the paper
# read raw (the stand-ins of tests/latex/test_sty_titles.py, with the same signals), except
# neurips_2025 and icml2025, which LaTeXML reads with its own bindings whatever is beside.
VENUE_CASES = [  # (the line that loads the style, the mode withheld, or "" for a public copy)
    ("\\usepackage[review]{acl}", "ACL review mode"),
    ("\\usepackage[final]{acl}", ""),
    ("\\usepackage{neurips_2025}", "NeurIPS submission mode"),
    ("\\usepackage[final]{neurips_2026}", ""),
    ("\\usepackage[preprint]{neurips_2025}", ""),
    ("\\usepackage{icml2025}", "ICML submission mode (no accepted option)"),
    ("\\usepackage[accepted]{icml2025}", ""),
    ("\\usepackage{iclr2025_conference}", "ICLR submission mode (no \\iclrfinalcopy)"),
    ("\\usepackage{iclr2025_conference}\n\\iclrfinalcopy", ""),
    ("\\usepackage[rebuttal]{cvpr}", "cvpr rebuttal mode"),
    ("\\usepackage[submission]{aaai2026}", "AAAI submission mode"),
]


@pytest.mark.parametrize(("preamble", "mode"), VENUE_CASES,
                         ids=[f"{p.split('{')[1].split('}')[0]}-{'review' if m else 'public'}{i}"
                              for i, (p, m) in enumerate(VENUE_CASES)])
def test_venue_review_copies(tmp_path, preamble, mode):
    from .test_sty_titles import VENUES

    folder = example_paper("article", tmp_path / "article")
    for name, text in VENUES.items():
        (folder / f"{name}.sty").write_text(text + "\n")
    tex = folder / "paper.tex"
    tex.write_text(tex.read_text().replace("\\usepackage{pith}", f"{preamble}\n\\usepackage{{pith}}"))
    run = convert(folder)
    assert run.html, run.log[-1500:]
    _no_pith_complaint(run.log)
    _short_path_only(run.log)
    assert len([link for link in links(run.html) if link.href == URL]) == (0 if mode else 1), mode
    assert "The short form pith:YBK5PTAK is for display only." in text_of(run.html)
    said = "badge and metadata left out" in run.log
    assert said == bool(mode) and (not mode or f"{mode}: badge and metadata left out" in run.log), run.log[-2000:]

PAPER = r"""\documentclass{article}
\usepackage[badge=manual, style=short, color={0.8,0.1,0.1}, dvips, metadata=false,
  raise=-0.2ex, anonymous=false, baseurl=https://mirror.example.org/]{pith}
\pithnumber{pith:2026:ybk5ptakoscxy2wmliib7dmyh6}
\pithnumber{ZZZZZZZZZZZZZZZZZZZZZZZZZZ}
\title{A Title}\author{An Author}
\begin{document}
\maketitle
Here: \pithbadge.
Long \pithlong, short \pithshort, body \pithbody, url \pithurl.
\pithsetup{anonymous, size=small}
Hidden: [\pithbadge].
\end{document}
"""


def test_options_and_commands(tmp_path):
    """Every option is accepted; badge=manual, style, baseurl and anonymous act; the
    commands expand to the number's forms (the first \\pithnumber's, as on the PDF route)."""
    (tmp_path / "paper.tex").write_text(PAPER)
    (tmp_path / "pith.sty").write_bytes(STY.read_bytes())
    run = convert(tmp_path)
    assert run.html, run.log[-1500:]
    _no_pith_complaint(run.log)
    _short_path_only(run.log)
    mirror = f"https://mirror.example.org/pith/{BODY}"
    found = links(run.html)
    assert [link.href for link in found] == [mirror]  # badge=manual: none after the title
    assert found[0].text.split() == ["pith:YBK5PTAK"] and found[0].svg
    text = text_of(run.html)
    assert "Here:" in text[: text.index("pith:YBK5PTAK")]
    assert (f"Long pith:2026:{BODY}, short pith:YBK5PTAK, body {BODY}, url {mirror}.") in text
    assert "Hidden: [ ]." in text or "Hidden: []." in text


def test_pdf_route_with_latexs_own_latexml_sty(tmp_path):
    """LaTeX's own latexml.sty (LaTeXML's, for real TeX) defines \\iflatexml false: pith must
    keep its PDF route then."""
    folder = example_paper("article", tmp_path / "article")
    tex = folder / "paper.tex"
    tex.write_text(tex.read_text().replace("\\usepackage{pith}", "\\usepackage{latexml}\n\\usepackage{pith}"))
    run = compile_tex(folder, "pdflatex")
    assert run.pdf is not None, run.log[-1500:]
    assert "latexml.sty" in run.log
    facts = read_facts(run.pdf)
    assert facts.info_number == BODY
    assert URL in facts.link_uris


# Title blocks without \maketitle: LaTeXML still sets the title block first in the HTML.
NO_MAKETITLE = {
    # article with \title and \author but no \maketitle: before the first \section.
    "article": ("\\documentclass{article}\n\\usepackage{pith}\n\\pithnumber{" + BODY + "}\n"
                "\\title{A Title}\\author{An Author}\n\\begin{document}\n"
                "\\section{Intro}\nText.\n\\end{document}\n", 'class="ltx_authors"'),
    # iopart (LaTeXML's own binding of it): its block ends with the abstract, and its
    # \maketitle, a \newpage, is left out as in most IOP papers.
    "iopart": ("\\documentclass[12pt]{iopart}\n\\usepackage{pith}\n\\pithnumber{" + BODY + "}\n"
               "\\begin{document}\n\\title{A Title}\n\\author{An Author}\n\\address{A Place}\n"
               "\\begin{abstract}\nAn abstract.\n\\end{abstract}\n\\section{Intro}\nText.\n\\end{document}\n",
               'class="ltx_abstract"'),
}


@pytest.mark.parametrize("cls", sorted(NO_MAKETITLE))
def test_title_block_without_maketitle(tmp_path, cls):
    tex, last_of_block = NO_MAKETITLE[cls]
    (tmp_path / "paper.tex").write_text(tex)
    (tmp_path / "pith.sty").write_bytes(STY.read_bytes())
    run = convert(tmp_path)
    assert run.html, run.log[-1500:]
    _no_pith_complaint(run.log)
    badges = [link for link in links(run.html) if link.href == URL]
    assert len(badges) == 1, [link.href for link in links(run.html)]
    html = run.html
    assert (html.index("ltx_title_document") < html.index(last_of_block) < badges[0].offset
            < html.index("ltx_title_section"))


BEAMER = ("\\documentclass{beamer}\n\\usetheme{Berlin}\n%PITH\n\\title{A Talk}\\author{A Speaker}"
          "\\date{1 December 2026}\n\\begin{document}\n\\begin{frame}\n\\titlepage\n\\end{frame}\n"
          "\\section{One}\n\\begin{frame}{First}\nText.\n\\end{frame}\n\\end{document}\n")


def test_beamer_title_frame(tmp_path):
    """LaTeXML's beamer binding sets the title page in the first slide, filling in title,
    authors and date at its end: the badge is in that slide, once (LaTeXML typesets a
    frame more than once). The binding's own complaints about \\titlepage come with or
    without pith, and pith adds none."""
    said = {}
    for variant, lines in (("without", ""), ("with", f"\\usepackage{{pith}}\\pithnumber{{{BODY}}}")):
        folder = tmp_path / variant
        folder.mkdir()
        (folder / "paper.tex").write_text(BEAMER.replace("%PITH", lines))
        (folder / "pith.sty").write_bytes(STY.read_bytes())
        run = convert(folder)
        assert run.html, run.log[-1500:]
        said[variant] = _same_complaints(run.log)
    assert said["with"] == said["without"]
    badges = [link for link in links(run.html) if link.href == URL]
    assert len(badges) == 1, [link.href for link in links(run.html)]
    html = run.html
    slide = html.index('class="ltx_titlepage"')
    assert slide < badges[0].offset < html.index("ltx_title_titlepage") < html.index("ltx_title_section")
