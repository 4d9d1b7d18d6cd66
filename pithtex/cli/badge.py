"""`pithtex badge`: a badge for a Pith Number as SVG, PNG, QR code, paste-ready snippet or embed."""

from __future__ import annotations

import sys
from pathlib import Path

from .. import errors
from ..value import TYPE_CHECKING
from . import add_command, help_text, warn_refused

if TYPE_CHECKING:
    from argparse import Namespace

    from ..client import Badge
    from ..number import PithNumber
    from ..web.badge import BadgeState
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
    from ..client import Client
    from ..errors import PithError

    if args.output == "-":
        args.output = None  # `-o -` is stdout, as without -o
    _check_output(args, args.format)  # before any work: nothing is fetched for a path we cannot write
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
        made = client.badge(args.number, record=args.record) if checked else make_unchecked(args.number)
    else:
        raise PithError("give a Pith Number (ID) or --arxiv ARXIV_ID, or a PDF")
    state = _noted(made.state)
    code = _run_format(args, made.number, state)
    return code or made.exit_code


def make_unchecked(number: str) -> Badge:
    from ..client import make_badge

    return make_badge(number)  # nothing checked: a badge without a state word


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
