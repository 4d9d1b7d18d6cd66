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
    from pathlib import Path
    from types import FrameType
    from typing import Any, NoReturn

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


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors as one line (and JSON with --json) and exit code 2."""

    json_errors = False  # set by main() when the command line asks for --json

    def parse_known_args(  # type: ignore[override]  # one body for typeshed's three overloads
            self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:
        """`--` ends the options (POSIX): what follows is a file name, even `--number`. A user who
        put an option there by mistake hears so in one line, instead of 'no such file --number'
        after the other files were worked on; a file that really has such a name is still taken."""
        given = list(sys.argv[1:] if args is None else args)
        if "--" in given:
            # argparse keeps its actions in `_actions` (stable since 2.7; no public listing), groups' too
            options = {name for action in self._actions for name in action.option_strings}
            for token in given[given.index("--") + 1:]:
                if token.split("=", 1)[0] in options and not os.path.lexists(token):
                    self.error(f"{token} after -- is taken as a file name (-- ends the options); "
                               "put the options before --")
        return super().parse_known_args(given, namespace)

    def error(self, message: str) -> NoReturn:
        _report_error(f"{message} (see {self.prog} --help)", 2, as_json=_Parser.json_errors, prefix=f"{self.prog}: ")
        sys.exit(errors.BAD_INPUT)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The full parser, or with `only` just that subcommand's (start-up counts in batches)."""
    parser = _Parser(
        prog="pithtex",
        description="Pith Numbers for papers: compute, verify, put them into LaTeX and PDFs, make badges.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"pithtex {VERSION}")
    # parser_class: every subcommand reports usage errors in one line, as the root does.
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in (only,) if only else COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(subparsers)
    return parser


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
    return parser


def add_remove_stale(parser: argparse.ArgumentParser) -> None:
    """--remove-stale, on every command that writes files (see `report_stale`)."""
    parser.add_argument("--remove-stale", action="store_true",
                        help="remove the temporary files that killed pithtex runs left in the output folders")


def report_stale(folders: Sequence[Path], remove: bool) -> None:
    """Name (or, with --remove-stale, remove) temporary files of killed runs in the folders
    a command writes into: a kill -9 during a write leaves one as large as the output."""
    from ..files import stale_temporaries
    from ..safetext import line

    for folder in dict.fromkeys(folders):
        for stale in stale_temporaries(folder):
            if not remove:
                print(line(f"pithtex: warning: {stale}: a temporary file left by a killed pithtex run "
                           "(--remove-stale removes it)"), file=sys.stderr)
                continue
            try:
                stale.unlink()
            except FileNotFoundError:
                continue  # another run removed it first
            except OSError as exc:
                print(line(f"pithtex: warning: {stale}: cannot remove it ({exc.strerror})"), file=sys.stderr)
                continue
            print(line(f"pithtex: removed {stale}, a temporary file left by a killed pithtex run"), file=sys.stderr)


def time_limit(value: float, option: str) -> float:
    """`value` when it is a usable time limit for `option`; else PithError (exit 2)."""
    from ..limits import usable_seconds

    return usable_seconds(value, f"{option} {value:g}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every outcome is an exit code from the contract, never a traceback
    (except under PITHTEX_DEBUG=1, which adds one to the error line):
    0 ok, 1 verifiably failed or refused, 2 unusable input, 3 cannot be decided,
    70 a bug in pithtex (anything not foreseen), 130 interrupted, 143 terminated (SIGTERM)."""
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
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return errors.BAD_INPUT
    module = importlib.import_module(f"{__name__}.{args.command}")
    try:
        return int(module.run(args) or 0)
    except PithError as exc:
        return _report_error(str(exc), exc.exit_code, as_json, exc)
    except KeyboardInterrupt:
        # The decision is made: a second Ctrl-C (an impatient user) must not kill the process
        # by the signal while it reports, which would end it with -SIGINT instead of 130.
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if _terminated:  # SIGTERM, taken the way Ctrl-C is (see _terminate_cleanly)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            return _report_error("terminated", errors.TERMINATED, as_json)
        return _report_error("interrupted", errors.INTERRUPTED, as_json)
    except BrokenPipeError:
        return errors.OK  # the reader (e.g. `| head`) has what it wanted
    except OSError as exc:  # the system refused (permissions, space, I/O): unusable, not a bug
        where = f"{exc.filename}: " if exc.filename else ""
        return _report_error(f"{where}{exc.strerror or exc}", errors.BAD_INPUT, as_json, exc)
    except Exception as exc:  # anything else is a bug: say so, never as if the input were bad
        return _report_error(bug_message(exc), errors.BUG, as_json, exc)


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


_terminated = False  # a SIGTERM came: the interrupt being unwound is a termination (exit 143)


def _terminate_cleanly() -> None:
    """SIGTERM (a `kill`, a CI timeout) is taken the way Ctrl-C is: handed to whatever handles
    Ctrl-C at that moment, so where Ctrl-C is deferred (a check starting or stopping its TeX
    runs, removing its folders; a write removing its temporary file) SIGTERM waits the same,
    and the command unwinds as from Ctrl-C, leaving nothing behind; it ends with 143,
    "terminated". Where Ctrl-C is ignored (a job started in the background), SIGTERM still ends
    the command, unwinding by SystemExit."""
    import signal

    def terminated(signum: int, frame: FrameType | None) -> None:
        global _terminated
        _terminated = True
        ctrl_c = signal.getsignal(signal.SIGINT)
        if callable(ctrl_c):
            ctrl_c(signal.SIGINT, frame)  # raises KeyboardInterrupt, or notes it for later
            return
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
