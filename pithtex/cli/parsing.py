"""The command line's parsers: one subcommand a module, usage errors as one line (exit 2)."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from .. import errors
from ..brand import VERSION
from ..value import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any, NoReturn

    from ..errors import PithError
    from ..trust import KeyRing

    # What add_subparsers() returns: argparse names the class only privately (typeshed too).
    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]

# Order here is the order in `pithtex --help`: what a user runs.
COMMANDS = ("number", "verify", "sty", "stamp", "inspect", "badge", "check", "bundle", "serve")
# A pithtex developer's, run in a checkout (`pithtex render` = `make render`): accepted by name,
# never in the full parser, so neither `pithtex --help` nor a usage error lists it.
DEVELOPER_COMMANDS = ("render",)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The user's parser, or with `only` (a command's name) just that subcommand's: start-up
    counts in batches, and a developer's command is built only so, when it is the one named."""
    if only not in (*COMMANDS, *DEVELOPER_COMMANDS):
        only = None  # not a command: the full parser says so, offering the user's
    parser = Parser(
        prog="pithtex",
        description="Pith Numbers for papers: compute, verify, put them into LaTeX and PDFs, make badges.",
        epilog=help_text("pithtex"),  # examples and exit codes: pithtex/data/help-pithtex.txt
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"pithtex {VERSION}")
    if only:  # an argument the command does not take is reported by this parser: point to its help
        parser.help_of = f"pithtex {only}"
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name in (only,) if only else COMMANDS:
        importlib.import_module(f"pithtex.cli.{name}").register(subparsers)
    return parser


class Parser(argparse.ArgumentParser):
    """argparse with usage errors as one line (and JSON with --json) and exit code 2."""

    json_errors = False  # set by main() when the command line asks for --json
    help_of: str | None = None  # whose --help a usage error points to (None: this parser's)

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
        from . import report_error

        report_error(f"{message} (see {self.help_of or self.prog} --help)", 2, as_json=Parser.json_errors,
                     prefix=f"{self.prog}: ")
        sys.exit(errors.BAD_INPUT)


def add_command(subparsers: Subparsers, name: str, help: str | None, description: str,
                epilog: str = "") -> argparse.ArgumentParser:
    """A subcommand parser that formats its examples verbatim and reports errors in one line;
    `help` None: a developer's command, which no listing shows (argparse lists every parser
    given a `help`, even None)."""
    formatting = argparse.RawDescriptionHelpFormatter
    if help is None:
        return subparsers.add_parser(name, description=description, epilog=epilog, formatter_class=formatting)
    return subparsers.add_parser(name, help=help, description=description, epilog=epilog, formatter_class=formatting)


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
