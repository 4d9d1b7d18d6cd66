"""Page 1 as a reader sees it: its visible text lines, the size of its body text, arXiv's stamp
in the left margin, and its URI links (issue 24, "what a reader sees").

Only text a reader can see counts. Not visible: render modes 3 and 7, text clipped away or
outside the crop box, text in optional content that is off (`/OCProperties /D`: `/OFF`, or
`/BaseState /OFF`), fill colour equal to what lies beneath (white on white), text covered by
an opaque shape or image painted after it, and text far below the page's body size (under
half of it, or under 4 pt). Annotations are not page text at all.

The reading is PDFium's (pypdfium2, imported here on first use: `stamp --number` never loads
it): it gives each character's box, size and the text object that drew it, and each object's
render mode, colours, clip path and marked content (pithtex/pdf/pdfium.py). Before PDFium
parses anything, pithtex's own reader measures page 1's content (its streams and the forms it
draws, decoded): a page beyond MAX_CONTENT bytes or MAX_PAINTS text runs and shapes is
refused, as PDFium would hold ~30 bytes of memory for each byte of tiny text runs.

`title_lines` (seen.py) picks the page's title from what was read (pure: a PageOne in, lines out).
"""

from __future__ import annotations

import re
from pathlib import Path

from ..limits import MAX_FONTS_CHECKED, MAX_FORM_DEPTH
from ..value import TYPE_CHECKING
from .errors import Oversize, PdfSyntaxError
from .objects import Ref, Stream
from .reader import READ_FAILURES, PdfFile, decode_stream
from .seen import MAX_CONTENT, MAX_PAINTS, Hidden, PageOne, title_lines

if TYPE_CHECKING:
    from typing import Any

def title_text(page: PageOne) -> str:
    return "\n".join(line.text for line in title_lines(page))


def shows_title(page: PageOne, title: str) -> bool:
    """True when page 1's title is `title` (a record's, TeX and all), matched as whole words
    with symbols kept (pithtex/pdf/titles.py)."""
    from . import titles

    return titles.shows(title, title_text(page))


def read_page_one(path: str | Path, password: bytes | None = None, opened: PdfFile | None = None,
                  index: int = 0) -> PageOne:
    """Page 1 of the PDF at `path` as a reader sees it; problems end up in `problem`, never raised.
    `opened`: the same file, already open in pithtex's reader (its objects are not parsed again).
    `index`: another page (0 is page 1), read the same way (check judges the badge on its page)."""
    try:
        hidden_groups = _measure(path, password, opened, index)
    except (_TooMuch, _Untrue) as exc:
        return PageOne(problem=str(exc))
    except READ_FAILURES as exc:
        return PageOne(problem=f"page 1 cannot be read ({type(exc).__name__}: {exc})"[:200])
    from .pdfium import read_visible

    return read_visible(path, password, hidden_groups, index)


class _TooMuch(Exception):
    pass


class _Untrue(Exception):
    """A font on page 1 whose text layer says other letters than its glyphs draw."""


def _measure(path: str | Path, password: bytes | None, opened: PdfFile | None, index: int = 0) -> Hidden:
    """Page 1's decoded content size (refused beyond MAX_CONTENT), and its optional content off
    (page `index`'s, for another page)."""
    if opened is not None:
        return _measure_in(opened, index)
    with PdfFile(path, password=password) as pdf:
        return _measure_in(pdf, index)


