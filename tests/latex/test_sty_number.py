"""\\pithnumber's argument: macros in it are expanded fully (a macro holding the number works
on every route), and the errors show what the author typed, naming what a macro gave.

Real TeX runs read back from the PDF; the log only for the messages TeX should print.
"""

from __future__ import annotations

import pytest

from ..conftest import BODY, URL
from ..texrun import ROUTES
from .test_sty_options import article, build

MACROS = ("\\newcommand\\mynum{" + BODY + "}\n\\def\\myyear{2021}\n"
          "\\newcommand\\bad{YBK50TAKOSCXY2WMLIIB7DMYH6}\n\\DeclareRobustCommand\\robust{" + BODY + "}\n")


@pytest.mark.parametrize("route", ROUTES)
def test_a_macro_holding_the_number_works_on_every_route(tmp_path, route):
    body = "\\maketitle\n\\typeout{BODY=\\pithbody;LONG=\\pithlong;}\nText.\n"
    facts, log = build(tmp_path, article(number="\\mynum", preamble=MACROS, body=body), route)
    assert facts.info_number == BODY and facts.link_uris == [URL]
    assert f"BODY={BODY};LONG=pith:{BODY};" in log
    assert "Package pith Error" not in log


def test_macros_inside_the_long_form_and_under_babel_shorthands(tmp_path):
    """pith:\\myyear:\\mynum given in the body, where babel-french makes : active: the
    shorthand stays a colon and the macros give year and body."""
    body = ("\\pithnumber{pith:\\myyear:\\mynum}\n\\maketitle\n"
            "\\typeout{LONG=\\pithlong;}\nText: with a shorthand.\n")
    facts, log = build(tmp_path, article(number=None, preamble="\\usepackage[T1]{fontenc}\n"
                                         "\\usepackage[french]{babel}\n" + MACROS, body=body))
    assert facts.info_number == BODY and facts.link_uris == [URL]
    assert f"LONG=pith:2021:{BODY};" in log and f"<pith:long>pith:2021:{BODY}" in facts.xmp
    assert "Package pith Error" not in log


def after_pith(text: str, lines: str) -> str:
    return text.replace("\\usepackage{pith}\n", "\\usepackage{pith}\n" + lines)


# typed -> the message's text after "Invalid Pith Number "
ERRORS = {
    "YBK5#PTAKOSCXY2WMLIIB7DMYH6": "'YBK5#PTAKOSCXY2WMLIIB7DMYH6': character '#' at position 5 is not base32",
    "YBK5PTAKOSCXY2WM##IIB7DMYH": "'YBK5PTAKOSCXY2WM##IIB7DMYH': character '#' at position 17 is not base32",
    "\\bad": "'\\bad': its macros expand to 'YBK50TAKOSCXY2WMLIIB7DMYH6', and character '0' at position 5 "
             "is not base32 (A-Z, 2-7) (0, 1, 8 and 9 never occur).",
    # TeX drops the space after a control word: the X joins the body
    "pith:\\myyear:\\mynum X": f"'pith:\\myyear :\\mynum X': its macros expand to 'pith:2021:{BODY}X', "
                               "and it has 27 characters",
    "\\robust": "'\\robust': its macros expand to '\\robust', and character '\\' at position 1 is not base32",
    "\\mynum\\mynum": f"'\\mynum \\mynum': its macros expand to '{BODY}{BODY}', and it has 52 characters",
    "\\later": "'\\later': \\later is not defined (define it before \\pithnumber).",
}


def test_errors_show_what_was_typed_and_what_macros_gave(tmp_path):
    lines = "".join(f"\\pithnumber{{{typed}}}\n" for typed in ERRORS)
    facts, log = build(tmp_path, after_pith(article(number=None, preamble=MACROS), lines))
    assert log.count("Package pith Error: Invalid Pith Number") == len(ERRORS)
    for typed, said in ERRORS.items():
        assert f"Invalid Pith Number {said}" in log, typed
    assert "Invalid Pith Number 'YBK5##" not in log and "character '##'" not in log
    assert "Undefined control sequence" not in log
    assert facts.link_uris == [] and facts.info_number == ""


def test_the_same_number_through_a_macro_twice_is_not_a_second_number(tmp_path):
    facts, log = build(tmp_path, after_pith(article(number="\\mynum", preamble=MACROS), f"\\pithnumber{{{BODY}}}\n"))
    assert facts.info_number == BODY and "given twice" not in log
    facts, log = build(tmp_path, article(number=BODY, preamble="\\newcommand\\other{AAAAAAAAAAAAAAAAAAAAAAAAAA}\n"
                                         "\\AtBeginDocument{\\pithnumber{\\other}}\n"))
    assert facts.info_number == BODY and f"keeping {BODY}, ignoring '\\other'" in log
