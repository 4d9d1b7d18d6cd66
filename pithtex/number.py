"""The Pith Number: parse every accepted form once, then hand a value around.

A number is the first 26 characters (130 bits) of the RFC 4648 base32 encoding of the
SHA-256 of a canonical record. Accepted text forms, case-insensitive, surrounding white
space ignored: `BODY`, `pith:BODY`, `pith:YYYY:BODY`. Prefixes of 8, 12 or 16 characters
are look-up aliases, never identities (see `parse_reference`).
"""

from __future__ import annotations

from . import brand
from .errors import InvalidNumber
from .value import Frozen, NamedTuple

BODY_LENGTH = 26
ALIAS_LENGTHS = (8, 12, 16)
YEARS = range(1000, 10000)  # a Pith year (of submitted_at) has four digits: PithNumber and `number --year`
# RFC 4648 base32, written here once (pith-badge.js receives it from webassets).
BASE32_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
ALPHABET = frozenset(BASE32_ALPHABET)


class Reading(NamedTuple):
    """The rules for reading a Pith Number's text: this module reads by them, and pith.sty's
    and pith-badge.js's readers are rendered from them (one table, three readers)."""

    prefix: str = "PITH"  # then ':'; compared after upper-casing, like the body
    year_digits: int = 4
    body_length: int = BODY_LENGTH
    alias_lengths: tuple[int, ...] = ALIAS_LENGTHS
    alphabet: str = BASE32_ALPHABET
    padding: str = "="
    never: str = "0189"  # what people type for O, I, B and g: named in the hint
    # Only these blanks are trimmed and only a-z is upper-cased, in every reader: Unicode's
    # white space and case tables differ between Python, browsers and TeX engines.
    blanks: str = " \t\n\r\f\v"


READING = Reading()

# Why a text is not a Pith Number, one sentence a fault; {name} is filled in by each reader.
# The same words in `pithtex number`, pith.sty's error and the <pith-badge> tooltip.
REASONS = {
    "empty": "it is empty",
    "after-prefix": "nothing follows 'pith:'",
    "year": "the year '{year}' must be exactly four digits (pith:YYYY:BODY)",
    "after-year": "nothing follows the year",
    "parts": "too many ':' parts (the form is pith:YYYY:BODY)",
    "padding": "'=' padding is not part of a Pith Number (26 characters, no padding)",
    # {char} is the character itself when it is printable ASCII, else U+XXXX (shown_char)
    "character": "character '{char}' at position {position} is not base32 (A-Z, 2-7){hint}",
    "hint": " (0, 1, 8 and 9 never occur)",
    "length": "it has {length} characters; a Pith Number has 26 (look-up aliases have 8, 12 or 16)",
    "alias": "{length} characters is only a look-up alias; a Pith Number has 26",
}


class PithNumber(Frozen):
    """A validated Pith Number; `year` (of `submitted_at`) is known only sometimes."""

    __slots__ = ("body", "year")
    body: str
    year: int | None

    def __init__(self, body: str, year: int | None = None) -> None:
        problem = _body_problem(body, allow_alias=False)
        if problem:
            raise InvalidNumber(f"invalid Pith Number {body!r}: {problem}")
        if year is not None and year not in YEARS:
            raise InvalidNumber(f"invalid year {year}: a Pith year has four digits")
        object.__setattr__(self, "body", body)
        object.__setattr__(self, "year", year)

    # -- construction -------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str, year: int | None = None) -> PithNumber:
        """Read a full number in any accepted form; raise InvalidNumber saying why not."""
        ref = parse_reference(text, year=year)
        if isinstance(ref, PithAlias):
            raise InvalidNumber(f"invalid Pith Number {_shown(text)}: "
                                + REASONS["alias"].format(length=len(ref.prefix)))
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


def as_number(value: PithNumber | str) -> PithNumber:
    """A Pith Number given as a value or as text (then parsed: InvalidNumber if it is none)."""
    return PithNumber.parse(value) if isinstance(value, str) else value


def as_number_or_none(value: PithNumber | str | None) -> PithNumber | None:
    """`as_number`, for an optional argument (an expected number, a stamp's --number)."""
    return None if value is None else as_number(value)


def body_of_sha256(raw: bytes) -> str:
    """First 26 base32 characters of the whole 32-byte digest (not of its first 16 bytes)."""
    import base64  # here, not at the top: a stamp or a parse never needs it

    return base64.b32encode(raw)[:BODY_LENGTH].decode("ascii")


def parse_reference(text: str, year: int | None = None) -> PithNumber | PithAlias:
    """Read a number or a look-up alias; every rejection names its reason (REASONS)."""
    if not isinstance(text, str):
        raise InvalidNumber(f"a Pith Number is text, not {type(text).__name__}")
    read = read_text(text)
    if isinstance(read, str):
        raise InvalidNumber(f"invalid Pith Number {_shown(text)}: {read}")
    body, stated_year = read
    if len(body) in ALIAS_LENGTHS:
        return PithAlias(body)
    if year is not None and stated_year is not None and year != stated_year:
        raise InvalidNumber(f"invalid Pith Number {_shown(text)}: it says year {stated_year}, but {year} was given")
    return PithNumber(body, stated_year if stated_year is not None else year)


def read_text(text: str, rules: Reading = READING) -> tuple[str, int | None] | str:
    """(body, year or None) of a number or alias text, or the reason it is neither: the reader
    pith.sty and pith-badge.js are rendered to follow step by step (tests/fixtures/number-vectors.json)."""
    rest = text.strip(rules.blanks).translate(_ASCII_UPPER)
    if not rest:
        return REASONS["empty"]
    parts = rest.split(":")
    year = None
    if len(parts) > 1 and parts[0] == rules.prefix:
        rest = rest[len(rules.prefix) + 1:]
        if len(parts) == 2:
            if not rest:
                return REASONS["after-prefix"]
        else:
            year_text, rest = parts[1], ":".join(parts[2:])
            if len(year_text) != rules.year_digits or not all("0" <= c <= "9" for c in year_text):
                return REASONS["year"].format(year=year_text)
            if not rest:
                return REASONS["after-year"]
            if ":" in rest:
                return REASONS["parts"]
            year = int(year_text)
    return _body_problem(rest, rules) or (rest, year)


def _body_problem(body: str, rules: Reading = READING, allow_alias: bool = True) -> str | None:
    """Why `body` (already upper-cased) is not a number body (or an alias), or None when it is one."""
    if rules.padding in body:
        return REASONS["padding"]
    for position, char in enumerate(body, start=1):
        if char not in rules.alphabet:
            hint = REASONS["hint"] if char in rules.never else ""
            return REASONS["character"].format(char=shown_char(char), position=position, hint=hint)
    if len(body) == rules.body_length or (allow_alias and len(body) in rules.alias_lengths):
        return None
    return REASONS["length"].format(length=len(body))


_ASCII_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def shown_char(char: str) -> str:
    """A character as a reason names it: itself when printable ASCII, else U+XXXX (a zero-width
    space or a control character must not vanish from, or act in, the message)."""
    return char if " " <= char <= "~" else f"U+{ord(char):04X}"


def _shown(text: str) -> str:
    """The input as quoted in an error: trimmed, and cut short when long."""
    t = text.strip()
    return repr(t if len(t) <= 40 else t[:37] + "...")
