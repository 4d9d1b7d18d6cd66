"""`pithtex check` on small fixture papers: each broken paper gets its own rule id and exit 1.

Static rules are also tested through the library (no compile) where the compile adds
nothing; every CLI test compiles for real in a sandbox.
"""

from __future__ import annotations

import json
import shutil
import tarfile
from pathlib import Path

import pytest

from pithtex.arxiv.rules import static_check
from pithtex.arxiv.scan import scan, strip_comments
from pithtex.arxiv.upload import open_upload

from ..conftest import ROOT, pithtex_cli

PLAIN = ROOT / "tests" / "fixtures" / "arxiv" / "plain"


@pytest.fixture
def paper(tmp_path: Path) -> Path:
    dest = tmp_path / "paper"
    shutil.copytree(PLAIN, dest)
    return dest


def edit(folder: Path, old: str, new: str, name: str = "paper.tex") -> None:
    f = folder / name
    text = f.read_text()
    assert old in text, old
    f.write_text(text.replace(old, new, 1))


def check_json(path: Path, *extra: str) -> tuple[int, dict, str]:
    p = pithtex_cli("check", str(path), "--json", *extra, timeout=300)
    assert "Traceback" not in p.stderr, p.stderr
    return p.returncode, json.loads(p.stdout), p.stdout


def rules_of(report: dict, severity: str = "error") -> set[str]:
    return {d["rule"] for d in report["diagnostics"] if d["severity"] == severity}


def static_rules(folder: Path) -> dict[str, list]:
    with open_upload(folder) as up:
        diags, _ = static_check(up, scan(up.root, up.main, up.files))
    found: dict[str, list] = {}
    for d in diags:
        found.setdefault(d.rule, []).append(d)
    return found


def test_plain_paper_passes_on_arxivs_route(paper: Path):
    code, j, _ = check_json(paper)
    assert code == 0 and j["ok"] is True, j["diagnostics"]
    # EPS figures only: arXiv would run latex -> dvips -> ps2pdf.
    assert j["auto_route"] == "latex" and [r["route"] for r in j["routes"]] == ["latex"]
    route = j["routes"][0]
    assert route["pdf"] and route["runs"] >= 2 and route["undefined_citations"] == []
    assert j["pith"]["uses_pith"] is False


def test_human_report_starts_with_the_verdict(paper: Path):
    p = pithtex_cli("check", str(paper), timeout=300)
    assert p.returncode == 0
    first = p.stdout.splitlines()[0]
    assert first.startswith("OK ") and "arXiv-safe on latex" in first


def test_missing_figure_is_named_with_file_and_line(paper: Path):
    edit(paper, "\\input{sections/body}", "\\input{sections/body}\n\\includegraphics{no-such-figure}")
    code, j, out = check_json(paper)
    assert code == 1 and j["ok"] is False and "no-such-figure" in out
    missing = [d for d in j["diagnostics"] if d["rule"] == "missing-file"]
    assert missing and missing[0]["file"] == "paper.tex" and missing[0]["line"] == 11
    assert "no-such-figure" in missing[0]["message"] and missing[0]["fix"]


def test_wrong_case_file_name(paper: Path):
    (paper / "figs" / "box.eps").rename(paper / "figs" / "Box.eps")
    code, j, _ = check_json(paper)
    assert code == 1
    wrong = [d for d in j["diagnostics"] if d["rule"] == "wrong-case"]
    assert wrong and "figs/Box.eps" in wrong[0]["message"] and wrong[0]["line"] == 13
    assert "missing-file" not in rules_of(j)


def test_write18_needs_shell_escape(paper: Path):
    edit(paper, "\\maketitle", "\\maketitle\n\\immediate\\write18{ls > listing.txt}")
    code, j, _ = check_json(paper)
    assert code == 1
    shell = [d for d in j["diagnostics"] if d["rule"] == "shell-escape"]
    assert shell and shell[0]["line"] == 8


def test_bib_without_bbl(paper: Path):
    (paper / "paper.bbl").unlink()
    code, j, _ = check_json(paper)
    assert code == 1
    bbl = [d for d in j["diagnostics"] if d["rule"] == "bbl-missing"]
    assert bbl and "paper.bbl" in bbl[0]["message"] and "refs.bib" in bbl[0]["message"]
    assert bbl[0]["line"] == 17


