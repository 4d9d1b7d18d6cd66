"""`pithtex render` (`make render`; `python -m pithtex.cli.render` too): write a pithtex checkout's
latex/pith.sty (and web assets) from the templates. A developer's command, not a user's: it is
accepted by name but `pithtex --help` lists no `render`; a paper gets its pith.sty with `pithtex sty`."""

from __future__ import annotations

import sys

from .. import errors
from ..value import TYPE_CHECKING
from . import add_command, add_remove_stale, report_stale

if TYPE_CHECKING:
    from argparse import Namespace
    from collections.abc import Sequence
    from pathlib import Path

    from . import Subparsers

PROG = "pithtex render"
EPILOG = f"""\
examples:
  {PROG}                      in a pithtex checkout: write latex/pith.sty (= make render)
  {PROG} --check              exit 1 and name the files that differ from a fresh render
  {PROG} --root ~/src/pithtex the checkout is elsewhere
  {PROG} --web site/          also render the web assets into site/

A paper gets its pith.sty with `pithtex sty`, not with render.

exit codes: 0 written or current, 1 stale files (--check), 2 bad input.
"""


def register(subparsers: Subparsers) -> None:
    p = add_command(
        subparsers,
        "render",
        help=None,  # a developer's: never listed among a user's commands
        description="Regenerate a pithtex checkout's generated files from pithtex/templates and "
        "pithtex/brand.py. latex/pith.sty is never edited by hand; --check guards the committed copy.",
        epilog=EPILOG,
    )
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 if any generated file is stale")
    p.add_argument("--root", default=".", metavar="DIR", help="the pithtex checkout (default: .)")
    p.add_argument("--web", metavar="DIR", help="also render the web assets into DIR")
    add_remove_stale(p)


def run(args: Namespace) -> int:
    from pathlib import Path

    from ..errors import PithError
    from ..generate import check, render_all

    root = Path(args.root)
    if not root.is_dir():
        raise PithError(f"--root {args.root}: not a folder")
    if args.check:
        stale = check(root)
        for rel in stale:
            print(f"stale: {rel} (run `make render`)")
        if stale:
            return errors.FAILED
        print("up to date: every generated file equals a fresh render")
        return errors.OK
    written = render_all(root)
    for path in written:
        print(f"wrote {path}")
    if args.web:
        written += _render_web(Path(args.web))
    # Its folders are render's own, made as it writes: their stale files are named after.
    report_stale([path.parent for path in written], args.remove_stale)
    return errors.OK


def _render_web(folder: Path) -> list[Path]:
    from ..web.assets import render_web_assets

    written = render_web_assets(folder)
    for path in written:
        print(f"wrote {path}")
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m pithtex.cli.render ARGS` is `pithtex render ARGS` (the generated files' headers name it)."""
    from . import main as command_line

    return command_line(["render", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