def _measure_in(pdf: PdfFile, index: int = 0) -> Hidden:
    if pdf.locked is not None:
        raise _TooMuch(f"the PDF does not open ({pdf.locked})")
    off = _groups_off(pdf)
    first = None
    for n, entry in enumerate(pdf.pages(limit=index + 1)):
        first = entry if n == index else None
    if first is None:
        raise _TooMuch("the PDF has no pages" if index == 0 else f"the PDF has no page {index + 1}")
    _ref, page, inherited = first
    budget = [MAX_CONTENT, MAX_PAINTS]
    contents = pdf.resolve(page.get("Contents"))
    data = b"\n".join(_spend(pdf, pdf.resolve(item), budget)
                      for item in (contents if isinstance(contents, list) else [contents]))
    fonts: dict[int, Any] = {}
    decoded: dict[int, bytes] = {}
    resources = pdf.resolve(inherited.get("Resources"))
    forms_off = _forms(pdf, resources, budget, off, set(), 0, fonts, decoded)
    _drawn(pdf, data, resources, decoded, {})
    names = frozenset(_name(pdf, ref) for ref in off.values())
    untrue, told, why = _judged_fonts(pdf, fonts, _Used(pdf, data, resources, decoded))
    return Hidden(names - {""}, forms_off, untrue, told, why)


class _Used:
    """The codes page 1 shows in each font (by its key in `fonts`), read from its content only
    when a font's text layer is in doubt: a TeX font's ToUnicode map covers its whole encoding,
    codes the subset leaves undrawn included, and only the codes shown are judged."""

    def __init__(self, pdf: PdfFile, data: bytes, resources: Any, decoded: dict[int, bytes]) -> None:
        self.pdf, self.data, self.resources, self.decoded = pdf, data, resources, decoded
        self.codes: dict[int, set[int]] | None = None
        self.whole = True  # read to its end, within glyphs.MAX_TOKENS

    def of(self, key: int) -> frozenset[int] | None:
        """The codes shown in the font; None: not known (every code then counts)."""
        from .glyphs import MAX_TOKENS

        if self.codes is None:
            self.codes = {}
            self._read(self.data, self.resources, set(), [MAX_TOKENS])
        return frozenset(self.codes.get(key, ())) if self.whole else None

    def _read(self, data: bytes, resources: Any, seen: set[int], budget: list[int]) -> None:
        from .glyphs import shown_codes

        if not isinstance(resources, dict) or self.codes is None or not self.whole:
            return
        table = self.pdf.resolve(resources.get("Font"))
        names = {name: value.num if isinstance(value, Ref) else id(self.pdf.resolve(value))
                 for name, value in (table.items() if isinstance(table, dict) else [])}
        self.whole = shown_codes(data, names, self.codes, budget)
        xobjects = self.pdf.resolve(resources.get("XObject"))
        for value in (xobjects.values() if isinstance(xobjects, dict) else []):
            if isinstance(value, Ref) and value.num in self.decoded and value.num not in seen:
                seen.add(value.num)
                form = self.pdf.resolve(value)
                inner = self.pdf.resolve(form.dict.get("Resources")) if isinstance(form, Stream) else None
                self._read(self.decoded[value.num], inner if isinstance(inner, dict) else resources, seen, budget)


def _judged_fonts(pdf: PdfFile, fonts: dict[int, Any],
                  used: _Used) -> tuple[frozenset[str], frozenset[str], tuple[tuple[str, str], ...]]:
    """The fonts (by glyphs.font_key) whose text layer says other letters than their glyphs
    (pdf/glyphs.py: no text in them counts), those whose glyphs can be told from their text
    layer, and why each other one cannot (a name any untold font bears is untold, whatever else
    bears it). A font found wanting is judged again by the codes page 1 shows in it. One that
    lies and has no name leaves nothing to tell its text by: _Untrue, the page is not read."""
    from .glyphs import font_key, read_font

    untrue: set[str] = set()
    told: set[str] = set()
    why: dict[str, str] = {}
    for key, font in list(fonts.items())[:MAX_FONTS_CHECKED]:
        text = read_font(pdf, font)  # its encoding and map read once, judged once or twice
        lie, reason = text.judged(None)
        if (lie or reason) and isinstance(font, dict) and font.get("Subtype") != "Type0":
            lie, reason = text.judged(used.of(key))
        names = _font_names(pdf, font)
        if lie is not None:
            if not names or not names[0]:
                raise _Untrue(f"page 1's text layer says other letters than its glyphs draw (font {key}: {lie}), "
                              "so its text is not what a reader sees")
            untrue.add(font_key(names[0]))  # as PDFium names it (no subset tag)
        for name in names:
            if reason is None:
                told.add(font_key(name))
            else:
                why.setdefault(font_key(name), reason)
    # a name PDFium cannot give is no font's
    return frozenset(untrue), frozenset(told - why.keys() - {""}), tuple(why.items())


