"""The catalogue of `pithtex check`'s rule ids: each id, its severity, what it means, the fix.

The ids are promised stable (JSON consumers, CI scripts and people's notes refer to them),
so they are written here once: the rules, the compile and PDF checks and the report use
these values, never the id as a string of their own, and `make render` writes
docs/arxiv-rules.md from this table (`render --check` says when it is stale).
tests/arxiv/test_arxiv_catalogue.py holds the expected ids and severities, and checks that every
rule the code can emit is listed here and every one listed is emitted somewhere.

A finding's own fix names the file or the option at hand; `fix` here is the general one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ERROR = "error"      # arXiv would fail, or the pith badge/metadata would be lost
WARNING = "warning"  # worth fixing, but arXiv compiles and pith survives
# The verdict of an error that stops arXiv's compile (the report says it before any other fault).
WOULD_FAIL = "would fail on arXiv"


@dataclass(frozen=True)
class Rule:
    id: str
    severities: tuple[str, ...]  # the one a finding of this rule may have (two: it depends, see meaning)
    meaning: str
    fix: str
    # An error of this rule loses pith's badge or metadata while arXiv still compiles the
    # paper: the verdict then names that fault (`says`) rather than "would fail on arXiv".
    metadata: bool = False
    # The fault in the verdict's words, when it is not "would fail on arXiv" (or, for the rules
    # above, "loses pith metadata"): "badge misplaced" where Info and XMP are there and only the
    # badge's place is wrong (the verdict once said "loses pith metadata" for it).
    says: str = ""

    @property
    def verdict(self) -> str:
        return self.says or ("loses pith metadata" if self.metadata else WOULD_FAIL)

    @property
    def severity(self) -> str:
        """The severities in words, as the catalogue's table shows them."""
        return " or ".join(self.severities)


E, W, EW = (ERROR,), (WARNING,), (ERROR, WARNING)

# -- the sources, before compiling -------------------------------------------------------------
UNSAFE_PATH = Rule(
    "unsafe-path", E, "a file reference (\\input, \\includegraphics, \\bibliography, \\usepackage, "
    "\\documentclass) is absolute or climbs out of the upload with '..': arXiv has only the uploaded files",
    "copy the file into the paper folder and refer to it by a relative path")
WRONG_CASE = Rule(
    "wrong-case", E, "a referenced file is in the upload only with other upper and lower case; arXiv's "
    "file system is case-sensitive", "rename the file or change the reference so both read exactly alike")
MISSING_FILE = Rule(
    "missing-file", E, "\\input, \\include or \\includegraphics names a file that is neither in the upload "
    "nor in TeX Live (figures are tried with .pdf, .png, .jpg, .eps and along \\graphicspath)",
    "add the file to the upload, or fix the name")
BBL_MISSING = Rule(
    "bbl-missing", E, "the paper has a bibliography (\\bibliography, \\addbibresource) but JOBNAME.bbl is "
    "not uploaded: arXiv runs neither BibTeX nor Biber",
    "run bibtex (or biber) locally and upload JOBNAME.bbl next to the main file")
PACKAGE_MISSING = Rule(
    "package-missing", E, "\\usepackage or \\documentclass names a package or class that is neither in "
    "TeX Live nor at the top level of the upload",
    "upload the .sty or .cls at the top level of the upload (move it there from a subfolder)")
SHELL_ESCAPE = Rule(
    "shell-escape", E, "the paper needs shell escape (\\write18, or a package such as minted, pythontex, "
    "gnuplottex, svg), which arXiv has off", "remove it, or run the command yourself and upload its output")
HYPERXMP_ORDER = Rule(
    "hyperxmp-order", E, "hyperxmp is loaded before hyperref: TeX Live 2025's hyperxmp refuses this and "
    "stops the compile", "load hyperref first: \\usepackage{hyperref} then \\usepackage{hyperxmp}")
PDFA_OUTPUTINTENTS = Rule(
    "pdfa-outputintents", W, "the paper asks for PDF/A (\\DocumentMetadata pdfstandard, pdfx), or the "
    "compiled PDF has /OutputIntents: arXiv then leaves out its own stamp",
    "drop the PDF/A setting (\\DocumentMetadata pdfstandard, pdfx) for arXiv")
UNSAFE_FILENAME = Rule(
    "unsafe-filename", EW, "an error: a file name has characters other than A-Z a-z 0-9 _ + - . , = and "
    "arXiv renames it, which breaks references to it; a warning: a hidden file in an archive, which arXiv "
    "removes", "rename the file (and its references) using only those characters; leave hidden files out")
PITH_STY_MISSING = Rule(
    "pith-sty-missing", E, "the paper loads pith but pith.sty is not at the top level of the upload: "
    "arXiv's TeX Live does not have it", "run `pithtex sty` in the paper's folder to put the current pith.sty "
    "there (pithtex bundle adds it to the archive for you)")
