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

`title_lines` picks the page's title from what was read (pure: a PageOne in, lines out).
"""

from __future__ import annotations

from pathlib import Path

from ..value import TYPE_CHECKING, NamedTuple
from .errors import Oversize, PdfSyntaxError
from .objects import Ref, Stream
from .reader import READ_FAILURES, PdfFile, decode_stream

if TYPE_CHECKING:
    from typing import Any

# Page 1's content, decoded (its content streams and the form XObjects it draws): a title page
# holds a few hundred kB at most; one with a large vector figure a few MB.
MAX_CONTENT = 2 * 1024 * 1024
# Text runs and shapes page 1's content may draw (counted in its bytes before PDFium parses
# them; a real page 1 draws a few thousand at most, a vector figure tens of thousands).
MAX_PAINTS = 40_000
# Objects PDFium parsed on page 1, and characters of its text: beyond these, unchecked (never
# read in part: what a part leaves out could be the title that shows the PDF is another paper).
MAX_OBJECTS = 100_000
MAX_CHARS = 100_000
# Comparisons of text with the shapes near it (what lies beneath, what covers it), page 1 in all.
MAX_WORK = 2_000_000
# Characters smaller than this share of the body size, or than MIN_SIZE points, are not seen.
SMALL_SHARE = 0.5
MIN_SIZE = 4.0
# arXiv's stamp: a text object wholly in this band of the page's left edge (points).
STAMP_BAND = 50.0
# The title: in the page's top part, at least TITLE_OVER_BODY times the body size, and at least
# TITLE_SHARE of the largest text there.
TOP_PART = 0.5
TITLE_OVER_BODY = 1.15
TITLE_SHARE = 0.8
# A page with no display text: its title is the block of at most TOP_BLOCK lines at its top,
# ended by a gap of more than TOP_GAP times the line's size.
TOP_BLOCK = 4
TOP_GAP = 1.0
# URI links kept from page 1.
MAX_URIS = 200

Box = tuple[float, float, float, float]  # left, bottom, right, top, in PDF points


class Line(NamedTuple):
    """One visible line of page 1: its text, its font size (the size most of its characters
    have, in points as set on the page) and its box."""

    text: str
    size: float
    bbox: Box


class PageOne(NamedTuple):
    """What a reader sees on page 1; `problem` says why it could not be read (then the rest is empty)."""

    lines: tuple[Line, ...] = ()
    body_size: float = 0.0
    stamp: str | None = None  # arXiv's page-1 stamp as shown ("arXiv:1706.03762v5 [cs.CL] 6 Dec 2017")
    uris: tuple[str, ...] = ()
    problem: str | None = None
    box: Box = (0.0, 0.0, 612.0, 792.0)  # the crop box
    hidden: int = 0  # characters drawn on page 1 that a reader does not see

    @property
    def text(self) -> str:
        return "\n".join(line.text for line in self.lines)


def title_lines(page: PageOne) -> tuple[Line, ...]:
    """The lines that are page 1's title: in its top part, among its largest text, and larger
    than its body text. A page that sets nothing there larger than its body (amsart's title is
    bold capitals at the body size) has as its title the block of lines at its very top."""
    middle = page.box[1] + (page.box[3] - page.box[1]) * (1 - TOP_PART)
    top = [line for line in page.lines if line.bbox[3] >= middle]
    if not top:
        return ()
    largest = max(line.size for line in top)
    if largest < page.body_size * TITLE_OVER_BODY:
        return _top_block(top, page.body_size)
    floor = max(page.body_size * TITLE_OVER_BODY, largest * TITLE_SHARE)
    return tuple(line for line in top if line.size >= floor)


def _top_block(lines: list[Line], body: float) -> tuple[Line, ...]:
    """The topmost lines no smaller than the body, down to the first gap of more than a line,
    at most TOP_BLOCK of them."""
    block: list[Line] = []
    for line in sorted(lines, key=lambda line: -line.bbox[3]):
        if line.size < body:
            continue  # a running header's small print, a superscript
        if block and (len(block) == TOP_BLOCK or block[-1].bbox[1] - line.bbox[3] > line.size * TOP_GAP):
            break
        block.append(line)
    return tuple(block)


def title_text(page: PageOne) -> str:
    return "\n".join(line.text for line in title_lines(page))


def shows_title(page: PageOne, title: str) -> bool:
    """True when page 1's title is `title` (a record's, TeX and all), matched as whole words
    with symbols kept (pithtex/titles.py)."""
    from .. import titles

    return titles.shows(title, title_text(page))


def read_page_one(path: str | Path, password: bytes | None = None) -> PageOne:
    """Page 1 of the PDF at `path` as a reader sees it; problems end up in `problem`, never raised."""
    try:
        hidden_groups = _measure(path, password)
    except _TooMuch as exc:
        return PageOne(problem=str(exc))
    except READ_FAILURES as exc:
        return PageOne(problem=f"page 1 cannot be read ({type(exc).__name__}: {exc})"[:200])
    from .pdfium import read_visible

    return read_visible(path, password, hidden_groups)


class _TooMuch(Exception):
    pass


class Hidden(NamedTuple):
    """Optional content that is off: the /Name of each group off, and whether a form XObject
    page 1 draws is itself in a group that is off (its content is then not read at all)."""

    names: frozenset[str]
    forms_off: bool


def _measure(path: str | Path, password: bytes | None) -> Hidden:
    """Page 1's decoded content size (refused beyond MAX_CONTENT), and its optional content off."""
    with PdfFile(path, password=password) as pdf:
        if pdf.locked is not None:
            raise _TooMuch(f"the PDF does not open ({pdf.locked})")
        off = _groups_off(pdf)
        pages = pdf.pages(limit=1)
        first = next(pages, None)
        if first is None:
            raise _TooMuch("the PDF has no pages")
        _ref, page, inherited = first
        budget = [MAX_CONTENT, MAX_PAINTS]
        contents = pdf.resolve(page.get("Contents"))
        for item in contents if isinstance(contents, list) else [contents]:
            _spend(pdf, pdf.resolve(item), budget)
        forms_off = _forms(pdf, pdf.resolve(inherited.get("Resources")), budget, off, set(), 0)
        names = frozenset(_name(pdf, ref) for ref in off.values())
    return Hidden(names - {""}, forms_off)


