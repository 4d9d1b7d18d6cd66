"""pith.sty's options, placement paths, anonymous review modes and input errors.

Small real documents on pdflatex (and dvips where the route matters), read back from
the PDF; the log is consulted only for messages TeX is supposed to print.
"""

from __future__ import annotations

import contextlib
import re

import pytest

from ..conftest import BODY, URL
from ..texrun import compile_tex, flat_log, read_facts, write_doc

TITLE = "\\title{A Test Title}\\author{A. Author}\n"


def article(options: str = "", number: str | None = BODY, body: str = "\\maketitle\nText.\n",
            preamble: str = "", cls: str = "article", class_options: str = "") -> str:
    opts = f"[{options}]" if options else ""
    copts = f"[{class_options}]" if class_options else ""
    num = f"\\pithnumber{{{number}}}\n" if number is not None else ""
    return (f"\\documentclass{copts}{{{cls}}}\n{preamble}\\usepackage{opts}{{pith}}\n{num}{TITLE}"
            f"\\begin{{document}}\n{body}\\end{{document}}\n")


def build(tmp_path, text: str, route: str = "pdflatex"):
    write_doc(tmp_path, text)
    run = compile_tex(tmp_path, route)
    assert run.pdf is not None, run.log[-1200:]
    return read_facts(run.pdf), flat_log(run.log)


# -- input errors ----------------------------------------------------------------------
BAD = {
    "YBK50TAKOSCXY2WMLIIB7DMYH6": "character '0' at position 5 is not base32 (A-Z, 2-7) (0, 1, 8 and 9 never occur)",
    "YBK5PTAKOSCXY2WMLIIB7DMYH": "it has 25 characters; a Pith Number has 26",
    "YBK5PTAKOSCXY2WMLIIB7DMYH6A": "it has 27 characters",
    "YBK5PTAK": "8 characters is only a look-up alias",
    "pith:21:YBK5PTAKOSCXY2WMLIIB7DMYH6": "the year '21' must be exactly four digits",
    "pith:": "nothing follows 'pith:'",
    "pith:2021:": "nothing follows the year",
    "YBK5PTAKOSCXY2WMLIIB7DMYH6==": "'=' padding is not part of a Pith Number",
    "": "it is empty",
    "YBK5 PTAKOSCXY2WMLIIB7DMYH6": "character ' ' at position 5",
    "ybk5ptak!scxy2wmliib7dmyh6": "character '!' at position 9",
}


def test_bad_numbers_each_name_their_fault(tmp_path):
    """One document, every bad form: each gives its own error and the run goes on."""
    lines = "".join(f"\\pithnumber{{{bad}}}\n" for bad in BAD)
    facts, log = build(tmp_path, article(number=None, preamble="", body="\\maketitle\nText.\n")
                            .replace("\\usepackage{pith}\n", "\\usepackage{pith}\n" + lines))
    assert log.count("Package pith Error: Invalid Pith Number") == len(BAD)
    for bad, fault in BAD.items():
        assert f"'{bad}': {fault}" in log, bad
    assert facts.link_uris == [] and facts.info_number == ""
    # The help text says what a valid number looks like (shown by TeX on request).
    help_text = (tmp_path / "pith.sty").read_text()
    assert "26~base32~characters" in help_text


@pytest.mark.parametrize("form", [BODY, f"pith:{BODY}", f" pith:2021:{BODY.lower()} ", f"PITH:{BODY}"])
def test_every_accepted_form(tmp_path, form):
    body = "\\maketitle\n\\typeout{PITHURL=\\pithurl;SHORT=\\pithshort;BODY=\\pithbody;}\n"
    facts, log = build(tmp_path, article(number=form, body=body))
    assert facts.info_number == BODY and facts.link_uris == [URL]
    assert f"PITHURL={URL};SHORT=pith:{BODY[:8]};BODY={BODY};" in log
    assert ("<pith:long>pith:2021:" + BODY in facts.xmp) == ("2021" in form)


def test_missing_number_warns_once_and_draws_nothing(tmp_path):
    facts, log = build(tmp_path, article(number=None))
    assert log.count("Package pith Warning: No \\pithnumber") == 1
    assert facts.link_uris == [] and facts.info_number == "" and "pith:" not in facts.text
    assert facts.metadata_streams == 0


# -- options -----------------------------------------------------------------------------
def test_style_short_and_baseurl(tmp_path):
    facts, _log = build(tmp_path, article(options="style=short,baseurl=https://mirror.example.org/"))
    assert facts.link_uris == [f"https://mirror.example.org/pith/{BODY}"]
    assert "pith:" + BODY[:8] in facts.compact_text and BODY not in facts.compact_text
    assert facts.info_url == f"https://mirror.example.org/pith/{BODY}"


def test_badge_manual_places_it_where_asked(tmp_path):
    body = "\\maketitle\nSee \\pithbadge{} here.\n"
    facts, log = build(tmp_path, article(options="badge=manual", body=body))
    assert facts.link_uris == [URL] and "Badge placed" not in log
    assert "Seepith:" + BODY in facts.compact_text  # inline, in the running text


