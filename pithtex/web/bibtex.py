"""A small BibTeX reader: entries and their fields, for the few fields a publication list needs.

BibTeX's own grammar, not a regular expression over it: an entry is `@type{key, field = value,
...}` or `@type(...)`; a value is `{...}` (braces nest), `"..."` (braces inside nest too, so a
quote inside braces does not end it), a number, or an `@string` macro name, joined by `#`.
`@comment` and `@preamble` are skipped, and so is all text outside entries (BibTeX's own
comments). Field names are case-insensitive. Written here rather than taken from bibtexparser:
its 1.x line pulls in pyparsing and its 2.x line is still a beta, for the three fields
(`eprint`, `arxiv`, `doi`) and the `title` a list reads; this is about a hundred lines.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import InputError

# The month macros BibTeX predefines.
MONTHS = {m: m for m in ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")}


_STOPS = frozenset('{}(),=#"@')  # what ends a name, key or macro


@dataclass(frozen=True)
class Entry:
    kind: str  # lower case: article, misc, ...
    key: str
    line: int  # 1-based line of its `@`
    fields: dict[str, str] = field(default_factory=dict)  # lower-case names


class _Reader:
    def __init__(self, text: str, name: str) -> None:
        self.text, self.name, self.pos = text, name, 0
        self.macros: dict[str, str] = dict(MONTHS)

    def line(self, pos: int | None = None) -> int:
        return self.text.count("\n", 0, self.pos if pos is None else pos) + 1

    def fail(self, what: str, pos: int | None = None) -> InputError:
        return InputError(f"{self.name}, line {self.line(pos)}: {what}; not a BibTeX file pithtex can read")

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def word(self) -> str:
        start = self.pos
        while self.pos < len(self.text) and not self.text[self.pos].isspace() and self.text[self.pos] not in _STOPS:
            self.pos += 1
        return self.text[start:self.pos]

    def balanced(self, opening: str) -> str:
        """The text after an opening `{` or `"` up to its match (braces nest in both)."""
        start, depth = self.pos, 0
        closing = "}" if opening == "{" else '"'
        while self.pos < len(self.text):
            char = self.text[self.pos]
            self.pos += 1
            if char == "{":
                depth += 1
            elif char == "}" and depth > 0:
                depth -= 1
            elif char == closing and depth == 0:
                return self.text[start:self.pos - 1]
            elif char == "}":
                raise self.fail("a closing brace without its opening one", self.pos - 1)
        raise self.fail(f"a {'brace' if opening == '{' else 'quote'} that never closes", start - 1)

    def value(self) -> str:
        parts = []
        while True:
            self.skip_space()
            char = self.text[self.pos:self.pos + 1]
            if char in ("{", '"'):
                self.pos += 1
                parts.append(self.balanced(char))
            else:
                name = self.word()
                if not name:
                    raise self.fail("a field without a value")
                parts.append(name if name.isdigit() else self.macros.get(name.lower(), ""))
            self.skip_space()
            if self.text[self.pos:self.pos + 1] != "#":
                return "".join(parts)
            self.pos += 1

    def entries(self) -> list[Entry]:
        found = []
        while (at := self.text.find("@", self.pos)) >= 0:
            self.pos = at + 1
            kind = self.word().lower()
            self.skip_space()
            opening = self.text[self.pos:self.pos + 1]
            if opening not in ("{", "(") or not kind:
                continue  # an @ in comment text, as BibTeX itself reads it
            self.pos += 1
            if kind == "comment":
                if opening == "{":
                    self.balanced("{")
                continue
            entry = self.body(kind, at, ")" if opening == "(" else "}")
            if entry is not None:
                found.append(entry)
        return found

    def body(self, kind: str, at: int, closing: str) -> Entry | None:
        if kind in ("string", "preamble"):
            self.skip_space()
            name = self.word().lower() if kind == "string" else ""
            self.skip_space()
            if kind == "string":
                if self.text[self.pos:self.pos + 1] != "=":
                    raise self.fail("an @string without `name = value`")
                self.pos += 1
            text = self.value()
            if kind == "string":
                self.macros[name] = text
            self.close(closing)
            return None
        self.skip_space()
        key = self.word()
        fields: dict[str, str] = {}
        while True:
            self.skip_space()
            char = self.text[self.pos:self.pos + 1]
            if not char:
                raise self.fail(f"entry {key or kind!r} never closes (a brace that never closes)", at)
            if char == ",":
                self.pos += 1
                continue
            if char == closing:
                self.pos += 1
                return Entry(kind, key, self.line(at), fields)
            name = self.word().lower()
            self.skip_space()
            if not name or self.text[self.pos:self.pos + 1] != "=":
                raise self.fail(f"entry {key or kind!r} has a field without `name = value`")
            self.pos += 1
            fields[name] = self.value()

    def close(self, closing: str) -> None:
        self.skip_space()
        if self.text[self.pos:self.pos + 1] != closing:
            raise self.fail(f"expected {closing!r}")
        self.pos += 1


def entries(text: str, name: str = "the BibTeX file") -> list[Entry]:
    """The entries of a BibTeX text (@string macros applied); InputError names the line of a fault."""
    return _Reader(text, name).entries()


def plain(value: str) -> str:
    """A field's text without its protecting braces and with its whitespace collapsed."""
    return " ".join(value.replace("{", "").replace("}", "").split())
