"""Static rules: what arXiv would trip over, read from the sources before compiling.

Each rule returns Diagnostics with file:line and a fix. `static_check` runs them all and
also returns the facts later steps need (figure kinds for the `auto` route, pith facts).
Rule ids are stable (tests, JSON consumers and docs/arxiv-rules.md refer to them): each is an entry
of catalogue.py, which says what it means and how to fix it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from ..errors import InvalidNumber
from ..latex import sty
from ..latex.options import OPTION_NAMES
from ..number import PithNumber
from ..value import TYPE_CHECKING
from . import texlive
from .catalogue import (
    BBL_MISSING,
    HYPERXMP_ORDER,
    MISSING_FILE,
    PACKAGE_MISSING,
    PDFA_OUTPUTINTENTS,
    PITH_HIDDEN,
    PITH_NUMBER_INVALID,
    PITH_NUMBER_MACRO,
    PITH_NUMBER_MISSING,
    PITH_OPTION_UNKNOWN,
    PITH_STY_MISSING,
    PITH_STY_OLD,
    SHELL_ESCAPE,
    UNSAFE_FILENAME,
    UNSAFE_PATH,
    WRONG_CASE,
)
from .diagnostic import Diagnostic, error, warning
from .scan import ALL_GRAPHICS_EXT, Ref, Sources, graphics_candidates, norm_name
from .upload import Upload

if TYPE_CHECKING:
    from typing import Any

# A PDF/PNG/JPG figure makes arXiv choose pdflatex; otherwise it runs latex -> dvips -> ps2pdf.
PDF_ROUTE_EXT = (".pdf", ".png", ".jpg", ".jpeg")
SHELL_PACKAGES = {
    "minted": "minted runs Pygments through shell escape",
    "pythontex": "pythontex runs Python outside TeX",
    "gnuplottex": "gnuplottex runs gnuplot through shell escape",
    "svg": "the svg package runs Inkscape through shell escape",
    "auto-pst-pdf": "auto-pst-pdf runs latex/dvips through shell escape",
    "pstool": "pstool runs latex/dvips through shell escape",
    "shellesc": "shellesc exists to run shell commands",
}
# Classes that load hyperref themselves, so a later hyperxmp is already after it.
HYPERREF_CLASSES = {"acmart"}
SAFE_NAME = re.compile(r"^[A-Za-z0-9_+\-.,=]+$")


@dataclass
class Facts:
    """What the rules learnt that later steps use."""

    figures: list[str] = field(default_factory=list)  # resolved figure files
    uses_pith: bool = False
    number: str | None = None
    sty: dict[str, Any] = field(default_factory=dict)
    badge: str = "title"   # pith's badge= option: title | manual | none
    metadata: bool = True  # pith's metadata= option (and anonymous review)


def static_check(upload: Upload, src: Sources) -> tuple[list[Diagnostic], Facts]:
    facts = Facts()
    files = set(upload.files)
    lower = {f.lower(): f for f in upload.files}
    diags: list[Diagnostic] = []
    diags += rule_unsafe_names(upload)
    diags += rule_inputs(src, files, lower)
    diags += rule_graphics(src, files, lower, facts)
    diags += rule_bbl(upload, src, files)
    diags += rule_packages(src, files, lower)
    diags += rule_shell(src)
    diags += rule_hyperxmp(src)
    diags += rule_pdfa(src)
    diags += rule_pith(upload, src, files, facts)
    return diags, facts


# -- file references -----------------------------------------------------------------------
def _unsafe_path(ref: Ref) -> Diagnostic | None:
    name = norm_name(ref.name)
    if name.startswith(("/", "~")) or re.match(r"^[A-Za-z]:[\\/]", name) or ".." in PurePosixPath(name).parts:
        return error(UNSAFE_PATH, f"{_cmd(ref)}{{{ref.name}}} points outside the upload (absolute or '..' path)",
                     UNSAFE_PATH.fix,
                     ref.file, ref.line)
    return None


def _cmd(ref: Ref) -> str:
    return {"input": "\\input", "graphics": "\\includegraphics", "bibliography": "\\bibliography",
            "package": "\\usepackage", "class": "\\documentclass"}.get(ref.kind, "\\" + ref.kind)


def _lookup(cands: list[str], files: set[str], lower: dict[str, str]) -> tuple[str, str | None]:
    """('found', path) | ('case', actual path) | ('missing', None)."""
    for c in cands:
        if c in files:
            return "found", c
    for c in cands:
        if c.lower() in lower:
            return "case", lower[c.lower()]
    return "missing", None


def _wrong_case(ref: Ref, actual: str) -> Diagnostic:
    return error(WRONG_CASE, f"{_cmd(ref)}{{{ref.name}}} only matches {actual!r} when case is ignored; "
                 "arXiv's file system is case-sensitive",
                 f"rename the file or change the reference so both read exactly {actual!r}", ref.file, ref.line,
                 subject=norm_name(ref.name))


def rule_inputs(src: Sources, files: set[str], lower: dict[str, str]) -> list[Diagnostic]:
    out = []
    for ref in src.of_kind("input"):
        bad = _unsafe_path(ref)
        if bad:
            out.append(bad)
            continue
        name = norm_name(ref.name)
        status, actual = _lookup([name + ".tex", name], files, lower)
        if status == "case" and actual:
            out.append(_wrong_case(ref, actual))
        elif status == "missing" and not any(texlive.find([name + ".tex", name]).values()):
            out.append(error(MISSING_FILE, f"\\input{{{ref.name}}}: no {name}.tex or {name} in the upload",
                             f"add {name}.tex to the upload, or fix the name", ref.file, ref.line, subject=name))
    return out


def rule_graphics(src: Sources, files: set[str], lower: dict[str, str], facts: Facts) -> list[Diagnostic]:
    out = []
    paths = [norm_name(p) for p in src.graphicspath]
    for ref in src.of_kind("graphics"):
        bad = _unsafe_path(ref)
        if bad:
            out.append(bad)
            continue
        name = norm_name(ref.name)
        cands = graphics_candidates(name, paths)
        found = [c for c in cands if c in files]
        if found:
            facts.figures.extend(found)
            continue
        status, actual = _lookup(cands, files, lower)
        if status == "case" and actual:
            out.append(_wrong_case(ref, actual))
        elif not _in_texlive(name):  # mwe's example-image-a and the like come with TeX Live
            out.append(error(MISSING_FILE, f"\\includegraphics{{{ref.name}}}: no such figure in the upload "
                             "(tried .pdf, .png, .jpg, .eps" + (" and \\graphicspath" if paths else "") + ")",
                             f"add {name}.pdf/.png/.jpg (or .eps for the latex route) to the upload, or fix the name",
                             ref.file, ref.line, subject=name))
    return out


def _in_texlive(name: str) -> bool:
    """A figure graphicx finds in TeX Live's trees, as it would on arXiv (a bare name only:
    TeX Live has nothing under the paper's own folders)."""
    if "/" in name:
        return False
    names = [name] if name.endswith(ALL_GRAPHICS_EXT) else [name + e for e in ALL_GRAPHICS_EXT]
    return any(texlive.find(names).values())