def _font_names(pdf: PdfFile, font: Any) -> list[str]:
    """A font's /BaseFont, and a composite font's descendant's (the one PDFium names)."""
    if not isinstance(font, dict):
        return []
    names = [font.get("BaseFont")]
    descendants = pdf.resolve(font.get("DescendantFonts"))
    if isinstance(descendants, list) and descendants:
        first = pdf.resolve(descendants[0])
        names.append(first.get("BaseFont") if isinstance(first, dict) else None)
    return [name if isinstance(name, str) else "" for name in names]


def _collect_fonts(pdf: PdfFile, resources: dict[str, Any], fonts: dict[int, Any], budget: list[int]) -> None:
    """Gather the fonts `resources` names; a Type 3 font's glyph procedures are content PDFium
    parses too, so they spend the budget like the page's own content."""
    table = pdf.resolve(resources.get("Font"))
    for value in (table.values() if isinstance(table, dict) else []):
        if len(fonts) >= MAX_FONTS_CHECKED:
            return
        font = pdf.resolve(value)
        if not isinstance(font, dict):
            continue
        key = value.num if isinstance(value, Ref) else id(font)
        if key in fonts:
            continue
        fonts[key] = font
        procs = pdf.resolve(font.get("CharProcs")) if font.get("Subtype") == "Type3" else None
        for proc in list(procs.values())[:256] if isinstance(procs, dict) else []:
            _spend(pdf, pdf.resolve(proc), budget)


def _spend(pdf: PdfFile, stream: Any, budget: list[int]) -> bytes:
    """Take a content stream's decoded size from budget[0], its painting operators from budget[1];
    its decoded bytes (empty when it does not decode)."""
    data = b""
    if not isinstance(stream, Stream):
        return data
    try:
        data = decode_stream(stream, limit=budget[0] + 1)
        size = len(data)
        # Each of these makes one object PDFium holds (~1.5 kB each); counted in strings too,
        # so a genuine page is over-counted, never under.
        budget[1] -= sum(data.count(op) for op in _PAINTING)
    except Oversize:
        size = budget[0] + 1
    except PdfSyntaxError:
        size = len(stream.raw)  # a filter pithtex does not decode (LZW): PDFium's to refuse
    budget[0] -= size
    if budget[0] < 0:
        raise _TooMuch(f"page 1's content is over {MAX_CONTENT // (1024 * 1024)} MiB decoded, too much to read "
                       "for what it shows")
    if budget[1] < 0:
        raise _TooMuch(_TOO_MANY_PAINTS)
    return data


_TOO_MANY_PAINTS = f"page 1 draws over {MAX_PAINTS:,} text runs and shapes, too many to read for what it shows"


def _drawn(pdf: PdfFile, data: bytes, resources: Any, decoded: dict[int, bytes], memo: dict[int, int]) -> int:
    """How many objects drawing `data` makes PDFium hold: its painting operators, and each form
    it draws as often as it draws it (a form drawn twice by a form drawn twice: four times),
    each form's count worked out once. _TooMuch beyond MAX_PAINTS: a page of forms that fan out
    (2,979 bytes drawing one form 2^24 times) is refused before PDFium parses it."""
    total = sum(data.count(op) for op in _PAINTING)
    xobjects = pdf.resolve(resources.get("XObject")) if isinstance(resources, dict) and b"Do" in data else None
    if not isinstance(xobjects, dict):
        return total
    for m in re.finditer(_DO, data):
        value = xobjects.get(m[1].decode("latin-1"))
        if not isinstance(value, Ref) or value.num not in decoded:
            continue  # an image, or a form past the depth _forms reads: its Do is counted above
        if value.num not in memo:
            memo[value.num] = 0  # a form that draws itself draws nothing more (PDFium stops the loop)
            form = pdf.resolve(value)
            inner = pdf.resolve(form.dict.get("Resources")) if isinstance(form, Stream) else None
            memo[value.num] = _drawn(pdf, decoded[value.num], inner if isinstance(inner, dict) else resources,
                                     decoded, memo)
        total += memo[value.num]
        if total > MAX_PAINTS:
            raise _TooMuch(_TOO_MANY_PAINTS)
    return total


