"""Text from untrusted places (records, file names, servers, PDFs) made safe for where it goes.

Two destinations, one rule each:
- a terminal or a log: control characters are shown as `\\uXXXX`, never obeyed, so a title,
  key id or file name cannot move the cursor, recolour, retitle or clear the screen, and
  bidirectional overrides cannot reorder what a line appears to say. `SafeStream` applies this
  to everything the command line prints (the `\\uXXXX` form keeps a --json document valid);
- XML and HTML (badges, snippets): the five special characters are escaped, and characters
  XML 1.0 forbids (C0 controls, lone surrogates, U+FFFE/U+FFFF) become U+FFFD, so a hostile
  field can neither inject markup nor make an SVG fail to parse.
"""

from __future__ import annotations

import re

from .value import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any, TextIO

# What no untrusted string may show as itself, on a terminal or in pith-badge.js's accessible
# name, tooltip and panel (the script has this table rendered in: one rule for both): C0 (tab
# and newline stay), DEL, C1 (U+009B is CSI on many terminals), every format character
# (Unicode's Cf: the soft hyphen, zero-width spaces and joiners, the bidi embeddings,
# overrides and isolates of "Trojan Source", the BOM, tag characters), and the line and
# paragraph separators. A literal table (code point ranges, inclusive), not a unicodedata scan
# at import: start-up time counts in every stamp; tests/test_text_hygiene.py holds it to
# Unicode's categories Cc, Cf, Zl and Zp (as of Unicode 15). Compiled on first use.
INVISIBLE_RANGES: tuple[tuple[int, int], ...] = (
    (0x0000, 0x0008), (0x000B, 0x001F), (0x007F, 0x009F), (0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C),
    (0x06DD, 0x06DD), (0x070F, 0x070F), (0x0890, 0x0891), (0x08E2, 0x08E2), (0x180E, 0x180E), (0x200B, 0x200F),
    (0x2028, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD),
    (0x110CD, 0x110CD), (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001),
    (0xE0020, 0xE007F), (0xD800, 0xDFFF),  # and lone surrogates, which no UTF-8 text holds
)
_TERMINAL_CONTROLS = "[" + "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in INVISIBLE_RANGES) + "]"
# Quote marks a quoted title may not hold unescaped (it would seem to end the quote early).
QUOTES = "\"\u00ab\u00bb\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u2039\u203a\u300c\u300d\uff02"
_NOT_XML = "[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]"
_compiled: dict[str, re.Pattern[str]] = {}


def _pattern(source: str) -> re.Pattern[str]:
    if source not in _compiled:
        _compiled[source] = re.compile(source)
    return _compiled[source]


def visible(text: str) -> str:
    """`text` with every control and format character (INVISIBLE_RANGES) spelled out as \\uXXXX."""
    if text.isascii() and text.isprintable():  # the usual line: nothing to look for
        return text
    return _pattern(_TERMINAL_CONTROLS).sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    """\\uXXXX, beyond the BMP as its UTF-16 surrogate pair: the one escape form JSON has, so
    a --json document with a tag character in it stays valid JSON (and decodes to that character)."""
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def shown(text: str, quote: bool = False) -> str:
    """A signed or foreign string (a title, a key id, a BibTeX key) as one line of text for a
    terminal or a page: whitespace runs become one space, and every control, format, bidi and
    zero-width character is spelled out as \\uXXXX, never obeyed nor hidden. With `quote`,
    it is set in curly quotes and its own quote marks are spelled out too, so nothing after
    its closing quote (`", arXiv:2401.99999`) can seem to be said outside it."""
    text = visible(" ".join(text.split()))
    if not quote:
        return text
    return "\u201c" + "".join(f"\\u{ord(c):04x}" if c in QUOTES else c for c in text) + "\u201d"


def invisible_in(text: str) -> bool:
    """Whether `text` holds a character of INVISIBLE_RANGES (a key id that does may pass for another)."""
    return visible(text) != text


def line(text: str) -> str:
    """`visible`, and newlines spelled out too: one value (a file name, a field of a record
    or PDF) printed on a report's line cannot start a line of its own, such as a forged
    `[ok  ] signature` line under a failed check."""
    return visible(text).replace("\n", "\\u000a")


def xml(text: str) -> str:
    """`text` escaped for XML/HTML text and attribute values (quotes included)."""
    import html

    return html.escape(_pattern(_NOT_XML).sub("\ufffd", text), quote=True)


def url(text: str) -> str:
    """A URL given for a snippet, with what could end its place in Markdown, reST or a srcset
    percent-encoded: whitespace and newlines, parentheses, commas, angle brackets and controls
    (`x.svg) [click](javascript:...)` must stay one image URL). `%` is kept, so a URL that is
    already encoded stays as it is; quotes are kept for `xml` to escape in HTML (in Markdown
    and reST they cannot end the URL once whitespace is encoded)."""
    from urllib.parse import quote

    return quote(text, safe=":/?#[]@!$&'\"*+;=%~-._")


class SafeStream:
    """A text stream whose `write` passes text through `visible`; everything else (buffer,
    isatty, flush, encoding) is the wrapped stream's. `unfiltered` is for pithtex's own
    control characters (the progress bar's carriage return)."""

    def __init__(self, stream: TextIO) -> None:
        self.unfiltered = stream

    def write(self, text: str) -> int:
        return self.unfiltered.write(visible(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.unfiltered, name)


def unfiltered(stream: Any) -> Any:
    """The stream under a SafeStream (itself otherwise)."""
    return getattr(stream, "unfiltered", stream) if isinstance(stream, SafeStream) else stream
