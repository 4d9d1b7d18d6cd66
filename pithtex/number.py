"""The Pith Number: parse every accepted form once, then hand a value around.

A number is the first 26 characters (130 bits) of the RFC 4648 base32 encoding of the
SHA-256 of a canonical record. Accepted text forms, case-insensitive, surrounding white
space ignored: `BODY`, `pith:BODY`, `pith:YYYY:BODY`. Prefixes of 8, 12 or 16 characters
are look-up aliases, never identities (see `parse_reference`).
"""

from __future__ import annotations

import re

from . import brand
from .errors import InvalidNumber
from .value import Frozen

BODY_LENGTH = 26
ALIAS_LENGTHS = (8, 12, 16)
# RFC 4648 base32, written here once (pith-badge.js receives it from webassets).
BASE32_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
ALPHABET = frozenset(BASE32_ALPHABET)
_YEAR = re.compile(r"[0-9]{4}")


class PithNumber(Frozen):
    """A validated Pith Number; `year` (of `submitted_at`) is known only sometimes."""

    __slots__ = ("body", "year")
    body: str
    year: int | None

    def __init__(self, body: str, year: int | None = None) -> None:
        problem = _body_problem(body, allow_alias=False)
        if problem:
            raise InvalidNumber(f"invalid Pith Number {body!r}: {problem}")
        if year is not None and not 1000 <= year <= 9999:
            raise InvalidNumber(f"invalid year {year}: a Pith year has four digits")
        object.__setattr__(self, "body", body)
        object.__setattr__(self, "year", year)

    # -- construction -------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str, year: int | None = None) -> PithNumber:
        """Read a full number in any accepted form; raise InvalidNumber saying why not."""
        ref = parse_reference(text, year=year)
        if isinstance(ref, PithAlias):
            raise InvalidNumber(
                f"invalid Pith Number {_shown(text)}: {len(ref.prefix)} characters is only a look-up "
                f"alias; a Pith Number has {BODY_LENGTH}"
            )
        return ref

    @classmethod
    def from_sha256(cls, digest: bytes | str, year: int | None = None) -> PithNumber:
        """The number of a canonical SHA-256 (32 raw bytes or 64 hex digits)."""
        raw = bytes.fromhex(digest) if isinstance(digest, str) else digest
        if len(raw) != 32:
            raise InvalidNumber(f"a SHA-256 digest has 32 bytes, not {len(raw)}")
        return cls(body_of_sha256(raw), year)

    def with_year(self, year: int | None) -> PithNumber:
        return PithNumber(self.body, year)

    # -- forms ----------------------------------------------------------------------------
    @property
    def short(self) -> str:
        """Display-only short form, `pith:` + the first 8 characters."""
        return f"pith:{self.body[:8]}"

    @property
    def long(self) -> str | None:
        """`pith:YYYY:BODY` when the year is known, else None."""
        return f"pith:{self.year:04d}:{self.body}" if self.year is not None else None

    @property
    def prefixed(self) -> str:
        return f"pith:{self.body}"

    @property
    def url(self) -> str:
        return brand.number_url(self.body)

    def url_at(self, base_url: str) -> str:
        return brand.number_url(self.body, base_url)

    def alias(self, length: int) -> str:
        if length not in ALIAS_LENGTHS:
            raise ValueError(f"alias lengths are {ALIAS_LENGTHS}")
        return self.body[:length]

    def as_dict(self) -> dict[str, object]:
        return {
            "body": self.body,
            "short": self.short,
            "long": self.long,
            "year": self.year,
            "url": self.url,
            "aliases": {str(n): self.alias(n) for n in ALIAS_LENGTHS},
        }

    def __str__(self) -> str:
        return self.long or self.prefixed


class PithAlias(Frozen):
    """A bare 8/12/16-character prefix: good for a look-up, never an identity."""

    __slots__ = ("prefix",)
    prefix: str

    def __init__(self, prefix: str) -> None:
        object.__setattr__(self, "prefix", prefix)

    @property
    def paper_url(self) -> str:
        return brand.PAPER_URL.format(short8=self.prefix[:8])

    def matches(self, number: PithNumber) -> bool:
        return number.body.startswith(self.prefix)


def body_of_sha256(raw: bytes) -> str:
    """First 26 base32 characters of the whole 32-byte digest (not of its first 16 bytes)."""
    import base64  # here, not at the top: a stamp or a parse never needs it

    return base64.b32encode(raw)[:BODY_LENGTH].decode("ascii")


def parse_reference(text: str, year: int | None = None) -> PithNumber | PithAlias:
    """Read a number or a look-up alias; every rejection names its reason."""
    if not isinstance(text, str):
        raise InvalidNumber(f"a Pith Number is text, not {type(text).__name__}")
    shown = _shown(text)
    rest = text.strip().upper()
    if not rest:
        raise InvalidNumber("invalid Pith Number '': it is empty")
    stated_year = None
    if rest.startswith("PITH:"):
        rest = rest[5:]
        if not rest:
            raise InvalidNumber(f"invalid Pith Number {shown}: nothing follows 'pith:'")
        if ":" in rest:
            year_text, _, rest = rest.partition(":")
            if not _YEAR.fullmatch(year_text):
                raise InvalidNumber(
                    f"invalid Pith Number {shown}: the year {year_text!r} must be exactly four digits "
                    "(pith:YYYY:BODY)"
                )
            stated_year = int(year_text)
            if ":" in rest:
                raise InvalidNumber(f"invalid Pith Number {shown}: too many ':' parts (the form is pith:YYYY:BODY)")
            if not rest:
                raise InvalidNumber(f"invalid Pith Number {shown}: nothing follows the year")
    problem = _body_problem(rest, allow_alias=True)
    if problem:
        raise InvalidNumber(f"invalid Pith Number {shown}: {problem}")
    if len(rest) in ALIAS_LENGTHS:
        return PithAlias(rest)
    if year is not None and stated_year is not None and year != stated_year:
        raise InvalidNumber(f"invalid Pith Number {shown}: it says year {stated_year}, but {year} was given")
    return PithNumber(rest, stated_year if stated_year is not None else year)


def _body_problem(body: str, allow_alias: bool) -> str | None:
    """Why `body` (already upper-cased) is not a number body, or None when it is one."""
    if "=" in body:
        return "'=' padding is not part of a Pith Number (26 characters, no padding)"
    for position, char in enumerate(body, start=1):
        if char not in ALPHABET:
            hint = " (0, 1, 8 and 9 never occur)" if char in "0189" else ""
            return f"character {char!r} at position {position} is not base32 (A-Z, 2-7){hint}"
    if len(body) == BODY_LENGTH or (allow_alias and len(body) in ALIAS_LENGTHS):
        return None
    aliases = ", ".join(str(n) for n in ALIAS_LENGTHS)
    return f"has {len(body)} characters; a Pith Number has {BODY_LENGTH} (look-up aliases have {aliases})"


def _shown(text: str) -> str:
    """The input as quoted in an error: trimmed, and cut short when long."""
    t = text.strip()
    return repr(t if len(t) <= 40 else t[:37] + "...")
