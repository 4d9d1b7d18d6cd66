"""PDF objects: a small lexer/parser and a deterministic serialiser.

Our own reader instead of pypdf on the hot path: stamping needs the trailer, the catalog,
Info, the XMP stream and page 1 — a few objects out of thousands — and `import pypdf`
alone costs more than the whole stamp. The parser works on any bytes-like buffer: the
reader gives it a window of the file read at an object's offset, so only what is parsed
is ever read.

Values: int/float/bool/None, `Name` (decoded, without the slash), `bytes` for strings,
`Ref`, list, dict (Name keys), `Stream` and `Keyword` (content-stream operators).
"""

from __future__ import annotations

import re

from ..value import TYPE_CHECKING, LazyPattern, NamedTuple
from .errors import PdfSyntaxError, TooDeep

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


class Name(str):
    """A PDF name, stored decoded and without the leading slash."""

    __slots__ = ()


class Keyword(str):
    """A bare keyword: an operator in a content stream, or `obj`/`stream`/`R` markers."""

    __slots__ = ()


class HexString(bytes):
    """A string written as `<hex>` (IDs, binary data)."""


class Ref(NamedTuple):
    num: int
    gen: int = 0


class Stream:
    """A stream: its dictionary and its raw (still encoded) bytes."""

    __slots__ = ("dict", "raw")

    def __init__(self, dictionary: dict[str, Any], raw: bytes) -> None:
        self.dict = dictionary
        self.raw = raw

    def __repr__(self) -> str:
        return f"Stream({self.dict!r}, {len(self.raw)} bytes)"


WHITESPACE = b"\x00\t\n\x0c\r "
DELIMITERS = b"()<>[]{}/%"
# One white-space byte per repetition, never `[...]+` inside `*`: a failed match would
# retry every way of splitting a run of blanks (exponential on a line of 48 spaces).
_SKIP = re.compile(rb"(?:[\x00\t\n\x0c\r ]|%[^\r\n]*)*")
_REGULAR = re.compile(rb"[^\x00\t\n\x0c\r ()<>\[\]{}/%]+")
_NUMBER = LazyPattern(rb"[+-]?(?:\d+\.?\d*|\.\d+)")
_INT = LazyPattern(rb"\d+")
_REF_TAIL = LazyPattern(rb"[\x00\t\n\x0c\r ]+(\d+)[\x00\t\n\x0c\r ]+R(?=[\x00\t\n\x0c\r ()<>\[\]{}/%]|$)")
_HEX_STRING = re.compile(rb"<([0-9A-Fa-f\x00\t\n\x0c\r ]*)>")
_STRING_SPECIAL = re.compile(rb"[()\\]")
_NAME_ESCAPE = LazyPattern(rb"#([0-9A-Fa-f]{2})")
_ESCAPES = {ord("n"): b"\n", ord("r"): b"\r", ord("t"): b"\t", ord("b"): b"\b", ord("f"): b"\f",
            ord("("): b"(", ord(")"): b")", ord("\\"): b"\\"}
# The common atoms in one match (white space and comments first): a name, a reference, a
# number, true/false/null. One regex call per token instead of several keeps parsing cheap.
_R = rb"[^\x00\t\n\x0c\r ()<>\[\]{}/%]"
# (A comment must run to its line end: otherwise backtracking could read "% 12 0 obj" as 0.)
_ATOM = re.compile(
    rb"(?:[\x00\t\n\x0c\r ]|%[^\r\n]*(?=[\r\n]|$))*"  # one blank per repetition: see _SKIP
    rb"(?:/(" + _R + rb"*)"
    rb"|(\d+)[\x00\t\n\x0c\r ]+(\d+)[\x00\t\n\x0c\r ]+R(?!" + _R + rb")"
    rb"|([+-]?(?:\d+\.?\d*|\.\d+))"
    rb"|(true|false|null)(?!" + _R + rb"))"
)
_LITERALS = {b"true": True, b"false": False, b"null": None}
# Nesting deeper than this is an attack or damage, not a document.
MAX_DEPTH = 64


def _atom(m: re.Match[bytes]) -> Any:
    """The value of an _ATOM match: a name, a reference, a number, true, false or null."""
    kind = m.lastindex
    if kind == 1:
        raw = m.group(1)
        if b"#" in raw:
            raw = _NAME_ESCAPE.sub(lambda e: bytes([int(e.group(1), 16)]), raw)
        return Name(raw.decode("latin-1"))
    if kind == 3:
        return Ref(int(m.group(2)), int(m.group(3)))
    if kind == 4:
        return _number(m.group(4))
    return _LITERALS[m.group(5)]


