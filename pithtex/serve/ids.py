"""What a request names, read from its path before any I/O: a Pith Number or an arXiv id, and
the format asked for. Anything else (a host, a path, `..`, a percent-escape, a control
character, an overlong name) is refused here, so nothing of it reaches the resolver."""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

from ..arxiv.ids import ArxivId
from ..errors import PithError
from ..number import PithNumber

FORMATS = ("svg", "png", "json")
LONGEST = 64  # "pith:2024:" + 26 characters, or "arxiv/" + an old-style id with a version, fit
# The characters any form of a Pith Number or arXiv id is written in; `arxiv/` and an old-style
# arXiv id's own slash (arxiv/hep-th/9901001) make two slashes at most.
UNPRINTABLE = re.compile(rb"[^\x21-\x7e]")
SHAPE = re.compile(r"[A-Za-z0-9.:\-]+(?:/[A-Za-z0-9.\-]+){0,2}")


class Target(NamedTuple):
    number: PithNumber | None
    arxiv: ArxivId | None

    @property
    def key(self) -> str:
        """The cache's name for what is asked: numbers by body, arXiv ids as written by arXiv."""
        return f"arxiv:{self.arxiv}" if self.arxiv is not None else f"pith:{self.number and self.number.body}"

    @property
    def shown(self) -> str:
        return self.arxiv.prefixed if self.arxiv is not None else f"pith:{self.number and self.number.body}"


class BadRequest(Exception):
    """The request names nothing a badge can be made of; `status` is 400 or 404."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status

    def __reduce__(self) -> tuple[object, ...]:  # a copy is made whole with its status too
        return (type(self), (self.status, *self.args))


def raw_path_problem(raw_path: bytes) -> str | None:
    """Refuse, before routing, what no id needs and a traversal would: escapes (%2F, %2E),
    dot-dot segments, backslashes, control or non-ASCII bytes, an overlong path."""
    if len(raw_path) > 200:
        return "the path is too long"
    if b"%" in raw_path or b"\\" in raw_path:
        return "the path holds an escape or a backslash; ids need none"
    if UNPRINTABLE.search(raw_path):
        return "the path holds a control, space or non-ASCII character"
    if b"/../" in raw_path + b"/" or b"/./" in raw_path + b"/" or b"//" in raw_path:
        return "the path holds an empty, . or .. segment"
    return None


def split_format(name: str, formats: tuple[str, ...] = FORMATS) -> tuple[str, str]:
    """`ID.svg` → ("ID", "svg"); 404 for another ending."""
    stem, dot, ext = name.rpartition(".")
    if not dot or ext not in formats:
        raise BadRequest(404, f"no such badge format; ask for {', '.join('.' + f for f in formats)}")
    return stem, ext


@functools.lru_cache(maxsize=4096)  # a pure function of the name, asked for on every request
def target(name: str) -> Target:
    """`arxiv/ID` or any form of a Pith Number (BODY, pith:BODY, pith:YYYY:BODY)."""
    if len(name) > LONGEST or not SHAPE.fullmatch(name):
        raise BadRequest(400, "not a Pith Number or arXiv id")
    kind, slash, rest = name.partition("/")
    try:
        if kind == "arxiv" and slash:
            return Target(None, ArxivId.parse(rest))
        if slash:
            raise BadRequest(404, "no such page")
        return Target(PithNumber.parse(name), None)
    except PithError:  # its message quotes the input: not reflected, the kind is enough
        raise BadRequest(400, "not an arXiv id" if kind == "arxiv" else "not a Pith Number") from None