def test_hyperxmp_before_hyperref(paper: Path):
    edit(paper, "\\usepackage{hyperref}", "\\usepackage{hyperxmp}\n\\usepackage{hyperref}")
    code, j, _ = check_json(paper)
    assert code == 1
    assert "hyperxmp-order" in rules_of(j)
    # The right order passes this rule.
    edit(paper, "\\usepackage{hyperxmp}\n\\usepackage{hyperref}", "\\usepackage{hyperref}\n\\usepackage{hyperxmp}")
    assert "hyperxmp-order" not in static_rules(paper)


def test_package_not_in_texlive_and_not_uploaded(paper: Path):
    edit(paper, "\\usepackage{hyperref}", "\\usepackage{hyperref}\n\\usepackage{nosuchpkgpithtex}")
    found = static_rules(paper)
    assert found["package-missing"][0].line == 4
    # Uploading it at the top level satisfies the rule; in a subfolder it does not.
    (paper / "sty").mkdir()
    (paper / "sty" / "nosuchpkgpithtex.sty").write_text("\\ProvidesPackage{nosuchpkgpithtex}\n")
    assert "move sty/nosuchpkgpithtex.sty" in static_rules(paper)["package-missing"][0].fix
    (paper / "sty" / "nosuchpkgpithtex.sty").rename(paper / "nosuchpkgpithtex.sty")
    assert "package-missing" not in static_rules(paper)


def test_paths_outside_the_upload(paper: Path):
    edit(paper, "\\input{sections/body}", "\\input{sections/body}\n\\input{../outside}\n\\includegraphics{/tmp/x.png}")
    found = static_rules(paper)
    assert [d.line for d in found["unsafe-path"]] == [11, 12]


def test_unsafe_file_names_and_hidden_files(paper: Path):
    shutil.copyfile(paper / "figs" / "box.eps", paper / "figs" / "my box.eps")
    (paper / ".DS_Store").write_bytes(b"\0")
    found = static_rules(paper)
    # In a working folder, dot files are not part of the upload; in an archive they are.
    assert [(d.file, d.severity) for d in found["unsafe-filename"]] == [("figs/my box.eps", "error")]
    archive = paper.parent / "up.tar.gz"
    with tarfile.open(archive, "w:gz") as t:
        t.add(paper, arcname=".")
    found = static_rules(archive)
    assert [(d.file, d.severity) for d in found["unsafe-filename"]] == [
        (".DS_Store", "warning"), ("figs/my box.eps", "error")]


def test_minted_and_pdfa(paper: Path):
    edit(paper, "\\documentclass{article}",
         "\\DocumentMetadata{pdfstandard=A-2b, lang=en}\n\\documentclass{article}\n\\usepackage{minted}")
    found = static_rules(paper)
    assert found["shell-escape"][0].line == 3
    assert found["pdfa-outputintents"][0].severity == "warning" and found["pdfa-outputintents"][0].line == 1


def test_commented_out_commands_are_ignored(paper: Path):
    edit(paper, "\\maketitle", "\\maketitle\n% \\includegraphics{gone} \\write18{x}\n50\\% done % \\input{gone}")
    assert static_rules(paper) == {}
    assert strip_comments("a\\%b % c\n\\\\% d") == "a\\%b \n\\\\"


def test_graphicspath_is_followed(paper: Path):
    edit(paper, "\\includegraphics[width=2cm]{figs/box}", "\\includegraphics[width=2cm]{box}")
    assert "missing-file" in static_rules(paper)
    edit(paper, "\\begin{document}", "\\graphicspath{{figs/}}\n\\begin{document}")
    assert static_rules(paper) == {}


