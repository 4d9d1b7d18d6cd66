"""`pithtex badge`: a badge for a Pith Number as SVG, PNG, QR code, paste-ready snippet or embed."""

from __future__ import annotations

import sys
from pathlib import Path

from .. import errors
from ..value import TYPE_CHECKING
from . import add_command

if TYPE_CHECKING:
    from argparse import Namespace

    from ..number import PithNumber
    from ..trust import KeyRing
    from ..web.badge import BadgeState
    from . import Subparsers

EPILOG = """\
examples:
  pithtex badge YBK5PTAKOSCXY2WMLIIB7DMYH6 -o pith-YBK5PTAK.svg
  pithtex badge YBK5PTAKOSCXY2WMLIIB7DMYH6 --record examples/seed-record.json -o pith-YBK5PTAK.svg
  pithtex badge YBK5PTAKOSCXY2WMLIIB7DMYH6 --online --theme dark -o pith-YBK5PTAK-dark.svg
  pithtex badge --arxiv 2104.04473 --online -o pith.svg      # the number named for a paper
  pithtex badge YBK5PTAKOSCXY2WMLIIB7DMYH6 --format png --scale 2 -o pith@2x.png
  pithtex badge YBK5PTAKOSCXY2WMLIIB7DMYH6 --format qr -o pith-qr.svg     # or .png
  pithtex badge YBK5PTAKOSCXY2WMLIIB7DMYH6 --format md                    # html, md, rst
  pithtex badge YBK5PTAKOSCXY2WMLIIB7DMYH6 --format embed -o site/badge.html
  pithtex badge YBK5PTAKOSCXY2WMLIIB7DMYH6 --format embed --cdn           # the npm package from a CDN

With a record (--record, or fetched with --online or --arxiv) an SVG/PNG badge shows the
outcome of checking it, once, when it is made: "verified" only when the record hashes to
this number and its receipt verifies under a pinned key; "invalid" when it verifiably
fails (exit code 1); "unchecked" when it cannot be decided (exit code 3). Without a
record, the badge shows no state. --arxiv ID asks the resolver which number that paper
has (/api/pith-number/resolve?arxiv=ID) and checks that the record is of that paper.
The embed (--format embed) writes badge.html plus pith-badge.js beside it (with --cdn: the
npm package pith-badge from a CDN, pinned by its hash): the reader's browser checks the
record itself, every time, and says verified, invalid or unchecked.
Snippets point at pith-XXXXXXXX.svg (and -dark.svg) beside your page unless --image-url.

output: without -o (or with -o -) text goes to stdout; a PNG only when stdout is not a
terminal. -o writes a regular file (a symlink is followed to its target; devices, FIFOs and
folders are refused) in a folder that must exist; svg/png/qr need a matching .svg/.png name.
"""

TEXT_FORMATS = ("svg", "html", "md", "rst", "embed")


def register(subparsers: Subparsers) -> None:
    p = add_command(
        subparsers,
        "badge",
        help="make a badge: SVG, PNG, QR, HTML/Markdown/reST snippet, or a self-verifying embed",
        description="Draw a Pith badge (shields.io look, the pith.sty colours and logo) or write a snippet "
        "that shows it. With a record that verifies, the badge says 'verified'.",
        epilog=EPILOG,
    )
    p.add_argument("number", metavar="ID", nargs="?", help="the Pith Number (BODY, pith:BODY or pith:YYYY:BODY)")
    p.add_argument("--arxiv", metavar="ARXIV_ID",
                   help="instead of ID: the number the resolver names for this arXiv paper (implies --online)")
    source = p.add_mutually_exclusive_group()
    source.add_argument("--record", metavar="FILE", help="verify this record file; 'verified' if it holds")
    source.add_argument("--online", action="store_true", help="fetch the record from the resolver and verify it")
    source.add_argument("--offline", action="store_true",
                        help="verify the cached record (from an earlier --online) without the network")
    p.add_argument("--base-url", metavar="URL", help="the resolver (default $PITH_BASE_URL or https://pith.science)")
    p.add_argument("--keys", metavar="KEYS.json", help="trust these keys too")
    p.add_argument("--format", "-f", choices=("svg", "png", "qr", "html", "md", "rst", "embed"), default="svg")
    p.add_argument("--theme", choices=("light", "dark"), default="light")
    p.add_argument("--scale", type=int, choices=(1, 2), default=1, help="PNG pixel density (2 for @2x)")
    p.add_argument("--image-url", metavar="URL", help="snippets: the badge image (default pith-XXXXXXXX.svg)")
    p.add_argument("--dark-image-url", metavar="URL", help="HTML snippet: the dark-mode image")
    p.add_argument("--src", metavar="URL", help="embed: where the browser fetches the record (default: the resolver)")
    p.add_argument("--cdn", action="store_true", help="embed: load the element from a CDN (npm package pith-badge), "
                   "pinned by its hash; writes no script file")
    p.add_argument("-o", "--output", metavar="FILE", help="write here (default: stdout for text formats)")