def test_badge_none_keeps_metadata(tmp_path):
    facts, _log = build(tmp_path, article(options="badge=none"))
    assert facts.link_uris == [] and facts.info_number == BODY and BODY in facts.xmp


def test_metadata_false_keeps_badge(tmp_path):
    facts, _log = build(tmp_path, article(options="metadata=false"))
    assert facts.link_uris == [URL] and facts.info_number == "" and facts.metadata_streams == 0


def test_color_size_raise_and_setup(tmp_path):
    preamble = "\\usepackage[dvipsnames]{xcolor}\n"
    text = article(options="color={0.8,0.1,0.1},size=small,raise=-0.2ex", preamble=preamble)
    text = text.replace("\\pithnumber", "\\pithsetup{colour=blue!60!black}\n\\pithnumber")
    facts, log = build(tmp_path, text)
    assert facts.link_uris == [URL] and "Package pith Warning" not in log


# -- placement -------------------------------------------------------------------------
@pytest.mark.parametrize("route", ["pdflatex", "dvips", "xelatex"])
def test_no_maketitle_falls_back_to_page_one(tmp_path, route):
    facts, log = build(tmp_path, article(body="Just text, no title block.\n"), route)
    assert facts.link_uris == [URL]
    # Never silently: a LaTeX warning that names the way out.
    flat = " ".join(log.replace("(pith)", " ").split())
    assert "Package pith Warning: No title block found before page 1 was shipped out" in flat
    assert "Or use badge=manual and write \\pithbadge where it belongs" in flat
    assert_on_page_clear_of_margin(facts)


def assert_on_page_clear_of_margin(facts):
    x0, y0, x1, y1 = facts.link_rects[0]
    left, bottom, right, top = facts.page_box
    assert min(x0, x1) >= left + 40 and max(x0, x1) <= right
    assert bottom <= min(y0, y1) and max(y0, y1) <= top


def test_titlepage_option_keeps_the_badge_on_page_one(tmp_path):
    facts, log = build(tmp_path, article(class_options="titlepage"))
    assert facts.link_uris == [URL] and "pith:" + BODY[:8] in facts.compact_text
    assert "Badge placed under the date on the title page" in log
    assert_on_page_clear_of_margin(facts)


def test_number_in_body_after_title_falls_back(tmp_path):
    body = "\\maketitle\n\\pithnumber{" + BODY + "}\nText.\n"
    facts, _log = build(tmp_path, article(number=None, body=body), "dvips")
    assert facts.link_uris == [URL] and facts.info_number == BODY and BODY in facts.xmp


def test_badge_appears_once_with_two_maketitles(tmp_path):
    facts, _log = build(tmp_path, article(body="\\maketitle\n\\maketitle\nText.\n"))
    assert facts.link_uris.count(URL) == 1


def test_nothing_in_the_left_40pt_of_page_one(tmp_path):
    facts, _log = build(tmp_path, article(class_options="twocolumn"))
    assert facts.link_uris == [URL]
    assert all(x >= 40 for x in facts.text_xs), min(facts.text_xs)


# -- anonymous review --------------------------------------------------------------------
ACM_BODY = ("\\title{T}\\author{A}\\affiliation{\\institution{X}\\country{Y}}"
            "\\begin{abstract}Abstract.\\end{abstract}\\maketitle\nText.\n")


@pytest.mark.parametrize(("cls", "class_options", "reason"), [
    ("acmart", "sigconf,anonymous", "acmart anonymous mode"),
    ("IEEEtran", "peerreview", "IEEEtran peerreview mode"),
])
def test_review_modes_hide_badge_and_metadata(tmp_path, cls, class_options, reason):
    body = ACM_BODY if cls == "acmart" else "\\maketitle\nText.\n"
    facts, log = build(tmp_path, article(cls=cls, class_options=class_options, body=body))
    assert f"{reason}: badge and metadata left out" in log
    assert URL not in facts.link_uris and facts.info_number == "" and BODY not in facts.xmp


def test_anonymous_false_forces_the_badge(tmp_path):
    text = article(cls="IEEEtran", class_options="peerreview", options="anonymous=false")
    facts, _log = build(tmp_path, text)
    assert facts.link_uris == [URL] and facts.info_number == BODY


def test_anonymous_true_hides_everywhere(tmp_path):
    facts, log = build(tmp_path, article(options="anonymous"))
    assert facts.link_uris == [] and facts.info_number == "" and "anonymous=true" in log


