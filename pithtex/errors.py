"""The exit codes and the exceptions pithtex raises, each exception carrying its exit code.

The exit codes are written here once (docs/format.md): every command, the library's results
and the error classes below take them from this module. A room's own error with fields of its
room's types subclasses one of these there (resolver.ResolverError names a PithNumber).
"""

from __future__ import annotations

from .value import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

# -- the exit-code contract -------------------------------------------------------------------
OK = 0  # success: verified, written, arXiv-safe, already current
FAILED = 1  # a verifiable failure, or a refused file or operation
BAD_INPUT = 2  # unusable input (not a number, not a record, not a PDF, an unwritable path)
UNDECIDED = 3  # cannot be decided here (no receipt, unknown key, offline)
BUG = 70  # EX_SOFTWARE: a bug in pithtex, never bad input nor the system's refusal
INTERRUPTED = 130  # Ctrl-C (128 + SIGINT)
TERMINATED = 143  # SIGTERM: a `kill`, a CI timeout (128 + SIGTERM)

# The worst of many verdicts decides a batch's exit code: a forgery outranks unusable input,
# which outranks what cannot be decided; a bug outranks them all.
SEVERITY = (OK, UNDECIDED, BAD_INPUT, FAILED, BUG)


def worst(codes: Iterable[int]) -> int:
    """The exit code of a batch: its worst verdict's (OK for none)."""
    return max(codes, key=lambda code: SEVERITY.index(code) if code in SEVERITY else len(SEVERITY), default=OK)


DEBUG = "PITHTEX_DEBUG"  # the environment variable that adds the traceback to an error's line


def bug_message(exc: BaseException) -> str:
    """The line for an exception nobody foresaw (exit 70): a bug of ours, said as one, never as
    bad input; the command line and each batch worker say it alike."""
    return (f"internal error, this is a bug in pithtex: {type(exc).__name__}: {exc} "
            f"(please report it; {DEBUG}=1 shows the traceback)")


class PithError(Exception):
    """Base class: a message fit to show a user as one line, and an exit code. `remedy` names,
    by the library's own keyword, what would make the operation go ahead, e.g. ("force",
    "stamps it anyway"): the message never names a command-line flag; the command line adds it.
    A subclass declares its own fields as keyword arguments and lists them in `_fields`, so an
    error is made whole where it is raised and crosses a process (a worker's) with them."""

    exit_code = BAD_INPUT

    def __init__(self, *args: object, remedy: tuple[str, str] | None = None) -> None:
        super().__init__(*args)
        self.remedy = remedy

    def _fields(self) -> dict[str, Any]:
        return {"remedy": self.remedy}

    def __reduce__(self) -> tuple[object, ...]:  # a worker's error crosses a process with its fields
        return (_rebuilt, (type(self), self.args, self._fields()))


def _rebuilt(cls: type[PithError], args: tuple[object, ...], fields: dict[str, Any]) -> PithError:
    return cls(*args, **fields)


class InvalidNumber(PithError, ValueError):
    """Text that is not a Pith Number in any accepted form."""


class RecordError(PithError, ValueError):
    """A file or value that is not a Pith record in any known shape."""


class KeyFileError(PithError):
    """A key file that cannot be read, or a pinned key that fails its fingerprint."""


class InputError(PithError):
    """An input path that is not a regular file, or larger than its kind of file may be (exit 2)."""


class OutputError(PithError):
    """An output path that cannot be written: what is there, or why writing failed (exit 2)."""


class UnreadablePdf(PithError):
    """A file that cannot be read as a PDF: damaged, not a PDF, or gone while read (exit 2).
    Stamp, inspect, verify and the arXiv check all raise this one class."""


class Undecidable(PithError):
    """The answer cannot be known here (no receipt, unknown key, offline)."""

    exit_code = UNDECIDED


class Refused(PithError):
    """An operation refused for a stated reason (e.g. a file that must not be changed)."""

    exit_code = FAILED


class Busy(Refused):
    """Another writer holds the file's lock longer than we wait (exit 1: try again later)."""
