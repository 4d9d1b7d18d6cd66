"""Read a LaTeX log into counted facts: errors, undefined references, lost characters.

The sandbox sets max_print_line=10000 and -file-line-error, so messages are not wrapped
and most errors start with `file:line:`. Errors reported as `! message` get their line
from the following `l.NN` context line.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from ..value import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

_FILE_LINE_ERROR = re.compile(r"^(\.?/?[^\s:()][^:()]*\.(?:tex|sty|cls|bbl|ltx|def|cfg|clo|fd)):(\d+): (.+)$")
_BANG = re.compile(r"^! (.+)$")
_CONTEXT = re.compile(r"^l\.(\d+)")
_REF = re.compile(r"Reference `([^']*)' on page \S+ undefined")
_CITE = re.compile(r"Citation `([^']*)' on page \S+ undefined")
_MISSING_CHAR = re.compile(r"^Missing character: There is no (.+?) in font (.+?)!?$")
_NOT_FOUND = re.compile(r"File `([^']+)' not found")
# pith.sty's own lines: where its badge landed (written when that page ships out), or why
# it was withheld (a review copy).
_PITH_BADGE = re.compile(r"^pith badge: (?:page (\d+), (title|fallback|manual)|withheld, (.+))$")
_RERUN = re.compile(r"Rerun to get|Label\(s\) may have changed|Please rerun|rerun LaTeX|Rerun LaTeX")
# Errors that only follow an earlier one or say nothing new.
_NOISE = ("Emergency stop", "==> Fatal error occurred", "Fatal error occurred")


@dataclass
class LogError:
    message: str
    file: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class BadgeNote:
    """What pith.sty said of its badge: `how` is title, fallback, manual or withheld."""

    how: str
    page: int | None = None   # where it landed (None when withheld)
    why: str = ""             # the review mode, when withheld


@dataclass
class LogFacts:
    errors: list[LogError] = field(default_factory=list)
    undefined_references: list[str] = field(default_factory=list)
    undefined_citations: list[str] = field(default_factory=list)
    missing_characters: list[str] = field(default_factory=list)
    overfull_boxes: int = 0
    underfull_boxes: int = 0
    missing_files: list[str] = field(default_factory=list)
    rerun: bool = False
    badge_notes: list[BadgeNote] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        d = asdict(self)
        d["errors"] = [asdict(e) for e in self.errors]
        return d


def parse_log(text: str, main: str = "", root: str = "") -> LogFacts:
    """Facts from a log; `root` (the sandbox folder) is cut from file names it shows."""
    facts = LogFacts()
    if root:
        text = text.replace(root.rstrip("/") + "/", "")
    lines = text.splitlines()
    for i, line in enumerate(lines):
        _read_line(facts, line, lines, i, main)
    facts.undefined_references = sorted(set(facts.undefined_references))
    facts.undefined_citations = sorted(set(facts.undefined_citations))
    facts.missing_files = list(dict.fromkeys(facts.missing_files))
    return facts


def _read_line(facts: LogFacts, line: str, lines: list[str], i: int, main: str) -> None:
    m = _FILE_LINE_ERROR.match(line)
    if m:
        _add_error(facts, m.group(3), _clean(m.group(1)), int(m.group(2)))
        return
    m = _BANG.match(line)
    if m:
        _add_error(facts, m.group(1), main or None, _context_line(lines, i))
        return
    if line.startswith(("Overfull \\hbox", "Overfull \\vbox")):
        facts.overfull_boxes += 1
    elif line.startswith(("Underfull \\hbox", "Underfull \\vbox")):
        facts.underfull_boxes += 1
    elif (m := _REF.search(line)) and "Warning" in line:
        facts.undefined_references.append(m.group(1))
    elif (m := _CITE.search(line)) and "Warning" in line:
        facts.undefined_citations.append(m.group(1))
    elif m := _MISSING_CHAR.match(line):
        facts.missing_characters.append(f"{m.group(1)} ({m.group(2)})")
    elif m := _PITH_BADGE.match(line):
        facts.badge_notes.append(BadgeNote("withheld", why=m.group(3)) if m.group(3)
                                 else BadgeNote(m.group(2), int(m.group(1))))
    if _RERUN.search(line):
        facts.rerun = True


def missing_file(message: str) -> str | None:
    """The file an error says TeX could not find (`File `fig' not found`), None for another error."""
    m = _NOT_FOUND.search(message)
    return m.group(1) if m else None


def _add_error(facts: LogFacts, message: str, file: str | None, line: int | None) -> None:
    message = message.strip()
    if any(message.startswith(n) for n in _NOISE):
        return
    missing = missing_file(message)
    if missing:
        facts.missing_files.append(missing)
    if any(e.message == message and e.line == line for e in facts.errors):
        return
    facts.errors.append(LogError(message.strip(), file, line))


def _context_line(lines: list[str], i: int) -> int | None:
    for follow in lines[i + 1:i + 12]:
        m = _CONTEXT.match(follow)
        if m:
            return int(m.group(1))
    return None


def _clean(path: str) -> str:
    return path[2:] if path.startswith("./") else path
