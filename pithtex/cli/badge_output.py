"""`pithtex badge`'s output: each format drawn by pithtex.web and written to -o or stdout
(an embed with its script beside it); what cannot be written is refused before any work."""

from __future__ import annotations

import sys
from pathlib import Path

from .. import errors
from ..value import TYPE_CHECKING

if TYPE_CHECKING:
    from argparse import Namespace

    from ..number import PithNumber
    from ..web.badge import BadgeState


def run_format(args: Namespace, number: PithNumber, state: BadgeState) -> int:
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


def check_output(args: Namespace, fmt: str) -> None:
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


def noted(state: BadgeState) -> BadgeState:
    """Say on stderr why a checked badge is not 'verified'."""
    if state.word and not state.verified:
        _note(f"the badge says {state.word}: {state.reason}")
    return state


def _embed(args: Namespace, number: PithNumber) -> int:
    from ..brand import DEFAULT_THEME
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
    theme = None if args.theme == DEFAULT_THEME else args.theme  # the element's own default
    snippet = webassets.embed_snippet(number, src=args.src, theme=theme, cdn=args.cdn,
                                      base_url=resolver if args.cdn else None, link_base=resolver)
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
