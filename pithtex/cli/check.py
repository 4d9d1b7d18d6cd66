"""`pithtex check`: will arXiv compile this paper, and will the pith badge and metadata survive?"""

from __future__ import annotations

from . import add_command, emit_json

EPILOG = """\
examples:
  pithtex check examples/article                 # the route arXiv would choose
  pithtex check paper.tex --engine all           # pdflatex, latex->dvips->ps2pdf, xelatex in parallel
  pithtex check upload.tar.gz --json             # an archive exactly as you would upload it

PATH is a main .tex file, a paper folder, or a .tar.gz/.zip upload. The paper is copied
into a fresh folder and compiled with shell escape off, no personal TeX tree and no
BibTeX run, as on arXiv; then the PDF is read back for the Pith Number (Info, XMP) and
the badge link on page 1.

exit codes: 0 arXiv-safe, 1 would fail on arXiv or loses pith metadata, 2 unusable input.
"""


def register(subparsers) -> None:
    p = add_command(
        subparsers, "check",
        help="compile a paper as arXiv would and check the pith badge and metadata",
        description="Check a paper before uploading it to arXiv: static rules (missing files, case, "
        "shell escape, .bbl, packages, pith.sty, \\pithnumber), a sandboxed compile on arXiv's routes, "
        "and the pith metadata in the resulting PDF.",
        epilog=EPILOG,
    )
    p.add_argument("path", metavar="PATH", help="a .tex file, a paper folder, or a .tar.gz/.zip upload")
    p.add_argument("--engine", default="auto", choices=("auto", "pdflatex", "latex", "xelatex", "all"),
                   help="route to compile: auto (arXiv's choice, default), one route, or all in parallel")
    p.add_argument("--timeout", type=float, default=120.0, metavar="SECONDS",
                   help="time limit per TeX run (default 120)")
    p.add_argument("--json", action="store_true", help="print a JSON object on stdout")


def run(args) -> int:
    from ..arxiv.check import check_path
    from ..arxiv.report import human
    from ..errors import PithError

    if not args.timeout > 0:
        raise PithError(f"--timeout {args.timeout:g}: give a positive number of seconds")

    result = check_path(args.path, engine=args.engine, timeout=args.timeout)
    if args.json:
        emit_json(result.as_dict())
    else:
        print(human(result))
    return 0 if result.ok else 1
