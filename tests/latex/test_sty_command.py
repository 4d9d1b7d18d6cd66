"""`pithtex sty`: the current pith.sty written next to a paper, never over a different file
without --force; the same text the project commits."""

from __future__ import annotations

import os
from pathlib import Path

from pithtex import brand
from pithtex.latex.sty import current, declared, text

from ..conftest import ROOT, assert_clean_error, pithtex_cli

STY = ROOT / "latex" / "pith.sty"


def test_the_package_text_is_the_committed_rendering():
    assert text() == STY.read_text("utf-8")
    assert current().version == brand.VERSION
    assert str(current()) == f"{brand.RELEASE_DATE} v{brand.VERSION}"


def test_writes_into_the_current_folder_by_default_and_says_the_version(tmp_path: Path):
    proc = pithtex_cli("sty", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"wrote pith.sty (pith.sty {brand.RELEASE_DATE} v{brand.VERSION})"
    assert (tmp_path / "pith.sty").read_bytes() == STY.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pith.sty"], "no temporary file left"


def test_identical_copy_is_left_alone(tmp_path: Path):
    pithtex_cli("sty", str(tmp_path))
    before = (tmp_path / "pith.sty").stat().st_mtime_ns
    proc = pithtex_cli("sty", str(tmp_path))
    assert proc.returncode == 0 and proc.stdout.startswith(f"already current: {tmp_path / 'pith.sty'}")
    assert (tmp_path / "pith.sty").stat().st_mtime_ns == before


def test_a_different_copy_is_kept_unless_force(tmp_path: Path):
    old = STY.read_text("utf-8").replace(f"[{brand.RELEASE_DATE} v", "[2001/01/01 v", 1)
    (tmp_path / "pith.sty").write_text(old)
    err = assert_clean_error(pithtex_cli("sty", str(tmp_path)), 1)
    assert "differs" in err and "2001/01/01" in err and "--force" in err
    assert (tmp_path / "pith.sty").read_text() == old
    proc = pithtex_cli("sty", str(tmp_path), "--force")
    assert proc.returncode == 0 and proc.stdout.startswith("replaced ")
    assert (tmp_path / "pith.sty").read_bytes() == STY.read_bytes()


def test_bad_targets_are_one_line(tmp_path: Path):
    assert "no such folder" in assert_clean_error(pithtex_cli("sty", str(tmp_path / "missing")))
    (tmp_path / "pith.sty").mkdir()
    assert "not a regular file" in assert_clean_error(pithtex_cli("sty", str(tmp_path), "--force"))
    fifo_dir = tmp_path / "f"
    fifo_dir.mkdir()
    os.mkfifo(fifo_dir / "pith.sty")
    assert "not a regular file" in assert_clean_error(pithtex_cli("sty", str(fifo_dir), "--force"))


def test_declared_reads_dates_and_versions():
    assert str(declared(r"\ProvidesPackage{pith}[2026/01/02 v1.2.3 x]")) == "2026/01/02 v1.2.3"
    assert declared(r"\ProvidesPackage{pith}[2026/01/02 v1.2.3 x]") > declared(r"\ProvidesPackage{pith}[2025/12/31 v9]")
    assert declared("no provides line") is None


def test_check_names_the_sty_command(tmp_path: Path):
    (tmp_path / "paper.tex").write_text("\\documentclass{article}\n\\usepackage{pith}\n\\pithnumber{"
                                        "YBK5PTAKOSCXY2WMLIIB7DMYH6}\n\\begin{document}x\\end{document}\n")
    proc = pithtex_cli("check", str(tmp_path), timeout=300)
    assert proc.returncode == 1 and "pith-sty-missing" in proc.stdout and "pithtex sty" in proc.stdout


def test_every_public_expl3_function_is_documented():
    """pith.sty's public expl3 functions (\\pith_..., not \\__pith_...) are its interface for class
    authors: each one it defines has a row in docs/latex.md's table, and the table names no other."""
    import re

    defined = set(re.findall(r"\\cs_(?:new|gset|set)[a-z_]*:N[npxe]*\s*(\\pith_[A-Za-z_]+:[A-Za-z]*)", text()))
    doc = (ROOT / "docs" / "latex.md").read_text(encoding="utf-8")
    section = doc.split("## The expl3 interface", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `(\\pith_[A-Za-z_]+:[A-Za-z]*)", section, flags=re.M))
    assert {"\\pith_number_set:n", "\\pith_badge:"} <= defined
    assert defined == documented, (defined, documented)
