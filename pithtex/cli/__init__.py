"""The `pithtex` command line: parsing and printing only. Each subcommand `pithtex.cli.<name>`
has `register(subparsers)` (its parser, pithtex/cli/parsing.py) and `run(args) -> int`, which
calls one library function (pithtex/client.py), importing heavy libraries inside `run` so
`pithtex --help` and fast commands stay fast; this module runs one and reports its errors."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence

from .. import errors
from ..errors import PithError, bug_message
from ..safetext import SafeStream, unfiltered
from ..value import TYPE_CHECKING
from . import stopping
from .parsing import COMMANDS, Parser, add_command, build_parser, help_text, time_limit, warn_refused, with_remedy
from .stale import add_remove_stale, report_stale

if TYPE_CHECKING:
    from .parsing import Subparsers

__all__ = ["COMMANDS", "Subparsers", "add_command", "add_remove_stale", "build_parser", "emit_json", "help_text",
           "report_stale", "time_limit", "warn_refused", "with_remedy"]


def console() -> int:
    """The `pithtex` command (and `python -m pithtex`): `main`, then the exit without the last
    collections over every object (`gc.freeze`: a tenth of `verify one.pdf`). Python never
    promises finalizers at exit, and files.py closes every file pithtex writes."""
    import gc

    code = main()
    gc.freeze()
    return code


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
    as_json = Parser.json_errors = "--json" in argv
    _quiet_streams()
    stopping.take_sigterm()
    first = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(first)
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return errors.BAD_INPUT
    module = importlib.import_module(f"{__name__}.{args.command}")
    try:
        return int(module.run(args) or 0)
    except PithError as exc:
        return report_error(with_remedy(exc), exc.exit_code, as_json, exc)
    except KeyboardInterrupt:
        # The decision is made: a second Ctrl-C (an impatient user) must not kill the process
        # by the signal while it reports, which would end it with -SIGINT instead of 130.
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if stopping.terminated:  # SIGTERM, taken the way Ctrl-C is (see stopping.take_sigterm)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            return report_error("terminated", errors.TERMINATED, as_json)
        return report_error("interrupted", errors.INTERRUPTED, as_json)
    except BrokenPipeError:
        return errors.OK  # the reader (e.g. `| head`) has what it wanted
    except OSError as exc:  # the system refused (permissions, space, I/O): unusable, not a bug
        where = f"{exc.filename}: " if exc.filename else ""
        return report_error(f"{where}{exc.strerror or exc}", errors.BAD_INPUT, as_json, exc)
    except Exception as exc:  # anything else is a bug: say so, never as if the input were bad
        return report_error(bug_message(exc), errors.BUG, as_json, exc)


def report_error(message: str, code: int, as_json: bool, exc: BaseException | None = None,
                  prefix: str = "pithtex: ") -> int:
    """One line on stderr (after the traceback under PITHTEX_DEBUG=1); with --json also
    {"error", "exit_code"} on stdout, unless the command already printed its JSON report."""
    if exc is not None and os.environ.get(errors.DEBUG):
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    message = " ".join(message.split())  # one line, whatever the exception text held
    print(f"{prefix}{message}", file=sys.stderr)
    if as_json and not _emitted:
        emit_json({"error": message, "exit_code": code})
    return code


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
