"""Where the badge is on its page, judged from what the page shows (not from the class).

The words come from `pdftotext -bbox-layout -cropbox` (poppler), which keeps only what lies
inside the page's visible box and measures from its top left; the link rectangle comes from
the PDF (pithtex.pdf.facts). The title is found on the page itself: its largest text in the
top part. The badge passes when its text and its link are both on the visible page, below
the title, aligned with the title's lines (centred under them, or flush with their left or
right edge) and over no other word. Everything here is pure: sandbox.py runs pdftotext.
"""

from __future__ import annotations

import html
import re

from ..brand import ARXIV_BAND
from ..value import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Callable

Box = tuple[float, float, float, float]  # x0, top, x1, bottom: from the visible box's top left, y down

# How far off still counts as aligned, or as under the title (pt): the link is a logo's width
# wider than the text on one side, and rounding in two readers adds a little.
ALIGN_SLACK = 6.0
# Only this top share of the page is searched for the title (a figure's big labels lower down
# are not it).
TOP_PART = 0.6
# A line at least this share of the title's size, touching it, is part of the title.
TITLE_SHARE = 0.92

_LINE = re.compile(r'<line xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">(.*?)</line>',
                   re.S)
_WORD = re.compile(r'<word xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">([^<]*)</word>')
_PAGE = re.compile(r'<page width="([\d.]+)" height="([\d.]+)">')


class Word(NamedTuple):
    text: str
    box: Box