def run(args: Namespace) -> int:
    from .. import client as app
    from ..errors import PithError

    if args.output == "-":
        args.output = None  # `-o -` is stdout, as without -o
    _check_output(args, args.format)  # before any work: nothing is fetched for a path we cannot write
    where = {"base_url": args.base_url, "offline": args.offline}
    if args.arxiv:
        if args.number or args.record:
            raise PithError("--arxiv names the number itself: give no ID and no --record with it")
        made = app.badge_arxiv(args.arxiv, keys=_keys(args), **where)
    elif args.number:
        if args.format in ("svg", "png") and (args.record or args.online or args.offline):
            made = app.make_badge(args.number, record=args.record, fetch=not args.record, keys=_keys(args),
                                  **where)
        else:
            made = app.make_badge(args.number)  # nothing checked: a badge without a state word
    else:
        raise PithError("give a Pith Number (ID) or --arxiv ARXIV_ID")
    state = _noted(made.state)
    code = _run_format(args, made.number, state)
    return code or made.exit_code


def _run_format(args: Namespace, number: PithNumber, state: BadgeState) -> int:
    from ..web import badge

    fmt = args.format
    if fmt == "svg":
        return _emit(args, badge.svg(number, state, args.theme))
    if fmt == "png":
        if badge.png_font_path() is None:
            _note("DejaVu Sans (Debian: fonts-dejavu-core) is missing; the PNG uses Pillow's built-in font")
        return _emit(args, badge.png(number, state, args.theme, args.scale))
    if fmt == "qr":
        as_svg = not args.output or args.output.lower().endswith(".svg")
        return _emit(args, badge.qr_svg(number) if as_svg else badge.qr_png(number))
    if fmt == "embed":
        return _embed(args, number)
    text = badge.snippet(fmt, number, args.image_url, args.dark_image_url)
    if not args.image_url:
        name = badge.image_name(number)
        _note(f"the snippet shows {name}; write it with: pithtex badge {number.body} -o {name}")
    return _emit(args, text)


# An image written under another format's extension is a broken image: refuse the mismatch.
IMAGE_SUFFIXES = {"svg": (".svg",), "png": (".png",), "qr": (".svg", ".png")}


def _check_output(args: Namespace, fmt: str) -> None:
    """Refuse, before any work, what would be wrong to write: binary to a terminal, an
    image under a mismatched extension, a path that is not a regular file."""
    from ..errors import PithError
    from ..files import output_path

    if not args.output:
        if fmt == "png" and sys.stdout.isatty():
            raise PithError("a PNG badge is binary: give -o FILE.png, or redirect stdout (not a terminal)")
        return
    output_path(args.output)
    suffix = Path(args.output).suffix.lower()
    allowed = IMAGE_SUFFIXES.get(fmt)
    if allowed and suffix not in allowed:
        raise PithError(f"{args.output}: --format {fmt} writes {' or '.join(allowed)} files, "
                        f"not {suffix or 'a name without extension'}; give a matching file name")


def _noted(state: BadgeState) -> BadgeState:
    """Say on stderr why a checked badge is not 'verified'."""
    if state.word and not state.verified:
        _note(f"the badge says {state.word}: {state.reason}")
    return state


def _keys(args: Namespace) -> KeyRing:
    from .. import client as app

    keys = app.keyring(args.keys)
    for refusal in keys.refused:
        print(f"pithtex: warning: {refusal}", file=sys.stderr)
    return keys


def _embed(args: Namespace, number: PithNumber) -> int:
    from ..errors import PithError
    from ..files import write_atomic
    from ..resolver import base_url
    from ..web import assets as webassets

    if args.keys:
        # The reader's browser checks the record against the keys the page gives it; a key
        # silently left out would turn a page's own records 'unchecked' without a word.
        raise PithError("--keys cannot go into an embed: give the page's keys to the element itself, as "
                        "<pith-badge keys='{\"keys\": [...]}'> or window.pithBadge.keys (its signatures then "
                        f"read '{brand_added()}')")
    resolver = base_url(args.base_url) if args.base_url else None
    snippet = webassets.embed_snippet(number, src=args.src, theme=None if args.theme == "light" else args.theme,
                                      cdn=args.cdn, base_url=resolver if args.cdn else None, link_base=resolver)
    if not args.output:
        if not args.cdn:
            _note(f"the snippet loads {webassets.SCRIPT_NAME}; write both with -o FILE.html (or use --cdn)")
        sys.stdout.write(snippet)
        return errors.OK
    out = Path(args.output)
    if not args.cdn:
        write_atomic(out.with_name(webassets.SCRIPT_NAME), webassets.render_script(base_url=args.base_url))
    write_atomic(out, snippet)
    return errors.OK


def brand_added() -> str:
    from ..brand import ADDED_BY_PAGE, signed_by_added

    return signed_by_added("KEY", ADDED_BY_PAGE)


def _emit(args: Namespace, content: str | bytes) -> int:
    from ..files import write_atomic

    if args.output:
        write_atomic(args.output, content)
    elif isinstance(content, bytes):
        sys.stdout.buffer.write(content)
    else:
        sys.stdout.write(content if content.endswith("\n") else content + "\n")
    return errors.OK


def _note(message: str) -> None:
    print(f"pithtex: note: {message}", file=sys.stderr)
