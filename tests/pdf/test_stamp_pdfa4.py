"""PDF/A-4 (ISO 19005-4, 6.1.3) allows no Info entry other than /ModDate: a stamp puts the
number into the XMP only, leaves the file's Info dictionary (or its absence) as it was, and
`inspect`, `verify` and a second stamp still find the number there. The stamped files are
reopened by qpdf --check, pikepdf and pypdf; --revert gives the original bytes.

veraPDF, the reference PDF/A validator, is not packaged for Debian or PyPI, so it is not run
here: the fixture is a PDF/A-4 claim built by hand (tests/pdfkit.py), and what 6.1.3 asks of
the Info dictionary is checked directly."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pikepdf
import pypdf
import pytest

from pithtex.brand import XMP_NAMESPACE as PITH_NS

from ..conftest import BODY, assert_clean_error, pithtex_cli
from ..pdfkit import pdfa4_file

MODDATE = {"/ModDate": "D:20240501100000Z"}
NUMBER_URL = f"https://pith.science/pith/{BODY}"


def info_of(path: Path) -> dict[str, str] | None:
    with pikepdf.open(path) as pdf:
        if "/Info" not in pdf.trailer:
            return None
        return {str(k): str(v) for k, v in pdf.trailer.Info.items()}


def reopened(path: Path) -> dict[str, str]:
    """The file passes qpdf --check and opens in pikepdf and pypdf; its XMP pith properties."""
    check = subprocess.run(["qpdf", "--check", str(path)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    with path.open("rb") as fh:
        reader = pypdf.PdfReader(fh)
        assert len(reader.pages) == 1
        xmp = reader.xmp_metadata
        assert xmp is not None
        assert reader.pdf_header == "%PDF-2.0"
    with pikepdf.open(path) as pdf:
        meta = pdf.open_metadata()
        return {"part": str(meta.get("pdfaid:part")), "number": str(meta.get(f"{{{PITH_NS}}}number")),
                "url": str(meta.get(f"{{{PITH_NS}}}url"))}


@pytest.mark.parametrize("info", [None, MODDATE], ids=["no-info", "moddate-only"])
@pytest.mark.parametrize("conformance", ["", "F", "E"])
def test_a_pdfa4_stamp_writes_xmp_only(tmp_path: Path, info, conformance: str):
    src = pdfa4_file(tmp_path / "a4.pdf", info=info, conformance=conformance)
    original = src.read_bytes()
    out = tmp_path / "stamped.pdf"
    proc = pithtex_cli("stamp", str(src), "--number", BODY, "-o", str(out))
    assert proc.returncode == 0 and not proc.stderr, proc.stderr
    assert "Info" not in proc.stdout  # the report says what changed: the XMP alone
    assert info_of(out) == (None if info is None else dict(MODDATE))
    assert reopened(out) == {"part": "4", "number": BODY, "url": NUMBER_URL}
    found = json.loads(pithtex_cli("inspect", str(out), "--json").stdout)
    assert found["number"] == BODY and found["info"] == {} and found["pdfa"] == f"4{conformance}"
    assert found["xmp"]["number"] == BODY
    # A second stamp finds nothing missing (no Info is "missing" here), and --revert undoes it.
    again = pithtex_cli("stamp", str(out), "--number", BODY, "--in-place")
    assert again.returncode == 0, again.stderr
    assert "already" in again.stdout
    back = tmp_path / "back.pdf"
    assert pithtex_cli("stamp", str(out), "--revert", "-o", str(back)).returncode == 0
    assert back.read_bytes() == original


def test_pith_keys_an_earlier_stamp_put_in_info_are_taken_out(tmp_path: Path):
    src = pdfa4_file(tmp_path / "a4.pdf", info={**MODDATE, "/PithNumber": BODY, "/PithURL": NUMBER_URL})
    out = tmp_path / "stamped.pdf"
    proc = pithtex_cli("stamp", str(src), "--number", BODY, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "pith's keys taken out" in proc.stdout
    assert info_of(out) == dict(MODDATE)
    assert reopened(out)["number"] == BODY


def test_a_forced_badge_drops_the_claim_and_then_info_is_written(tmp_path: Path):
    src = pdfa4_file(tmp_path / "a4.pdf", info=MODDATE)
    out = tmp_path / "stamped.pdf"
    assert "PDF/A-4" in assert_clean_error(pithtex_cli("stamp", str(src), "--number", BODY, "--badge",
                                                       "-o", str(out)), 1)
    proc = pithtex_cli("stamp", str(src), "--number", BODY, "--badge", "--force", "-o", str(out))
    assert proc.returncode == 0 and "no longer claims PDF/A" in proc.stderr
    assert info_of(out) == {**MODDATE, "/PithNumber": BODY, "/PithURL": NUMBER_URL}
    assert reopened(out)["part"] == "None"
