"""One rule for hidden characters in Python and in pith-badge.js: safetext.INVISIBLE_RANGES.

The table is literal (no unicodedata scan at start-up); these tests hold it to Unicode's
categories, and the rendered script to the table. What the browser shows is tested in
tests/web/test_web_pages.py (the same escapes as `safetext.visible`, to the character).
"""

from __future__ import annotations

import json
import sys
import unicodedata

from pithtex import safetext
from pithtex.web import assets as webassets

HIDDEN = ("Cc", "Cf", "Zl", "Zp")


def in_table(code: int) -> bool:
    return any(a <= code <= b for a, b in safetext.INVISIBLE_RANGES)


def test_every_control_format_and_separator_character_is_in_the_table():
    missing = [hex(c) for c in range(sys.maxunicode + 1)
               if unicodedata.category(chr(c)) in HIDDEN and chr(c) not in "\t\n" and not in_table(c)]
    assert missing == []


def test_the_table_holds_nothing_a_reader_should_see():
    """Each entry is hidden (or a surrogate, or a format character of a later Unicode than this Python's)."""
    shown = [hex(c) for a, b in safetext.INVISIBLE_RANGES for c in range(a, b + 1)
             if unicodedata.category(chr(c)) not in (*HIDDEN, "Cs", "Cn")]
    assert shown == [] and not in_table(ord("\t")) and not in_table(ord("\n"))


def test_the_script_carries_the_table_and_the_quote_marks():
    values = json.loads(webassets.render_script().split("const C = ", 1)[1].split(";\n", 1)[0])
    assert [tuple(r) for r in values["invisible"]] == list(safetext.INVISIBLE_RANGES)
    assert values["quotes"] == safetext.QUOTES


def test_visible_spells_out_what_a_title_could_hide():
    title = "Zero\u200bwidth soft\u00adhyphen bell\u0007 nul\u0000 \u202eoverride \U000e0041tag"
    assert safetext.visible(title) == ("Zero\\u200bwidth soft\\u00adhyphen bell\\u0007 nul\\u0000 \\u202eoverride "
                                       "\\udb40\\udc41tag")
    assert safetext.shown("X\u201d, arXiv:2401.99999", quote=True) == "“X\\u201d, arXiv:2401.99999”"
