"""`pithtex bundle`: make the arXiv upload archive from what the compile used, then check it."""

from __future__ import annotations

from .. import errors
from ..arxiv import ENGINES
from ..value import TYPE_CHECKING
from . import add_command, add_remove_stale, report_stale, time_limit
from .options import add_tex_timeout

if TYPE_CHECKING:
    from argparse import Namespace

    from . import Subparsers

EPILOG = """\
examples:
  pithtex bundle examples/article -o article-upload.tar.gz
  pithtex bundle paper/main.tex -o upload.tar.gz --engine pdflatex
  pithtex bundle paper/ --main paper.tex -o upload.tar.gz   # leave the rebuttal out

The top-level files are those `pithtex check` would compile (all of them), or the one
given as a .tex path or with --main. The archive holds the files their compiles
actually read (from TeX's -recorder list), the .bbl, every figure variant the sources
name, and our current pith.sty; no build products, no unused files, no absolute paths.
The files it leaves out are listed. The archive is then checked exactly as `pithtex
check upload.tar.gz` would, and the verdict printed.

exit codes: 0 written and arXiv-safe; 1 the paper would fail on arXiv (nothing written,
the first problem named) or, rarely, the archive's own check fails; 2 unusable input.
"""


def register(subparsers: Subparsers) -> None:
    p = add_command(
        subparsers, "bundle",
        help="make the arXiv upload archive (.tar.gz) of a paper and check it",
        description="Compile a paper as arXiv would, collect the files the compile used (plus the .bbl "
        "and the current pith.sty) into a .tar.gz, then run the arXiv check on that archive.",
        epilog=EPILOG,
    )
    p.add_argument("path", metavar="DIR", help="the paper folder (or its main .tex file)")
    p.add_argument("-o", "--output", required=True, metavar="FILE.tar.gz", help="where to write the archive")
    p.add_argument("--engine", default="auto", choices=ENGINES,
                   help="route used to find the files and to check the archive (default: arXiv's choice)")
    p.add_argument("--main", action="append", metavar="FILE",
                   help="bundle only this top-level file (and what it uses); repeat for several")
    add_tex_timeout(p)
    p.add_argument("--json", action="store_true", help="print the archive's files and the check as JSON")
    add_remove_stale(p)


def run(args: Namespace) -> int:
    from pathlib import Path

    from .. import client as app
    from ..arxiv.report import as_dict, human
    from ..safetext import line
    from . import emit_json
    from .check import log_cap

    timeout = time_limit(args.timeout, "--timeout")
    report_stale([Path(args.output).parent], args.remove_stale)
    made = app.bundle_arxiv(args.path, args.output, engine=args.engine, timeout=timeout, mains=args.main,
                  log_cap=log_cap())
    if args.json:
        emit_json({"archive": str(made.out), "files": made.files, "route": made.route, "mains": made.mains,
                   "left_out": made.left_out, "ancillary": made.ancillary, "check": as_dict(made.verdict)})
    else:
        size = made.out.stat().st_size
        left = ""
        if made.left_out:  # on the same line: the verdict stays the second line
            more = f" and {len(made.left_out) - 10} more" if len(made.left_out) > 10 else ""
            left = f"; left out (not used by {', '.join(made.mains)}): {' '.join(made.left_out[:10])}{more}"
        if made.ancillary:
            n = len(made.ancillary)
            left += f"; kept arXiv's ancillary folder anc/ ({n} file{'s' if n != 1 else ''}, not read by TeX)"
        print(line(f"wrote {made.out} ({len(made.files)} files, {size / 1024:.1f} KB): {' '.join(made.files)}{left}"))
        print(human(made.verdict))
    return errors.OK if made.verdict.ok else errors.FAILED
