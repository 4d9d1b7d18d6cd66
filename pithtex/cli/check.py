"""`pithtex check`: will arXiv compile this paper, and will the pith badge and metadata survive?"""

from __future__ import annotations

from .. import errors
from ..arxiv import ENGINES
from ..value import TYPE_CHECKING
from . import add_command, emit_json, time_limit
from .options import add_tex_timeout

if TYPE_CHECKING:
    from argparse import Namespace

    from . import Subparsers

EPILOG = """\
examples:
  pithtex check examples/article                 # the route arXiv would choose
  pithtex check paper.tex --engine all           # pdflatex, latex->dvips->ps2pdf, xelatex in parallel
  pithtex check upload.tar.gz --json             # an archive exactly as you would upload it
  pithtex check paper/ --main paper.tex          # only this top-level file of the folder

PATH is a main .tex file, a paper folder, or a .tar.gz/.zip upload. Every top-level file
arXiv would compile is checked (00README.json's toplevel sources, else each top-level
.tex file with \\documentclass, in alphanumeric order), each with its own verdict; a .tex
PATH or --main checks only that file. Each is copied into a fresh folder and compiled
with shell escape off, a private empty TeX home tree and no BibTeX run, as on arXiv;
then the PDF is read back for the Pith Number (Info, XMP) and the badge link on page 1.
A TeX run that writes more than 50 MB of log is stopped (log-too-large; PITHTEX_LOG_CAP
sets the cap in bytes), and so is one that adds 20 times that to its files (files-too-large).

exit codes: 0 arXiv-safe, 1 would fail on arXiv, loses pith metadata or badge misplaced,
2 unusable input.
"""


def register(subparsers: Subparsers) -> None:
    p = add_command(
        subparsers, "check",
        help="compile a paper as arXiv would and check the pith badge and metadata",
        description="Check a paper before uploading it to arXiv: static rules (missing files, case, "
        "shell escape, .bbl, packages, pith.sty, \\pithnumber), a sandboxed compile on arXiv's routes, "
        "and the pith metadata in the resulting PDF.",
        epilog=EPILOG,
    )
    p.add_argument("path", metavar="PATH", help="a .tex file, a paper folder, or a .tar.gz/.zip upload")
    p.add_argument("--engine", default="auto", choices=ENGINES,
                   help="route to compile: auto (arXiv's choice, default), one route, or all in parallel")
    p.add_argument("--main", action="append", metavar="FILE",
                   help="check only this top-level file of the upload (repeat for several)")
    add_tex_timeout(p)
    p.add_argument("--json", action="store_true", help="print a JSON object on stdout")


def log_cap() -> int:
    """The output cap per TeX run: PITHTEX_LOG_CAP (bytes) or the default (50 MB)."""
    import os

    from ..arxiv.sandbox import LOG_CAP
    from ..errors import PithError

    given = os.environ.get("PITHTEX_LOG_CAP", "").strip()
    if not given:
        return LOG_CAP
    if not given.isdigit() or int(given) <= 0:
        raise PithError(f"PITHTEX_LOG_CAP={given!r}: give a positive number of bytes")
    return int(given)


def run(args: Namespace) -> int:
    from .. import client as app
    from ..arxiv.report import as_dict, human

    timeout = time_limit(args.timeout, "--timeout")
    result = app.check_arxiv(args.path, engine=args.engine, timeout=timeout, mains=args.main, log_cap=log_cap())
    if args.json:
        emit_json(as_dict(result))
    else:
        print(human(result))
    return errors.OK if result.ok else errors.FAILED
