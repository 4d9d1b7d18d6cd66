"""The exceptions pithtex raises, each carrying the exit code the command line uses.

Exit codes (docs/format.md): 0 success, 1 a verifiable failure (or a refused file),
2 unusable input, 3 cannot be decided (no receipt, unknown key, offline).
"""

from __future__ import annotations


def bug_message(exc: BaseException) -> str:
    """The line for an exception nobody foresaw (exit 70): a bug of ours, said as one, never as
    bad input; the command line and each batch worker say it alike."""
    return (f"internal error, this is a bug in pithtex: {type(exc).__name__}: {exc} "
            "(please report it; PITHTEX_DEBUG=1 shows the traceback)")


class PithError(Exception):
    """Base class: a message fit to show a user as one line, and an exit code."""

    exit_code = 2


class InvalidNumber(PithError, ValueError):
    """Text that is not a Pith Number in any accepted form."""


class RecordError(PithError, ValueError):
    """A file or value that is not a Pith record in any known shape."""


class KeyError_(PithError):
    """A key file that cannot be read, or a pinned key that fails its fingerprint."""


class Undecidable(PithError):
    """The answer cannot be known here (no receipt, unknown key, offline)."""

    exit_code = 3


class Refused(PithError):
    """An operation refused for a stated reason (e.g. a file that must not be changed)."""

    exit_code = 1
