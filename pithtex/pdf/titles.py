"""Does a PDF's text show a paper's title? Pure functions: titles and page text in, answers out.

A title reaches a PDF's text layer changed in ways that say nothing about which paper it is:
ligatures (U+FB01, or a TeX font's own slot such as T1's 0x1C for "fi"), words hyphenated or
broken at line ends, spaces lost or added by the text extractor, upper-case and small-caps
title styles, accents set as separate marks, Unicode compatibility forms. arXiv's titles in
turn carry TeX: math ($\\mathcal{O}(n)$), accents (Schr\\"odinger), font commands (\\emph).
So both sides are reduced to a *key*: compatibility-decomposed, without accents, case-folded,
letters, digits and symbols kept ("C++" is not "C"), every run of white space and punctuation
one word break. A title's TeX math and unknown commands become bounded gaps in a pattern
(what a PDF shows for $\\mathcal{O}$ depends on its fonts), so a title is found when its
letters and symbols, in order, appear in page 1's key with nothing but word breaks (a line
end's hyphen, a space the extractor added or lost) or such gaps between, and it begins and
ends at word breaks: "BERT" is not found in "Robert", nor "On Art" in "Gordon Arthur".
"""

from __future__ import annotations

import re
import unicodedata

from ..value import LazyPattern

# Letters NFKD does not take apart, as the text extractor may give them either way.
_LETTERS = str.maketrans({"ı": "i", "ȷ": "j", "ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "đ": "d", "Đ": "D",
                          "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "þ": "th", "Þ": "TH", "ð": "d"})

# What a TeX font without a ToUnicode map puts at its low code points, as extracted
# (pypdf gives the raw code): OT1 and T1 disagree from 0x1B on, so both readings are tried.
_OT1 = dict(enumerate("ΓΔΘΛΞΠΣΥΦΨΩ")) | {0x0B: "ff", 0x0C: "fi", 0x0D: "fl", 0x0E: "ffi", 0x0F: "ffl",
                                        0x10: "i", 0x11: "j", 0x19: "ss", 0x1A: "ae", 0x1B: "oe", 0x1C: "o",
                                        0x1D: "AE", 0x1E: "OE", 0x1F: "O"}
_T1 = {0x19: "i", 0x1A: "j", 0x1B: "ff", 0x1C: "fi", 0x1D: "fl", 0x1E: "ffi", 0x1F: "ffl",
       # T1's upper half differs from Latin-1 here (Ł is 0x8A, œ 0xF7): Central European letters
       **dict(enumerate("ĂĄĆČĎĚĘĞĹĽŁŃŇŊŐŔŘŚŠŞŤŢŰŮŸŹŽŻĲİđ§ăąćčďěęğĺľłńňŋőŕřśšşťţűůÿźžżĳ¡¿£", start=0x80)),
       0xD0: "Đ", 0xD7: "Œ", 0xDF: "SS", 0xF0: "ð", 0xF7: "œ", 0xFF: "ß"}
_ENCODINGS = (str.maketrans(_OT1), str.maketrans(_T1))

# TeX in a title: text accents and special letters, commands whose argument is the text
# itself, and math. Any other command is a gap (\LaTeX prints letters the title lacks).
_ACCENTS = frozenset("'`^\"~=.uvHcdbkrt")
_SPECIAL = {"ss": "ss", "o": "o", "O": "O", "ae": "ae", "AE": "AE", "oe": "oe", "OE": "OE", "aa": "a",
            "AA": "A", "l": "l", "L": "L", "i": "i", "j": "j", "&": "&", "%": "%", "$": "$", "#": "#",
            "_": "_", "{": "", "}": "", " ": " ", ",": " ", ";": " ", ":": " ", "!": "", "-": ""}
_TEXT_COMMANDS = frozenset({
    "emph", "textbf", "textit", "textrm", "textsf", "texttt", "textsc", "textsl", "textup", "textnormal",
    "em", "bf", "it", "rm", "sf", "tt", "sc", "sl", "bfseries", "itshape", "scshape", "upshape", "mdseries",
    "normalfont", "mbox", "hbox", "text", "uppercase", "lowercase", "MakeUppercase", "MakeLowercase",
    "boldsymbol", "bm", "mathrm", "mathbf", "mathit", "mathsf", "mathtt", "mathcal", "mathbb", "mathfrak",
    "mathscr", "operatorname", "large", "Large", "LARGE", "huge", "Huge", "small", "footnotesize", "ensuremath",
    "protect", "relax", "xspace", "newline", "linebreak", "break", "\\", "allowbreak", "nobreak",
})
_TOKEN = re.compile(r"(?P<math>\$\$.*?\$\$|\$.*?(?:\$|$)|\\\(.*?\\\))|\\(?P<name>[A-Za-z]+|.?)|(?P<char>.)", re.S)
# The widest gap one math or unknown piece may stand for: its own key's length times this,
# plus a few characters (a calligraphic O may come out as two glyph names, or as nothing).
_GAP_FACTOR, _GAP_SLACK = 3, 6
# A title whose key has fewer letters than this outside math is not matched at all.
MIN_KEY = 4


def _folded(text: str) -> str:
    """Compatibility-decomposed, accents dropped, case-folded."""
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).translate(_LETTERS))
    text = "".join(c for c in text if not unicodedata.combining(c)).casefold()
    return unicodedata.normalize("NFKC", text)