@pytest.mark.parametrize("route", ["pdflatex", "lualatex", "xelatex"])
def test_logo_is_drawn_in_the_brand_colour(tmp_path, route):
    """The logo literal is valid PDF: the brand colour, a uniform scale, a stroke and a fill."""
    import pikepdf

    from pithtex import brand

    write_doc(tmp_path, article())
    run = compile_tex(tmp_path, route)
    def numbers(operands):
        out = []
        for x in operands:
            with contextlib.suppress(TypeError, ValueError):
                out.append(float(x))
        return out

    with pikepdf.open(run.pdf) as pdf:
        ops = [(str(op), numbers(operands)) for operands, op in pikepdf.parse_content_stream(pdf.pages[0])]
    rgb = [round(c, 3) for c in brand.PRINT_COLOUR.rgb01]
    assert any(op == "rg" and [round(v, 3) for v in args] == rgb for op, args in ops)
    scales = [args[0] for op, args in ops
              if op == "cm" and len(args) == 6 and args[0] == args[3] != 1 and args[1:3] == [0, 0]]
    assert scales and 0.2 < scales[0] < 1.0, scales  # 16 logo units are about 1.6ex
    names = [op for op, _ in ops]
    assert "S" in names and "f" in names


def test_a_bare_global_color_option_is_harmless(tmp_path):
    """Class options reach pith's keys too (\\ProcessKeyOptions); a bare `color` is ignored."""
    facts, log = build(tmp_path, article(class_options="color"))
    assert facts.link_uris == [URL] and "Package pith Warning" not in log


# -- one driver on the DVI route ---------------------------------------------------------------
def pith_special_complaints(output: str) -> list[str]:
    """Lines in which a driver rejects a \\special (dvips names the keyword it did not know)."""
    return [line for line in output.splitlines()
            if re.search(r"special|keyword|pdfmark|error|warning|pith", line, re.IGNORECASE)
            and not line.lstrip().startswith("</")]  # dvips naming the header files it loads


def test_dvips_route_output_has_no_line_from_pith(tmp_path):
    """arXiv's latex -> dvips -> ps2pdf: the DVI carries dvips specials only, so the log is quiet."""
    write_doc(tmp_path, article())
    run = compile_tex(tmp_path, "dvips")
    assert pith_special_complaints(run.driver_output) == [], run.driver_output
    facts = read_facts(run.pdf)
    assert facts.link_uris == [URL] and facts.info_number == BODY and BODY in facts.xmp


def test_dvi_both_still_writes_both_drivers(tmp_path):
    """dvi=both: dvips skips the dvipdfmx specials and says so (the check above can see that)."""
    write_doc(tmp_path, article(options="dvi=both"))
    run = compile_tex(tmp_path, "dvips")
    assert any("pdf:docinfo" in line for line in pith_special_complaints(run.driver_output))
    assert read_facts(run.pdf).info_number == BODY


@pytest.mark.parametrize("how", ["class", "package", "key"])
def test_dvipdfmx_named_as_graphicx_would_see_it(tmp_path, how):
    """The driver named as a class option, a pith option, or dvi=: dvipdfmx gets its specials."""
    text = {"class": article(class_options="dvipdfmx"), "package": article(options="dvipdfmx"),
            "key": article(options="dvi=dvipdfmx")}[how]
    write_doc(tmp_path, text)
    run = compile_tex(tmp_path, "dvipdfmx", tell_driver="")
    facts = read_facts(run.pdf)
    assert facts.link_uris == [URL] and facts.info_number == BODY and BODY in facts.xmp


# -- idiomatic expl3: declared variables, declared messages, choices ---------------------------
def test_every_variable_declared_and_no_deprecated_function(tmp_path):
    """l3's own checks, switched on before pith loads: an undeclared variable is an error."""
    checks = ("\\RequirePackage[enable-debug]{expl3}\n\\ExplSyntaxOn\n"
              "\\debug_on:n { check-declarations , deprecation }\n\\ExplSyntaxOff\n")
    text = checks + article(options="color=0B7A75,style=short", body="\\maketitle\\pithbadge\n")
    write_doc(tmp_path, text)
    run = compile_tex(tmp_path, "pdflatex")
    errors = [line for line in run.log.splitlines() if line.startswith("! ")]
    assert errors == [] and run.pdf is not None, run.log[-2000:]
    assert read_facts(run.pdf).link_uris.count(URL) == 2


def test_unknown_choice_names_the_allowed_values(tmp_path):
    write_doc(tmp_path, article(options="badge=bottom,dvi=pdf"))
    log = flat_log(compile_tex(tmp_path, "pdflatex").log)
    assert "Package pith Error: Unknown value 'bottom' for the option badge; use one of title, manual, none." in log
    assert "Unknown value 'pdf' for the option dvi; use one of auto, dvips, dvipdfmx, both." in log


def test_information_can_be_redirected(tmp_path):
    """pith's log lines are l3 messages: a document may silence them or raise them."""
    raise_info = "\\ExplSyntaxOn\\msg_redirect_module:nnn { pith } { info } { warning }\\ExplSyntaxOff\n"
    _facts, log = build(tmp_path, article(preamble=raise_info))
    assert "Package pith Warning: Badge placed after \\maketitle" in log
    silence = "\\ExplSyntaxOn\\msg_redirect_module:nnn { pith } { info } { none }\\ExplSyntaxOff\n"
    _facts, log = build(tmp_path, article(preamble=silence))
    assert "Badge placed" not in log
