"""`pithtex check` reads \\pithnumber{\\mynum} as pith.sty does: the macros the sources
define with \\newcommand or \\def are expanded before the number is parsed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pithtex.arxiv.rules import static_check
from pithtex.arxiv.scan import scan
from pithtex.arxiv.upload import open_upload

from ..conftest import BODY
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
    (folder / "pith.sty").write_bytes((Path(__file__).parents[2] / "latex" / "pith.sty").read_bytes())
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


def expansion_peak(folder: Path) -> tuple[list, int]:
    """The static rules' diagnostics and the peak memory (bytes) that running them took."""
    import tracemalloc

    with open_upload(folder) as up:
        sources = scan(up.root, up.main, up.files)
        static_check(up, sources)  # once untraced: the modules it imports are not its cost
        tracemalloc.start()
        try:
            diags, _ = static_check(up, sources)
            return diags, tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()


@pytest.mark.parametrize("body", ["\\many" * 800_000, "\\one " * 800_000],
                         ids=["one-4MB-body", "4MB-of-short-names"])
def test_macros_that_expand_without_end_are_refused_at_a_bound(paper: Path, body: str):
    # A 4 MB paper.tex whose \pithnumber macro expands to ever more text: the old check grew it
    # to hundreds of MB (16 s, 1.2 GB). Now the expansion stops at MAX_EXPANDED_CHARS, so the
    # rules' peak memory stays far below one copy of the file.
    from pithtex.arxiv.rules import MAX_EXPANDED_CHARS

    with_pith(paper, f"\\def\\one{{A}}\n\\def\\many{{{body}}}\n\\pithnumber{{\\many}}")
    assert (paper / "paper.tex").stat().st_size > 4_000_000
    diags, peak = expansion_peak(paper)
    (bad,) = [d for d in diags if d.rule == "pith-number-invalid"]
    assert bad.severity == "error"
    assert bad.message == (f"\\pithnumber{{\\many}}: its macros expand to more than {MAX_EXPANDED_CHARS:,} "
                           "characters (a Pith Number has 26); the check stopped expanding there")
    assert peak < 1_000_000, f"the rules held {peak:,} bytes at their peak"
