"""One PDF/A policy (docs/pdf.md, "PDF/A") followed by metadata-only stamping, --badge and --attach-record.

- metadata only: the claim stays and stays true (pith's extension schema is declared);
- --attach-record: an associated file on PDF/A-3; refused below PDF/A-3 without --force;
- --badge: its Helvetica is not embedded, which no PDF/A part allows: refused without --force;
- with --force, the file stops claiming PDF/A (pdfaid removed from the XMP) and a warning says so.
"""

from __future__ import annotations

from pathlib import Path

import pikepdf
import pytest

from ..conftest import BODY, SEED_PATH, SEED_TITLE, assert_clean_error, pithtex_cli
from ..pdfkit import pdfa_file


def claim(path: Path) -> str | None:
    with pikepdf.open(path) as pdf:
        meta = pdf.open_metadata()
        part = meta.get("pdfaid:part")
        return f"{part}{meta.get('pdfaid:conformance', '')}" if part else None


@pytest.mark.parametrize("part", ["1", "2", "3"])
def test_metadata_only_keeps_a_true_claim(tmp_path: Path, part: str):
    inp = pdfa_file(tmp_path / "a.pdf", part)
    out = tmp_path / "out.pdf"
    proc = pithtex_cli("stamp", str(inp), "--number", BODY, "-o", str(out))
    assert proc.returncode == 0 and not proc.stderr, proc.stderr
    assert claim(out) == f"{part}B"
    with pikepdf.open(out) as pdf:
        assert b"<pdfaSchema:namespaceURI>" in pdf.Root.Metadata.read_bytes()


@pytest.mark.parametrize("part", ["1", "2", "3"])
def test_badge_is_refused_then_forced_without_a_false_claim(tmp_path: Path, part: str):
    inp = pdfa_file(tmp_path / "a.pdf", part)
    out = tmp_path / "out.pdf"
    err = assert_clean_error(pithtex_cli("stamp", str(inp), "--number", BODY, "--badge", "-o", str(out)), 1)
    assert f"PDF/A-{part}B" in err and "not embedded" in err and "--force" in err and not out.exists()
    proc = pithtex_cli("stamp", str(inp), "--number", BODY, "--badge", "--force", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "no longer claims PDF/A" in proc.stderr
    assert claim(out) is None, "a forced badge leaves no PDF/A claim behind"
    with pikepdf.open(out) as pdf:
        assert any(str(a.A.URI).endswith(BODY) for a in pdf.pages[0].Annots)


@pytest.mark.parametrize("part,allowed", [("1", False), ("2", False), ("3", True)])
def test_attach_record_follows_the_same_policy(tmp_path: Path, part: str, allowed: bool):
    inp = pdfa_file(tmp_path / "a.pdf", part, title=SEED_TITLE)
    out = tmp_path / "out.pdf"
    args = ["stamp", str(inp), "--record", str(SEED_PATH), "--attach-record", "-o", str(out)]
    if allowed:
        proc = pithtex_cli(*args)
        assert proc.returncode == 0 and not proc.stderr, proc.stderr
        assert claim(out) == "3B"
        return
    err = assert_clean_error(pithtex_cli(*args), 1)
    assert "does not allow attached files" in err and not out.exists()
    proc = pithtex_cli(*args, "--force")
    assert proc.returncode == 0 and "no longer claims PDF/A" in proc.stderr
    assert claim(out) is None
