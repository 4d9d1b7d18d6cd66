"""`pithtex check` reads \\pithnumber{\\mynum} as pith.sty does: the macros the sources
define with \\newcommand or \\def are expanded before the number is parsed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pithtex.arxiv.rules import static_check
from pithtex.arxiv.scan import scan
from pithtex.arxiv.upload import open_upload

from .conftest import BODY
from .test_arxiv_rules import PLAIN, check_json, edit, static_rules


@pytest.fixture
def paper(tmp_path: Path) -> Path:
    dest = tmp_path / "paper"
    shutil.copytree(PLAIN, dest)
    return dest


def facts_of(folder: Path):
    with open_upload(folder) as up:
        return static_check(up, scan(up.root, up.main, up.files))


def with_pith(folder: Path, lines: str) -> None:
    (folder / "pith.sty").write_bytes((Path(__file__).parent.parent / "latex" / "pith.sty").read_bytes())
    edit(folder, "\\usepackage{hyperref}", "\\usepackage{hyperref}\n\\usepackage{pith}\n" + lines)


def test_a_macro_holding_the_number_is_the_number(paper: Path):
    with_pith(paper, f"\\newcommand{{\\mynum}}{{{BODY}}}\n\\def\\myyear{{2021}}\n\\pithnumber{{pith:\\myyear:\\mynum}}")
    diags, facts = facts_of(paper)
    assert diags == [] and facts.number == BODY
    # compiled on arXiv's route, the PDF carries that very number: the whole check passes
    code, report, _ = check_json(paper)
    assert code == 0 and report["ok"] is True and report["pith"]["number"] == BODY, report["diagnostics"]


def test_a_macro_that_gives_no_number_says_what_it_gave(paper: Path):
    with_pith(paper, "\\newcommand\\mynum{YBK50TAKOSCXY2WMLIIB7DMYH6}\n\\pithnumber{\\mynum}")
    (bad,) = static_rules(paper)["pith-number-invalid"]
    assert bad.message.startswith("\\pithnumber{\\mynum}: its macros expand to 'YBK50TAKOSCXY2WMLIIB7DMYH6'; ")
    assert "character '0' at position 5" in bad.message


def test_a_macro_defined_otherwise_is_left_to_the_compile(paper: Path):
    with_pith(paper, f"\\expandafter\\def\\csname fromelsewhere\\endcsname{{{BODY}}}\n\\pithnumber{{\\fromelsewhere}}")
    found = static_rules(paper)
    assert set(found) == {"pith-number-macro"} and found["pith-number-macro"][0].severity == "warning"
    assert "\\fromelsewhere" in found["pith-number-macro"][0].message
