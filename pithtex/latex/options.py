"""pith.sty's options and messages: one table read by the package template and the manual.

`make render` turns OPTIONS into the package's l3keys definitions and MESSAGES into its
`\\msg_new:nnnn` declarations (templates/pith.sty.j2), and the same two tables into the
option table and the troubleshooting list of the manual (templates/pith-doc.tex.j2), so
the manual cannot describe an option or a message the package does not have. Texts are
plain: `#1`.. stand for a message's arguments; the filters below make them TeX.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import brand

EXAMPLE_BODY = brand.SAMPLE_BODY


@dataclass(frozen=True)
class PaperClass:
    """A class pith is built and tested on: examples/<name>/ holds a paper in it.

    placed: where pith's log says the badge went in that paper on pdflatex (`Package pith
    Info: Badge placed ...`), as docs/latex.md's placement table names it; variant: the
    class option that placement is for, if any; known_as: the name that table's row gives the
    class, when not its own; trim: how much of page 1 the manual shows
    (\\includegraphics trim: left bottom right top, bp), the top part of a paper page, where
    the title block is, or a slide whole.
    """

    name: str
    placed: str = "after \\maketitle"
    variant: str = ""
    known_as: str = ""
    trim: str = "0 400 0 0"


# The supported classes: one per title block pith knows (iopart and LIPIcs are not in
# Debian's TeX Live, so no example), in the order the manual shows their page 1. The manual,
# the tests that compile the examples and docs/latex.md's placement table read this table
# (tests/test_facts_once.py guards that they agree).
CLASSES = (
    PaperClass("article"),
    PaperClass("amsart"),
    PaperClass("revtex4-2", "at the end of revtex's title block", "reprint"),
    PaperClass("IEEEtran", "in the title block across both columns", "conference"),
    PaperClass("acmart", "in the title block across both columns", "sigconf"),
    PaperClass("elsarticle"),
    PaperClass("llncs"),
    PaperClass("cas-dc", "in the title block across both columns"),
    PaperClass("scrartcl", "under the date on the title page", "titlepage=true", known_as="KOMA-Script"),
    PaperClass("beamer", "under the date in beamer's title page", trim="0 0 0 0"),
)
CLASS_NAMES = tuple(c.name for c in CLASSES)


@dataclass(frozen=True)
class Option:
    """One key of \\usepackage[...]{pith} and \\pithsetup{...}.

    kind: `choice` (one of `values`), `bool`, `dim`, `code` (a setter in the package),
    or `meta` (a shorthand for `means`).
    """

    name: str
    kind: str
    default: str
    doc: str
    example: str
    values: tuple[str, ...] = ()
    bare: str = ""    # the value a bare `name` (no `=`) stands for
    means: str = ""   # meta keys: the key=value they set

    @property
    def var(self) -> str:
        """The package variable that holds a choice."""
        return f"\\l__pith_{self.name}_tl"


OPTIONS: tuple[Option, ...] = (
    Option("badge", "choice", "title", "where the badge goes: after the title block, only where "
           "\\pithbadge is written, or nowhere (the metadata is still written)",
           "badge=manual", values=("title", "manual", "none")),
    Option("style", "choice", "full", "the badge text: pith:BODY (26 characters) or the short "
           "pith:XXXXXXXX", "style=short", values=("full", "short")),
    Option("color", "code", brand.PRINT_COLOUR.hex.lstrip("#").upper(), "ink of the badge: r,g,b (0..1), an "
           "HTML hex code, or an l3color expression such as blue!60!black", "color={0.8,0.1,0.1}"),
    Option("colour", "code", brand.PRINT_COLOUR.hex.lstrip("#").upper(), "the same as color", "colour=0B7A75"),
    Option("size", "choice", "footnotesize", "font size of the badge", "size=small",
           values=("tiny", "scriptsize", "footnotesize", "small", "normalsize")),
    Option("raise", "dim", "0pt", "moves the logo up (or down, negative) against the text",
           "raise=-0.2ex"),
    Option("metadata", "bool", "true", "writes Info /PithNumber and /PithURL and the XMP "
           "properties", "metadata=false"),
    Option("baseurl", "code", brand.BASE_URL, "the site the badge links to (BASE/pith/BODY)",
           "baseurl=https://mirror.example.org"),
    Option("anonymous", "choice", "auto", "hides badge and metadata; auto does so in review copies "
           "(acmart anonymous, IEEEtran peerreview, ACL review, NeurIPS submission and the others the "
           "manual lists)", "anonymous", values=("auto", "true", "false"),
           bare="true"),
    Option("dvi", "choice", "auto", "latex (DVI) output: the specials of one driver; auto follows "
           "LaTeX's backend (dvips unless dvipdfmx is a class option), both writes both",
           "dvi=dvipdfmx", values=("auto", "dvips", "dvipdfmx", "both")),
    Option("dvips", "meta", "", "the same as dvi=dvips (also as a class option)", "dvips",
           means="dvi=dvips"),
    Option("dvipdfmx", "meta", "", "the same as dvi=dvipdfmx (also as a class option)", "dvipdfmx",
           means="dvi=dvipdfmx"),
)
OPTION_NAMES = frozenset(o.name for o in OPTIONS)


@dataclass(frozen=True)
class Message:
    """One message the package can print: `error`, `warning` or `info`."""

    name: str
    level: str
    text: str
    help: str   # TeX shows it on request (h); the manual prints it as what to do


MESSAGES: tuple[Message, ...] = (
    Message("invalid", "error", "Invalid Pith Number '#1': #2.",
            "A Pith Number is 26 base32 characters (A-Z and 2-7; 0, 1, 8 and 9 never occur), for "
            f"example \\pithnumber{{{EXAMPLE_BODY}}}. The forms pith:BODY and pith:YYYY:BODY are "
            f"accepted too, in any case. Copy the number from its page on {brand.BASE_URL}. No badge "
            "and no metadata are written for an invalid number."),
    Message("invalid-macro", "error", "Invalid Pith Number '#1': its macros expand to '#2', and #3.",
            "\\pithnumber expands the macros in its argument fully (as \\protected@edef does: a robust "
            "command stays as it is), then reads what they give as the number. Define the macro with "
            f"\\newcommand to hold the number alone, for example {EXAMPLE_BODY}, or give the number itself."),
    Message("bad-choice", "error", "Unknown value '#2' for the option #1; use one of #3.",
            "The option keeps its previous value. The manual lists every option and its values."),
    Message("twice", "warning", "\\pithnumber given twice: keeping #1, ignoring '#2'.",
            "A paper has one Pith Number: remove the second \\pithnumber."),
    Message("no-number", "warning", "No \\pithnumber{...} in this document: no badge and no metadata.",
            "Add \\pithnumber{YOUR26CHARACTERNUMBER} after \\usepackage{pith}, or remove the package."),
    Message("late", "warning", "\\pithnumber came after page 1 was shipped out: no badge on page 1; "
            "put it in the preamble.",
            "The metadata is still written; the badge needs the number before page 1 is finished."),
    Message("hyperxmp-dvips", "warning", "hyperxmp is loaded: on latex -> dvips -> ps2pdf some versions "
            "of it suppress the entire PDF Info dictionary, so /PithNumber may be missing from Info "
            "(the pith properties in hyperxmp's XMP remain). pdflatex keeps both.",
            "Compile with pdflatex, or accept that the number is only in the XMP packet."),
    Message("bad-color", "warning", "Unknown color '#1' for the badge; keeping the default.",
            "Give r,g,b (0..1), an HTML code such as 0B7A75, or a colour l3color knows."),
    Message("hidden", "info", "#1: badge and metadata left out (use anonymous=false to show them)",
            "Review copies carry no Pith Number; the public version drops the review option."),
    Message("review", "warning", "#1: badge and metadata left out, as a Pith Number names the paper of "
            "this anonymous copy (use anonymous=false to show them)",
            "A review or submission copy must not say whose paper it is. The public version drops the "
            "review option (or sets \\pithsetup{anonymous=false}), and pith then writes both."),
    Message("title", "info", "Badge placed after \\maketitle (cmd/maketitle/after hook)",
            "Nothing to do: the badge is under the title block."),
    Message("in-block", "info", "Badge placed #1",
            "Nothing to do: the badge is the last line of the title block, aligned with it."),
    Message("under-title", "info", "Badge placed under the title: the title block runs to the foot of page "
            "#1, with no room below its last line (.aux)",
            "The title block (a collaboration's authors and addresses, say) fills its page to the foot, so "
            "a badge below it would open the next page; it goes under the title, on the title's page. "
            "With badge=manual the badge goes only where \\pithbadge is written."),
    Message("first-page", "warning", "No title block found before page #1 was shipped out: the badge is "
            "at the top of that page on this run; the next run places it by position, under the title block "
            "or the largest type at the top of the page. Or use badge=manual and write \\pithbadge where it belongs",
            "The class builds its title in a way pith does not know (no \\maketitle, a title set by "
            "hand, or a title page of its own without a stored \\title). A first run, with no .aux, puts "
            "the badge at the top of the page; the next one puts it below the paragraph of the largest type "
            "near the top of the page (a title set by hand) and its authors, or below the first paragraph. "
            "With the option badge=manual the badge goes only where \\pithbadge is written, for instance "
            "right after the authors."),
    Message("rerun", "info", "The badge's place is read from positions this run wrote to the .aux. "
            "Rerun to get the badge placed right",
            "A first run has no .aux to read: the badge goes where the class's usual rules put it (or at "
            "the top of the title's page), and the next run places it under the title block by where the "
            "block was typeset. arXiv and latexmk rerun on this message."),
    Message("title-unclean", "warning", "The title holds commands that are not text (assignments, "
            "counters): Info /PithTitle is left out",
            "The class stores more than the title in \\@title (a counter, a short form). pith records the "
            "title only when it can read it as plain text; the badge and the number are not affected."),
    Message("xmp-owner", "info", "XMP left to #1; Info keys written",
            "That package writes the one XMP packet a PDF may have; the number is in Info."),
    Message("xmp-hyperxmp", "info", "pith properties added to hyperxmp's XMP packet",
            "Nothing to do: one packet, hyperxmp's, carries the pith properties."),
    Message("xmp-pdfa", "info", "PDF/A: the pith properties stay out of the XMP packet (LaTeX cannot yet "
            "declare the extension schema PDF/A needs for them); Info keys written",
            "Nothing to do: the number is in the Info dictionary, and the PDF/A packet stays valid."),
    Message("xmp-kernel", "info", "PDF management without \\pdfmeta_xmp_add:n: XMP left to the kernel",
            "This LaTeX is older than 2022-09; the number is in Info. Update TeX Live for XMP."),
)
MESSAGE_NAMES = frozenset(m.name for m in MESSAGES)


@dataclass(frozen=True)
class Signal:
    """One test of a review mode's signal, written once and rendered twice: as expl3 for
    the PDF route (templates/pith.sty.j2) and as LaTeX2e for the LaTeXML path
    (templates/sty/latexml.sty.j2), which LaTeXML can evaluate.

    kind: `true` (the LaTeX2e switch \\if<name> exists and is true), `nottrue` (it does not
    exist, or is false), `defined` / `undefined` (the command <name>), `relax` (the command
    <name> is \\relax), `empty` (<name> is a macro with empty text), `class` / `package`
    (<name> is loaded, with the option `option` when one is given), `without` (the package
    <name> is not loaded with the option `option`).
    """

    kind: str
    name: str
    option: str = ""


@dataclass(frozen=True)
class Check:
    """A review mode holds when all of `signals` hold; `logged` names it in the warning.

    `pdf` False: a check for LaTeXML's reading of the style only (its bindings), which the
    PDF route leaves out. `years`: the check is tried for each year, `{y}` in the signals'
    names standing for it (LaTeXML path only: a loop, so the package stays short)."""

    logged: str
    signals: tuple[Signal, ...]
    pdf: bool = True
    years: tuple[int, ...] = ()


def _flag_or_option(logged: str, flag: str, kind: str, file: str, option: str) -> tuple[Check, ...]:
    """The switch a class or style sets from its option, or, where the switch is not there
    (LaTeXML's bindings of acmart and IEEEtran define none), the option itself."""
    return (Check(logged, (Signal("true", flag),)),
            Check(logged, (Signal("undefined", "if" + flag), Signal(kind, file, option)), pdf=False))


def _cv(venue: str) -> tuple[Check, ...]:
    """CVPR, ICCV, WACV: the option review or rebuttal; before 2023 a flag set by
    \\cvprfinalcopy and the like."""
    return (Check(f"{venue} review mode", (Signal("package", venue, "review"),)),
            Check(f"{venue} rebuttal mode", (Signal("package", venue, "rebuttal"),)),
            Check(f"{venue} review mode (no \\{venue}finalcopy)",
                  (Signal("defined", f"if{venue}final"), Signal("nottrue", f"{venue}final"))))


@dataclass(frozen=True)
class ReviewMode:
    """A class or venue style in its review or submission mode, in which pith.sty writes
    neither badge nor metadata (with `anonymous=auto`, the default); the manual lists them.
    `checks` are what both of pith.sty's paths test, in order (the first that holds wins)."""

    venue: str    # as authors know it, with the file that signals the mode
    signal: str   # what in that file pith reads
    logged: str   # the mode as pith's warning names it
    checks: tuple[Check, ...]


# LaTeXML reads neurips_2025.sty and icml2025.sty with its bindings of neurips.sty and
# icml.sty ("a versioned package name"), which define none of the styles' switches but keep
# the options under the versioned name; the years a paper may name are tried, once the
# generic name (which LaTeXML then counts as loaded too) says it is worth it.
_YEARS = tuple(range(2019, 2031))
_NEURIPS = "NeurIPS submission mode"
_ICML = "ICML submission mode (no accepted option)"
REVIEW_MODES: tuple[ReviewMode, ...] = (
    ReviewMode("IEEEtran", "class option peerreview", "IEEEtran peerreview mode",
               _flag_or_option("IEEEtran peerreview mode", "CLASSOPTIONpeerreview", "class", "IEEEtran",
                               "peerreview")),
    ReviewMode("acmart", "class option anonymous", "acmart anonymous mode",
               _flag_or_option("acmart anonymous mode", "@ACM@anonymous", "class", "acmart", "anonymous")),
    ReviewMode("acmart", "class option review", "acmart review mode",
               _flag_or_option("acmart review mode", "@ACM@review", "class", "acmart", "review")),
    ReviewMode("LIPIcs (lipics-v2021)", "class option anonymous", "LIPIcs anonymous mode",
               (Check("LIPIcs anonymous mode", (Signal("relax", "authoranonymous"),)),)),
    ReviewMode("ACL, EMNLP, NAACL and the other *ACL venues (acl.sty)", "package option review",
               "ACL review mode", _flag_or_option("ACL review mode", "acl@anonymize", "package", "acl", "review")),
    ReviewMode("NeurIPS (neurips_20xx.sty)", "neither final nor preprint (from 2026 also not nonanonymous "
               "or a single-blind track)", _NEURIPS,
               (Check(_NEURIPS, (Signal("defined", "if@neuripsfinal"), Signal("true", "@anonymous"))),
                Check(_NEURIPS, (Signal("defined", "if@neuripsfinal"), Signal("undefined", "if@anonymous"),
                                 Signal("nottrue", "@neuripsfinal"), Signal("nottrue", "@preprint"))),
                Check(_NEURIPS, (Signal("undefined", "if@neuripsfinal"), Signal("package", "neurips"),
                                 Signal("package", "neurips_{y}"),
                                 *(Signal("without", "neurips_{y}", o) for o in ("final", "preprint", "nonanonymous"))),
                      pdf=False, years=_YEARS))),
    ReviewMode("ICML (icml20xx.sty)", "no accepted option", "ICML submission mode (no accepted option)",
               (Check(_ICML, (Signal("defined", "ICML@appearing"), Signal("undefined", "isaccepted"))),
                Check(_ICML, (Signal("undefined", "ICML@appearing"), Signal("package", "icml"),
                              Signal("package", "icml{y}"), Signal("without", "icml{y}", "accepted")),
                      pdf=False, years=_YEARS))),
    ReviewMode("ICLR (iclr20xx_conference.sty)", "no \\iclrfinalcopy before \\begin{document}",
               "ICLR submission mode (no \\iclrfinalcopy)",
               (Check("ICLR submission mode (no \\iclrfinalcopy)",
                      (Signal("defined", "ificlrfinal"), Signal("nottrue", "iclrfinal"))),)),
    ReviewMode("TMLR (tmlr.sty)", "neither accepted nor preprint", "TMLR submission mode (no accepted option)",
               (Check("TMLR submission mode (no accepted option)",
                      (Signal("package", "tmlr"), Signal("nottrue", "@accepted"), Signal("nottrue", "@preprint"))),)),
    # COLM's style sets \ifcolmsubmission by default and clears it for preprint or final.
    ReviewMode("COLM (colm20xx_conference.sty)", "package option submission (the default)", "COLM submission mode",
               (Check("COLM submission mode", (Signal("true", "colmsubmission"),)),)),
    ReviewMode("CVPR, ICCV, WACV (cvpr.sty, iccv.sty, wacv.sty)", "package option review or rebuttal "
               "(styles before 2023: no \\cvprfinalcopy, \\iccvfinalcopy, \\wacvfinalcopy)",
               "cvpr review mode", _cv("cvpr") + _cv("iccv") + _cv("wacv")),
    ReviewMode("ECCV (eccv.sty)", "package option review", "ECCV review mode",
               _flag_or_option("ECCV review mode", "eccv@review", "package", "eccv", "review")),
    # AAAI's `submission` option empties the macro that shows the authors.
    ReviewMode("AAAI (aaai20xx.sty)", "package option submission", "AAAI submission mode",
               (Check("AAAI submission mode", (Signal("empty", "showauthors@on"),)),)),
    # BMVC's \bmvcreviewcopy{NUMBER} (in the preamble) sets \ifbmv@review.
    ReviewMode("BMVC (bmvc2k.cls)", "\\bmvcreviewcopy", "BMVC review mode",
               (Check("BMVC review mode", (Signal("true", "bmv@review"),)),)),
    # Interspeech's class is anonymous until \interspeechcameraready sets \ifinterspeechfinal.
    ReviewMode("Interspeech (Interspeech.cls)", "no \\interspeechcameraready",
               "Interspeech submission mode (no \\interspeechcameraready)",
               (Check("Interspeech submission mode (no \\interspeechcameraready)",
                      (Signal("defined", "ifinterspeechfinal"), Signal("nottrue", "interspeechfinal"))),)),
)
REVIEW_CHECKS: tuple[Check, ...] = tuple(c for m in REVIEW_MODES for c in m.checks)


def expl3_text(text: str) -> str:
    """A plain text as the argument of \\msg_new:nnnn under \\ExplSyntaxOn."""
    out = []
    for ch in text:
        if ch in "\\{}%":
            out.append("\\iow_char:N\\" + ch)
        elif ch == " ":
            out.append("~")
        else:
            out.append(ch)
    return "".join(out)


# A break is allowed after an opening brace: `\pithnumber{` + 26 characters is wider than
# the manual's table columns.
_LATEX = {"\\": "\\textbackslash{}", "{": "\\{\\allowbreak{}", "}": "\\}", "#": "\\#", "_": "\\_", "&": "\\&",
          "%": "\\%", "$": "\\$", "~": "\\textasciitilde{}", "^": "\\textasciicircum{}"}


def latex_text(text: str) -> str:
    """A plain text as typeset text in the manual."""
    return "".join(_LATEX.get(ch, ch) for ch in text)


# A review check as TeX: each signal a test whose true branch is the rest; the innermost
# branch names the mode. The PDF route's `\__pith_review:n` stops at the first that holds.
_EXPL3_SIGNAL = {
    "true": "\\__pith_legacy:nT {{{name}}} {{ {body} }}",
    "nottrue": "\\__pith_legacy:nF {{{name}}} {{ {body} }}",
    "defined": "\\cs_if_exist:cT {{{name}}} {{ {body} }}",
    "undefined": "\\cs_if_exist:cF {{{name}}} {{ {body} }}",
    "relax": "\\token_if_eq_meaning:NNT \\{name} \\scan_stop: {{ {body} }}",
    "empty": "\\cs_if_exist:NT \\{name} {{ \\tl_if_empty:NT \\{name} {{ {body} }} }}",
    # Loaded or not as \IfClassLoadedTF and \IfPackageLoadedTF tell it (\ver@NAME.cls or
    # .sty), with \ifcsname: their \csname would put every name tested in TeX's table of
    # names on every run; the options are read only of what is loaded.
    "class": ("\\cs_if_exist:cT {{ver@{name}.cls}} "
              "{{ \\IfClassLoadedWithOptionsTF {{{name}}} {{{option}}} {{ {body} }} {{ }} }}"),
    "package": ("\\cs_if_exist:cT {{ver@{name}.sty}} "
                "{{ \\IfPackageLoadedWithOptionsTF {{{name}}} {{{option}}} {{ {body} }} {{ }} }}"),
    "class-": "\\cs_if_exist:cT {{ver@{name}.cls}} {{ {body} }}",
    "package-": "\\cs_if_exist:cT {{ver@{name}.sty}} {{ {body} }}",
    "without": "\\IfPackageLoadedWithOptionsTF {{{name}}} {{{option}}} {{ }} {{ {body} }}",
}
# The LaTeXML path's tests (sty/latexml.sty.j2 defines \pith@T and the like): LaTeX2e
# that LaTeXML interprets, with no \if... of its own outside macros that pair their \fi.
_LATEX2E_SIGNAL = {  # short names: TeX reads this text on every run, skipping it
    "true": "\\pith@T{{{name}}}{{{body}}}",
    "nottrue": "\\pith@N{{{name}}}{{{body}}}",
    "defined": "\\pith@D{{{name}}}{{{body}}}",
    "undefined": "\\pith@U{{{name}}}{{{body}}}",
    "relax": "\\pith@R\\{name}{{{body}}}",
    "empty": "\\pith@E\\{name}{{{body}}}",
    "class": "\\pith@C{{{name}}}{{{option}}}{{{body}}}",
    "package": "\\pith@P{{{name}}}{{{option}}}{{{body}}}",
    "class-": "\\@ifclassloaded{{{name}}}{{{body}}}{{}}",
    "package-": "\\pith@L{{{name}}}{{{body}}}",
    "without": "\\pith@W{{{name}}}{{{option}}}{{{body}}}",
}


def _check_tex(check: Check, forms: dict[str, str], found: str, year: str = "") -> str:
    body = found
    for signal in reversed(check.signals):
        kind = signal.kind + ("-" if signal.kind in ("class", "package") and not signal.option else "")
        body = forms[kind].format(name=signal.name.replace("{y}", year), option=signal.option, body=body)
    return body


def expl3_check(check: Check) -> str:
    """The check as expl3 for the PDF route (read under \\ExplSyntaxOn); "" for a
    LaTeXML-only one."""
    if not check.pdf:
        return ""
    return _check_tex(check, _EXPL3_SIGNAL, f"\\__pith_review:n {{ {expl3_text(check.logged)} }}")


def latex2e_check(check: Check) -> str:
    """The check as LaTeX2e for the LaTeXML path; it names the mode in \\pith@why."""
    logged = check.logged.replace("\\", "\\@backslashchar ")
    found = f"\\pith@M{{{logged}}}"
    if not check.years:
        return _check_tex(check, _LATEX2E_SIGNAL, found)
    # The signals before the first that names a year are tested once, outside the loop.
    first = next(i for i, signal in enumerate(check.signals) if "{y}" in signal.name)
    loop = _check_tex(Check(check.logged, check.signals[first:]), _LATEX2E_SIGNAL, found, "\\pith@y")
    loop = f"\\@for\\pith@y:={','.join(map(str, check.years))}\\do{{{loop}}}"
    return _check_tex(Check(check.logged, check.signals[:first]), _LATEX2E_SIGNAL, loop)
