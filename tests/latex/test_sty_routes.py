"""Every example paper on every TeX route: badge text, link, Info and XMP, proven from the PDF.

Each case is one real compile of examples/<class>/paper.tex (with the current pith.sty
beside it, as `pithtex sty` puts it there); run under xdist the compiles go in parallel.
"""

from __future__ import annotations

import pytest

from pithtex.latex import options

from ..conftest import BODY, URL, example_paper
from ..texrun import compile_tex, read_facts

CLASSES = options.CLASS_NAMES  # the supported classes' table
# arXiv's three routes plus LuaLaTeX everywhere; latex -> dvipdfmx on two classes.
CASES = [(c, r) for c in CLASSES for r in ("pdflatex", "dvips", "xelatex", "lualatex")]
CASES += [("article", "dvipdfmx"), ("revtex4-2", "dvipdfmx"), ("acmart", "dvipdfmx")]
# Where the log says the badge went (tests/latex/test_sty_placement.py reads the positions).
PLACED = {c.name: c.placed for c in options.CLASSES}


@pytest.mark.parametrize(("cls", "route"), CASES, ids=[f"{c}-{r}" for c, r in CASES])
def test_example_route(tmp_path, cls, route):
    folder = example_paper(cls, tmp_path / cls)
    # acmart does not compile with the dvipdfmx class option (hyperxmp's dvipdfm packet
    # code fails on its metadata, with or without pith, TeX Live 2022 to 2026): its authors
    # tell pith alone, and pith then writes its own XMP for dvipdfmx.
    run = compile_tex(folder, route, tell_driver="package" if cls == "acmart" else "class")
    assert run.pdf is not None, run.log[-1500:]
    assert "! " not in "\n".join(line[:2] for line in run.log.splitlines()), run.log[-1500:]
    facts = read_facts(run.pdf)
    assert facts.info_number == BODY
    assert facts.info_url == URL
    assert "<pith:number" in facts.xmp and BODY in facts.xmp
    assert "https://pith.science/ns/1.0/" in facts.xmp
    assert facts.metadata_streams == 1
    assert facts.link_uris.count(URL) == 1, facts.link_uris
    assert "pith:" + BODY[:8] in facts.compact_text
    # arXiv stamps the left margin of page 1: nothing of ours may be there.
    rect = facts.link_rects[facts.link_uris.index(URL)]
    assert min(rect[0], rect[2]) >= 40
    assert f"Badge placed {PLACED[cls]}" in run.log.replace("\n", "")
