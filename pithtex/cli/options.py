"""Options several commands share, each said once: its name, its help and how its text becomes a value."""

from __future__ import annotations

from ..value import TYPE_CHECKING

if TYPE_CHECKING:
    from argparse import ArgumentParser


def add_resolver_options(parser: ArgumentParser) -> None:
    """--base-url and --keys, for every command that asks the resolver."""
    from ..brand import BASE_URL

    parser.add_argument("--base-url", metavar="URL", help=f"the resolver (default $PITH_BASE_URL or {BASE_URL})")
    parser.add_argument("--keys", metavar="KEYS.json", help="trust these keys too (e.g. a mirror's)")


def add_tex_timeout(parser: ArgumentParser) -> None:
    """--timeout, for every command that runs TeX (check, bundle)."""
    from ..limits import TEX_RUN_SECONDS

    parser.add_argument("--timeout", type=float, default=TEX_RUN_SECONDS, metavar="SECONDS",
                        help=f"time limit per TeX run (default {TEX_RUN_SECONDS:g})")


def add_password(parser: ArgumentParser) -> None:
    """--password, for every command that opens an encrypted PDF: its UTF-8 bytes (None: the empty
    user password is tried)."""
    parser.add_argument("--password", metavar="PW", type=str.encode,
                        help="the password of an encrypted PDF (user or owner)")


def usable_jobs(asked: int | None) -> int:
    """`--jobs` as worker processes to run (limits.usable_jobs): refused in one line when it is
    not 1 to four a usable CPU."""
    from ..limits import usable_jobs as checked

    return checked(asked)
