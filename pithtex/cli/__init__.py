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

from ..brand import VERSION
from ..errors import PithError

# Order here is the order in `pithtex --help`.
COMMANDS = ("number", "verify", "sty", "render", "stamp", "inspect", "badge", "check", "bundle")

EPILOG = """\
examples:
  pithtex number pith:2021:YBK5PTAKOSCXY2WMLIIB7DMYH6
  pithtex number --record examples/seed-record.json --json
  pithtex verify examples/seed-record.json

exit codes: 0 ok, 1 verifiably failed or refused, 2 unusable input, 3 cannot be decided.
Set PITHTEX_DEBUG=1 to see a traceback instead of a one-line error.
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
    """argparse with usage errors as one line and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: {message} (see {self.prog} --help)\n")
        sys.exit(2)


def add_command(subparsers, name: str, help: str, description: str, epilog: str = "") -> argparse.ArgumentParser:
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


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    first = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(first if first in COMMANDS else None)
    parser.__class__ = _Parser
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    module = importlib.import_module(f"{__name__}.{args.command}")
    try:
        return int(module.run(args) or 0)
    except PithError as exc:
        if os.environ.get("PITHTEX_DEBUG"):
            raise
        print(f"pithtex: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("pithtex: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # the last line of defence: never a traceback for a user
        if os.environ.get("PITHTEX_DEBUG"):
            raise
        print(f"pithtex: internal error: {type(exc).__name__}: {exc} (PITHTEX_DEBUG=1 shows more)", file=sys.stderr)
        return 70


def emit_json(value: object) -> None:
    import json

    print(json.dumps(value, indent=2, ensure_ascii=False))