def rule_bbl(upload: Upload, src: Sources, files: set[str]) -> list[Diagnostic]:
    refs = src.of_kind("bibliography")
    if not refs:
        return []
    out = [d for d in (_unsafe_path(r) for r in refs) if d]
    bbl = f"{upload.jobname}.bbl"
    if bbl not in files:
        ref = refs[0]
        bibs = [r.name if r.name.endswith(".bib") else r.name + ".bib" for r in refs]
        have = [b for b in bibs if norm_name(b) in files]
        what = f"{', '.join(have)} is uploaded but" if have else "the paper uses a bibliography but"
        out.append(error(BBL_MISSING, f"{what} {bbl} is not: arXiv does not run BibTeX/Biber",
                         f"run bibtex (or biber) locally and upload {bbl} next to {upload.main}",
                         ref.file, ref.line))
    return out


def rule_packages(src: Sources, files: set[str], lower: dict[str, str]) -> list[Diagnostic]:
    refs = [r for r in src.refs if r.kind in ("package", "class") and not _unsafe_path(r)]
    names = [norm_name(r.name) + (".cls" if r.kind == "class" else ".sty") for r in refs]
    local = {n for n in names if n in files}
    in_tl = texlive.find([n for n in names if n not in local])
    out, seen = [], set()
    for ref, fname in zip(refs, names, strict=True):
        if fname in local or in_tl.get(fname) or fname in seen:
            continue
        seen.add(fname)
        if ref.name == "pith":
            continue  # rule_pith says it better
        status, actual = _lookup([fname], files, lower)
        if status == "case" and actual:
            out.append(_wrong_case(ref, actual))
            continue
        elsewhere = [f for f in files if PurePosixPath(f).name == fname]
        hint = (f"move {elsewhere[0]} to the top level of the upload" if elsewhere
                else f"upload {fname} at the top level (TeX Live does not have it)")
        out.append(error(PACKAGE_MISSING, f"{_cmd(ref)}{{{ref.name}}}: {fname} is neither in TeX Live nor "
                         "at the top level of the upload", hint, ref.file, ref.line, subject=fname))
    out += [d for d in (_unsafe_path(r) for r in src.refs if r.kind in ("package", "class")) if d]
    return out