PITH_STY_OLD = Rule(
    "pith-sty-old", W, "the uploaded pith.sty is older than pithtex's own copy (or of no known version)",
    "replace it: `pithtex sty --force` in the paper's folder (pithtex bundle does this)")
PITH_OPTION_UNKNOWN = Rule(
    "pith-option-unknown", E, "pith is given an option it does not have: TeX stops with an error",
    "remove it (the number goes in \\pithnumber{...})")
PITH_HIDDEN = Rule(
    "pith-hidden", W, "pith will leave out the badge, the metadata or both: badge=none, metadata=false, or "
    "a review copy (anonymous=true, acmart's anonymous, IEEEtran's peerreview, a venue's review mode)",
    "for the public arXiv version, drop the review option or set \\pithsetup{anonymous=false}")
PITH_NUMBER_MISSING = Rule(
    "pith-number-missing", E, "the paper loads pith but never says \\pithnumber{...}: no badge and no "
    "metadata", "add \\pithnumber{YOUR26CHARACTERNUMBER} after \\usepackage{pith}", metadata=True)
PITH_NUMBER_MACRO = Rule(
    "pith-number-macro", W, "\\pithnumber's argument holds a macro that the files the check reads do not "
    "define by \\newcommand or \\def, so the number is only known from the compiled PDFs",
    "give the number itself, or define the macro with \\newcommand to hold it", metadata=True)
PITH_NUMBER_INVALID = Rule(
    "pith-number-invalid", E, "\\pithnumber's argument, after its macros are expanded, is not a Pith Number "
    "(the same parser as `pithtex number`)",
    "copy the number exactly from its pith.science page (26 characters A-Z, 2-7)", metadata=True)

# -- the upload as a whole ---------------------------------------------------------------------
SEVERAL_MAIN_FILES = Rule(
    "several-main-files", W, "several top-level files have \\documentclass: arXiv compiles each of them and "
    "joins their PDFs", "list the paper in 00README.json (sources, usage: toplevel) or leave the others out "
    "of the upload (pithtex bundle --main FILE does)")
PITH_FILE_UNCHECKED = Rule(
    "pith-file-unchecked", E, "another top-level file that arXiv compiles loads pith, but only the files "
    "named were checked", "check every top-level file (pithtex check on the folder), name the file in "
    "00README.json's toplevel sources, or leave the others out of the upload")
BUILD_PRODUCTS = Rule(
    "build-products", W, "the uploaded archive holds build products (.aux, .log, a PDF ...); the check "
    "ignores them", "leave them out of the upload (pithtex bundle does)")

# -- compiling ---------------------------------------------------------------------------------
LOG_TOO_LARGE = Rule(
    "log-too-large", E, "a step (TeX, dvips, ps2pdf) wrote more than the output cap to its terminal or its "
    ".log and was stopped (PITHTEX_LOG_CAP sets the cap)",
    "look for a macro that calls itself while writing (\\message, \\typeout, \\write): it never ends")
FILES_TOO_LARGE = Rule(
    "files-too-large", E, "a step added more than 20 times the output cap to the files of its folder and "
    "was stopped", "look for a macro that calls itself while writing to a file (\\openout, \\write): it "
    "never ends")
MEMORY_TOO_LARGE = Rule(
    "memory-too-large", E, "a step (TeX, dvips, ps2pdf) asked for more memory than its limit (2 GB of "
    "address space) and ended", "look for PostScript (a \\special or an EPS figure) that allocates in a "
    "loop: it never ends")
COMPILE_TIMEOUT = Rule(
    "compile-timeout", E, "a TeX run did not end within the time limit (--timeout)",
    "look for a loop in the macros, or raise --timeout")
POSTSCRIPT_FILE_ACCESS = Rule(
    "postscript-file-access", E, "PostScript in the paper (a \\special or an EPS figure) opens a file outside "
    "the paper's folder; the check's sandbox refuses it, so what arXiv's Ghostscript would make of it is "
    "unknown", "remove the PostScript that opens files ((name) (w) file, deletefile, renamefile): a paper "
    "needs none to print", says="PostScript opens files outside the paper's folder")
COMPILE_ERROR = Rule(
    "compile-error", E, "the compile failed on a route: an error in TeX's log, a dvips or ps2pdf step that "
    "failed, or no PDF", "fix the first error first; the others often follow from it")
FOLLOW_ON_ERRORS = Rule(
    "follow-on-errors", W, "more errors in the log after a missing file already reported, most likely "
    "caused by it", "fix the missing files and check again")
FIGURE_FORMAT = Rule(
    "figure-format", E, "a figure is uploaded only in formats the route cannot read (only .eps on pdflatex, "
    "only .png on latex)", "also upload the figure in a format the route reads, or use one format for all "
    "figures so arXiv picks a route that reads it")
UNDEFINED_REFERENCE = Rule(
    "undefined-reference", W, "the compiled paper has undefined references", "check the \\label and \\ref names")
