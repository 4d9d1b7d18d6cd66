"""pith.sty beside hyperref, hyperxmp and the kernel's PDF management on every engine.

test_sty_coexist covers arXiv's two routes; this adds XeLaTeX and LuaLaTeX, and the
\\DocumentMetadata forms authors write (plain, PDF 2.0, PDF/A-2b). `make texlive-matrix`
runs it (with the other pith.sty tests) on TeX Live 2022, 2024 and 2026.
"""

from __future__ import annotations

import re

import pytest

from ..conftest import BODY, URL
from ..texrun import compile_tex, flat_log, write_doc
from .test_sty_coexist import VARIANTS, assert_badge_and_metadata, doc

ENGINES = ("pdflatex", "dvips", "xelatex", "lualatex")
COEXIST = [(v, r) for v in VARIANTS for r in ("xelatex", "lualatex")]
METADATA = {
    "empty": "",
    "pdf2": "pdfversion=2.0",
    "pdfa": "pdfstandard=a-2b",
}
# PDF/A on latex -> dvips -> ps2pdf fails before pith matters: ghostscript's -dSAFER refuses
# to read the kernel's sRGB.icc output intent ("invalidfileaccess"), so the PDF is empty.
DOCMETA = [(m, r) for m in METADATA for r in ENGINES if (m, r) != ("pdfa", "dvips")]


def kernel_date(log: str) -> str:
    """The LaTeX kernel's release date from the log's banner, as YYYY-MM-DD."""
    found = re.search(r"LaTeX2e <(\d{4}-\d{2}-\d{2})>", log)
    return found.group(1) if found else "0000-00-00"


@pytest.mark.parametrize(("variant", "route"), COEXIST, ids=[f"{v}-{r}" for v, r in COEXIST])
def test_coexistence_on_unicode_engines(tmp_path, variant, route):
    before_class, before_pith, after_pith = VARIANTS[variant]
    write_doc(tmp_path, doc(before_class, before_pith, after_pith).replace("\\usepackage[utf8]{inputenc}\n", ""))
    run = compile_tex(tmp_path, route)
    kernel_only = "XMP left to the kernel" in flat_log(run.log)
    facts = assert_badge_and_metadata(run, xmp_expected=not kernel_only)
    assert facts.info_number == BODY and facts.info_url == URL
    if variant == "hyperxmp":
        assert "xmlns:pith=" in facts.xmp


@pytest.mark.parametrize(("form", "route"), DOCMETA, ids=[f"{m}-{r}" for m, r in DOCMETA])
def test_document_metadata_forms(tmp_path, form, route):
    """\\DocumentMetadata{...}: Info keys through pdfmanagement, XMP through the kernel's packet."""
    keys = METADATA[form]
    text = doc(before_class=f"\\DocumentMetadata{{{keys}}}\n", before_pith="\\usepackage{hyperref}\n")
    if route != "pdflatex":
        text = text.replace("\\usepackage[utf8]{inputenc}\n", "")
    write_doc(tmp_path, text)
    run = compile_tex(tmp_path, route)
    log = flat_log(run.log)
    # PDF/A and PDF 2.0 need a kernel that knows them (the 2022 PDF management took both
    # keys, but on latex -> dvips ghostscript writes the PDF version it likes).
    kernel_only = "XMP left to the kernel" in log
    facts = assert_badge_and_metadata(run, xmp_expected=not kernel_only and form != "pdfa")
    assert facts.info_number == BODY and facts.info_url == URL
    if form == "pdfa" and not kernel_only:
        # No extension schema can be declared through a public interface: no pith properties.
        assert "PDF/A: the pith properties stay out of the XMP packet" in log and BODY not in facts.xmp
    elif not kernel_only:
        assert "<pith:number>" + BODY in facts.xmp
    if form == "pdf2" and route != "dvips" and kernel_date(run.log) >= "2022-06-01":
        assert run.pdf.read_bytes()[:8] == b"%PDF-2.0"
