"""Does a font's text layer say the letters its glyphs draw? (issue 32, "visible means visible")

A simple font names the glyph each code draws: by its `/Differences` encoding, or by a
standard encoding (WinAnsi, MacRoman, Standard) where `/Differences` is silent. Its
`/ToUnicode` map separately says which text each code is. A viewer draws the named glyph; a
text extractor, and so pithtex, reads the map. A font whose map says other letters than its
glyph names (glyphs that draw "Satoshi Nakamoto", a map that reads the record's title) shows
a reader one text and pithtex another: such a page's text is not taken at its word.

Only names that mean a letter are compared (`a`, `Eacute`, `fi`, `uni0041`, `seven`); a name
without meaning (`g123`, a Type 3 font's `a0`) and composite (Type 0) fonts, whose codes
name no glyph, say nothing here (docs/trust.md says what a forger can still do with them).
Pure functions over pithtex's own reader's objects; `page.py` calls `lies` for each font page
1 uses.
"""

from __future__ import annotations

import re
from types import MappingProxyType

from ..limits import MAX_TOUNICODE_BYTES
from ..value import TYPE_CHECKING
from .errors import Oversize, PdfSyntaxError
from .objects import Stream
from .reader import decode_stream

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from .reader import PdfFile

# Glyph names of the Adobe Glyph List whose text is a digit, and the letters AGL names apart.
_NAMED = {"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
          "eight": "8", "nine": "9", "germandbls": "ss", "ae": "ae", "AE": "AE", "oe": "oe", "OE": "OE",
          "oslash": "o", "Oslash": "O", "dotlessi": "i", "dotlessj": "j", "lslash": "l", "Lslash": "L",
          "eth": "d", "Eth": "D", "thorn": "th", "Thorn": "TH", "ff": "ff", "fi": "fi", "fl": "fl", "ffi": "ffi",
          "ffl": "ffl", "dcroat": "d", "Dcroat": "D", "SS": "SS", "IJ": "IJ", "ij": "ij", "Eng": "Ŋ", "eng": "ŋ"}
# Greek letters by their glyph names (OT1's capitals, math italic's letters)
_GREEK = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu", "nu",
          "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega")
_NAMED.update({name: chr(0x3B1 + i + (i > 16)) for i, name in enumerate(_GREEK)})
_NAMED.update({name.capitalize(): chr(0x391 + i + (i > 16)) for i, name in enumerate(_GREEK)})
# A letter and an accent, as the Adobe Glyph List names accented letters (`eacute`, `Ccaron`).
_ACCENTED = (r"([A-Za-z])(acute|grave|circumflex|dieresis|tilde|ring|cedilla|caron|macron|breve|ogonek"
                       r"|dotaccent|hungarumlaut|commaaccent)")
_UNI = r"uni((?:[0-9A-F]{4})+)|u([0-9A-F]{4,6})"
# The standard 14 fonts that draw letters: not embedded, they are drawn by the viewer's own
# font of that name, so a standard encoding's code names the letter it draws.
_STANDARD_TEXT = r"(Helvetica|Times|Courier|Arial|TimesNewRoman|CourierNew)\b[-,A-Za-z]*"
_STANDARD_ENCODINGS = frozenset({"WinAnsiEncoding", "MacRomanEncoding", "StandardEncoding"})
# Patterns are compiled on first use (re caches them), never when the module is imported.
_SIMPLE = frozenset({"Type1", "MMType1", "TrueType"})


def glyph_text(name: str) -> str | None:
    """The text a glyph name means, by the Adobe Glyph List's rules for the names that spell
    letters and digits (suffixes `.sc`, `.alt` dropped, `f_i` joined); None: no meaning known.
    Each name worked out once a process (a font names the same few hundred glyphs as the next);
    at most _GLYPHS_KEPT names, none longer than _NAME_KEPT characters, are kept."""
    if name in _glyphs:
        return _glyphs[name]
    text = _glyph_text(name)
    if len(name) <= _NAME_KEPT and len(_glyphs) < _GLYPHS_KEPT:
        _glyphs[name] = text
    return text


_GLYPHS_KEPT, _NAME_KEPT = 4096, 64
_glyphs: dict[str, str | None] = {}


def _glyph_text(name: str) -> str | None:
    parts = name.split(".", 1)[0].split("_")
    out = []
    for part in parts:
        text = _part(part)
        if text is None:
            return None
        out.append(text)
    return "".join(out) or None


