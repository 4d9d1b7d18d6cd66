"""An upload with several top-level files (a paper, a rebuttal, a supplement): arXiv compiles
each of them, so `check` compiles and reports each, follows pith into the file that loads
it, and never says OK while that file is unchecked; `bundle` keeps only what the chosen
top-level files use and names what it left out."""

from __future__ import annotations

import json
import shutil
import tarfile
from pathlib import Path

import pytest

from ..conftest import BODY, ROOT, pithtex_cli

SEVERAL = ROOT / "tests" / "fixtures" / "arxiv" / "several"
STY = ROOT / "latex" / "pith.sty"
ORDER = ["_rebuttal.tex", "paper.tex", "supplement.tex"]  # alphanumeric: '_' sorts before lower case


@pytest.fixture
def upload(tmp_path: Path) -> Path:
    dest = tmp_path / "upload"
    shutil.copytree(SEVERAL, dest)
    shutil.copyfile(STY, dest / "pith.sty")
    return dest


def check(*args: str) -> tuple[int, dict, str]:
    p = pithtex_cli("check", *args, "--json", timeout=300)
    assert "Traceback" not in p.stderr, p.stderr
    return p.returncode, json.loads(p.stdout), p.stderr


def errors(j: dict) -> list[tuple[str, str | None]]:
    return [(d["rule"], d["main"]) for d in j["diagnostics"] if d["severity"] == "error"]


def test_every_top_level_file_is_compiled_in_arxivs_order(upload: Path):
    code, j, _ = check(str(upload))
    assert code == 0 and j["ok"], j["diagnostics"]
    assert (j["mains"], j["mains_from"]) == (ORDER, "documentclass")
    assert [(f["main"], f["ok"], f["uses_pith"]) for f in j["files"]] == [
        ("_rebuttal.tex", True, False), ("paper.tex", True, True), ("supplement.tex", True, False)]
    # One real compile per file, each read back; pith followed into paper.tex's PDF.
    assert [(r["main"], r["route"], r["pdf"]) for r in j["routes"]] == [(m, "latex", True) for m in ORDER]
    assert j["main"] == "paper.tex" and j["pith"]["number"] == BODY
    paper_route = next(r for r in j["routes"] if r["main"] == "paper.tex")
    assert paper_route["pith"]["info"] and paper_route["pith"]["xmp"]
    assert [r["pith"]["info"] for r in j["routes"] if r["main"] != "paper.tex"] == [None, None]
    assert "several-main-files" in {d["rule"] for d in j["diagnostics"] if d["severity"] == "warning"}


def test_the_file_that_loads_pith_decides_even_when_the_others_pass(upload: Path):
    # The reported case: _rebuttal.tex is fine and comes first; paper.tex lacks pith.sty.
    (upload / "pith.sty").unlink()
    code, j, _ = check(str(upload))
    assert code == 1 and not j["ok"]
    assert [(f["main"], f["ok"]) for f in j["files"]] == [
        ("_rebuttal.tex", True), ("paper.tex", False), ("supplement.tex", True)]
    assert errors(j) == [("pith-sty-missing", "paper.tex")]
    human = pithtex_cli("check", str(upload), timeout=300).stdout
    assert human.startswith("FAIL ") and "paper.tex: FAIL" in human and "_rebuttal.tex: ok" in human


def test_a_failing_rebuttal_fails_the_upload(upload: Path):
    (upload / "_rebuttal.tex").write_text("\\documentclass{article}\\begin{document}\\nosuchmacro\\end{document}\n")
    code, j, _ = check(str(upload))
    assert code == 1
    assert [(f["main"], f["ok"]) for f in j["files"]] == [
        ("_rebuttal.tex", False), ("paper.tex", True), ("supplement.tex", True)]
    assert errors(j) == [("compile-error", "_rebuttal.tex")]


def test_00readme_names_the_top_level_files_and_their_order(upload: Path):
    (upload / "00README.json").write_text(json.dumps({"sources": [
        {"filename": "supplement.tex", "usage": "toplevel"}, {"filename": "paper.tex"},
        {"filename": "_rebuttal.tex", "usage": "ignore"}]}))
    code, j, _ = check(str(upload))
    assert code == 0, j["diagnostics"]
    assert (j["mains"], j["mains_from"]) == (["supplement.tex", "paper.tex"], "00README.json")
    assert [r["main"] for r in j["routes"]] == ["supplement.tex", "paper.tex"]
    assert "several-main-files" not in {d["rule"] for d in j["diagnostics"]}
    (upload / "00README.json").write_text(json.dumps({"sources": [{"filename": "paper2.tex", "usage": "toplevel"}]}))
    p = pithtex_cli("check", str(upload), timeout=60)
    assert p.returncode == 2 and "paper2.tex" in p.stderr


def test_a_named_main_file_is_checked_alone_but_never_hides_the_pith_file(upload: Path):
    code, j, _ = check(str(upload), "--main", "paper.tex")
    assert code == 0 and (j["mains"], j["mains_from"]) == (["paper.tex"], "command line")
    assert j["other_mains"] == ["_rebuttal.tex", "supplement.tex"] and len(j["routes"]) == 1
    # Naming the rebuttal alone: its compile passes, but paper.tex (pith) was never compiled.
    code, j, _ = check(str(upload / "_rebuttal.tex"))
    assert code == 1 and not j["ok"]
    assert [r["main"] for r in j["files"]] == ["_rebuttal.tex"] and j["routes"][0]["ok"]
    assert errors(j) == [("pith-file-unchecked", None)]
    assert next(d for d in j["diagnostics"] if d["severity"] == "error")["file"] == "paper.tex"
    p = pithtex_cli("check", str(upload), "--main", "nosuch.tex", timeout=60)
    assert p.returncode == 2 and "nosuch.tex" in p.stderr


def test_bundle_keeps_what_the_chosen_main_file_uses_and_says_what_it_left_out(upload: Path, tmp_path: Path):
    out = tmp_path / "paper-only.tar.gz"
    p = pithtex_cli("bundle", str(upload), "--main", "paper.tex", "-o", str(out), "--json", timeout=300)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr
    j = json.loads(p.stdout)
    assert j["files"] == ["macros.tex", "paper.tex", "pith.sty"] and j["mains"] == ["paper.tex"]
    assert j["left_out"] == ["_rebuttal.tex", "notes.txt", "supplement.tex"]
    with tarfile.open(out) as t:
        assert t.getnames() == j["files"]
    assert j["check"]["ok"] and j["check"]["mains"] == ["paper.tex"]  # the archive has one top-level file
    human = pithtex_cli("bundle", str(upload), "--main", "paper.tex", "-o", str(out), timeout=300).stdout
    assert "left out (not used by paper.tex): _rebuttal.tex notes.txt supplement.tex" in human.splitlines()[0]


def test_bundle_of_the_folder_keeps_every_top_level_file(upload: Path, tmp_path: Path):
    out = tmp_path / "all.tar.gz"
    p = pithtex_cli("bundle", str(upload), "-o", str(out), "--json", timeout=300)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr
    j = json.loads(p.stdout)
    assert j["files"] == ["_rebuttal.tex", "macros.tex", "paper.tex", "pith.sty", "supplement.tex"]
    assert j["left_out"] == ["notes.txt"] and j["check"]["mains"] == ORDER and j["check"]["ok"]
