"""The post-compile PDF checks on hand-made PDFs: left band, missing XMP, wrong number, OutputIntents."""

from __future__ import annotations

from pathlib import Path

import pikepdf

from pithtex.arxiv.pdfcheck import pith_checks

from ..conftest import BODY, URL

OTHER = "A" * 26


def make_pdf(path: Path, link_x: float | None, info: str | None, intents: bool = False) -> Path:
    pdf = pikepdf.new()
    pdf.add_blank_page(page_size=(612, 792))
    page = pdf.pages[0]
    if link_x is not None:
        link = pdf.make_indirect(pikepdf.Dictionary(
            Type=pikepdf.Name.Annot, Subtype=pikepdf.Name.Link,
            Rect=pikepdf.Array([link_x, 700, link_x + 60, 712]),
            A=pikepdf.Dictionary(S=pikepdf.Name.URI, URI=pikepdf.String(URL))))
        page.obj.Annots = pdf.make_indirect(pikepdf.Array([link]))
    if info is not None:
        pdf.docinfo[pikepdf.Name("/PithNumber")] = info
    if intents:
        pdf.Root.OutputIntents = pikepdf.Array([])
    pdf.save(path)
    return path


def rules(diags) -> list[str]:
    return sorted(d.rule for d in diags)


def test_link_in_arxivs_left_band(tmp_path: Path):
    facts, diags = pith_checks(make_pdf(tmp_path / "a.pdf", 20, BODY), BODY, "pdflatex", read=None)
    assert rules(diags) == ["pdf-left-band", "pdf-no-xmp"]
    assert facts["info"] == BODY and facts["left_band_clear"] is False
    assert facts["page1_links"][0]["rect"][0] == 20


def test_link_clear_of_the_band_but_wrong_number_and_no_link(tmp_path: Path):
    facts, diags = pith_checks(make_pdf(tmp_path / "b.pdf", None, OTHER), BODY, "latex", read=None)
    assert rules(diags) == ["pdf-no-badge-link", "pdf-no-xmp", "pdf-number-mismatch"]
    assert all(d.route == "latex" and d.severity == "error" for d in diags)
    facts, diags = pith_checks(make_pdf(tmp_path / "c.pdf", 72, None), BODY, "xelatex", read=None)
    assert rules(diags) == ["pdf-no-info", "pdf-no-xmp"] and facts["left_band_clear"]


def test_output_intents_warn_even_without_pith(tmp_path: Path):
    facts, diags = pith_checks(make_pdf(tmp_path / "d.pdf", None, None, intents=True), None, "pdflatex")
    assert [(d.rule, d.severity) for d in diags] == [("pdfa-outputintents", "warning")]
    assert facts["output_intents"] is True