def _part(part: str) -> str | None:
    if len(part) == 1 and part.isascii() and part.isalpha():
        return part
    if part in _NAMED:
        return _NAMED[part]
    m = re.fullmatch(_ACCENTED, part)
    if m:
        return m[1]
    m = re.fullmatch(_UNI, part)
    if m:
        if m[1]:
            return "".join(chr(int(m[1][i:i + 4], 16)) for i in range(0, len(m[1]), 4))
        code = int(m[2], 16)
        return chr(code) if code <= 0x10FFFF else None
    return None


def lies(pdf: PdfFile, font: Any, used: frozenset[int] | None = None) -> str | None:
    """How a simple font's ToUnicode map contradicts its glyph names ("code 0x41 draws the glyph
    'S', its text layer says 'A'"), or None when it does not (or cannot be told). `used`: only
    these codes are looked at (those page 1 shows; a TeX font's map covers its whole encoding)."""
    return judged(pdf, font, used)[0]


def untold(pdf: PdfFile, font: Any, used: frozenset[int] | None = None) -> str | None:
    """Why a font's glyphs cannot be told from its text layer by their names ("a composite
    (Type 0) font, whose codes name no glyph"), or None when they can: a simple font whose
    every code its ToUnicode map reads as a letter or digit names a glyph that means one (then
    `lies` compares them), or, without a map, whose text is its glyph names. A title set in an
    untold font is read from the rendered page (pithtex/pdf/ocr.py) or not taken at all.
    `used`: only these codes are looked at, as in `lies`."""
    return judged(pdf, font, used)[1]


def judged(pdf: PdfFile, font: Any, used: frozenset[int] | None = None) -> tuple[str | None, str | None]:
    """(`lies`, `untold`) of a font, from one reading of its encoding and ToUnicode map."""
    return read_font(pdf, font).judged(used)


class FontText:
    """A font's encoding and ToUnicode map, read once and judged for as many sets of codes as
    asked (page.py judges a font for all its codes, then, found wanting, for those page 1 shows).
    `fixed`: the verdict whatever the codes (a font whose map is not read)."""

    __slots__ = ("complete", "fixed", "kind", "mapping", "names", "problems")

    def __init__(self, kind: str, names: dict[int, str], complete: bool, mapping: Mapping[int, str] | None,
                 fixed: tuple[str | None, str | None] | None) -> None:
        self.kind, self.names, self.complete, self.mapping, self.fixed = kind, names, complete, mapping, fixed
        self.problems: list[tuple[int, bool, str]] | None = None

    def judged(self, used: frozenset[int] | None = None) -> tuple[str | None, str | None]:
        """(`lies`, `untold`) for the codes in `used` (None: every code the map reads): the
        first code, in the map's order, whose glyph says other letters, and the first whose
        glyph says no letter its text does."""
        if self.fixed is not None or self.mapping is None:
            return self.fixed or (None, None)
        lie = why = None
        for code, is_lie, said in self._problems():
            if used is not None and code not in used:
                continue
            if is_lie and lie is None:
                lie = said
            elif not is_lie and why is None:
                why = said
            if lie is not None and why is not None:
                break
        return lie, why

    def _problems(self) -> list[tuple[int, bool, str]]:
        """Each code whose glyph and text disagree, in the map's order: (code, a lie? else
        untold, what it says); worked out once, whatever codes are then asked about."""
        if self.problems is not None:
            return self.problems
        from .titles import key

        kind, names, complete = self.kind, self.names, self.complete
        found: list[tuple[int, bool, str]] = []
        for code, text in (self.mapping or {}).items():
            name = names.get(code)
            meant = glyph_text(name) if name is not None else None
            if meant == text:
                continue  # most codes: the letter its glyph is named for
            if meant is None:
                if name is None and complete:
                    continue  # the code draws .notdef, no letter
                if key(text):  # a letter or digit, which a title shows by
                    found.append((code, False, f"a {kind} font with its own encoding (code {code:#04x}), which "
                                  "pithtex does not read" if name is None else f"a {kind} font whose code "
                                  f"{code:#04x} reads {text!r} but draws the glyph '{name}'"))
                continue
            drawn, read = key(meant), key(text)
            if drawn and read and drawn != read:
                found.append((code, True, f"code {code:#04x} draws the glyph '{name}', its text layer says {text!r}"))
        self.problems = found
        return found


