"""The command line's parsers: one subcommand a module, usage errors as one line (exit 2)."""

from __future__ import annotations

import argparse
import importlib
import sys

from .. import errors
from ..brand import VERSION
from ..value import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import NoReturn

    from ..errors import PithError
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
    parser = Parser(
        prog="pithtex",
        description="Pith Numbers for papers: compute, verify, put them into LaTeX and PDFs, make badges.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"pithtex {VERSION}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name in (only,) if only else COMMANDS:
        importlib.import_module(f"pithtex.cli.{name}").register(subparsers)
    return parser


class Parser(argparse.ArgumentParser):
    """argparse with usage errors as one line (and JSON with --json) and exit code 2."""

    json_errors = False  # set by main() when the command line asks for --json

    def error(self, message: str) -> NoReturn:
        from . import report_error

        report_error(f"{message} (see {self.prog} --help)", 2, as_json=Parser.json_errors, prefix=f"{self.prog}: ")
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


def with_remedy(exc: PithError) -> str:
    """The error's message, and the flag that would make it go ahead: "... (use --force to replace it)"."""
    if exc.remedy is None:
        return str(exc)
    option, effect = exc.remedy
    return f"{exc} (use --{option.replace('_', '-')} to {effect})"