def rule_shell(src: Sources) -> list[Diagnostic]:
    out = [error(SHELL_ESCAPE, f"{ref.name.strip()} needs shell escape, which arXiv has off",
                 SHELL_ESCAPE.fix, ref.file, ref.line)
           for ref in src.shell]
    for ref in src.packages:
        if ref.name in SHELL_PACKAGES:
            out.append(error(SHELL_ESCAPE, f"\\usepackage{{{ref.name}}}: {SHELL_PACKAGES[ref.name]}, "
                             "which arXiv has off",
                             "use a package that works without shell escape (e.g. listings for minted, or "
                             "minted's frozencache with the cache uploaded), or upload the generated files",
                             ref.file, ref.line))
    return out


def rule_hyperxmp(src: Sources) -> list[Diagnostic]:
    names = [r.name for r in src.packages]
    if "hyperxmp" not in names:
        return []
    ref = src.packages[names.index("hyperxmp")]
    classes = {r.name for r in src.of_kind("class")}
    before = "hyperref" in names and names.index("hyperref") < names.index("hyperxmp")
    if before or classes & HYPERREF_CLASSES:
        return []
    return [error(HYPERXMP_ORDER, HYPERXMP_ORDER.meaning, HYPERXMP_ORDER.fix, ref.file, ref.line)]


def rule_pdfa(src: Sources) -> list[Diagnostic]:
    out = []
    for ref in src.docmeta:
        if re.search(r"pdfstandard\s*=\s*\{?\s*a-", ref.name, re.IGNORECASE):
            out.append(warning(PDFA_OUTPUTINTENTS, "\\DocumentMetadata asks for PDF/A: the PDF gets "
                               "/OutputIntents, and arXiv then leaves out its own stamp",
                               "drop pdfstandard=A-… for the arXiv upload (keep it for the archival copy)",
                               ref.file, ref.line))
    for ref in src.packages:
        if ref.name == "pdfx" and re.search(r"\ba-\d", ref.options, re.IGNORECASE):
            out.append(warning(PDFA_OUTPUTINTENTS, "pdfx with a PDF/A option adds /OutputIntents: "
                               "arXiv then leaves out its own stamp",
                               "drop the PDF/A option for the arXiv upload", ref.file, ref.line))
    return out


def rule_unsafe_names(upload: Upload) -> list[Diagnostic]:
    out = []
    for rel in upload.files:
        parts = PurePosixPath(rel).parts
        if any(p.startswith(".") for p in parts):
            if not upload.is_archive:
                continue  # a working folder's .gitignore is not part of the upload (bundle leaves it out)
            out.append(warning(UNSAFE_FILENAME, f"{rel}: hidden files are removed by arXiv",
                               "leave it out of the upload", rel))
        elif not all(SAFE_NAME.match(p) for p in parts):
            out.append(error(UNSAFE_FILENAME, f"{rel!r}: arXiv accepts only A-Z a-z 0-9 _ + - . , = in "
                             "file names and renames the rest, which breaks references to it",
                             "rename the file (and its references) using only those characters", rel))
    return out


