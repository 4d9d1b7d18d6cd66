"""The `pithtex` command line: parsing and printing only.

Each subcommand lives in its own module `pithtex.cli.<name>` with two functions:
`register(subparsers)` adds its parser, and `run(args) -> int` does the work by calling
one library function. Modules import heavy libraries inside `run`, so `pithtex --help`
and fast commands stay fast (interpreter start-up counts in every benchmark).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from .. import errors
from ..brand import VERSION
from ..errors import PithError, bug_message
from ..safetext import SafeStream, unfiltered
from ..value import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import NoReturn

    from ..trust import KeyRing

    # What add_subparsers() returns: argparse names the class only privately (typeshed too).
    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]

# Order here is the order in `pithtex --help`.
COMMANDS = ("number", "verify", "sty", "render", "stamp", "inspect", "badge", "check", "bundle")

EPILOG = """\
examples:
  pithtex number pith:2021:YBK5PTAKOSCXY2WMLIIB7DMYH6
  pithtex number --record examples/seed-record.json --json
  pithtex verify examples/seed-record.json

exit codes: 0 ok, 1 verifiably failed or refused, 2 unusable input, 3 cannot be decided,
70 a bug in pithtex (please report it). With --json, an error is also printed on stdout as
{"error": "...", "exit_code": N}. PITHTEX_DEBUG=1 adds the traceback to an error line.
"""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The full parser, or with `only` just that subcommand's (start-up counts in batches)."""
    parser = argparse.ArgumentParser(
        prog="pithtex",
        description="Pith Numbers for papers: compute, verify, put them into LaTeX and PDFs, make badges.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"pithtex {VERSION}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in (only,) if only else COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(subparsers)
    return parser


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors as one line (and JSON with --json) and exit code 2."""

    json_errors = False  # set by main() when the command line asks for --json

    def error(self, message: str) -> NoReturn:
        _report_error(f"{message} (see {self.prog} --help)", 2, as_json=_Parser.json_errors, prefix=f"{self.prog}: ")
        sys.exit(errors.BAD_INPUT)


def add_command(subparsers: Subparsers, name: str, help: str, description: str,
                epilog: str = "") -> argparse.ArgumentParser:
    """A subcommand parser that formats its examples verbatim and reports errors in one line."""
    parser = subparsers.add_parser(
        name,
        help=help,
        description=description,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.__class__ = _Parser
    return parser


def help_text(command: str) -> str:
    """A command's epilog (examples and what its verdicts mean), kept in pithtex/data/help-COMMAND.txt."""
    from pathlib import Path

    return (Path(__file__).parent.parent / "data" / f"help-{command}.txt").read_text("utf-8")


def warn_refused(keys_file: str | None) -> KeyRing:
    """The key ring of --keys, each key it may not add named on stderr."""
    from ..client import keyring

    keys = keyring(keys_file)
    for refusal in keys.refused:
        print(f"pithtex: warning: {refusal}", file=sys.stderr)
    return keys


def time_limit(value: float, option: str) -> float:
    """`value` when it is a usable time limit for `option`; else PithError (exit 2)."""
    from ..limits import usable_seconds

    return usable_seconds(value, f"{option} {value:g}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every outcome is an exit code from the contract, never a traceback
    (except under PITHTEX_DEBUG=1, which adds one to the error line):
    0 ok, 1 verifiably failed or refused, 2 unusable input, 3 cannot be decided,
    70 a bug in pithtex (anything not foreseen), 130 interrupted."""
    argv = list(sys.argv[1:] if argv is None else argv)
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeStream(sys.stdout), SafeStream(sys.stderr)
    try:
        return _main(argv)
    finally:
        sys.stdout, sys.stderr = streams


def _main(argv: list[str]) -> int:
    as_json = _Parser.json_errors = "--json" in argv
    _quiet_streams()
    _terminate_cleanly()
    first = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(first if first in COMMANDS else None)
    parser.__class__ = _Parser
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return errors.BAD_INPUT
    module = importlib.import_module(f"{__name__}.{args.command}")
    try:
        return int(module.run(args) or 0)
    except PithError as exc:
        return _report_error(with_remedy(exc), exc.exit_code, as_json, exc)
    except KeyboardInterrupt:
        # The decision is made: a second Ctrl-C (an impatient user) must not kill the process
        # by the signal while it reports, which would end it with -SIGINT instead of 130.
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)
        return _report_error("interrupted", errors.INTERRUPTED, as_json)
    except BrokenPipeError:
        return errors.OK  # the reader (e.g. `| head`) has what it wanted
    except OSError as exc:  # the system refused (permissions, space, I/O): unusable, not a bug
        where = f"{exc.filename}: " if exc.filename else ""
        return _report_error(f"{where}{exc.strerror or exc}", errors.BAD_INPUT, as_json, exc)
    except Exception as exc:  # anything else is a bug: say so, never as if the input were bad
        return _report_error(bug_message(exc), errors.BUG, as_json, exc)


def with_remedy(exc: PithError) -> str:
    """The error's message, and the flag that would make it go ahead: "... (use --force to replace it)"."""
    if exc.remedy is None:
        return str(exc)
    option, effect = exc.remedy
    return f"{exc} (use --{option.replace('_', '-')} to {effect})"


def _report_error(message: str, code: int, as_json: bool, exc: BaseException | None = None,
                  prefix: str = "pithtex: ") -> int:
    """One line on stderr (after the traceback under PITHTEX_DEBUG=1); with --json also
    {"error", "exit_code"} on stdout, unless the command already printed its JSON report."""
    if exc is not None and os.environ.get("PITHTEX_DEBUG"):
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    message = " ".join(message.split())  # one line, whatever the exception text held
    print(f"{prefix}{message}", file=sys.stderr)
    if as_json and not _emitted:
        emit_json({"error": message, "exit_code": code})
    return code


def _terminate_cleanly() -> None:
    """SIGTERM (a `kill`, a CI timeout) unwinds like Ctrl-C does, so half-written temporary
    files and scratch folders are removed on the way out; the exit code stays 143."""
    import signal

    def terminated(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, terminated)


def _quiet_streams() -> None:
    """Text that cannot be encoded (a file name in a foreign encoding) is escaped, not fatal."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(unfiltered(stream), "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


_emitted = False


def emit_json(value: object) -> None:
    """Print the command's one JSON document on stdout."""
    import json

    global _emitted
    _emitted = True
    print(json.dumps(value, indent=2, ensure_ascii=False))
