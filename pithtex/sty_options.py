"""pith.sty's options and messages: one table read by the package template and the manual.

`pithtex render` turns OPTIONS into the package's l3keys definitions and MESSAGES into its
`\\msg_new:nnnn` declarations (templates/pith.sty.j2), and the same two tables into the
option table and the troubleshooting list of the manual (templates/pith-doc.tex.j2), so
the manual cannot describe an option or a message the package does not have. Texts are
plain: `#1`.. stand for a message's arguments; the filters below make them TeX.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import brand

EXAMPLE_BODY = "YBK5PTAKOSCXY2WMLIIB7DMYH6"
# The example papers (examples/<class>/) whose page 1 the manual shows, built with it.
MANUAL_CLASSES = ("article", "amsart", "revtex4-2", "IEEEtran", "acmart", "elsarticle", "llncs")


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
    Option("anonymous", "choice", "auto", "hides badge and metadata; auto does so in acmart's "
           "anonymous and IEEEtran's peerreview modes", "anonymous", values=("auto", "true", "false"),
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
    Message("title", "info", "Badge placed after \\maketitle (cmd/maketitle/after hook)",
            "Nothing to do: the badge is under the title block."),
    Message("in-block", "info", "Badge placed #1",
            "Nothing to do: in a title block set across the page (two columns, or revtex's), the "
            "badge is its last line, centred."),
    Message("first-page", "info", "Badge placed at the top of page 1 (shipout/foreground: no title "
            "block placed it before page 1 was shipped)",
            "The class built its title without \\maketitle, or page 1 is a title page; use "
            "badge=manual and \\pithbadge to put it elsewhere."),
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
