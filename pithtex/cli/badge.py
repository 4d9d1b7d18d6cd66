"""`pithtex badge`: a badge for a Pith Number as SVG, PNG, QR code, paste-ready snippet or embed."""

from __future__ import annotations

from pathlib import Path

from .. import brand
from ..value import TYPE_CHECKING
from . import add_command, add_remove_stale, help_text, report_stale, warn_refused
from .options import add_resolver_options

if TYPE_CHECKING:
    from argparse import Namespace

    from . import Subparsers

TEXT_FORMATS = ("svg", "html", "md", "rst", "embed")


def register(subparsers: Subparsers) -> None:
    p = add_command(
        subparsers,
        "badge",
        help="make a badge: SVG, PNG, QR, HTML/Markdown/reST snippet, or a self-verifying embed",
        description="Draw a Pith badge (shields.io look, the pith.sty colours and logo) or write a snippet "
        "that shows it. With a record that verifies, the badge says 'verified'.",
        epilog=help_text("badge"),
    )
    p.add_argument("number", metavar="ID|PDF", nargs="?", help="the Pith Number (BODY, pith:BODY or pith:YYYY:BODY), "
                   "or a PDF (its number, or the record of the arXiv paper it shows, verified with the PDF)")
    p.add_argument("--arxiv", metavar="ARXIV_ID",
                   help="instead of ID: the number the resolver names for this arXiv paper (implies --online)")
    source = p.add_mutually_exclusive_group()
    source.add_argument("--record", metavar="FILE", help="verify this record file; 'verified' if it holds")
    source.add_argument("--online", action="store_true", help="fetch the record from the resolver and verify it")
    source.add_argument("--offline", action="store_true",
                        help="verify the cached record (from an earlier --online) without the network")
    add_resolver_options(p)
    p.add_argument("--format", "-f", choices=("svg", "png", "qr", "html", "md", "rst", "embed"), default="svg")
    p.add_argument("--theme", choices=tuple(brand.THEMES), default=brand.DEFAULT_THEME)
    p.add_argument("--scale", type=int, choices=(1, 2), default=1, help="PNG pixel density (2 for @2x)")
    p.add_argument("--image-url", metavar="URL", help="snippets: the badge image (default pith-XXXXXXXX.svg)")
    p.add_argument("--dark-image-url", metavar="URL", help="HTML snippet: the dark-mode image")
    p.add_argument("--src", metavar="URL", help="embed: where the browser fetches the record (default: the resolver)")
    p.add_argument("--cdn", action="store_true", help="embed: load the element from a CDN (npm package pith-badge), "
                   "pinned by its hash; writes no script file")
    p.add_argument("-o", "--output", metavar="FILE", help="write here (default: stdout for text formats)")
    p.add_argument("--list", metavar="FILE", help="a badge for every paper of FILE (arXiv ids, arXiv DOIs or Pith "
                   "Numbers, one a line, or a .bib file), verified, into the folder -o DIR (docs/web.md)")
    p.add_argument("--assets-url", metavar="URL", help="--list: the URL -o DIR is served at (https://... or "
                   "/path/), so the list works on pages at any depth")
    p.add_argument("--site", choices=("jekyll", "hugo"), help="--list: also write the generator's data file and "
                   "include (Jekyll: _data/pith.json, _includes/pith-badge.html; Hugo: data/pith.json, "
                   "layouts/shortcodes/pith.html) into the site at --site-root (docs/web.md)")
    p.add_argument("--site-root", metavar="DIR", default=".", help="--site: the site's folder (default: here)")
    add_remove_stale(p)


def run(args: Namespace) -> int:
    from ..client import Badge, Client
    from ..errors import PithError

    if args.list:
        from .badge_list import run_list

        return run_list(args)
    if args.assets_url:
        raise PithError("--assets-url is for --list (the folder of files it writes); give --list FILE")
    if args.site:
        raise PithError("--site is for --list (it indexes the list for the site's templates); give --list FILE")
    if args.output == "-":
        args.output = None  # `-o -` is stdout, as without -o
    from .badge_output import check_output

    args.output = _into_folder(args)
    check_output(args, args.format)  # before any work: nothing is fetched for a path we cannot write
    if args.output:
        report_stale([Path(args.output).parent], args.remove_stale)
    client = Client(warn_refused(args.keys), base_url=args.base_url, offline=args.offline)
    if args.arxiv:
        if args.number or args.record:
            raise PithError("--arxiv names the number itself: give no ID and no --record with it")
        from ..arxiv.ids import ArxivId

        made = client.badge(ArxivId.parse(args.arxiv))
    elif args.number and Path(args.number).is_file():
        made = client.badge(args.number)  # a PDF: its number or arXiv identity, the PDF checked too
    elif args.number:
        checked = args.format in ("svg", "png") and (args.record or args.online or args.offline)
        made = client.badge(args.number, record=args.record) if checked else Badge.plain(args.number)
    else:
        raise PithError("give a Pith Number (ID) or --arxiv ARXIV_ID, or a PDF")
    from .badge_output import noted, run_format

    code = run_format(args, made.number, noted(made.state))
    return code or made.exit_code




def _into_folder(args: Namespace) -> str | None:
    """`-o site/` (a trailing slash, or a folder that is there) for an SVG or PNG badge of a
    given ID: the file the snippets point at, in that folder (site/pith-XXXXXXXX.svg). Other
    formats have no such name, and --arxiv learns its number only later: for those a folder
    stays refused as one."""
    from ..files import names_folder
    from ..number import PithNumber
    from ..web.badge import image_name

    output: str | None = args.output
    if not (output and names_folder(output) and args.format in ("svg", "png") and args.number):
        return output
    if Path(args.number).is_file():
        return output  # a PDF: its number is learnt later
    return str(Path(output) / image_name(PithNumber.parse(args.number), args.theme, args.format))
