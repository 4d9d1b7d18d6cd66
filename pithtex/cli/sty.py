"""`pithtex sty`: put the current pith.sty next to a paper."""

from __future__ import annotations

from .. import errors
from ..value import TYPE_CHECKING
from . import add_command, add_remove_stale, report_stale

if TYPE_CHECKING:
    from argparse import Namespace

    from . import Subparsers

EPILOG = """\
examples:
  pithtex sty                    write ./pith.sty (the folder holding your paper.tex)
  pithtex sty ~/papers/mine      write ~/papers/mine/pith.sty
  pithtex sty --force            replace a pith.sty that differs (an older copy, or your edit)

Then, in paper.tex:  \\usepackage{pith}  and  \\pithnumber{YOUR-NUMBER}.
arXiv's TeX Live has no pith.sty: upload it beside the main file (pithtex bundle does).

exit codes: 0 written or already current, 1 a different pith.sty is there (use --force),
2 bad input (no such folder).
"""


def register(subparsers: Subparsers) -> None:
    p = add_command(
        subparsers,
        "sty",
        help="write the current pith.sty next to your paper",
        description="Write the LaTeX package pith.sty, as this pithtex renders it, into a paper's folder. "
        "An identical copy is left alone; a different one is replaced only with --force.",
        epilog=EPILOG,
    )
    p.add_argument("folder", nargs="?", default=".", metavar="DIR", help="the paper's folder (default: .)")
    p.add_argument("--force", action="store_true", help="replace a pith.sty that differs from the current one")
    add_remove_stale(p)


def run(args: Namespace) -> int:
    from pathlib import Path

    from ..latex.sty import write_beside

    report_stale([Path(args.folder)], args.remove_stale)
    done = write_beside(args.folder, force=args.force)
    said = {"written": "wrote", "replaced": "replaced", "unchanged": "already current:"}[done.status]
    print(f"{said} {done.path} (pith.sty {done.version})")
    return errors.OK