# -- pith ------------------------------------------------------------------------------------
def rule_pith(upload: Upload, src: Sources, files: set[str], facts: Facts) -> list[Diagnostic]:
    uses = [r for r in src.packages if r.name == "pith"]
    facts.uses_pith = bool(uses)
    if not uses:
        return []
    out = []
    ref = uses[0]
    ours = sty.current()
    facts.sty = {"uploaded": "pith.sty" in files, "version": None, "ours": str(ours)}
    if "pith.sty" not in files:
        elsewhere = [f for f in files if PurePosixPath(f).name.lower() == "pith.sty"]
        where = f" (only {elsewhere[0]} is)" if elsewhere else ""
        out.append(error(PITH_STY_MISSING, f"{PITH_STY_MISSING.meaning}{where}", PITH_STY_MISSING.fix,
                         ref.file, ref.line, subject="pith.sty"))
    else:
        theirs = sty.declared((upload.root / "pith.sty").read_text("utf-8", errors="replace"))
        facts.sty["version"] = str(theirs) if theirs else "unknown"
        if theirs is None or theirs < ours:
            out.append(warning(PITH_STY_OLD, f"the uploaded pith.sty is {theirs or 'of unknown version'}, older "
                               f"than ours ({ours})",
                               PITH_STY_OLD.fix,
                               "pith.sty"))
    out += _rule_number(src, ref, facts)
    out += _rule_options(src, ref, facts)
    return out


def pith_options(src: Sources, ref: Ref) -> dict[str, str]:
    """pith's key=value options: \\usepackage[...]{pith} then every \\pithsetup{...}, last wins."""
    found: dict[str, str] = {}
    for text in [ref.options.strip("[]"), *(r.name for r in src.pithsetup)]:
        for m in re.finditer(r"([A-Za-z]+)\s*(?:=\s*\{?([^,{}]*)\}?)?\s*(?:,|$)", text):
            found[m.group(1).lower()] = (m.group(2) if m.group(2) is not None else "true").strip().lower()
    return found


def _anonymous(src: Sources, option: str) -> bool:
    """pith hides itself for review: anonymous=true, or auto with acmart anonymous / IEEEtran peerreview."""
    if option in ("true", "false"):
        return option == "true"
    for cls in src.of_kind("class"):
        opts = {o.strip().split("=")[0] for o in cls.options.strip("[]").split(",")}
        value = re.search(r"anonymous\s*=\s*(\w+)", cls.options)
        if cls.name == "acmart" and ("anonymous" in opts and (not value or value.group(1) == "true")):
            return True
        if cls.name == "IEEEtran" and "peerreview" in opts:
            return True
    return False


def _rule_options(src: Sources, ref: Ref, facts: Facts) -> list[Diagnostic]:
    opts = pith_options(src, ref)
    facts.badge = opts.get("badge", "title")
    facts.metadata = opts.get("metadata", "true") != "false"
    # The package's own key list: anything else stops TeX with "Unknown option".
    out = [error(PITH_OPTION_UNKNOWN, f"pith has no option '{key}': TeX stops with an error",
                 f"remove it; pith's options are {', '.join(sorted(OPTION_NAMES))} "
                 "(the number goes in \\pithnumber{...})", ref.file, ref.line)
           for key in opts if key not in OPTION_NAMES]
    if _anonymous(src, opts.get("anonymous", "auto")):
        facts.badge, facts.metadata = "none", False
        out.append(warning(PITH_HIDDEN, "anonymous review: pith leaves out the badge and the metadata, so this "
                           "PDF carries no Pith Number", PITH_HIDDEN.fix, ref.file, ref.line))
    elif facts.badge == "none" or not facts.metadata:
        off = " and ".join(w for w, on in (("badge", facts.badge != "none"), ("metadata", facts.metadata)) if not on)
        out.append(warning(PITH_HIDDEN, f"pith's options switch off the {off}", "remove badge=none / "
                           "metadata=false unless you mean it", ref.file, ref.line))
    return out


