"""One finding of `pithtex check`: a rule id, where, what, and how to fix it."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ..value import TYPE_CHECKING
from .catalogue import ERROR, WARNING, Rule

if TYPE_CHECKING:
    from typing import Any


@dataclass(frozen=True)
class Diagnostic:
    rule: str  # a catalogue id (the catalogue's Rule.id): what JSON and the report show
    severity: str
    message: str
    fix: str
    file: str | None = None
    line: int | None = None
    route: str | None = None
    subject: str | None = None  # the file the finding is about, as TeX would name it
    main: str | None = None  # the top-level file whose compile found it (when there are several)
    # The fault in the verdict's words when it says more than its rule's (Rule.verdict): "badge
    # misplaced: between the title and the authors". Not in the JSON when empty.
    says: str = ""

    @property
    def where(self) -> str:
        if self.file and self.line:
            return f"{self.file}:{self.line}"
        return self.file or ""

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        if not self.says:
            del out["says"]
        return out


def error(rule: Rule, message: str, fix: str, file: str | None = None, line: int | None = None,
          route: str | None = None, subject: str | None = None, says: str = "") -> Diagnostic:
    return Diagnostic(_id(rule, ERROR), ERROR, message, fix, file, line, route, subject, says=says)


def warning(rule: Rule, message: str, fix: str, file: str | None = None, line: int | None = None,
            route: str | None = None) -> Diagnostic:
    return Diagnostic(_id(rule, WARNING), WARNING, message, fix, file, line, route)


def _id(rule: Rule, severity: str) -> str:
    """The rule's id, once its catalogue entry allows this severity (a mismatch is our bug)."""
    if severity not in rule.severities:
        raise ValueError(f"rule {rule.id} is never a {severity} (pithtex/arxiv/catalogue.py)")
    return rule.id