def read_font(pdf: PdfFile, font: Any) -> FontText:
    """A font's encoding and ToUnicode map as `FontText` (its verdict fixed where they say nothing)."""
    font = pdf.resolve(font)
    kind = font.get("Subtype") if isinstance(font, dict) else None
    if kind == "Type0":
        return FontText("Type0", {}, False, None, (None, "a composite (Type 0) font, whose codes name no glyph"))
    if kind == "Type3":
        return FontText("Type3", {}, False, None, (None, "a Type 3 font, whose glyphs are drawings of its own"))
    if not isinstance(font, dict) or not isinstance(kind, str) or kind not in _SIMPLE:
        return FontText("", {}, False, None, (None, "a font pithtex does not read"))
    names, complete = _encoding(pdf, font)
    mapping = pdf.resolve(font.get("ToUnicode"))
    if not isinstance(mapping, Stream):
        # the text is what the glyph names say: read by PDFium from the same encoding, or from
        # the program's own (a Type 1 program's is read above; a CFF or TrueType one's is not)
        return FontText(kind, names, complete, None,
                        (None, None if names else f"a {kind} font with its own encoding, which pithtex does not read"))
    try:
        data = decode_stream(mapping, limit=MAX_TOUNICODE_BYTES)
    except (Oversize, PdfSyntaxError):
        return FontText(kind, names, complete, None, (None, f"a {kind} font whose ToUnicode map cannot be read"))
    return FontText(kind, names, complete, to_unicode(data), None)


# Parsed ToUnicode maps, by the digest of their decoded bytes: a TeX font's map is the same bytes
# in every paper set in it (it covers the font's whole encoding, not its subset), so a process
# reading a folder parses each once. A map is judged against each font's own glyph names, never
# taken from the cache as a verdict. At most MAPS_KEPT maps are kept, the oldest dropped first.
MAPS_KEPT = 64
_maps: dict[bytes, Mapping[int, str]] = {}
# how many maps this process has parsed (tests count them; a cached map is not parsed again)
map_parses = [0]


def to_unicode(data: bytes) -> Mapping[int, str]:
    """A decoded ToUnicode CMap's one-byte codes and their text, parsed once a process for the
    same bytes (a read-only mapping: it is shared)."""
    import hashlib

    digest = hashlib.blake2b(data, digest_size=20).digest()
    found = _maps.get(digest)
    if found is None:
        map_parses[0] += 1
        found = MappingProxyType(_to_unicode(data))
        if len(_maps) >= MAPS_KEPT:
            del _maps[next(iter(_maps))]
        _maps[digest] = found
    return found


def font_key(name: str) -> str:
    """A font's name as both readers give it: without a subset's tag (`ABCDEF+`) and a composite
    font's CMap suffix (`-Identity-H`), which PDFium drops and pithtex's reader keeps."""
    return re.sub(r"-Identity-[HV]$", "", re.sub(r"^[A-Z]{6}\+", "", name))


def _glyph_names(pdf: PdfFile, font: dict[str, Any]) -> dict[int, str]:
    return _encoding(pdf, font)[0]


# Standard encodings whose every code Python's codecs know (letters as uniXXXX names).
_CODECS = {"WinAnsiEncoding": "cp1252", "MacRomanEncoding": "mac_roman"}
_CODEC_NAMES: dict[str, dict[int, str]] = {}


def _encoding(pdf: PdfFile, font: dict[str, Any]) -> tuple[dict[int, str], bool]:
    """The glyph name of each one-byte code the font names, and whether a code it leaves out
    draws no glyph (.notdef) rather than one its program names: its /Differences, over a
    standard encoding's names (WinAnsi and MacRoman whole; else, or for a non-embedded standard
    font, the letters and digits, whose codes every standard encoding gives their ASCII names),
    or over an embedded Type 1 program's own encoding, read from the program."""
    encoding = pdf.resolve(font.get("Encoding"))
    base = encoding.get("BaseEncoding") if isinstance(encoding, dict) else encoding
    names: dict[int, str] = {}
    complete = False
    builtin = _builtin_names(pdf, font) if base is None else None
    if base in _STANDARD_ENCODINGS or (base is None and _standard_font(pdf, font)) or builtin == _STANDARD:
        names = _standard_names()
        if isinstance(base, str) and base in _CODECS:
            names = _codec_names(_CODECS[base]) | names
            complete = True
    elif builtin is not None:
        names, complete = builtin, True
    differences = pdf.resolve(encoding.get("Differences")) if isinstance(encoding, dict) else None
    if isinstance(differences, list):
        code = 0
        for item in differences[:1024]:
            item = pdf.resolve(item)
            if isinstance(item, int):
                code = item
            elif isinstance(item, str) and 0 <= code < 256:
                names[code] = item
                code += 1
    return names, complete


