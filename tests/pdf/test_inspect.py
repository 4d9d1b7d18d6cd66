"""`inspect` reads what pdfTeX writes (the way pith.sty does) and what stamp writes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from pithtex.brand import XMP_NAMESPACE
from pithtex.errors import UnreadablePdf as InspectError
from pithtex.pdf.facts import inspect_pdf

from ..conftest import BODY, SEED_PATH, URL, assert_clean_error, fixture_pdf, pithtex_cli

# Info, an uncompressed XMP stream in the catalog and a link: pdfTeX primitives (docs/format.md).
TEX = r"""
\pdfcompresslevel=0 \pdfobjcompresslevel=2 \catcode`\#=12
\pdfinfo{/PithNumber (@BODY@) /PithURL (@URL@)}
\immediate\pdfobj stream attr{/Type /Metadata /Subtype /XML}{<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:pith="@NS@"><pith:number>@BODY@</pith:number><pith:url>@URL@</pith:url>
</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>}
\pdfcatalog{/Metadata \the\pdflastobj\space 0 R}
Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM\par
\leavevmode\pdfstartlink user{/Subtype/Link/A<</S/URI/URI(@URL@)>>}pith:YBK5PTAK\pdfendlink
\bye
"""


@pytest.fixture(scope="module")
def sty_like_pdf(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("tex")
    source = TEX.replace("@BODY@", BODY).replace("@URL@", URL).replace("@NS@", XMP_NAMESPACE)
    (folder / "paper.tex").write_text(source, "utf-8")
    proc = subprocess.run(["pdftex", "-interaction=nonstopmode", "paper.tex"], cwd=folder, capture_output=True,
                          text=True, timeout=120, env={"SOURCE_DATE_EPOCH": "0", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stdout[-2000:]
    return folder / "paper.pdf"


def test_reads_pdftex_metadata_and_link(sty_like_pdf: Path):
    seen = inspect_pdf(sty_like_pdf)
    assert seen["number"] == BODY and seen["agree"]
    assert seen["info"] == {"PithNumber": BODY, "PithURL": URL}
    assert seen["xmp"] == {"number": BODY, "url": URL}
    assert seen["links"] == [URL]
    assert seen["attachment"] is False and seen["pithtex_update"] is False


def test_stamp_without_number_on_complete_file_is_unchanged(sty_like_pdf: Path, tmp_path: Path):
    out = tmp_path / "out.pdf"
    proc = pithtex_cli("stamp", str(sty_like_pdf), "-o", str(out))
    assert proc.returncode == 0 and "nothing to change" in proc.stdout
    assert out.read_bytes() == sty_like_pdf.read_bytes()


def test_stamp_with_record_adds_the_long_form(sty_like_pdf: Path, tmp_path: Path):
    out = tmp_path / "out.pdf"
    assert pithtex_cli("stamp", str(sty_like_pdf), "--record", str(SEED_PATH), "-o", str(out)).returncode == 0
    seen = json.loads(pithtex_cli("inspect", str(out), "--json").stdout)
    assert seen["xmp"]["long"] == f"pith:2021:{BODY}" and seen["agree"] and seen["pithtex_update"]
    assert seen["links"] == [URL]


def test_disagreeing_sources_are_reported(sty_like_pdf: Path, tmp_path: Path):
    other = "AAAAAAAAAAAAAAAAAAAAAAAAAA"
    out = tmp_path / "out.pdf"
    assert pithtex_cli("stamp", str(sty_like_pdf), "--number", other, "--force", "-o", str(out)).returncode == 0
    seen = inspect_pdf(out)
    assert seen["number"] == other and not seen["agree"], "the old link still names the old number"


def test_plain_pdf_has_no_number():
    seen = inspect_pdf(fixture_pdf("001"))
    assert seen["number"] is None and not seen["agree"] and seen["xmp"] is None and seen["info"] == {}


def test_encrypted_and_broken_inputs(tmp_path: Path):
    locked = fixture_pdf("005")
    assert inspect_pdf(locked)["encrypted"] is True
    assert_clean_error(pithtex_cli("inspect", str(locked)), 1)
    junk = tmp_path / "junk.pdf"
    junk.write_bytes(b"%PDF-1.4\nnothing here\n")
    with pytest.raises(InspectError):
        inspect_pdf(junk)
    err = assert_clean_error(pithtex_cli("inspect", str(junk)))
    assert str(junk) in err
    assert_clean_error(pithtex_cli("inspect", str(tmp_path / "missing.pdf")))