def _rule_number(src: Sources, ref: Ref, facts: Facts) -> list[Diagnostic]:
    given = src.pithnumbers
    if not given:
        return [error(PITH_NUMBER_MISSING, PITH_NUMBER_MISSING.meaning, PITH_NUMBER_MISSING.fix, ref.file, ref.line)]
    num = given[-1]
    typed = num.name.strip()
    try:
        text = expand_macros(typed, src.macros)
    except ExpansionTooLong as exc:  # TeX would hand pith.sty this much text: no number is that long
        return [error(PITH_NUMBER_INVALID, f"\\pithnumber{{{typed}}}: {exc}", PITH_NUMBER_INVALID.fix,
                      num.file, num.line)]
    if text is None:  # defined some other way (or elsewhere): the compiled PDFs still say
        loop = _macro_loop(typed, src.macros)
        if loop:  # \def\mynum{\mynum}: defined, but TeX would expand it for ever
            through = f" through {' '.join(loop[1:-1])}" if len(loop) > 2 else ""
            return [warning(PITH_NUMBER_MACRO, f"\\pithnumber{{{typed}}}: {loop[0]} expands to itself{through} "
                            "(a loop: TeX would never finish expanding it)", PITH_NUMBER_MACRO.fix,
                            num.file, num.line)]
        return [warning(PITH_NUMBER_MACRO, f"\\pithnumber{{{typed}}}: a macro in it is not defined by "
                        "\\newcommand or \\def in the files this check reads", PITH_NUMBER_MACRO.fix,
                        num.file, num.line)]
    try:
        facts.number = PithNumber.parse(text).body
    except InvalidNumber as exc:
        said = f"its macros expand to '{text.strip()}'; " if text != typed else ""
        return [error(PITH_NUMBER_INVALID, f"\\pithnumber{{{typed}}}: {said}{exc}",
                      PITH_NUMBER_INVALID.fix,
                      num.file, num.line)]
    return []


_CONTROL_WORD = re.compile(r"\\([A-Za-z@]+)\s*")
MAX_EXPANSIONS = 50  # macros inside macros: the nesting a real paper's number needs is one or two
# A Pith Number is 26 characters (36 with its "pith:YYYY:" prefix); text growing past this
# cannot become one, and stopping here bounds the work: without it a 4 MB \def whose body
# names itself again and again grew to hundreds of MB (16 s, 1.2 GB) before giving up.
MAX_EXPANDED_CHARS = 1024


class ExpansionTooLong(Exception):
    """The macros expand to more text than any Pith Number has."""


def _macro_loop(text: str, macros: dict[str, str]) -> list[str] | None:
    """The first cycle among the macros `text` reaches (`[\\a, \\b, \\a]`), None when there is
    none: why a defined macro never finishes expanding. Each macro is visited once (an explicit
    stack, so a long chain cannot exhaust Python's recursion)."""
    def uses(body: str) -> Iterator[str]:
        return ("\\" + m.group(1) for m in _CONTROL_WORD.finditer(body))

    done: set[str] = set()
    path: list[str] = []
    stack = [uses(text)]
    while stack:
        name = next(stack[-1], None)
        if name is None:
            stack.pop()
            if path:
                done.add(path.pop())
            continue
        if name in path:
            return [*path[path.index(name):], name]
        if name in done or name not in macros:
            continue
        path.append(name)
        stack.append(uses(macros[name]))
    return None


def expand_macros(text: str, macros: dict[str, str]) -> str | None:
    """Text with each control word replaced by its definition, as pith.sty's full expansion
    would give it; None when one is not a plain macro the sources define (or never ends).
    At most MAX_EXPANSIONS replacements, and ExpansionTooLong as soon as the text would pass
    MAX_EXPANDED_CHARS, so the cost is bounded whatever the sources define."""
    for _ in range(MAX_EXPANSIONS):
        m = _CONTROL_WORD.search(text)
        if m is None:
            return text
        body = macros.get("\\" + m.group(1))
        if body is None:
            return None
        if len(text) - (m.end() - m.start()) + len(body) > MAX_EXPANDED_CHARS:
            raise ExpansionTooLong(f"its macros expand to more than {MAX_EXPANDED_CHARS:,} characters "
                                   "(a Pith Number has 26); the check stopped expanding there")
        text = text[:m.start()] + body + text[m.end():]
    return None
