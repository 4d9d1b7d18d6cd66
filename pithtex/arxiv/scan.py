"""Read the LaTeX sources of an upload into plain facts: what each file loads and references.

A light reader, not a TeX interpreter: comments are removed, then the commands that name
files or packages are matched with regular expressions. Arguments containing `#` or `\\`
(macro definitions, computed names) are skipped, because only TeX can resolve them; the
sandbox compile catches whatever this reader cannot see.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

GRAPHICS_EXT = {
    "pdflatex": (".pdf", ".png", ".jpg", ".jpeg", ".mps", ".jbig2", ".jb2", ".PDF", ".PNG", ".JPG", ".JPEG"),
    "latex": (".eps", ".ps", ".eps.gz", ".ps.gz", ".EPS", ".PS"),
    "xelatex": (".pdf", ".eps", ".ps", ".png", ".jpg", ".jpeg", ".bmp", ".PDF", ".PNG", ".JPG", ".EPS"),
}
ALL_GRAPHICS_EXT = tuple(dict.fromkeys(e for exts in GRAPHICS_EXT.values() for e in exts))

_OPT = r"(?:\[[^\]]*\])?"
_ARG = r"\{([^{}]*)\}"
PATTERNS = {
    "documentclass": re.compile(r"\\documentclass\s*(" + _OPT + r")\s*" + _ARG),
    "package": re.compile(r"\\(?:usepackage|RequirePackage)\s*(" + _OPT + r")\s*" + _ARG),
    "input": re.compile(r"\\(?:input|include|subfile)\s*" + _ARG),
    "input_bare": re.compile(r"\\input\s+([A-Za-z0-9_./-]+)"),
    "graphics": re.compile(r"\\includegraphics\s*\*?\s*" + _OPT + r"\s*" + _ARG),
    # Files read as they are (code listings, verbatim text, whole PDFs), by exact name.
    "verbatim": re.compile(r"\\(?:lstinputlisting|verbatiminput|[LB]?VerbatimInput|includepdf)\s*\*?\s*"
                           + _OPT + r"\s*" + _ARG + r"|\\inputminted\s*" + _OPT + r"\s*\{[^{}]*\}\s*" + _ARG),
    "graphicspath": re.compile(r"\\graphicspath\s*\{((?:\s*\{[^{}]*\}\s*)+)\}"),
    "bibliography": re.compile(r"\\bibliography\s*" + _ARG),
    "addbibresource": re.compile(r"\\addbibresource\s*" + _OPT + r"\s*" + _ARG),
    "pithnumber": re.compile(r"\\pithnumber\s*" + _ARG),
    "pithsetup": re.compile(r"\\pithsetup\s*\{((?:[^{}]|\{[^{}]*\})*)\}"),
    "write18": re.compile(r"\\(?:immediate\s*)?\\write\s*18\b|\\ShellEscape\b|\\tikzexternalize\b"),
    "docmeta": re.compile(r"\\DocumentMetadata\s*\{((?:[^{}]|\{[^{}]*\})*)\}"),
    # A macro without parameters holding plain text, as `\pithnumber{\mynum}` may use one.
    "define": re.compile(r"\\(?:(?:re)?newcommand|providecommand)\s*\*?\s*(?:\{\s*(\\[A-Za-z@]+)\s*\}|(\\[A-Za-z@]+))"
                         r"\s*\{([^{}#]*)\}|\\[egx]?def\s*(\\[A-Za-z@]+)\s*\{([^{}#]*)\}"),
}


@dataclass(frozen=True)
class Ref:
    """A name found in a source file, where it was found, and what kind of thing it names."""

    kind: str  # input | graphics | verbatim | bibliography | package | class | define (options: the text)
    name: str
    file: str
    line: int
    options: str = ""


@dataclass
class Sources:
    """Everything the reader found, in reading order (main file first, inputs in place)."""

    files: list[str] = field(default_factory=list)
    refs: list[Ref] = field(default_factory=list)
    graphicspath: list[str] = field(default_factory=list)
    pithnumbers: list[Ref] = field(default_factory=list)
    pithsetup: list[Ref] = field(default_factory=list)
    shell: list[Ref] = field(default_factory=list)
    docmeta: list[Ref] = field(default_factory=list)
    macros: dict[str, str] = field(default_factory=dict)  # \name -> text, the last definition read

    def of_kind(self, kind: str) -> list[Ref]:
        return [r for r in self.refs if r.kind == kind]

    @property
    def packages(self) -> list[Ref]:
        return self.of_kind("package")


def strip_comments(text: str) -> str:
    """Blank out `%` comments (not `\\%`), keeping every line so line numbers stay true."""
    out = []
    for line in text.split("\n"):
        i = 0
        while True:
            i = line.find("%", i)
            if i < 0:
                break
            backslashes = len(line[:i]) - len(line[:i].rstrip("\\"))
            if backslashes % 2 == 0:
                line = line[:i]
                break
            i += 1
        out.append(line)
    return "\n".join(out)


def _usable(name: str) -> bool:
    return bool(name) and "#" not in name and "\\" not in name


def scan(root: Path, main: str, files: list[str]) -> Sources:
    """Read main and every .tex it inputs (once each), collecting references in order."""
    found = Sources()
    _scan_file(root, main, set(files), found, depth=0)
    return found


def _scan_file(root: Path, rel: str, files: set[str], found: Sources, depth: int) -> None:
    if rel in found.files or depth > 20:
        return
    found.files.append(rel)
    try:
        text = strip_comments((root / rel).read_text("utf-8", errors="replace"))
    except OSError:
        return
    starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_of(pos: int) -> int:
        return bisect.bisect_right(starts, pos)

    events: list[tuple[int, Ref]] = []
    for kind, pattern in PATTERNS.items():
        for m in pattern.finditer(text):
            events.extend((m.start(), ref) for ref in _refs(kind, m, rel, line_of(m.start())))
    for m in PATTERNS["graphicspath"].finditer(text):
        found.graphicspath.extend(re.findall(r"\{([^{}]*)\}", m.group(1)))
    for _, ref in sorted(events, key=lambda e: e[0]):
        if ref.kind == "pithnumber":
            found.pithnumbers.append(ref)
        elif ref.kind == "pithsetup":
            found.pithsetup.append(ref)
        elif ref.kind == "shell":
            found.shell.append(ref)
        elif ref.kind == "docmeta":
            found.docmeta.append(ref)
        elif ref.kind == "define":
            found.macros[ref.name] = ref.options
        else:
            found.refs.append(ref)
        if ref.kind == "input":
            child = _tex_file(ref.name, files)
            if child:
                _scan_file(root, child, files, found, depth + 1)


def _refs(kind: str, m: re.Match[str], rel: str, line: int) -> list[Ref]:
    if kind == "documentclass":
        name = m.group(2).strip()
        return [Ref("class", name, rel, line, m.group(1))] if _usable(name) else []
    if kind == "package":
        return [Ref("package", n.strip(), rel, line, m.group(1)) for n in m.group(2).split(",")
                if _usable(n.strip())]
    if kind in ("input", "input_bare"):
        name = m.group(1).strip()
        return [Ref("input", name, rel, line)] if _usable(name) else []
    if kind == "graphics":
        name = m.group(1).strip()
        return [Ref("graphics", name, rel, line)] if _usable(name) else []
    if kind == "verbatim":
        name = (m.group(1) if m.group(1) is not None else m.group(2)).strip()
        return [Ref("verbatim", name, rel, line)] if _usable(name) else []
    if kind in ("bibliography", "addbibresource"):
        return [Ref("bibliography", n.strip(), rel, line) for n in m.group(1).split(",") if _usable(n.strip())]
    if kind == "pithsetup":
        return [Ref("pithsetup", m.group(1), rel, line)]
    if kind == "pithnumber":
        return [Ref("pithnumber", m.group(1), rel, line)] if "#" not in m.group(1) else []
    if kind == "write18":
        return [Ref("shell", m.group(0), rel, line)]
    if kind == "docmeta":
        return [Ref("docmeta", m.group(1), rel, line)]
    if kind == "define":
        name = m.group(1) or m.group(2) or m.group(4)
        return [Ref("define", name, rel, line, m.group(3) if m.group(4) is None else m.group(5))]
    return []


def _tex_file(name: str, files: set[str]) -> str | None:
    """The upload file an \\input{name} reads (TeX tries name.tex first), if any."""
    norm = PurePosixPath(name.strip('"')).as_posix()
    norm = norm[2:] if norm.startswith("./") else norm
    for cand in (norm + ".tex", norm):
        if cand in files:
            return cand
    return None


def norm_name(name: str) -> str:
    """A file name as written in the source, as TeX opens it from the paper's folder."""
    name = name.strip().strip('"')
    return name[2:] if name.startswith("./") else name


def graphics_candidates(name: str, paths: list[str]) -> list[str]:
    """The files \\includegraphics{name} may read, in graphicx's order (\\graphicspath too)."""
    stems = [p.rstrip("/") + "/" + name if p.strip("./") else name for p in ["", *paths]]
    if name.endswith(ALL_GRAPHICS_EXT):
        return stems
    return [s + e for s in stems for e in ALL_GRAPHICS_EXT]


def files_read(found: Sources, files: set[str]) -> set[str]:
    """The upload's files that the sources name as read: the .tex files read, every \\input or
    \\include (whatever its extension), the figures and the files read verbatim. Such a file is
    a source whatever its name ends with (a listing `run.out` is no build product)."""
    read = {f for f in found.files if f in files}
    paths = [norm_name(p) for p in found.graphicspath]
    for ref in found.refs:
        name = norm_name(ref.name)
        if ref.kind == "input":
            child = _tex_file(name, files)
            read |= {child} if child else set()
        elif ref.kind == "graphics":
            read |= {c for c in graphics_candidates(name, paths) if c in files}
        elif ref.kind == "verbatim" and name in files:
            read.add(name)
    return read