def _spend(pdf: PdfFile, stream: Any, budget: list[int]) -> None:
    """Take a content stream's decoded size from budget[0], its painting operators from budget[1]."""
    if not isinstance(stream, Stream):
        return
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
        raise _TooMuch(f"page 1 draws over {MAX_PAINTS:,} text runs and shapes, too many to read for what it shows")


# Content operators that each make a page object: text shown (Tj TJ ' "), paths painted, images.
_PAINTING = (b"Tj", b"TJ", b"'", b'"', b" f", b"\nf", b" F", b" B", b" S", b"\nS", b"Do")


def _forms(pdf: PdfFile, resources: Any, budget: list[int], off: dict[int, Ref], seen: set[int], depth: int) -> bool:
    """Spend the budget on each form XObject `resources` names (and theirs); True when one is
    in optional content that is off."""
    if not isinstance(resources, dict) or depth > 12:
        return False
    xobjects = pdf.resolve(resources.get("XObject"))
    hidden = False
    for value in (xobjects.values() if isinstance(xobjects, dict) else []):
        if isinstance(value, Ref):
            if value.num in seen:
                continue
            seen.add(value.num)
        form = pdf.resolve(value)
        if not isinstance(form, Stream) or form.dict.get("Subtype") != "Form":
            continue
        _spend(pdf, form, budget)
        oc = form.dict.get("OC")
        hidden |= isinstance(oc, Ref) and (oc.num in off or _ocmd(pdf, oc))
        hidden |= _forms(pdf, pdf.resolve(form.dict.get("Resources")), budget, off, seen, depth + 1)
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