def _codec_names(codec: str) -> dict[int, str]:
    """Each code's character in a standard encoding, as a uniXXXX glyph name (made once a
    process: a shared dict, never changed by its callers)."""
    if codec in _CODEC_NAMES:
        return _CODEC_NAMES[codec]
    out = {}
    for code in range(0x20, 0x100):
        try:
            out[code] = f"uni{ord(bytes([code]).decode(codec)):04X}"
        except UnicodeDecodeError:
            continue  # no character there: .notdef
    _CODEC_NAMES[codec] = out
    return out


_DIGITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def _standard_names() -> dict[int, str]:
    names = {code: chr(code) for code in range(0x30, 0x7B) if chr(code).isalnum()}
    names.update({code: name for code, name in zip(range(0x30, 0x3A), _DIGITS, strict=True)})
    return names


# The cleartext part of a Type 1 program read for its encoding, at most (a font's is a few kB).
_CLEARTEXT = 64 * 1024
_STANDARD = {-1: "StandardEncoding"}  # what _builtin_names says of `/Encoding StandardEncoding def`
_ENCODING_ENTRY = rb"dup\s+(\d{1,3})\s*/([^\s/\[\]()<>{}%]{1,64})\s+put"


def _builtin_names(pdf: PdfFile, font: dict[str, Any]) -> dict[int, str] | None:
    """The encoding an embedded Type 1 program (FontFile) declares in its cleartext part: each
    `dup CODE /name put`, or _STANDARD for `/Encoding StandardEncoding def`. None when the font
    has no such program, or it cannot be read (its encoding then stays unknown: `untold`)."""
    if font.get("Subtype") not in ("Type1", "MMType1"):
        return None
    descriptor = pdf.resolve(font.get("FontDescriptor"))
    program = pdf.resolve(descriptor.get("FontFile")) if isinstance(descriptor, dict) else None
    if not isinstance(program, Stream):
        return None
    text = _cleartext(program)
    if text is None:
        return None
    start = text.find(b"/Encoding")
    if start < 0:
        return None
    if re.match(rb"/Encoding\s+StandardEncoding\s+def", text[start:]):
        return _STANDARD
    end = text.find(b"readonly def", start)
    names = {int(m[1]): m[2].decode("latin-1")
             for m in re.finditer(_ENCODING_ENTRY, text[start:end if end > 0 else len(text)])}
    return {code: name for code, name in names.items() if code < 256}


def _cleartext(program: Stream) -> bytes | None:
    """A Type 1 program's cleartext part, up to `eexec`, when it alone declares the encoding: a
    font renderer (FreeType, in PDFium) also takes an `/Encoding` from the encrypted part before
    its `/Private` dictionary, and the last of several, so a program with an `/Encoding` there,
    or with two, is None (its encoding unknown), as is one stored otherwise than plain or Flate."""
    filters = program.dict.get("Filter")
    if filters is None:
        data = program.raw[:2 * _CLEARTEXT]
    elif filters in ("FlateDecode", ["FlateDecode"]):
        import zlib

        try:
            data = zlib.decompressobj().decompress(program.raw, 2 * _CLEARTEXT)
        except zlib.error:
            return None
    else:
        return None
    end = data.find(b"eexec")
    if end < 0 or end > _CLEARTEXT or data.count(b"/Encoding", 0, end) > 1:
        return None
    private = _decrypted(data[end + 5:].lstrip(b" \t\r\n"))
    return data[:end] if private is not None and b"/Encoding" not in private else None


# eexec encryption (Adobe Type 1 Font Format, 7.2): its key and constants
_EEXEC_KEY, _C1, _C2 = 55665, 52845, 22719


