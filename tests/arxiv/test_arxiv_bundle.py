"""`pithtex bundle` on the fixture paper: exactly the files the compile read, nothing else."""

from __future__ import annotations

import json
import shutil
import tarfile
from pathlib import Path

from ..conftest import ROOT, pithtex_cli

PLAIN = ROOT / "tests" / "fixtures" / "arxiv" / "plain"


def test_bundle_keeps_subfolder_files_named_without_extension(tmp_path: Path):
    paper = tmp_path / "paper"
    shutil.copytree(PLAIN, paper)
    # Litter a working folder has: build products, notes, a dot file, an unused figure.
    for name in ("paper.aux", "paper.log", "paper.pdf", "notes.txt", ".gitignore", "figs/unused.eps"):
        (paper / name).write_text("x")
    (paper / "00README.json").write_text(json.dumps({"process": {"compiler": "latex"}}))
    out = tmp_path / "out" / "upload.tar.gz"
    out.parent.mkdir()  # -o never creates folders (pithtex/files.py)
    p = pithtex_cli("bundle", str(paper), "-o", str(out), "--json", timeout=300)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr
    j = json.loads(p.stdout)
    expected = ["00README.json", "figs/box.eps", "paper.bbl", "paper.tex", "sections/body.tex"]
    assert j["files"] == expected and j["route"] == "latex" and j["check"]["ok"]
    with tarfile.open(out) as t:
        assert t.getnames() == expected
    # Same input, same bytes: the archive is reproducible.
    again = tmp_path / "again.tar.gz"
    assert pithtex_cli("bundle", str(paper), "-o", str(again), timeout=300).returncode == 0
    assert again.read_bytes() == out.read_bytes()


def test_bundle_refuses_a_paper_that_does_not_compile(tmp_path: Path):
    paper = tmp_path / "paper"
    shutil.copytree(PLAIN, paper)
    tex = paper / "paper.tex"
    tex.write_text(tex.read_text().replace("\\maketitle", "\\maketitle\n\\undefinedcommandhere"))
    out = tmp_path / "upload.tar.gz"
    p = pithtex_cli("bundle", str(paper), "-o", str(out), timeout=300)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert "not ready for arXiv (latex): paper.tex:8 compile-error" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
    assert not out.exists() and list(tmp_path.iterdir()) == [paper]
