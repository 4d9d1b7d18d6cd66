"""The manual (latex/pith-doc.tex -> pith-doc.pdf) and the package describe the same options
and messages, and the manual compiles with pith loaded, carrying its own badge."""

from __future__ import annotations

import re

from pithtex.latex.manual import build
from pithtex.latex.options import CLASS_NAMES, MESSAGE_NAMES, OPTION_NAMES, OPTIONS, latex_text
from pithtex.latex.render import render_doc, render_sty

from ..conftest import BODY, URL
from ..texrun import read_facts


def sty_keys(sty: str) -> set[str]:
    """The keys of pith.sty's \\keys_define:nn { pith } block (not the /unknown handlers)."""
    block = re.split(r"\n *\}\n", sty.split("\\keys_define:nn { pith }", 1)[1], maxsplit=1)[0]
    return set(re.findall(r"^ +([a-z]+) \.", block, re.MULTILINE))


def test_package_keys_are_the_option_table():
    assert sty_keys(render_sty()) == OPTION_NAMES


def test_every_message_used_is_declared_once_at_load():
    sty = render_sty()
    declared = re.findall(r"\\msg_new:nnnn \{ pith \} \{ ([a-z-]+) \}", sty)
    assert sorted(declared) == sorted(MESSAGE_NAMES)
    used = set(re.findall(r"\\msg_(?:error|warning|info):nn[a-zA-Z]* \{ pith \} \{ ([a-z-]+) \}", sty))
    assert used == MESSAGE_NAMES  # every message can really be printed, none is undeclared


def test_manual_lists_every_option_with_default_and_every_message():
    doc = render_doc()
    table = doc.split("\\section{Options}", 1)[1].split("\\section{Public macros}", 1)[0]
    rows = set(re.findall(r"^([a-z]+) & ", table, re.MULTILINE))
    assert rows == OPTION_NAMES
    for option in OPTIONS:
        row = next(line for line in table.splitlines() if line.startswith(option.name + " & "))
        assert latex_text(option.example) in row and latex_text(option.default) in row
    trouble = doc.split("\\section{Troubleshooting", 1)[1]
    listed = set(re.findall(r"\\texttt\{([a-z-]+)\}\} & ", trouble))
    assert listed == MESSAGE_NAMES


def test_manual_builds_and_shows_its_own_badge(tmp_path):
    pdf = build(tmp_path)
    facts = read_facts(pdf)
    assert facts.pages >= 4
    assert URL in facts.link_uris and facts.info_number == BODY
    assert "pith:" + BODY in facts.compact_text
    assert not list(tmp_path.glob("*.tmp"))
    # Page 1 of every example paper is in there, as an included PDF page (a form XObject).
    import pikepdf

    with pikepdf.open(pdf) as doc:
        forms = {name for page in doc.pages for name, obj in (page.Resources.get("/XObject") or {}).items()
                 if obj.get("/Subtype") == "/Form"}
    assert len(forms) >= len(CLASS_NAMES), forms