def _decrypted(cipher: bytes) -> bytes | None:
    """The encrypted part of a Type 1 program decrypted up to its `/Private` dictionary (binary,
    or hexadecimal as a renderer takes it when its first four bytes are hex digits); None when
    it has none within what was read."""
    if re.fullmatch(rb"[0-9A-Fa-f]{4}", cipher[:4]):
        digits = re.sub(rb"[^0-9A-Fa-f]", b"", cipher)
        cipher = bytes.fromhex(digits[: len(digits) // 2 * 2].decode("ascii"))
    r = _EEXEC_KEY
    plain = bytearray()
    for c in cipher:
        plain.append(c ^ (r >> 8))
        r = ((c + r) * _C1 + _C2) & 0xFFFF
        if plain.endswith(b"/Private"):
            return bytes(plain[4:])
    return None


def _standard_font(pdf: PdfFile, font: dict[str, Any]) -> bool:
    """A standard font a viewer supplies itself: named so, and not embedded."""
    name = font.get("BaseFont")
    if not isinstance(name, str) or not re.fullmatch(_STANDARD_TEXT, name):
        return False
    descriptor = pdf.resolve(font.get("FontDescriptor"))
    if not isinstance(descriptor, dict):
        return True
    flags = pdf.resolve(descriptor.get("Flags"))
    symbolic = isinstance(flags, int) and flags & 4 and not flags & 32
    embedded = any(descriptor.get(key) is not None for key in ("FontFile", "FontFile2", "FontFile3"))
    return not embedded and not symbolic


_HEX = rb"<([0-9A-Fa-f\s]*)>|\[|\]|(begin|end)(bfchar|bfrange)"


def _to_unicode(data: bytes) -> dict[int, str]:
    """A ToUnicode CMap's one-byte codes and their text (bfchar and bfrange, arrays included)."""
    out: dict[int, str] = {}
    section: bytes | None = None
    items: list[Any] = []
    array: list[bytes] | None = None
    for m in re.finditer(_HEX, data):
        token = m.group(0)
        if m.group(2):
            section = m.group(3) if m.group(2) == b"begin" else None
            items = []
            continue
        if section is None:
            continue
        if token == b"[":
            array = []
            continue
        if token == b"]":
            items.append(array or [])
            array = None
        elif array is not None:
            array.append(_hex(m.group(1)))
            continue
        else:
            items.append(_hex(m.group(1)))
        wanted = 2 if section == b"bfchar" else 3
        if len(items) == wanted:
            _add(out, section, items)
            items = []
    return out


def _add(out: dict[int, str], section: bytes, items: list[Any]) -> None:
    if not all(isinstance(item, bytes) for item in items[:2]) or len(items[0]) != 1:
        return  # codes of more than one byte: not a simple font's
    low = items[0][0]
    if section == b"bfchar":
        if isinstance(items[1], bytes):
            out[low] = _utf16(items[1])
        return
    high, target = items[1][0] if items[1] else low, items[2]
    for offset, code in enumerate(range(low, min(high, 255) + 1)):
        if isinstance(target, list):
            if offset < len(target):
                out[code] = _utf16(target[offset])
        elif target:
            out[code] = _utf16(target[:-2] + (int.from_bytes(target[-2:], "big") + offset).to_bytes(2, "big")
                               if len(target) >= 2 else target)


def _hex(text: bytes) -> bytes:
    digits = b"".join(text.split())
    if len(digits) % 2:
        digits += b"0"
    return bytes.fromhex(digits.decode("ascii"))


def _utf16(data: bytes) -> str:
    return data.decode("utf-16-be", "replace")


# -- the codes page 1 shows in each font -----------------------------------------------------------
# A content stream's tokens: a literal string's opening parenthesis (read on by _literal), a hex
# string, a name, a dictionary's brackets, a comment, an operator or number. Compiled on first use.
# Two shortcuts come first, each read as the tokens it stands for would be: a TJ array of literal
# strings without parentheses inside but escaped ones (pdfTeX's `\\034`), hex strings and numbers
# (each ending where a delimiter starts: a run of digits is one number, so the match takes linear
# time), and such a literal string alone. (?s): an escaped end of line is an escape too.
_PLAIN = rb"[^\\()]*(?:\\.[^\\()]*)*"  # a literal string's body: escapes, no parenthesis (unrolled: linear)
_CONTENT = (rb"(?s)\[((?:\s*(?:\(" + _PLAIN + rb"\)|<[0-9A-Fa-f\s]*>|[-+.0-9]+(?=[\s()<\]])))*)"
            rb"\s*\]\s*TJ(?![^\s/\[\]()<>{}%])|\((" + _PLAIN + rb")\)"
            rb"|\(|<<|>>|<([0-9A-Fa-f\s]*)>|/([^\s/\[\]()<>{}%]*)|%[^\r\n]*|([^\s/\[\]()<>{}%]+)|[\[\]{}]")
# a plain TJ array's tokens: a literal string, a hex string, a number
_ARRAY = rb"(?s)\((" + _PLAIN + rb")\)|<([0-9A-Fa-f\s]*)>|([-+.0-9]+)"
_ESCAPE = rb"(?s)\\([0-7]{1,3}|.)"
_SHOWING = frozenset({b"Tj", b"TJ", b"'", b'"'})
# Tokens read for the codes shown, at most, page 1 in all (a real page 1 has tens of thousands):
# past them every code of every font counts as shown.
MAX_TOKENS = 400_000


def shown_codes(data: bytes, fonts: dict[str, int], used: dict[int, set[int]], budget: list[int]) -> bool:
    """Add to `used` (by font key) each one-byte code that `data`, a content stream whose font
    resources `fonts` names (resource name to font key), shows with Tj, TJ, ' and ". Inline
    images are skipped whole; a string that does not end ends the reading. False when it spent
    budget[0] tokens before its end (then what it found is not all that is shown)."""
    font: int | None = None
    name: str | None = None
    strings: list[bytes] = []
    at = 0
    tokens = re.compile(_CONTENT)
    while True:
        m = tokens.search(data, at)
        if m is None:
            return True
        budget[0] -= 1
        if budget[0] < 0:
            return False
        at = m.end()
        token = m.group(0)
        if m.group(1) is not None:  # [ ... ] TJ, its tokens counted as if read one by one
            items = re.findall(_ARRAY, m.group(1))
            budget[0] -= len(items) + 2  # and `]` and `TJ`
            if budget[0] < 0:
                return False
            if font is not None:
                strings.extend(_hex(hexed) if hexed else _unescaped(plain) for plain, hexed, number in items
                               if not number)
                used.setdefault(font, set()).update(*strings)  # each string's bytes, in C
            strings = []
        elif m.group(2) is not None:
            strings.append(_unescaped(m.group(2)))
        elif token == b"(":
            literal = _literal(data, at)
            if literal is None:
                return True
            at, text = literal
            strings.append(text)
        elif m.group(3) is not None:
            strings.append(_hex(m.group(3)))
        elif m.group(4) is not None:
            name = m.group(4).decode("latin-1")
        elif m.group(5) is not None:
            word = m.group(5)
            if word == b"Tf":
                font = fonts.get(name or "")
            elif word in _SHOWING:
                if font is not None:
                    used.setdefault(font, set()).update(*strings)  # each string's bytes, in C
                strings = []
            elif word == b"ID":  # an inline image's data, up to EI
                end = re.compile(rb"\sEI(?![^\s/\[\]()<>{}%])").search(data, at)
                at = end.end() if end else len(data)
            elif not word[:1].isdigit() and word[:1] not in b"+-.":
                strings = []  # another operator: what it took is no text shown


def _unescaped(body: bytes) -> bytes:
    """A literal string's bytes with its escapes undone, as `_literal` undoes them."""
    return re.sub(_ESCAPE, _escape, body) if b"\\" in body else body


_ESCAPED = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"f": b"\f", b"\r": b"", b"\n": b""}


def _escape(m: re.Match[bytes]) -> bytes:
    found = m.group(1)
    if b"0" <= found[:1] <= b"7":
        return bytes([int(found, 8) & 0xFF])
    return _ESCAPED.get(found, found)


def _literal(data: bytes, at: int) -> tuple[int, bytes] | None:
    """A literal string's bytes from `at` (after its opening parenthesis) to its balanced end, as
    (where it ends, its bytes with escapes undone); None when it does not end."""
    out = bytearray()
    depth = 1
    special = re.compile(rb"[\\()]")
    while True:
        m = special.search(data, at)
        if m is None:
            return None
        out += data[at:m.start()]
        c = m.group(0)
        if c == b"\\":
            escape = data[m.end():m.end() + 1]
            at = m.end() + 1
            octal = re.match(rb"[0-7]{1,3}", data[m.end():m.end() + 3])
            if octal:
                out.append(int(octal.group(0), 8) & 0xFF)
                at = m.end() + len(octal.group(0))
            elif escape in b"nrtbf":
                out += {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"f": b"\f"}[escape] if escape else b""
            elif escape not in b"\r\n":
                out += escape
            continue
        at = m.end()
        depth += 1 if c == b"(" else -1
        if depth == 0:
            return at, bytes(out)
        out += c