def test_pith_rules_without_compiling(paper: Path):
    edit(paper, "\\usepackage{hyperref}", "\\usepackage{hyperref}\n\\usepackage{pith}")
    found = static_rules(paper)
    assert "pith.sty" in found["pith-sty-missing"][0].message and found["pith-sty-missing"][0].line == 4
    assert found["pith-number-missing"][0].severity == "error"
    edit(paper, "\\usepackage{pith}", "\\usepackage{pith}\n\\pithnumber{YBK50TAKOSCXY2WMLIIB7DMYH6}")
    bad = static_rules(paper)["pith-number-invalid"][0]
    assert bad.line == 5 and "position 5" in bad.message
    (paper / "pith.sty").write_text("\\ProvidesPackage{pith}[2001/01/01 v0.0.1 old]\n")
    edit(paper, "YBK50TAK", "ybk5ptak")
    found = static_rules(paper)
    assert set(found) == {"pith-sty-old"} and "2001/01/01" in found["pith-sty-old"][0].message


def test_pith_options_are_the_packages_own(paper: Path):
    """An option pith.sty does not define (number=) is an error, not a way to give the number."""
    edit(paper, "\\usepackage{hyperref}",
         "\\usepackage{hyperref}\n\\usepackage[number=YBK5PTAKOSCXY2WMLIIB7DMYH6,style=short,dvipdfmx]{pith}")
    shutil.copy(ROOT / "latex" / "pith.sty", paper / "pith.sty")
    found = static_rules(paper)
    assert [d.message for d in found["pith-option-unknown"]] == ["pith has no option 'number': TeX stops with an error"]
    assert "pith-number-missing" in found


def test_00readme_chooses_compiler_and_main(paper: Path):
    (paper / "other.tex").write_text("\\documentclass{article}\\begin{document}other\\end{document}\n")
    (paper / "00README.json").write_text(json.dumps(
        {"process": {"compiler": "pdflatex"}, "sources": [{"filename": "paper.tex", "usage": "toplevel"}]}))
    with open_upload(paper) as up:
        assert (up.main, up.compiler, up.mains) == ("paper.tex", "pdflatex", ["paper.tex"])
    (paper / "00README.json").write_text(json.dumps({"compiler": "lualatex"}))
    p = pithtex_cli("check", str(paper))
    assert p.returncode == 2 and "lualatex" in p.stderr


def test_engine_all_reports_each_route(paper: Path):
    # An EPS-only paper: fine on latex and xelatex, but pdflatex cannot read EPS without shell escape.
    code, j, _ = check_json(paper, "--engine", "all")
    assert code == 1
    by_route = {r["route"]: r for r in j["routes"]}
    assert set(by_route) == {"pdflatex", "latex", "xelatex"}
    assert by_route["latex"]["ok"] and by_route["xelatex"]["ok"] and not by_route["pdflatex"]["ok"]
    err = [d for d in j["diagnostics"] if d["route"] == "pdflatex" and d["severity"] == "error"]
    assert [(d["rule"], d["file"], d["line"]) for d in err] == [("figure-format", "paper.tex", 13)]
    assert "figs/box.eps" in err[0]["message"] and ".pdf" in err[0]["fix"]


def test_local_style_by_relative_name(paper: Path):
    (paper / "mystyle.sty").write_text("\\ProvidesPackage{mystyle}\n")
    edit(paper, "\\usepackage{hyperref}", "\\usepackage{hyperref}\n\\usepackage{./mystyle}")
    assert static_rules(paper) == {}


def test_a_png_figure_makes_arxiv_choose_pdflatex(paper: Path):
    from PIL import Image

    Image.new("RGB", (8, 8), (11, 122, 117)).save(paper / "figs" / "box.png")
    (paper / "figs" / "box.eps").unlink()
    code, j, _ = check_json(paper)
    assert code == 0 and j["auto_route"] == "pdflatex" and j["routes"][0]["route"] == "pdflatex"
    assert j["routes"][0]["ok"] and j["routes"][0]["pdf"]


def test_human_report_is_short_even_with_many_problems(paper: Path):
    refs = "\n".join(f"\\includegraphics{{missing-{i}}}" for i in range(12))
    edit(paper, "\\maketitle", "\\maketitle\n" + refs)
    p = pithtex_cli("check", str(paper), timeout=300)
    assert p.returncode == 1
    lines = p.stdout.splitlines()
    assert lines[0].startswith("FAIL ") and "(12 errors)" in lines[0]
    assert lines[-1] == "  … and 4 more (--json lists every one)" and len(lines) == 3 + 2 * 8 + 1