def _number(text: bytes) -> int | float:
    """A numeric token; absurd ones (hundreds of digits) are damage, not numbers."""
    if len(text) > 40:
        raise PdfSyntaxError(f"number too long: {text[:20]!r}...")
    return float(text) if b"." in text else int(text)


class NeedMore(Exception):
    """A stream runs past the end of a window that is not the end of the file: read `size` bytes."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


class Parser:
    """Reads objects from a buffer starting at `pos`; `resolve_length` resolves `/Length R`.

    The buffer may be a window of a file that starts at byte `origin` of it (messages give
    file offsets) and, unless `complete`, ends before the file does: a stream running past
    its end raises NeedMore instead of being cut short."""

    def __init__(self, data: Any, pos: int = 0, resolve_length: Callable[[Ref], object] | None = None,
                 origin: int = 0, complete: bool = True) -> None:
        self.data = data
        self.pos = pos
        self.resolve_length = resolve_length
        self.origin, self.complete = origin, complete

    # -- tokens --------------------------------------------------------------------------
    def skip(self) -> None:
        self.pos = _SKIP.match(self.data, self.pos).end()  # type: ignore[union-attr]  # `*`: always matches

    def at_end(self) -> bool:
        self.skip()
        return self.pos >= len(self.data)

    def keyword(self) -> bytes:
        self.skip()
        m = _REGULAR.match(self.data, self.pos)
        if not m:
            raise PdfSyntaxError(f"expected a keyword at byte {self.origin + self.pos}")
        self.pos = m.end()
        return m.group()

    def expect(self, word: bytes) -> None:
        got = self.keyword()
        if got != word:
            at = self.origin + self.pos - len(got)
            raise PdfSyntaxError(f"expected {word.decode()!r} at byte {at}, found {got[:20]!r}")

    # -- objects -------------------------------------------------------------------------
    def parse(self, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise TooDeep(f"arrays or dictionaries nested more than {MAX_DEPTH} deep (an attack or damage)")
        m = _ATOM.match(self.data, self.pos)
        if m:
            self.pos = m.end()
            return _atom(m)
        self.skip()
        data, pos = self.data, self.pos
        if pos >= len(data):
            raise PdfSyntaxError("unexpected end of data")
        c = data[pos]
        if c == 0x2F:  # /
            return self._name()
        if c == 0x3C:  # <
            if data[pos + 1:pos + 2] == b"<":
                return self._dict(depth)
            return self._hex_string()
        if c == 0x28:  # (
            return self._literal_string()
        if c == 0x5B:  # [
            self.pos += 1
            items: list[Any] = []
            # an item that is an atom (a Widths array's numbers, a Differences array's names) is
            # read here, as parse(depth + 1) would read it, without a call a number
            atoms = _ATOM.match if depth < MAX_DEPTH else None
            while True:
                m = atoms(data, self.pos) if atoms is not None else None
                if m:
                    self.pos = m.end()
                    items.append(_atom(m))
                    continue
                self.skip()
                if self.data[self.pos:self.pos + 1] == b"]":
                    self.pos += 1
                    return items
                if self.pos >= len(self.data):
                    raise PdfSyntaxError("unterminated array")
                items.append(self.parse(depth + 1))
        m = _NUMBER.match(data, pos)
        if m:
            text = m.group()
            self.pos = m.end()
            if b"." not in text:
                value = _number(text)
                if _INT.fullmatch(text):
                    ref = _REF_TAIL.match(data, self.pos)
                    if ref:
                        self.pos = ref.end()
                        return Ref(int(value), int(ref.group(1)))
                return value
            return _number(text)
        word = self.keyword()
        if word == b"true":
            return True
        if word == b"false":
            return False
        if word == b"null":
            return None
        return Keyword(word.decode("latin-1"))

    def _name(self) -> Name:
        m = _REGULAR.match(self.data, self.pos + 1)
        raw = m.group() if m else b""
        self.pos += 1 + len(raw)
        if b"#" in raw:
            raw = _NAME_ESCAPE.sub(lambda e: bytes([int(e.group(1), 16)]), raw)
        return Name(raw.decode("latin-1"))

    def _dict(self, depth: int) -> dict[str, Any]:
        self.pos += 2
        out: dict[str, Any] = {}
        while True:
            self.skip()
            if self.data[self.pos:self.pos + 2] == b">>":
                self.pos += 2
                return out
            if self.pos >= len(self.data):
                raise PdfSyntaxError("unterminated dictionary")
            key = self.parse(depth + 1)
            if not isinstance(key, Name):
                raise PdfSyntaxError(f"dictionary key is not a name near byte {self.origin + self.pos}")
            self.skip()
            if self.data[self.pos:self.pos + 2] == b">>":
                out[key] = None  # a key without a value: tolerated, reads as null
                continue
            out[key] = self.parse(depth + 1)

    def _hex_string(self) -> bytes:
        m = _HEX_STRING.match(self.data, self.pos)
        if not m and not self.complete and self.data.find(b">", self.pos) < 0:
            raise NeedMore(8 * len(self.data))
        if not m:
            raise PdfSyntaxError(f"bad hex string at byte {self.origin + self.pos}")
        self.pos = m.end()
        digits = bytes(b for b in m.group(1) if b not in WHITESPACE)
        if len(digits) % 2:
            digits += b"0"
        return bytes.fromhex(digits.decode("ascii"))

    def _literal_string(self) -> bytes:
        data, pos, depth = self.data, self.pos + 1, 1
        out = bytearray()
        while True:
            m = _STRING_SPECIAL.search(data, pos)
            if not m and not self.complete:
                raise NeedMore(8 * len(data))
            if not m:
                raise PdfSyntaxError("unterminated string")
            out += data[pos:m.start()]
            pos = m.end()
            c = m.group()
            if c == b"(":
                depth += 1
                out += c
            elif c == b")":
                depth -= 1
                if depth == 0:
                    self.pos = pos
                    return bytes(out)
                out += c
            else:
                pos = self._escape(data, pos, out)

    @staticmethod
    def _escape(data: Any, pos: int, out: bytearray) -> int:
        e = data[pos:pos + 1]
        if not e:
            return pos
        if e[0] in _ESCAPES:
            out += _ESCAPES[e[0]]
            return pos + 1
        if e in b"\r\n":  # a line continuation
            return pos + (2 if data[pos:pos + 2] == b"\r\n" else 1)
        if e in b"01234567":
            m = re.match(rb"[0-7]{1,3}", data[pos:pos + 3])
            assert m is not None  # `e`, its first byte, is an octal digit
            out.append(int(m.group(), 8) & 0xFF)
            return pos + len(m.group())
        out += e
        return pos + 1

    # -- indirect objects ----------------------------------------------------------------
    def indirect(self, expect: Ref | None = None) -> tuple[Ref, Any]:
        """`N G obj … endobj` at the current position, with the stream data when there is one."""
        self.skip()
        start = self.pos
        num, gen = self.keyword(), self.keyword()
        if not (num.isdigit() and gen.isdigit()):
            raise PdfSyntaxError(f"no object header at byte {self.origin + start}")
        self.expect(b"obj")
        ref = Ref(int(num), int(gen))
        if expect is not None and ref.num != expect.num:
            raise PdfSyntaxError(f"object {expect.num} expected at byte {self.origin + start}, found {ref.num}")
        value = self.parse()
        if isinstance(value, dict):
            self.skip()
            if self.data[self.pos:self.pos + 6] == b"stream":
                value = self._stream_body(value)
        return ref, value

    def _stream_body(self, dictionary: dict[str, Any]) -> Stream:
        pos = self.pos + 6
        if self.data[pos:pos + 2] == b"\r\n":
            pos += 2
        elif self.data[pos:pos + 1] in (b"\n", b"\r"):
            pos += 1
        length = dictionary.get("Length")
        if isinstance(length, Ref) and self.resolve_length is not None:
            length = self.resolve_length(length)
        end = pos + length if isinstance(length, int) and length >= 0 else -1
        if not self.complete and end + 30 > len(self.data):
            raise NeedMore(end + 4096 if end >= 0 else 8 * len(self.data))
        # The data must end where `endstream` begins (after an end of line): "endstream
        # somewhere in the next 30 bytes" took a /Length a few bytes short as right and cut
        # the stream there.
        tail = bytes(self.data[end:end + 30]).lstrip(WHITESPACE) if end >= 0 else b""
        if end < 0 or end > len(self.data) or not tail.startswith(b"endstream"):
            # A wrong /Length: fall back to the endstream keyword, as every reader does.
            found = self.data.find(b"endstream", pos)
            if found < 0:
                if not self.complete:
                    raise NeedMore(8 * len(self.data))
                raise PdfSyntaxError("stream without endstream")
            end = found
            while end > pos and self.data[end - 1] in b"\r\n":
                end -= 1
        raw = bytes(self.data[pos:end])
        self.pos = self.data.find(b"endstream", end) + 9
        return Stream(dictionary, raw)


# -- serialising --------------------------------------------------------------------------
def serialize(value: Any) -> bytes:
    """Deterministic PDF syntax for a value (dict order is kept as given)."""
    out: list[bytes] = []
    _write(value, out)
    return b"".join(out)


def _write(value: Any, out: list[bytes]) -> None:
    if value is None:
        out.append(b"null")
    elif value is True:
        out.append(b"true")
    elif value is False:
        out.append(b"false")
    elif isinstance(value, Name):
        out.append(b"/" + _name_bytes(value))
    elif isinstance(value, Keyword):
        out.append(value.encode("latin-1"))
    elif isinstance(value, Ref):
        out.append(b"%d %d R" % (value.num, value.gen))
    elif isinstance(value, int):
        out.append(b"%d" % value)
    elif isinstance(value, float):
        out.append(format_number(value).encode())
    elif isinstance(value, HexString):
        out.append(b"<" + value.hex().upper().encode() + b">")
    elif isinstance(value, (bytes, bytearray)):
        out.append(literal_string(bytes(value)))
    elif isinstance(value, str):
        out.append(literal_string(text_string(value)))
    elif isinstance(value, (list, tuple)):
        out.append(b"[")
        for i, item in enumerate(value):
            if i:
                out.append(b" ")
            _write(item, out)
        out.append(b"]")
    elif isinstance(value, dict):
        out.append(b"<<")
        for key, item in value.items():
            out.append(b"/" + _name_bytes(key) + b" ")
            _write(item, out)
            out.append(b" ")
        out.append(b">>")
    elif isinstance(value, Stream):
        raise TypeError("a stream is only valid as an indirect object")
    else:
        raise TypeError(f"cannot write {type(value).__name__} as PDF")


_PLAIN_NAME = LazyPattern(r"[!-~]*")
_NAME_SPECIAL = frozenset(DELIMITERS + b"#")


def _name_bytes(name: str) -> bytes:
    if _PLAIN_NAME.fullmatch(name) and not any(ord(c) in _NAME_SPECIAL for c in name):
        return name.encode("ascii")
    raw = name.encode("latin-1") if all(ord(c) < 256 for c in name) else name.encode("utf-8")
    return b"".join(
        bytes([b]) if 0x21 <= b <= 0x7E and b not in DELIMITERS and b != 0x23 else b"#%02X" % b for b in raw
    )


def format_number(value: float) -> str:
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def literal_string(raw: bytes) -> bytes:
    """A `( … )` string with every special byte escaped, so it can never end early."""
    out = raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")
    return b"(" + out.replace(b"\r", b"\\r").replace(b"\n", b"\\n") + b")"


# PDFDocEncoding agrees with Latin-1 on printable ASCII and on 0xA1-0xFF except 0xAD;
# anything outside that safe range goes out as UTF-16BE with a BOM.
def text_string(text: str) -> bytes:
    if all(0x20 <= ord(c) < 0x7F or (0xA1 <= ord(c) <= 0xFF and ord(c) != 0xAD) for c in text):
        return text.encode("latin-1")
    return b"\xfe\xff" + text.encode("utf-16-be")


_PDFDOC_HIGH = {0x80: "•", 0x81: "†", 0x82: "‡", 0x83: "…", 0x84: "—", 0x85: "–", 0x86: "ƒ", 0x87: "⁄",
                0x88: "‹", 0x89: "›", 0x8A: "−", 0x8B: "‰", 0x8C: "„", 0x8D: "“", 0x8E: "”", 0x8F: "‘",
                0x90: "’", 0x91: "‚", 0x92: "™", 0x93: "ﬁ", 0x94: "ﬂ", 0x95: "Ł", 0x96: "Œ", 0x97: "Š",
                0x98: "Ÿ", 0x99: "Ž", 0x9A: "ı", 0x9B: "ł", 0x9C: "œ", 0x9D: "š", 0x9E: "ž", 0xA0: "€"}


def decode_text(raw: Any) -> str | None:
    """A PDF text string (PDFDocEncoding, UTF-16 with BOM, or UTF-8 with BOM) as str."""
    if not isinstance(raw, (bytes, bytearray)):
        return None
    if raw[:2] == b"\xfe\xff":
        return raw[2:].decode("utf-16-be", "replace")
    if raw[:2] == b"\xff\xfe":
        return raw[2:].decode("utf-16-le", "replace")
    if raw[:3] == b"\xef\xbb\xbf":
        return raw[3:].decode("utf-8", "replace")
    return "".join(_PDFDOC_HIGH.get(b, chr(b)) for b in raw)


def indirect_object(ref: Ref, value: Any) -> bytes:
    """`N G obj … endobj` bytes; a Stream gets its /Length set from its raw data."""
    head = b"%d %d obj\n" % (ref.num, ref.gen)
    if isinstance(value, Stream):
        d = {k: v for k, v in value.dict.items() if k != "Length"}
        d[Name("Length")] = len(value.raw)
        return head + serialize(d) + b"\nstream\n" + value.raw + b"\nendstream\nendobj\n"
    return head + serialize(value) + b"\nendobj\n"