def key(text: str) -> str:
    """Letters and digits only, compatibility-decomposed, accents dropped, case-folded."""
    return "".join(c for c in _folded(text) if c.isalnum() or c == _GLYPH)


# A word break in a marked key: a run of white space or punctuation.
_MARK = "\ue001"
# Symbols that tell titles apart ("C++", "C#", "A*", "99%"), kept where other punctuation breaks.
_KEPT = frozenset("#&@%*")
_SYMBOLS = frozenset({"Sm", "Sc", "So"})


def _kept(c: str) -> bool:
    return c.isalnum() or c == _GLYPH or c in _KEPT or unicodedata.category(c) in _SYMBOLS


def marked(text: str) -> str:
    """`key`, with symbols kept and each run of anything else one word break, which also
    stands at both ends."""
    out = [_MARK]
    for c in _folded(text):
        if _kept(c):
            out.append(c)
        elif out[-1] != _MARK:
            out.append(_MARK)
    if out[-1] != _MARK:
        out.append(_MARK)
    return "".join(out)


# A third reading: any control character left is one unknown glyph (a font with its own
# encoding puts "fi" wherever it likes, 0x02 say), which a title's ligature may stand for.
_GLYPH = "\ue000"
_UNKNOWN = str.maketrans({c: _GLYPH for c in range(0x20) if chr(c) not in "\t\n\r"})
_LIGATURE = re.compile("ffi|ffl|ff|fi|fl")


def page_keys(text: str) -> tuple[str, ...]:
    """The marked keys of extracted page text under each reading of TeX fonts' low code points."""
    keys = {marked(text.translate(table).translate(_UNKNOWN)) for table in _ENCODINGS}
    return tuple(sorted(keys))


# Between two letters of a title: any word breaks and unknown glyphs.
_BETWEEN = f"[{_MARK}{_GLYPH}]*"
# A title's first and last letters stand at word breaks (or unknown glyphs: a footnote mark).
_STARTS, _ENDS = f"(?<![^{_MARK}{_GLYPH}])", f"(?![^{_MARK}{_GLYPH}])"


def _literal(text: str) -> str:
    """A title's letters as a regular expression: each ligature may also be one unknown glyph;
    word breaks and unknown glyphs (a footnote mark in a font's own encoding) may sit between
    any two letters."""
    text = text.replace(_MARK, "")
    out: list[str] = []
    i = 0
    for m in _LIGATURE.finditer(text):
        out.extend(re.escape(c) for c in text[i:m.start()])
        out.append(f"(?:{_BETWEEN.join(m.group())}|{_GLYPH})")
        i = m.end()
    out.extend(re.escape(c) for c in text[i:])
    return _BETWEEN.join(out)


def pieces(title: str) -> list[tuple[str, int]]:
    """A TeX title as (literal text, gap) pieces: text to find, then how many characters of
    anything may follow it (math, unknown commands)."""
    out: list[tuple[str, int]] = []
    text: list[str] = []
    for m in _TOKEN.finditer(title):
        math, name, char = m.group("math"), m.group("name"), m.group("char")
        if math is not None or (name is not None and name not in _ACCENTS | _TEXT_COMMANDS | _SPECIAL.keys()):
            out.append(("".join(text), _gap(math if math is not None else name)))
            text = []
        elif name is not None:
            text.append(_SPECIAL.get(name, ""))  # an accent's letter or a command's argument follows
        else:
            text.append(" " if char == "~" else char)
    out.append(("".join(text), 0))
    return [(marked(literal).replace(_MARK, ""), gap) for literal, gap in out]