UNDEFINED_CITATION = Rule(
    "undefined-citation", W, "the compiled paper has undefined citations",
    "rerun BibTeX locally and upload the new .bbl")
MISSING_CHARACTER = Rule(
    "missing-character", W, "characters are missing from the fonts the paper uses: the PDF leaves them out",
    "use a font that has them, or the LaTeX command for the symbol")

# -- the compiled PDF --------------------------------------------------------------------------
PDF_NO_INFO = Rule(
    "pdf-no-info", E, "the compiled PDF has no Pith Number in its Info dictionary (/PithNumber)",
    "use the current pith.sty (older copies miss this route)", metadata=True)
PDF_NO_XMP = Rule(
    "pdf-no-xmp", E, "the compiled PDF has no Pith Number in its XMP metadata (pith:number)",
    "use the current pith.sty (older copies miss this route)", metadata=True)
PDF_NUMBER_MISMATCH = Rule(
    "pdf-number-mismatch", E, "the compiled PDF's Info or XMP names another number than \\pithnumber",
    "keep one \\pithnumber and no other writer of this metadata", metadata=True)
PDF_NO_BADGE_LINK = Rule(
    "pdf-no-badge-link", EW, "the badge's page has no link to the number's page; a warning with "
    "badge=manual, whose badge may sit on a later page",
    "make sure \\pithnumber is set before \\maketitle and the current pith.sty is uploaded", metadata=True,
    says="badge missing")
PDF_LEFT_BAND = Rule(
    "pdf-left-band", E, "a pith link on page 1 starts inside the left margin band where arXiv stamps its "
    "identifier", "move the badge away from the left margin", metadata=True, says="badge misplaced")
PITH_BADGE_FALLBACK = Rule(
    "pith-badge-fallback", W, "pith found no title block before the first page was shipped out: the badge "
    "is where pith's fallback puts it on that page, not under a title it recognised (where that is, "
    "pith-badge-misplaced judges)",
    "set badge=manual and write \\pithbadge where the badge belongs (after the authors)")
PITH_BADGE_PAGE = Rule(
    "pith-badge-page", W, "the badge is under the title, but the title is not on page 1 (the class puts "
    "pages before it)", "nothing to do if that page is the title page; otherwise badge=manual and \\pithbadge")
PITH_BADGE_OFF_PAGE = Rule(
    "pith-badge-off-page", E, "the badge's text or its link lies outside the page's visible box (the MediaBox "
    "within the CropBox): nobody sees it or can click it", "update pith.sty (pithtex sty --force); if the "
    "class still moves it off the page, set badge=manual and write \\pithbadge at the end of the title block",
    metadata=True, says="badge misplaced")
PITH_BADGE_MISPLACED = Rule(
    "pith-badge-misplaced", EW, "the badge is not right under the title as the page shows it: above the "
    "title, not aligned with it, over other text, or on another page than the title (a warning for a "
    "\\pithbadge the author placed, unless it covers text)",
    "update pith.sty (pithtex sty --force); otherwise set badge=manual and end the title block with the badge: "
    "\\date{\\today\\\\ \\pithbadge} (this works where \\maketitle ends with a page break too)",
    metadata=True, says="badge misplaced")

# In the order of the table in docs/arxiv-rules.md.
RULES: tuple[Rule, ...] = tuple(v for v in dict(globals()).values() if isinstance(v, Rule))
BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}


def table() -> str:
    """The catalogue as a Markdown table (docs/arxiv-rules.md)."""
    rows = ["| id | severity | what it means | the fix |", "| --- | --- | --- | --- |"]
    for rule in RULES:
        cells = (f"`{rule.id}`", rule.severity, rule.meaning, rule.fix)
        rows.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(rows) + "\n"


def _cell(text: str) -> str:
    """Table-safe Markdown: TeX's commands as code (a backslash would escape what follows it), and
    no bare pipe (it would end the cell)."""
    return re.sub(r"\\[A-Za-z]+[0-9]*(?:\{[^{}]*\})*", lambda m: f"`{m.group(0)}`", text).replace("|", "\\|")


RULES_HEAD = """\
# The rules of `pithtex check`

Every finding of `pithtex check` and `pithtex bundle` carries one of these ids (`rule` in
`--json`). The ids are stable: scripts may match on them. A finding is an **error** when
arXiv would fail to compile the paper or the pith badge or metadata would be lost (exit 1),
a **warning** when it is worth fixing but both survive. Each finding's own fix names the
file, option or route at hand; the fix below is the general one.

<!-- Generated by `make render` from pithtex/arxiv/catalogue.py; edit that, not this file.
     `python -m pithtex.cli.render --check` fails when the two differ. -->

"""


def rules_page() -> str:
    """docs/arxiv-rules.md: the catalogue of rule ids as a table (`make render` writes it)."""
    return RULES_HEAD + table()
