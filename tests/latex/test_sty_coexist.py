"""pith.sty next to the packages papers really load: one badge, one link, one XMP packet.

The coexistence matrix (nothing, hyperref before or after pith, hyperxmp, the kernel's
\\DocumentMetadata) runs on pdflatex and on arXiv's latex -> dvips -> ps2pdf route; the
"must not break" documents add babel's active characters, xcolor, two columns, \\thanks,
T1 and UTF-8 titles.
"""

from __future__ import annotations

import pytest

from ..conftest import BODY, URL
from ..texrun import compile_tex, flat_log, read_facts, write_doc

FRONT = r"""\title{Über Zahlen: à la carte\thanks{Supported by nobody.}}
\author{A. Author}
\begin{document}
\maketitle
\section{Introduction}
Some text of the paper, with a link-free body.
\end{document}
"""

VARIANTS = {
    "plain": ("", "", ""),
    "hyperref-before": ("", r"\usepackage{hyperref}" "\n", ""),
    "hyperref-after": ("", "", r"\usepackage{hyperref}" "\n"),
    "hyperxmp": ("", r"\usepackage{hyperref}" "\n" r"\usepackage{hyperxmp}" "\n", ""),
    "documentmetadata": (r"\DocumentMetadata{}" "\n", r"\usepackage{hyperref}" "\n", ""),
}
MATRIX = [(v, r) for v in VARIANTS for r in ("pdflatex", "dvips")]


def doc(before_class: str = "", before_pith: str = "", after_pith: str = "", cls: str = "article",
        options: str = "", number: str = BODY, front: str = FRONT) -> str:
    return (f"{before_class}\\documentclass{options}{{{cls}}}\n\\usepackage[utf8]{{inputenc}}\n"
            f"{before_pith}\\usepackage{{pith}}\n{after_pith}\\pithnumber{{{number}}}\n{front}")


def assert_badge_and_metadata(run, xmp_expected: bool = True) -> None:
    assert run.pdf is not None, run.log[-1500:]
    errors = [line for line in run.log.splitlines() if line.startswith("! ")]
    assert not errors, errors
    facts = read_facts(run.pdf)
    assert facts.metadata_streams == 1
    assert facts.link_uris.count(URL) == 1, facts.link_uris
    assert "pith:" + BODY[:8] in facts.compact_text
    if xmp_expected:
        assert BODY in facts.xmp
    return facts


@pytest.mark.parametrize(("variant", "route"), MATRIX, ids=[f"{v}-{r}" for v, r in MATRIX])
def test_coexistence(tmp_path, variant, route):
    before_class, before_pith, after_pith = VARIANTS[variant]
    write_doc(tmp_path, doc(before_class, before_pith, after_pith))
    run = compile_tex(tmp_path, route)
    log = flat_log(run.log)
    # TeX Live 2022's PDF management has no \pdfmeta_xmp_add:n; pith then says so and
    # leaves the kernel's packet alone (newer kernels take the pith properties).
    kernel_only = "XMP left to the kernel" in log
    facts = assert_badge_and_metadata(run, xmp_expected=not kernel_only)
    if variant == "documentmetadata":
        assert kernel_only or "<pith:number>" in facts.xmp
    if variant == "hyperxmp":
        assert "pith properties added to hyperxmp's XMP packet" in log
        assert "xmlns:pith=" in facts.xmp  # one packet: hyperxmp's, with ours inside
        if route == "dvips":
            assert "suppress" in log  # the Info wipe is announced
    if not (variant == "hyperxmp" and route == "dvips"):
        assert facts.info_number == BODY


BABEL_FRENCH = r"""\usepackage[T1]{fontenc}
\usepackage[french]{babel}
\usepackage[dvipsnames]{xcolor}
\usepackage[colorlinks]{hyperref}
"""
GERMAN_BODY = r"""\title{Größen im Überblick}
\author{B. Autorin}
\begin{document}
\pithnumber{ pith:2021:"YBK5PTAKOSCXY2WMLIIB7DMYH6" }
\maketitle
\section{Einleitung}
\glqq Anführungszeichen\grqq{} und "a "o "u.
\end{document}
"""


@pytest.mark.parametrize("route", ["pdflatex", "dvips"])
def test_french_twocolumn_xcolor_hyperref(tmp_path, route):
    write_doc(tmp_path, doc(before_pith=BABEL_FRENCH, options="[twocolumn]"))
    facts = assert_badge_and_metadata(compile_tex(tmp_path, route))
    assert facts.info_number == BODY


def test_ngerman_active_quotes_number_in_body(tmp_path):
    """A \\pithnumber in the body, where babel's " is active, still reads the number."""
    text = doc(before_pith="\\usepackage[T1]{fontenc}\n\\usepackage[ngerman]{babel}\n", number="", front=GERMAN_BODY)
    text = text.replace("\\pithnumber{}\n", "")
    write_doc(tmp_path, text)
    run = compile_tex(tmp_path, "pdflatex")
    # The quotes are not part of a number: the fault is named, and the run goes on.
    assert "character '\"' at position 1 is not base32" in flat_log(run.log)
    assert run.pdf is not None


def test_ngerman_number_in_body(tmp_path):
    front = GERMAN_BODY.replace('"YBK5PTAKOSCXY2WMLIIB7DMYH6"', "YBK5PTAKOSCXY2WMLIIB7DMYH6")
    text = doc(before_pith="\\usepackage[T1]{fontenc}\n\\usepackage[ngerman]{babel}\n", front=front)
    write_doc(tmp_path, text.replace(f"\\pithnumber{{{BODY}}}\n", "", 1))
    facts = assert_badge_and_metadata(compile_tex(tmp_path, "pdflatex"))
    assert "<pith:long>pith:2021:" + BODY in facts.xmp


PDFX_DATA = r"""\begin{filecontents*}[overwrite]{paper.xmpdata}
\Title{A Test}
\Author{A. Author}
\end{filecontents*}
"""


def test_pdfx_keeps_its_packet_and_pith_keeps_info(tmp_path):
    """pdfx owns the one XMP packet (PDF/A); pith leaves it alone and writes Info keys."""
    write_doc(tmp_path, doc(before_class=PDFX_DATA, before_pith=r"\usepackage[a-2b]{pdfx}" "\n"))
    run = compile_tex(tmp_path, "pdflatex")
    facts = assert_badge_and_metadata(run, xmp_expected=False)
    assert facts.info_number == BODY
    assert "XMP left to pdfx; Info keys written" in flat_log(run.log)
    assert "pdfaid" in facts.xmp  # pdfx's packet, untouched
