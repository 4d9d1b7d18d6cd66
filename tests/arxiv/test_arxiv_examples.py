"""Every example folder, with `pithtex sty` run in it, is an arXiv upload that passes on every
arXiv route, badge and all; breaking its pith set-up is caught; its bundle round-trips."""

from __future__ import annotations

import json
import shutil
import tarfile
from pathlib import Path

import pytest

from pithtex.latex.options import CLASS_NAMES

from ..conftest import BODY, ROOT, example_paper, pithtex_cli

EXAMPLES = sorted(p for p in (ROOT / "examples").iterdir() if p.is_dir() and list(p.glob("*.tex")))
CLASSES = set(CLASS_NAMES)
BUILD = shutil.ignore_patterns("*.pdf", "*.aux", "*.log", "*.out", "*.dvi", "*.fls")


def check_json(path: Path, *extra: str) -> tuple[int, dict]:
    p = pithtex_cli("check", str(path), "--json", *extra, timeout=600)
    assert "Traceback" not in p.stderr, p.stderr
    return p.returncode, json.loads(p.stdout)


def test_there_is_one_example_per_class():
    # Guards the parametrized tests below against passing over an empty list.
    assert len(EXAMPLES) == 10, [e.name for e in EXAMPLES]
    assert {e.name for e in EXAMPLES} == CLASSES


def test_examples_hold_only_the_paper():
    assert not any((e / "pith.sty").exists() for e in EXAMPLES), "latex/pith.sty is the one committed copy"


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_example_passes_on_every_arxiv_route(example: Path, tmp_path: Path):
    folder = tmp_path / example.name
    shutil.copytree(example, folder, ignore=BUILD)
    sty = pithtex_cli("sty", str(folder))
    assert sty.returncode == 0 and sty.stdout.startswith(f"wrote {folder / 'pith.sty'} (pith.sty "), sty.stdout
    code, j = check_json(folder, "--engine", "all")
    problems = [d for d in j["diagnostics"] if d["severity"] == "error"]
    assert code == 0 and j["ok"] is True, problems
    assert {r["route"] for r in j["routes"]} == {"pdflatex", "latex", "xelatex"}
    assert j["pith"] == {"uses_pith": True, "number": BODY, "sty": j["pith"]["sty"]}
    assert j["pith"]["sty"]["uploaded"] and j["pith"]["sty"]["version"] == j["pith"]["sty"]["ours"]
    for route in j["routes"]:
        facts = route["pith"]
        assert route["ok"] and route["pdf"] and route["errors"] == 0, route
        assert facts["info"] == BODY and facts["xmp"] == BODY, route
        assert any(link["body"] == BODY for link in facts["page1_links"]), route
        assert facts["left_band_clear"] and all(lk["rect"][0] >= 40 for lk in facts["page1_links"])
        assert route["undefined_citations"] == [] and route["undefined_references"] == []


@pytest.fixture
def article(tmp_path: Path) -> Path:
    return example_paper("article", tmp_path / "article")


def main_tex(folder: Path) -> Path:
    return next(f for f in folder.glob("*.tex") if "\\documentclass" in f.read_text())


def test_pith_sty_missing_from_the_upload(article: Path):
    (article / "pith.sty").unlink()
    code, j = check_json(article)
    assert code == 1 and j["ok"] is False
    assert "pith-sty-missing" in {d["rule"] for d in j["diagnostics"]}


def test_invalid_pithnumber(article: Path):
    tex = main_tex(article)
    text = tex.read_text()
    assert BODY in text
    tex.write_text(text.replace(BODY, BODY[:20] + "0" + BODY[21:]))
    code, j = check_json(article)
    assert code == 1
    bad = [d for d in j["diagnostics"] if d["rule"] == "pith-number-invalid"]
    assert bad and bad[0]["file"] == tex.name and "'0' at position 21" in bad[0]["message"]


def test_bundle_round_trips(article: Path, tmp_path: Path):
    (article / "notes-unused.txt").write_text("not part of the paper")
    out = tmp_path / "upload.tar.gz"
    p = pithtex_cli("bundle", str(article), "-o", str(out), "--json", timeout=600)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr
    j = json.loads(p.stdout)
    assert j["check"]["ok"] is True and j["check"]["path"] == str(out)
    with tarfile.open(out) as t:
        names = t.getnames()
        assert all(m.mtime == 0 and m.uid == 0 and m.isfile() for m in t.getmembers())
        t.extractall(tmp_path / "unpacked", filter="data")
    assert names == sorted(names) == j["files"]
    assert "pith.sty" in names and f"{main_tex(article).stem}.bbl" in names and main_tex(article).name in names
    assert "notes-unused.txt" not in names and not any(n.endswith((".bib", ".aux", ".log", ".pdf")) for n in names)
    assert not any(n.startswith("/") or ".." in n.split("/") for n in names)
    assert (tmp_path / "unpacked" / "pith.sty").read_bytes() == (ROOT / "latex" / "pith.sty").read_bytes()
    code, again = check_json(tmp_path / "unpacked")
    assert code == 0 and again["ok"] is True


@pytest.mark.parametrize("cls", ["article", "revtex4-2"])
def test_bare_example_bundles_with_our_pith_sty(cls: str, tmp_path: Path):
    """The committed example folder itself (no pith.sty in it) is an upload bundle completes."""
    out = tmp_path / "upload.tar.gz"
    p = pithtex_cli("bundle", str(ROOT / "examples" / cls), "-o", str(out), timeout=600)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr
    assert p.stdout.splitlines()[1].startswith("OK ")
    with tarfile.open(out) as t:
        assert "pith.sty" in t.getnames()


def test_switched_off_metadata_is_a_warning_not_a_loss(article: Path):
    tex = main_tex(article)
    tex.write_text(tex.read_text().replace("\\usepackage{pith}", "\\usepackage[metadata=false]{pith}", 1))
    code, j = check_json(article)
    assert code == 0, j["diagnostics"]
    assert [d["rule"] for d in j["diagnostics"] if d["severity"] == "warning"] == ["pith-hidden"]
    route = j["routes"][0]["pith"]
    assert route["info"] is None and route["xmp"] is None and route["page1_links"]


@pytest.mark.parametrize(("cls", "setup", "hidden"), [
    ("[sigconf,anonymous]{acmart}", "", True),
    ("[sigconf,anonymous=false]{acmart}", "", False),
    ("[journal,peerreview]{IEEEtran}", "", True),
    ("[journal,peerreview]{IEEEtran}", "\\pithsetup{anonymous=false}", False),
    ("{article}", "\\pithsetup{badge=none}", True),
    ("{article}", "\\pithsetup{anonymous}", True),
])
def test_review_options_are_read_without_compiling(tmp_path: Path, cls: str, setup: str, hidden: bool):
    from pithtex.arxiv.rules import static_check
    from pithtex.arxiv.scan import scan
    from pithtex.arxiv.upload import open_upload
    from pithtex.latex.sty import write_beside

    folder = tmp_path / "p"
    folder.mkdir()
    write_beside(folder)
    (folder / "paper.tex").write_text(f"\\documentclass{cls}\n\\usepackage{{pith}}\n{setup}\n"
                                      f"\\pithnumber{{{BODY}}}\n\\begin{{document}}x\\end{{document}}\n")
    with open_upload(folder) as up:
        diags, facts = static_check(up, scan(up.root, up.main, up.files))
    assert ([d.rule for d in diags] == ["pith-hidden"]) is hidden
    assert (facts.badge == "none") is hidden
