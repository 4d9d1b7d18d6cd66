"""A BibTeX file's entries and the few fields a publication list reads, within bounds.

The splitting into entries, `@string`s, `@comment`s and `@preamble`s is bibtexparser 2's (a
maintained parser whose splitter is one pass over the text, and gives each block's line), run
with no middleware: its own `@string` resolution does not expand a macro used inside another
one, and its LaTeX decoding decodes every field. Here, only the fields a list reads are
expanded (`@string` macros, `#` concatenation), under one budget for the whole file, so a few
lines of `@string`s that double each other are refused rather than grown without bound; and
a title's LaTeX (accents, `\\ss`, math, font commands) is decoded to text by pylatexenc, the
decoder bibtexparser itself uses.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..errors import InputError
from ..limits import MAX_BIB_EXPANDED

# The month macros BibTeX predefines.
MONTHS = {m: m for m in ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")}
MAX_EXPANDED = MAX_BIB_EXPANDED  # characters all @string expansions of one file may make together
MAX_TITLE = 4096  # characters of a title decoded; a paper's title is a line or two
MAX_DEPTH = 32  # brace nesting in a decoded field; a title nests two or three deep


@dataclass(frozen=True)
class Entry:
    kind: str  # lower case: article, misc, ...
    key: str
    line: int  # 1-based line of its `@`
    fields: dict[str, str] = field(default_factory=dict)  # lower-case names, values as TeX, macros expanded


class _Budget:
    """What @string expansion may still make; InputError once it is spent."""

    def __init__(self, name: str) -> None:
        self.left, self.name = MAX_EXPANDED, name

    def spend(self, size: int, line: int, what: str) -> None:
        self.left -= size
        if self.left < 0:
            raise InputError(f"{self.name}, line {line}: {what} expands past {MAX_EXPANDED // 2**20} MiB "
                             "(@string macros that grow each other); not a BibTeX file pithtex can read")


def _pieces(raw: str) -> list[str]:
    """A value's parts split at its `#` joins (outside braces and quotes), stripped."""
    parts, start, depth, quoted = [], 0, 0, False
    for i, char in enumerate(raw):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == '"' and depth == 0:
            quoted = not quoted
        elif char == "#" and depth == 0 and not quoted:
            parts.append(raw[start:i].strip())
            start = i + 1
    parts.append(raw[start:].strip())
    return parts


def _expand(raw: str, macros: dict[str, str], budget: _Budget, line: int, what: str) -> str:
    """A raw value as BibTeX reads it: braces or quotes taken off, numbers kept, macros replaced."""
    out = []
    for part in _pieces(raw):
        if len(part) >= 2 and part[0] + part[-1] in ("{}", '""'):
            out.append(part[1:-1])
        elif part.isdigit():
            out.append(part)
        else:
            text = macros.get(part.lower(), "")
            budget.spend(len(text), line, what)
            out.append(text)
    return "".join(out)


_READ = ("title", "author", "eprint", "archiveprefix", "eprinttype", "arxiv", "arxivid", "doi", "url", "ee", "journal",
         "volume")


def entries(text: str, name: str = "the BibTeX file") -> list[Entry]:
    """The entries of a BibTeX text (@string macros applied to the fields a list reads);
    InputError names the line of a fault."""
    from bibtexparser.entrypoint import parse_string
    from bibtexparser.model import DuplicateBlockKeyBlock, DuplicateFieldKeyBlock

    logging.getLogger("bibtexparser").setLevel(logging.CRITICAL + 1)  # its faults are said here, once
    library = parse_string(text, parse_stack=[])
    for failed in library.failed_blocks:
        if isinstance(failed, DuplicateBlockKeyBlock):
            why = f"a second entry named {failed.key!r}"
        elif isinstance(failed, DuplicateFieldKeyBlock):
            why = "an entry that gives one field twice"
        else:
            head = " ".join(str(getattr(failed, "raw", "")).split())[:40]
            why = f"{head!r}: " + (getattr(failed.error, "abort_reason", "") or "a block it cannot read").strip()
        raise InputError(f"{name}, line {_line(failed.start_line)}: {why.strip().rstrip('.')}; "
                         "not a BibTeX file pithtex can read")
    budget = _Budget(name)
    macros = dict(MONTHS)
    for string in library.strings:
        line = _line(string.start_line)
        macros[string.key.lower()] = _expand(string.value, macros, budget, line, f"@string {string.key!r}")
    found = []
    for entry in library.entries:
        line = _line(entry.start_line)
        fields = {f.key.lower(): f.value for f in entry.fields}
        read = {key: _expand(fields[key], macros, budget, line, f"entry {entry.key!r}")
                for key in _READ if isinstance(fields.get(key), str)}
        found.append(Entry(entry.entry_type.lower(), entry.key, line, read))
    return found


def _line(start: int | None) -> int:
    """bibtexparser's 0-based line of a block (every parsed block has one) as a 1-based line."""
    return (start or 0) + 1


def plain(value: str) -> str:
    """A field's text without its protecting braces and with its whitespace collapsed (for ids)."""
    return " ".join(value.replace("{", "").replace("}", "").split())


def decoded(value: str, where: str) -> str:
    """A field's LaTeX as text: accents and special letters as Unicode, font commands and
    protecting braces dropped, math kept as written; InputError (naming `where`) for braces
    nested deeper than any title needs."""
    if len(value) > MAX_TITLE:
        raise InputError(f"{where}: a title of {len(value):,} characters (more than {MAX_TITLE:,}); "
                         "not a BibTeX file pithtex can read")
    if not any(mark in value for mark in ("\\", "$", "~", "--", "``", "''")):
        return plain(value)  # nothing but braces to take off: no need for the decoder
    depth = deepest = 0
    for char in value:
        depth += (char == "{") - (char == "}")
        deepest = max(deepest, depth)
    if deepest > MAX_DEPTH:
        raise InputError(f"{where}: braces nested {deepest} deep (more than {MAX_DEPTH}); "
                         "not a BibTeX file pithtex can read")
    to_text, context = _decoder()
    return " ".join(to_text.latex_to_text(value, latex_context=context).split())


@lru_cache(maxsize=1)
def _decoder() -> tuple[Any, Any]:
    """pylatexenc's decoder and its macro tables, made once (each costs more than a title's decoding)."""
    from pylatexenc.latex2text import LatexNodes2Text
    from pylatexenc.latexwalker import get_default_latex_context_db

    return LatexNodes2Text(math_mode="verbatim"), get_default_latex_context_db()


def _worker() -> int:
    """`python -m pithtex.web.bibtex NAME`: the entries of the .bib on stdin as JSON on stdout
    (or {"error": line}), for `publist_check.parse_bounded`, which runs this under limits."""
    import json
    import sys

    text = sys.stdin.buffer.read().decode("utf-8")
    try:
        found = [[e.kind, e.key, e.line, e.fields] for e in entries(text, sys.argv[1])]
    except InputError as exc:
        json.dump({"error": str(exc)}, sys.stdout)
        return 0
    json.dump({"entries": found}, sys.stdout, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(_worker())