class Line(NamedTuple):
    words: tuple[Word, ...]
    box: Box

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)

    @property
    def height(self) -> float:
        """The size of its type: its words' median height (the line's own box grows with a raised
        letter, as in the LaTeX logo, and with sub- and superscripts)."""
        heights = sorted(w.box[3] - w.box[1] for w in self.words)
        return heights[len(heights) // 2]


class Page(NamedTuple):
    width: float
    height: float
    lines: tuple[Line, ...]


class Verdict(NamedTuple):
    """What the page shows: where the badge and the title are, and what is wrong (empty: fine)."""

    badge: Box | None
    title: Box | None
    title_text: str
    faults: tuple[str, ...]  # in words, each a clause ("it lies above the title")
    off_page: bool  # the badge's text or link is outside the visible page


def parse_layout(xhtml: str) -> list[Page]:
    """pdftotext's XHTML (-bbox-layout): each page's lines and their words."""
    pages = []
    for chunk in xhtml.split("<page ")[1:]:
        size = _PAGE.match("<page " + chunk)
        width, height = (float(size[1]), float(size[2])) if size else (0.0, 0.0)
        lines = []
        for m in _LINE.finditer(chunk):
            words = tuple(Word(html.unescape(w[5]), (float(w[1]), float(w[2]), float(w[3]), float(w[4])))
                          for w in _WORD.finditer(m[5]))
            if words:
                lines.append(Line(words, (float(m[1]), float(m[2]), float(m[3]), float(m[4]))))
        pages.append(Page(width, height, tuple(lines)))
    return pages


def union(boxes: list[Box]) -> Box:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def overlaps(a: Box, b: Box, slack: float = 0.5) -> bool:
    return a[0] < b[2] - slack and b[0] < a[2] - slack and a[1] < b[3] - slack and b[1] < a[3] - slack


def link_box(rect: Box, visible: Box) -> Box:
    """A link rectangle (PDF space, y up) in the words' space (from the visible box's top left, y down)."""
    x0, y0, x1, y1 = rect
    return (x0 - visible[0], visible[3] - y1, x1 - visible[0], visible[3] - y0)


def _tokens(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


def _matches(line: Line, title: set[str]) -> bool:
    """Most of the line's words are words of the title (a class may set it in capitals)."""
    words = _tokens(line.text)
    return bool(words) and sum(w in title for w in words) >= max(1, 0.6 * len(words))


def title_lines(page: Page, skip: str, known: str | None = None) -> list[Line]:
    """The title's lines. With the title's text `known` (the PDF's /PithTitle or /Title): the
    largest of the lines made of its words (a running head repeats it smaller), and the lines
    of its words that touch it. Otherwise, or when no line is made of its words: the largest
    line in the top part of the page, with the lines of about its size that touch it. Lines
    holding `skip` (the badge) are never part of it."""
    return title_by_text(page, skip, known) or _largest_block(page, skip)


def title_by_text(page: Page, skip: str, known: str | None) -> list[Line]:
    """The title's lines found by its words (see title_lines); [] when none is made of them."""
    lines = _ordered(page, skip)
    words = set(_tokens(known or ""))
    of_title = [ln for ln in lines if _matches(ln, words)] if words else []
    if not of_title:
        return []
    size = max(ln.height for ln in of_title)
    return _block(lines, lines.index(next(ln for ln in of_title if ln.height >= size - 0.01)),
                  lambda ln: _matches(ln, words))


def _ordered(page: Page, skip: str) -> list[Line]:
    return sorted((ln for ln in page.lines if skip not in ln.text), key=lambda ln: ln.box[1])


def _largest_block(page: Page, skip: str) -> list[Line]:
    top = [ln for ln in _ordered(page, skip) if ln.box[1] < page.height * TOP_PART]
    if not top:
        return []
    size = max(ln.height for ln in top)
    return _block(top, next(i for i, ln in enumerate(top) if ln.height >= size - 0.01),
                  lambda ln: ln.height >= size * TITLE_SHARE)


def _block(ordered: list[Line], first: int, belongs: Callable[[Line], bool]) -> list[Line]:
    """Line `first` and the lines that belong with it, above and below, each within one line's
    height of the next."""
    block = [ordered[first]]
    size = ordered[first].height
    for step in (-1, 1):
        i, last = first + step, ordered[first]
        while 0 <= i < len(ordered) and belongs(ordered[i]):
            gap = ordered[i].box[1] - last.box[3] if step > 0 else last.box[1] - ordered[i].box[3]
            if gap > size:
                break
            block.append(ordered[i])
            last = ordered[i]
            i += step
    return sorted(block, key=lambda ln: ln.box[1])


def judge(page: Page, needle: str, link: Box | None, link_off_page: bool, title_text: str | None = None,
          ) -> Verdict:
    """The badge on `page`: its words are those holding `needle` (the number's body), `link`
    its link rectangle in the words' space (None: no link on the page); `title_text` the
    title as the PDF's metadata states it, to find its lines by (see title_lines)."""
    # The badge's own words: those holding the number that its link covers (the paper may
    # quote its number in the text too); without a link on the page, the first.
    holding = [w for ln in page.lines for w in ln.words if needle in w.text]
    badge_words = [w for w in holding if link and overlaps(w.box, link, slack=-1.0)] or holding[:1]
    if not badge_words:
        why = "its text is not on the visible page" + (" and its link lies outside the page" if link_off_page
                                                        else "")
        return Verdict(None, None, "", (why,), True)
    badge = union([w.box for w in badge_words] + ([link] if link else []))
    by_text = title_by_text(page, needle, title_text)
    title = by_text or _largest_block(page, needle)
    lines = _ordered(page, needle)
    others = [w for ln in page.lines for w in ln.words if w not in badge_words]
    faults = []
    if link_off_page:
        faults.append("its link lies outside the visible page")
    # Overlap is judged on the badge's own text and link, not on their union (a logo beside
    # the text leaves a gap that may hold nothing).
    parts = [w.box for w in badge_words] + ([link] if link else [])
    hit = next((w for w in others if any(overlaps(p, w.box) for p in parts)), None)
    if hit:
        faults.append(f"it lies over other text ({hit.text!r})")
    title_box = union([ln.box for ln in title]) if title else None
    text = " ".join(ln.text for ln in title)
    if title_box and badge[1] < title_box[3] - 1:
        # No title the PDF names (pith's fallback): under the page's first text will do too.
        first = lines[0].box if lines else None
        if by_text or first is None or badge[1] < first[3] - 1:
            what = "the title" if by_text or first is None else "the page's first text and its largest line"
            faults.append(f"it is above the end of {what} ({_short(text)!r}), not below it")
    elif by_text and title_box and not aligned(badge, [ln.box for ln in title]):
        # (aligned with the title the PDF names; pith's fallback, with no title, is held only
        # to being below the page's first text or its largest line)
        faults.append(f"it is not aligned with the title ({_short(text)!r}: x {title_box[0]:.0f}-"
                      f"{title_box[2]:.0f} pt; the badge: x {badge[0]:.0f}-{badge[2]:.0f} pt)")
    return Verdict(badge, title_box, text, tuple(faults), link_off_page)


def aligned(badge: Box, lines: list[Box]) -> bool:
    """Aligned as the title's lines are: under a title of several lines, as they agree (all
    centred on one axis, or flush with one left or one right edge); under one line, or lines
    that agree on nothing (an overfull first line), centred under one of them or flush with it.
    A flush-left title that starts inside arXiv's band: the badge just right of the band."""
    def centre(b: Box) -> float:
        return (b[0] + b[2]) / 2

    def fits(to: Box, how: str) -> bool:
        if how == "left":
            return abs(badge[0] - to[0]) <= ALIGN_SLACK or to[0] < ARXIV_BAND <= badge[0] <= ARXIV_BAND + ALIGN_SLACK
        if how == "right":
            return abs(badge[2] - to[2]) <= ALIGN_SLACK
        return abs(centre(badge) - centre(to)) <= ALIGN_SLACK

    block = union(lines)
    if len(lines) > 1:
        agree = {how: max(v) - min(v) <= 2.0 for how, v in (("centre", [centre(b) for b in lines]),
                                                             ("left", [b[0] for b in lines]),
                                                             ("right", [b[2] for b in lines]))}
        ways = [how for how in ("centre", "left", "right") if agree[how]]
        if ways:
            return any(fits(block, how) for how in ways)
    return any(fits(b, how) for b in [block, *lines] for how in ("centre", "left", "right"))


def _short(text: str, n: int = 40) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"
