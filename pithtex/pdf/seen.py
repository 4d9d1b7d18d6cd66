"""What page 1 shows a reader, as values: its visible lines (`Line`), the page (`PageOne`), the
optional content that is off (`Hidden`), and the limits of reading it. page.py reads page 1
into these (with pdfium.py, which fills them from PDFium); both take them from here.
"""

from __future__ import annotations

from ..brand import ARXIV_BAND
from ..value import LazyPattern, NamedTuple

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
# arXiv's stamp: a text object wholly in this band of the page's left edge (points). The reader
# looks STAMP_SLACK past the band pith keeps clear, so that a stamp drawn a little wider than
# usual is still taken for the stamp and not for the paper's text.
STAMP_SLACK = 10.0
STAMP_BAND = ARXIV_BAND + STAMP_SLACK
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
    # Its title set in a font whose glyphs its text layer cannot be checked against (why, as
    # glyphs.untold says), what the rendered title reads (pdf/ocr.py), or why it was not read.
    untold: str | None = None
    pixels: str | None = None
    pixels_problem: str | None = None

    @property
    def text(self) -> str:
        return "\n".join(line.text for line in self.lines)


class Hidden(NamedTuple):
    """Optional content that is off: the /Name of each group off, and whether a form XObject
    page 1 draws is itself in a group that is off (its content is then not read at all)."""

    names: frozenset[str]
    forms_off: bool
    # fonts (glyphs.font_key) whose ToUnicode map says other letters than their glyphs (pdf/glyphs.py)
    untrue_fonts: frozenset[str] = frozenset()
    # fonts (glyphs.font_key) whose glyphs can be told from their text layer; every other font's
    # text is taken at its word only once the rendered page reads the same (glyphs.untold)
    told_fonts: frozenset[str] = frozenset()
    untold_why: tuple[tuple[str, str], ...] = ()  # (font, why) for the fonts not told


def title_lines(page: PageOne) -> tuple[Line, ...]:
    """The lines that are page 1's title: in its top part, among its largest text, and larger
    than its body text, less a section's heading set apart below them ("Abstract", "1
    Introduction": see `_headings`). A page that sets nothing there larger than its body
    (amsart's title is bold capitals at the body size) has as its title the block of lines at
    its very top."""
    middle = page.box[1] + (page.box[3] - page.box[1]) * (1 - TOP_PART)
    top = [line for line in page.lines if line.bbox[3] >= middle]
    if not top:
        return ()
    largest = max(line.size for line in top)
    if largest < page.body_size * TITLE_OVER_BODY:
        return _top_block(top, page.body_size)
    floor = max(page.body_size * TITLE_OVER_BODY, largest * TITLE_SHARE)
    headings = _headings(top, floor, largest)
    return tuple(line for line in top if line.size >= floor and line not in headings)


def _headings(lines: list[Line], floor: float, largest: float) -> set[Line]:
    """The section headings among the lines at least `floor` in size: each a line on its own
    (smaller lines of words above and below it), below the first such block, smaller than
    the `largest`, that reads as a heading (HEADING: "Abstract", "1 Introduction", "II.
    RELATED WORK"). Only these: a banner larger than the title, or a title's line set apart by
    a badge beside it, stays (a title that loses a line is a genuine PDF refused)."""
    blocks: list[list[Line]] = [[]]
    for line in sorted(lines, key=lambda line: -line.bbox[3]):
        if line.size >= floor:
            blocks[-1].append(line)
        elif blocks[-1] and sum(char.isalnum() for char in line.text) > MARK_LETTERS:
            blocks.append([])
    return {block[0] for i, block in enumerate(b for b in blocks if b)
            if i and len(block) == 1 and block[0].size < largest and HEADING.fullmatch(block[0].text.strip())}


# At most this many letters or digits make a line a mark among the title's (a footnote's
# asterisk, a superscript), not text that sets a block apart.
MARK_LETTERS = 2
# A section's heading: a number (1, 2.3, IV., §1) before its words, or a front-matter heading alone.
HEADING = LazyPattern(r"(?i)(?:(?:§\s*)?\d+(?:\.\d+)*\.?|[IVX]+\.)(?:\s+\S.*)?"
                      r"|(?:abstract|introduction|summary|contents|keywords|index terms)[.:]?")  # compiled on first use


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
