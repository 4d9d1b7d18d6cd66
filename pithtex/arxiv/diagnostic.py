"""One finding of `pithtex check`: a rule id, where, what, and how to fix it."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ..value import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

ERROR = "error"      # arXiv would fail, or the pith badge/metadata would be lost
WARNING = "warning"  # worth fixing, but arXiv compiles and pith survives


@dataclass(frozen=True)
class Diagnostic:
    rule: str
    severity: str
    message: str
    fix: str
    file: str | None = None
    line: int | None = None
    route: str | None = None
    subject: str | None = None  # the file the finding is about, as TeX would name it
    main: str | None = None  # the top-level file whose compile found it (when there are several)

    @property
    def where(self) -> str:
        if self.file and self.line:
            return f"{self.file}:{self.line}"
        return self.file or ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def error(rule: str, message: str, fix: str, file: str | None = None, line: int | None = None,
          route: str | None = None, subject: str | None = None) -> Diagnostic:
    return Diagnostic(rule, ERROR, message, fix, file, line, route, subject)


def warning(rule: str, message: str, fix: str, file: str | None = None, line: int | None = None,
            route: str | None = None) -> Diagnostic:
    return Diagnostic(rule, WARNING, message, fix, file, line, route)