def _gap(tex: str) -> int:
    return _GAP_FACTOR * len(key(tex)) + _GAP_SLACK


def pattern(title: str) -> re.Pattern[str] | None:
    """The regular expression a page key must contain to show `title`; None when the title
    has too few letters outside math to be looked for."""
    parts = pieces(title)
    if sum(len(literal) for literal, _gap in parts) < MIN_KEY:
        return None
    regex: list[str] = [] if not parts[0][0] else [_STARTS]  # a title that opens with math: any start
    pending = 0
    for literal, gap in parts:
        if literal:
            if len(regex) > 1 or (regex and regex[0] != _STARTS):
                regex.append(f".{{0,{pending}}}" if pending else _BETWEEN)
            regex.append(_literal(literal))
            pending = 0
        pending += gap
    if not pending:
        regex.append(_ENDS)
    return re.compile("".join(regex))


def shows(title: str, text: str) -> bool:
    """True when `text` (a page's extracted text) contains `title`, as the module says."""
    regex = pattern(title)
    return regex is not None and any(regex.search(k) for k in page_keys(text))


def same(title: str, other: str) -> bool:
    """True when `other` (a PDF's Info /Title, say) is `title` itself, as the module says."""
    regex = pattern(title)
    return regex is not None and any(regex.fullmatch(k.strip(_MARK)) for k in page_keys(other))


def words(text: str) -> set[str]:
    """The distinct words of a title (TeX math and commands left out), as keys."""
    plain = re.sub(r"\$[^$]*\$|\\[A-Za-z]+", " ", text)
    return {k for k in (key(w) for w in re.split(r"[\s\-–—/:]+", plain)) if k}


# What PDF producers and arXiv put in Info /Title or on page 1 that is no paper's title.
_NOT_A_TITLE = LazyPattern(r"(?i)^\s*(doi:|arxiv:|https?://|www\.|microsoft word -|untitled\b)|arxiv:\s*[a-z.-]*/?\d"
                            r"|\.(dvi|pdf|tex|docx?|odt|rtf|e?ps|indd)\s*$")  # compiled on first use


def is_title(text: str) -> bool:
    """True for text that can be a paper's title: two words or more, no identifier or file name."""
    return len(words(text)) >= 2 and not _NOT_A_TITLE.search(text)


def unrelated(title: str, other: str) -> bool:
    """True when `other` is a different title, not a variant of `title`: they share fewer than
    half the words of the shorter one. A paper whose arXiv title was edited after its PDF was
    made (a word added, a subtitle dropped) is a variant, never 'another paper'."""
    a, b = words(title), words(other)
    if not a or not b:
        return False
    return len(a & b) * 2 < min(len(a), len(b))


def shorten(text: str, limit: int = 90) -> str:
    """A title for a one-line message: white space collapsed, at most `limit` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def readable(text: str) -> str:
    """Extracted text for a message: T1's ligature slots as letters (the usual LaTeX font
    encoding today), other control characters dropped."""
    text = text.translate(_ENCODINGS[1])
    return "".join(c for c in text if c >= " " or c in "\t\n")


def with_subtitle(title: str, heading: str) -> bool:
    """True when `heading` (page 1's title lines) is `title` with one run of words inserted
    inside it, and nothing else: "STaR: Self-Taught Reasoner Bootstrapping Reasoning With
    Reasoning" for "STaR: Bootstrapping Reasoning With Reasoning". The run is at most as long as
    the title; the title's words keep their order; no other text competes in the heading. A
    title with TeX in it is only ever matched by `shows`."""
    if "$" in title or "\\" in title:
        return False
    wanted = [word for word in marked(title).split(_MARK) if word]
    if len(wanted) < 2 or sum(map(len, wanted)) < MIN_KEY:
        return False
    for page_key in page_keys(heading):
        found = [word for word in page_key.split(_MARK) if word]
        extra = len(found) - len(wanted)
        if not 1 <= extra <= len(wanted):
            continue
        for k in range(1, len(wanted)):
            if found[:k] == wanted[:k] and found[k + extra:] == wanted[k:]:
                return True
    return False