# compiled on first use (re caches it), not when the module is imported
_DO = rb"/([^\s/\[\]()<>{}%]+)\s*Do(?![A-Za-z])"


# Content operators that each make a page object: text shown (Tj TJ ' "), paths painted, images.
_PAINTING = (b"Tj", b"TJ", b"'", b'"', b" f", b"\nf", b" F", b" B", b" S", b"\nS", b"Do")


def _forms(pdf: PdfFile, resources: Any, budget: list[int], off: dict[int, Ref], seen: set[int], depth: int,
           fonts: dict[int, Any], decoded: dict[int, bytes]) -> bool:
    """Spend the budget on each form XObject `resources` names (and theirs), keeping each one's
    decoded content in `decoded` and gathering the fonts they name into `fonts`; True when a
    form is in optional content that is off."""
    if not isinstance(resources, dict):
        return False
    _collect_fonts(pdf, resources, fonts, budget)
    xobjects = pdf.resolve(resources.get("XObject"))
    if depth > MAX_FORM_DEPTH and isinstance(xobjects, dict) and xobjects:
        # not measured, PDFium would still parse them: forms nested this deep are no title page's
        raise _TooMuch(f"page 1 nests its forms over {MAX_FORM_DEPTH} deep, too deep to read for what it shows")
    hidden = False
    for value in (xobjects.values() if isinstance(xobjects, dict) else []):
        if isinstance(value, Ref):
            if value.num in seen:
                continue
            seen.add(value.num)
        form = pdf.resolve(value)
        if not isinstance(form, Stream) or form.dict.get("Subtype") != "Form":
            continue
        data = _spend(pdf, form, budget)
        if isinstance(value, Ref):
            decoded[value.num] = data
        oc = form.dict.get("OC")
        hidden |= isinstance(oc, Ref) and (oc.num in off or _ocmd(pdf, oc))
        hidden |= _forms(pdf, pdf.resolve(form.dict.get("Resources")), budget, off, seen, depth + 1, fonts, decoded)
    return hidden


def _ocmd(pdf: PdfFile, ref: Ref) -> bool:
    """An optional-content membership dictionary: taken as off (its policy is not evaluated)."""
    value = pdf.resolve(ref)
    return isinstance(value, dict) and value.get("Type") == "OCMD"


def _groups_off(pdf: PdfFile) -> dict[int, Ref]:
    """The optional-content groups the default configuration turns off, by object number."""
    props = pdf.resolve(pdf.catalog().get("OCProperties"))
    default = pdf.resolve(props.get("D")) if isinstance(props, dict) else None
    if not isinstance(props, dict) or not isinstance(default, dict):
        return {}
    off = {ref.num: ref for ref in _refs(pdf, default.get("OFF"))}
    if default.get("BaseState") == "OFF":
        on = {ref.num for ref in _refs(pdf, default.get("ON"))}
        off |= {ref.num: ref for ref in _refs(pdf, props.get("OCGs")) if ref.num not in on}
    return off


def _refs(pdf: PdfFile, value: Any) -> list[Ref]:
    value = pdf.resolve(value)
    return [item for item in value if isinstance(item, Ref)][:10_000] if isinstance(value, list) else []


def _name(pdf: PdfFile, ref: Ref) -> str:
    from .objects import decode_text

    group = pdf.resolve(ref)
    if not isinstance(group, dict):
        return ""
    return decode_text(pdf.resolve(group.get("Name"))) or ""
