"""Where the badge is on its page, judged as a reader does, from what the page shows.

The page is read once, by `read_page`, through the same view `verify` reads a PDF with
(pithtex/pdf/view.py: PDFium's text, only what a reader can see, inside the page's visible
box); each line keeps its text, type size and box, measured here from the visible box's top
left. Everything after `read_page` is pure: `judge` takes the pages read and says what a
reader would find wrong.

A reader expects the badge below the last line of the title block (the title, the authors,
their affiliations, the dates), above what follows it (an abstract's heading or its
paragraphs, the body's first heading, the footnotes), aligned with the title (centred under
it, or flush with its left or right edge), over no other text, and out of arXiv's stamp band.
An abstract that the class's \\maketitle sets (amsart, revtex, cas-dc) ends the title block:
the badge below it is fine, not below the body's first heading. A title block that runs to the
foot of its page (PoS with many authors) goes on at the top of the next one, and so may the
badge.

Each fault is a clause ("it is between the title and the authors") and the first one found
gives the verdict's headline ("badge misplaced: between the title and the authors").
"""

from __future__ import annotations

import re
import threading

from ..brand import ARXIV_BAND
from ..value import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from ..pdf.view import PageView

    ViewReader = Callable[..., PageView]  # pdf/view.py's read_view, or the bounded worker's

Box = tuple[float, float, float, float]  # x0, top, x1, bottom: from the visible box's top left, y down

# How far off still counts as aligned (pt): the link is a logo's width wider than the text on
# one side, and the readers' boxes differ a little.
ALIGN_SLACK = 6.0
# Only this top share of the page is searched for the title (a figure's big labels lower down
# are not it).
TOP_PART = 0.6
# A line at least this share of the title's size, touching it, is part of the title.
TITLE_SHARE = 0.92
# Two lines belong to one block of text when their type sizes differ by no more than this (pt),
# and the gap between them is at most BLOCK_GAP of their size; a paragraph's full lines share
# both edges within EDGE_SLACK (justified), which a title block's lines (names, places) do not.
SIZE_SLACK = 0.3
EDGE_SLACK = 1.5
BLOCK_GAP = 0.8
# The body's first heading: "Introduction", numbered or not ("1", "1.", "I." in IEEE's small
# capitals), also run in ("1. Introduction. The ...").
_FIRST_HEADING = re.compile(r"^((?:\d+|[ivx]+)\.?)?introduction")
# What starts the part after the title block, in the words classes head it with.
_HEADINGS = ("abstract", "summary", "synopsis", "keywords", "key words", "index terms", "contents", "résumé",
             "resumo", "resumen", "riassunto", "zusammenfassung", "аннотация", "acm reference format", "ccs concepts")
# The first words of an abstract that starts without a heading (BMC's structured abstracts).
_ABSTRACT_STARTS = ("background", "purpose", "objective", "objectives", "context", "motivation")
# A footnote starts with its mark: a symbol (a TeX font without a text layer for it gives a
# control character), or a number or letter set small.
_FOOTNOTE_MARKS = "*∗⋆†‡§¶‖"
# Footnotes are set smaller than the text above them: at most this share of its size.
FOOTNOTE_SHARE = 0.9
# How far below the title block the badge may sit and still end it: this many lines of the
# block's last line's size (a class's vertical skip before its abstract is about two).
ROW_GAP = 3.0
# A paragraph's first line may start this far right of its block's left edge (points).
INDENT_SLACK = 30.0
# A title block that goes on on the next page fills its own down to this share of the page's foot.
FOOT_PART = 0.2


class Line(NamedTuple):
    """One line a reader sees: its text, its type size (pt) and its box."""

    text: str
    size: float
    box: Box


class Page(NamedTuple):
    """A page as read for the judgement: its visible size, its lines top first, its visible box
    in PDF space (where the link rectangles are measured), and why it could not be read."""

    width: float
    height: float
    lines: tuple[Line, ...]
    box: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    problem: str | None = None


class Verdict(NamedTuple):
    """What the page shows: where the badge and the title are, and what is wrong (empty: fine)."""

    badge: Box | None
    title: Box | None
    title_text: str
    faults: tuple[str, ...]  # in words, each a clause ("it lies above the title")
    off_page: bool  # the badge's text or link is outside the visible page
    headline: str = ""  # the first fault in the verdict's words ("between the title and the authors")


# -- reading (the one place this module opens a PDF) --------------------------------------------

# PDFium is not thread-safe (pypdfium2 takes no lock), and `check` reads each route's PDF in
# that route's thread while the others compile: one page is read at a time.
_PDFIUM = threading.Lock()

def read_page(pdf: str | Path, index: int) -> Page:
    """Page `index` (0: page 1) of the PDF as verify's view reads it (pithtex/pdf/view.py), its
    lines measured from the visible box's top left, read in this process. Never raises: a PDF
    that does not open, or a page the view refuses, is a Page with its `problem` said."""
    from ..pdf.view import read_view

    with _PDFIUM:
        return page_read_by(read_view, pdf, index)


def page_read_by(read_view: ViewReader, pdf: str | Path, index: int) -> Page:
    """read_page through another reader of the view: the client's, in a bounded worker
    (pithtex/workers/bounded.py). A refusal (no PDF; a reader that died or passed a limit) is
    the Page's `problem`."""
    from ..errors import PithError

    try:
        seen = read_view(pdf, pages=index + 1, index=index).page
    except PithError as exc:  # UnreadablePdf, or the bounded reader's Stopped: both say why in one line
        return Page(0.0, 0.0, (), problem=str(exc))
    left, bottom, right, top = seen.box
    lines = sorted((Line(ln.text, ln.size, (ln.bbox[0] - left, top - ln.bbox[3], ln.bbox[2] - left, top - ln.bbox[1]))
                    for ln in seen.lines), key=lambda ln: (ln.box[1], ln.box[0]))
    return Page(right - left, top - bottom, tuple(lines), seen.box, seen.problem)


def link_box(rect: Box, visible: Box) -> Box:
    """A link rectangle (PDF space, y up) in the lines' space (from the visible box's top left, y down)."""
    x0, y0, x1, y1 = rect
    return (x0 - visible[0], visible[3] - y1, x1 - visible[0], visible[3] - y0)


# -- boxes and words ------------------------------------------------------------------------------

def union(boxes: list[Box]) -> Box:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def overlaps(a: Box, b: Box, slack: float = 0.5) -> bool:
    return a[0] < b[2] - slack and b[0] < a[2] - slack and a[1] < b[3] - slack and b[1] < a[3] - slack


def _tokens(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


def _matches(line: Line, title: set[str]) -> bool:
    """Most of the line's words are words of the title (a class may set it in capitals)."""
    words = _tokens(line.text)
    return bool(words) and sum(w in title for w in words) >= max(1, 0.6 * len(words))


def _short(text: str, n: int = 40) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


# -- the title --------------------------------------------------------------------------------------

def title_by_text(page: Page, skip: str, known: str | None) -> list[Line]:
    """The title's lines, found by its words (`known`: the PDF's /PithTitle or /Title): the
    largest of the lines made of its words (a running head repeats it smaller), and the lines
    of its words that touch it; [] when no line is made of them. Lines holding `skip` (the
    badge) are never part of it."""
    lines = _ordered(page, skip)
    words = set(_tokens(known or ""))
    of_title = [ln for ln in lines if _matches(ln, words)] if words else []
    if not of_title:
        return []
    size = max(ln.size for ln in of_title)
    return _block(lines, lines.index(next(ln for ln in of_title if ln.size >= size - 0.01)),
                  lambda ln: _matches(ln, words))


def _ordered(page: Page, skip: str) -> list[Line]:
    return sorted((ln for ln in page.lines if skip not in ln.text), key=lambda ln: ln.box[1])


def _largest_block(page: Page, skip: str) -> list[Line]:
    top = [ln for ln in _ordered(page, skip) if ln.box[1] < page.height * TOP_PART]
    if not top:
        return []
    size = max(ln.size for ln in top)
    return _block(top, next(i for i, ln in enumerate(top) if ln.size >= size - 0.01),
                  lambda ln: ln.size >= size * TITLE_SHARE)


def _block(ordered: list[Line], first: int, belongs: Callable[[Line], bool]) -> list[Line]:
    """Line `first` and the lines that belong with it, above and below, each within one line's
    size of the next."""
    block = [ordered[first]]
    size = ordered[first].size
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


# -- what follows the title block -------------------------------------------------------------------

def is_first_heading(line: Line) -> bool:
    """The body's first heading: "Introduction" numbered (also run in, with its paragraph on the
    line), or alone on its line (not a sentence of the abstract that starts with the word)."""
    m = _FIRST_HEADING.match("".join(line.text.split()).casefold())
    return m is not None and (m[1] is not None or len(line.text.split()) <= 3)


def is_heading(line: Line) -> bool:
    """A line that opens what follows the title block: the body's first heading, or a part's
    ("Abstract", "Keywords", "Contents", run in or alone)."""
    first = re.sub(r"\W+", " ", line.text.casefold()).strip()
    return is_first_heading(line) or any(first.startswith(h) for h in _HEADINGS)


def footnotes(page: Page, skip: str) -> list[Line]:
    """The footnotes at the page's foot, top first: in its lower half, from the first line that
    starts with a footnote mark down to the foot, every line set smaller than the text just
    above them (a page number at the very end aside). A title page's small affiliations with
    their marks, above the date set larger, are not footnotes."""
    lines = _ordered(page, skip)
    for i, ln in enumerate(lines):
        if i == 0 or ln.box[1] <= page.height / 2 or not _starts_with_mark(ln):
            continue
        size = lines[i - 1].size
        rest = lines[i:]
        folio = len(rest) > 1 and len(rest[-1].text) <= 4 and rest[-1].text.strip().isalnum()
        if all(x.size <= size * FOOTNOTE_SHARE for x in (rest[:-1] if folio else rest)):
            return rest
    return []


def _starts_with_mark(line: Line) -> bool:
    """The line opens with a footnote mark: a mark symbol, a character with no text of its own
    (a symbol font's dagger without a text layer), or a number or letter of one or two
    characters standing alone (the view breaks a line where the type size changes)."""
    first = line.text[:1]
    if first in _FOOTNOTE_MARKS or (first and not first.isprintable()):
        return True
    head = line.text.split(" ", 1)
    return len(head) == 2 and len(head[0]) <= 2 and head[0].isalnum()


def _run(lines: list[Line]) -> list[Line]:
    """The lines of one block from the first of `lines` on (nearest to the badge first): each of
    the first's size and within BLOCK_GAP of its size from the last."""
    if not lines:
        return []
    run = [lines[0]]
    for ln in lines[1:]:
        last = run[-1]
        gap = max(ln.box[1] - last.box[3], last.box[1] - ln.box[3])
        if abs(ln.size - last.size) > SIZE_SLACK or gap > BLOCK_GAP * last.size:
            break
        run.append(ln)
    return run


def is_text_block(run: list[Line]) -> bool:
    """A paragraph as a reader tells one at a glance: two lines or more of one size, its full
    lines (all but its last) flush with one right edge, and flush with one left edge too but
    for a first line's indent. A title block's names and places are ragged: one line does not
    end where the next does."""
    if len(run) < 2:
        return False
    full = run[:-1] if len(run) > 2 else run[:1]
    rights = [ln.box[2] for ln in full]
    lefts = [ln.box[0] for ln in run[1:]]
    right_ok = max(rights) - min(rights) <= EDGE_SLACK and run[-1].box[2] <= max(rights) + EDGE_SLACK
    if len(run) == 2:  # one full line and a last one: the full line reaches at least as far right
        right_ok = run[0].box[2] >= run[1].box[2] - EDGE_SLACK and run[0].box[0] <= run[1].box[0] + INDENT_SLACK
    left_ok = not lefts or max(lefts) - min(lefts) <= EDGE_SLACK
    wide = run[0].box[2] - run[0].box[0] >= 0.5 * max(ln.box[2] - ln.box[0] for ln in run)
    return right_ok and left_ok and wide and len(run[0].text) >= 40


def is_sentence(line: Line) -> bool:
    """A line of prose, not of a title block: a sentence of four words or more that ends with
    its full stop (a paper's one-line first paragraph; a name ends with no stop, or an initial's)."""
    words = line.text.split()
    return len(words) >= 4 and words[-1][-1:] in ".!?" and len(words[-1].rstrip(".!?")) > 2


def _part(line: Line) -> str:
    """What kind of line opens what follows: "abstract", "body" or "" (a line of the title block)."""
    text = re.sub(r"\W+", " ", line.text.casefold()).strip()
    if is_first_heading(line):
        return "body"
    if text.startswith(_HEADINGS) or text.startswith(_ABSTRACT_STARTS):
        return "abstract"
    return "body" if is_heading(line) else ""


# -- the judgement ----------------------------------------------------------------------------------

class _Found(NamedTuple):
    clause: str
    headline: str


def judge(pages: list[Page], needle: str, link: Box | None, link_off_page: bool, title_text: str | None = None,
          ) -> Verdict:
    """The badge on the last of `pages` (the ones before it: the pages from page 1 on, where the
    title may be): its line is the one holding `needle` (the number's body) that its link
    covers, `link` its link rectangle in the lines' space (None: no link on the page);
    `title_text` the title as the PDF's metadata states it, to find its lines by."""
    page = pages[-1]
    holding = [ln for ln in page.lines if needle in ln.text]
    own = [ln for ln in holding if link and overlaps(ln.box, link, slack=-1.0)] or holding[:1]
    if not own:
        cut = _cut_short(page, needle, link) if not link_off_page else None
        if cut is not None:  # on the page, but what is drawn over it hides its end
            clause = f"its text is partly covered: the page shows {_short(cut.text)!r}"
            return Verdict(cut.box, None, "", (clause,), False, "partly covered")
        why = "its text is not on the visible page" + (" and its link lies outside the page" if link_off_page
                                                        else "")
        return Verdict(None, None, "", (why,), True, "off the visible page")
    line = own[0]
    alone = _badge_only(line.text, needle)
    badge = union([line.box, link] if link and alone else [link] if link else [line.box])
    found: list[_Found] = []
    if link_off_page:
        found.append(_Found("its link lies outside the visible page", "off the visible page"))
    if badge[0] < ARXIV_BAND:
        found.append(_Found(f"it starts at x {badge[0]:.0f} pt, inside the left {ARXIV_BAND:g} pt where arXiv "
                            "stamps", "in arXiv's stamp band"))
    found += _over(page, line, alone, badge, [line.box, link] if link and alone else [badge])
    title_at, title, by_text = _find_title(pages, needle, title_text)
    title_box = union([ln.box for ln in title]) if title else None
    text = " ".join(ln.text for ln in title)
    if title and title_at == len(pages) - 1:
        found += _on_title_page(page, needle, badge, title, by_text)
    elif title:
        found += _after_title_page(pages, title_at, needle, badge, title)
    faults = tuple(dict.fromkeys(f.clause for f in found))
    return Verdict(badge, title_box if title_at == len(pages) - 1 else None, text, faults, link_off_page,
                   found[0].headline if found else "")


def _cut_short(page: Page, needle: str, link: Box | None) -> Line | None:
    """The badge's line where only the start of its number shows (a frame drawn over its end,
    bmcart's abstract over the notes' column): a line under the link holding "pith:" and the
    number's first characters."""
    for ln in page.lines:
        m = re.search(r"pith:(\w{4,})", ln.text)
        if m and needle.startswith(m[1]) and (link is None or overlaps(ln.box, link, slack=-1.0)):
            return ln
    return None


def _badge_only(text: str, needle: str) -> bool:
    """The line holds the badge and nothing else (the view joins what shares a baseline); a
    review copy's line number in the margin (lineno) is no text beside it."""
    return all(needle in word or word.casefold().rstrip(":") in ("pith", "") or (word.isdigit() and len(word) <= 4)
               for word in text.split())


def _over(page: Page, line: Line, alone: bool, badge: Box, parts: list[Box]) -> list[_Found]:
    """Other text under the badge: a line the badge's text or link overlaps, or text on the
    badge's own line (what shares its baseline is read as one line)."""
    if not alone:
        return [_Found(f"it lies over other text, or beside it on one line ({_short(line.text)!r})",
                       "over other text")]
    hit = next((ln for ln in page.lines if ln is not line and any(overlaps(p, ln.box) for p in parts)), None)
    if hit:
        return [_Found(f"it lies over other text ({_short(hit.text)!r})", "over other text")]
    # Beside it on its row (an author's name in the next column): not the end of a block. A
    # margin's line number is no text of the page's.
    middle = (line.box[1] + line.box[3]) / 2
    beside = next((ln for ln in page.lines if ln is not line and ln.box[1] < middle < ln.box[3]
                   and not ln.text.strip().isdigit()), None)
    if beside:
        return [_Found(f"it sits beside other text on its row ({_short(beside.text)!r})", "beside other text")]
    return []


def _find_title(pages: list[Page], needle: str, known: str | None) -> tuple[int, list[Line], bool]:
    """(the index of the title's page, its lines, whether found by its words). By its words on
    the page that shows them largest, the badge's own on a tie (cas-dc repeats the title small
    over its graphical abstract and highlights, pages 1 and 2); otherwise the badge's page's
    largest text, unless a page before shows larger (a class that sets its title page itself
    and leaves \\maketitle empty)."""
    by_text = [(max(ln.size for ln in lines), i, lines) for i, page in enumerate(pages)
               if (lines := title_by_text(page, needle, known))]
    if by_text:
        _size, at, lines = max(by_text, key=lambda found: (round(found[0], 1), found[1]))
        return at, lines, True
    here = _largest_block(pages[-1], needle)
    size = max((ln.size for ln in here), default=0.0)
    for i, page in enumerate(pages[:-1]):
        lines = _largest_block(page, needle)
        if lines and max(ln.size for ln in lines) > size + 1:
            return i, lines, False
    return len(pages) - 1, here, False


def _on_title_page(page: Page, needle: str, badge: Box, title: list[Line], by_text: bool) -> list[_Found]:
    title_box = union([ln.box for ln in title])
    text = " ".join(ln.text for ln in title)
    lines = _ordered(page, needle)
    if badge[1] < title_box[3] - 1:
        # No title the PDF names (pith's fallback): under the page's first text will do too.
        first = lines[0].box if lines else None
        if by_text or first is None or badge[1] < first[3] - 1:
            what = "the title" if by_text or first is None else "the page's first text and its largest line"
            return [_Found(f"it is above the end of {what} ({_short(text)!r}), not below it", "above the title")]
        return []
    found = []
    if by_text and not aligned(badge, [ln.box for ln in title]):
        # (aligned with the title the PDF names; pith's fallback, with no title, is held only
        # to being below the page's first text or its largest line)
        found.append(_Found(f"it is not aligned with the title ({_short(text)!r}: x {title_box[0]:.0f}-"
                            f"{title_box[2]:.0f} pt; the badge: x {badge[0]:.0f}-{badge[2]:.0f} pt)",
                            "not aligned with the title"))
    below_title = [ln for ln in lines if ln.box[1] >= title_box[3] - 1]
    return what_follows(page, needle, badge, [ln.box for ln in title], below_title) + found


def _after_title_page(pages: list[Page], title_at: int, needle: str, badge: Box, title: list[Line],
                      ) -> list[_Found]:
    """The badge on a page after the title's: fine only where the title block runs on to the
    foot of its page (nothing of what follows after it there) and the badge ends it on this
    page, before anything that follows."""
    text = " ".join(ln.text for ln in title)
    page = pages[-1]
    where = f"the title is on page {title_at + 1} ({_short(text)!r}), the badge on page {len(pages)}"
    first = pages[title_at]
    title_box = union([ln.box for ln in title])
    rest = [ln for ln in _ordered(first, needle) if ln.box[1] >= title_box[3] - 1 and ln not in title]
    notes = footnotes(first, needle)
    rest = [ln for ln in rest if ln not in notes and not _folio(first, ln)]
    lines = [ln for ln in _ordered(page, needle) if not _folio(page, ln)]
    above = [ln for ln in lines if ln.box[3] <= badge[1] + 1]
    # The block fills its page to the foot (a title page with room to spare ends there), and
    # nothing but more of it comes before the badge on the next.
    foot = max(ln.box[3] for ln in [*title, *rest])
    runs_on = (len(pages) - 1 == title_at + 1 and foot > first.height * (1 - FOOT_PART)
               and not any(_part(ln) for ln in rest + above) and not _has_block(rest) and not _has_block(above))
    if not runs_on:
        return [_Found(where, "not on the title's page")]
    found = []
    if not aligned(badge, [ln.box for ln in title]):
        found.append(_Found(f"it is not aligned with the title ({_short(text)!r}, on page {title_at + 1})",
                            "not aligned with the title"))
    return what_follows(page, needle, badge, [ln.box for ln in title], lines, continued=True) + found


def _folio(page: Page, line: Line) -> bool:
    """A page number or running head: a short line in the page's top or bottom margin."""
    return len(line.text) <= 4 and (line.box[1] > page.height * 0.9 or line.box[3] < page.height * 0.1)


def _has_block(lines: list[Line]) -> bool:
    return any(is_text_block(_run(lines[i:])) for i in range(len(lines)))


def what_follows(page: Page, needle: str, badge: Box, title_lines: list[Box], lines: list[Line],
                 continued: bool = False) -> list[_Found]:
    """What a reader finds wrong with the badge's place below the title (`title_lines`: its
    lines' boxes; `lines`: the page's lines below the title, top first): it is under the
    footnotes, below the body's first heading, above a line of the title block (between the
    title and its authors), or inside a block of text (an abstract's paragraphs above and
    below it). `continued`: the title block began on the page before."""
    above = [ln for ln in lines if ln.box[3] <= badge[1] + 1]
    below = [ln for ln in lines if ln.box[1] >= badge[3] - 1]
    found = []
    notes = footnotes(page, needle)
    if notes and notes[0].box[1] < badge[1]:
        found.append(_Found(f"it lies under the footnotes ({_short(notes[0].text)!r})", "under the footnotes"))
        return found
    heading = next((ln for ln in above if is_first_heading(ln)), None)
    if heading:
        found.append(_Found(f"it is below the start of the body text ({_short(heading.text)!r})",
                            "below the start of the body text"))
        return found
    split = inside_block(lines, badge)
    if split:
        what = "the abstract" if _in_abstract(above, split[0]) else "a block of text"
        found.append(_Found(f"it lies inside a block of text, between {_short(split[0].text)!r} and "
                            f"{_short(split[1].text)!r}", f"inside {what}"))
        return found
    block_line = title_block_below(below, badge, title_lines)
    if block_line:
        directly = not continued and not [ln for ln in above if not _folio(page, ln)]
        if directly and _block_fills_page(page, below, notes):
            return found  # no room below the block on this page: pith.sty's "under the title" (it logs why)
        where = "between the title and the authors" if directly else "inside the title block"
        found.append(_Found(f"it is not below the title block's last line: {_short(block_line.text)!r} comes "
                            f"after it ({where})", where))
    return found


def _block_fills_page(page: Page, below: list[Line], notes: list[Line]) -> bool:
    """What lies below the badge, down to the page's foot, is all title block (no heading, no
    abstract, no block of text) and reaches the foot's part: a block too long for its page
    (40 authors under article's \\maketitle, a collaboration's list), which leaves the badge
    only the place under the title."""
    rest = [ln for ln in below if ln not in notes and not _folio(page, ln)]
    return bool(rest) and max(ln.box[3] for ln in rest) > page.height * (1 - FOOT_PART) and not any(
        _part(ln) or is_first_heading(ln) for ln in rest) and not _has_block(rest)


def _in_abstract(above: list[Line], line: Line) -> bool:
    """The block the badge splits is an abstract: a heading of one above it, or its own words."""
    return bool(_part(line)) or any(_part(ln) == "abstract" for ln in above)


def title_block_below(below: list[Line], badge: Box, title_lines: list[Box]) -> Line | None:
    """The line just below the badge when it belongs to the title block: within a few lines of
    the badge, in the title's span, and neither a heading ("Abstract", "Keywords", the body's
    first), nor a block of text's first line, nor set apart from the title: centred as a
    centred title is, flush with a flush-left one. None when the badge ends the block."""
    x0, x1 = min(b[0] for b in title_lines), max(b[2] for b in title_lines)
    near = [ln for ln in below if ln.box[0] < x1 and x0 < ln.box[2]]
    if not near:
        return None
    line = near[0]
    if line.box[1] - badge[3] > ROW_GAP * max(line.size, badge[3] - badge[1]):
        return None
    if _part(line) or is_text_block(_run(near)) or is_sentence(line):
        return None
    # (the row's lines of its size: a two-column page's first body line beside a heading is not of it)
    row = union([ln.box for ln in near if abs(ln.box[1] - line.box[1]) <= 2 and abs(ln.size - line.size) <= SIZE_SLACK])
    axis = (x0 + x1) / 2
    centred = all(abs((b[0] + b[2]) / 2 - axis) <= ALIGN_SLACK for b in title_lines)
    if centred:
        return line if abs((row[0] + row[2]) / 2 - axis) <= ALIGN_SLACK else None
    left = min(b[0] for b in title_lines)
    # Flush left: a paragraph of the body starts flush left too, but it is a block of text
    # (above); a title block's line is not, nor is it larger than the title.
    return line if abs(row[0] - left) <= ALIGN_SLACK else None


def inside_block(lines: list[Line], badge: Box) -> tuple[Line, Line] | None:
    """The two lines of one block of text the badge lies between: two lines or more of one size
    just above it and just below it, with the same left and right edges (the block's paragraphs
    above and below the badge). None when the badge is not inside such a block."""
    def beside(ln: Line) -> bool:
        return ln.box[0] < badge[2] and badge[0] < ln.box[2]

    up = _run([ln for ln in reversed(lines) if ln.box[3] <= badge[1] + 1 and beside(ln)])
    down = _run([ln for ln in lines if ln.box[1] >= badge[3] - 1 and beside(ln)])
    if len(up) < 2 or len(down) < 2:
        return None
    a, b = up[0], down[0]
    edges = (min(ln.box[0] for ln in up), max(ln.box[2] for ln in up),
             min(ln.box[0] for ln in down), max(ln.box[2] for ln in down))
    same = (abs(a.size - b.size) <= SIZE_SLACK and abs(edges[0] - edges[2]) <= EDGE_SLACK
            and abs(edges[1] - edges[3]) <= EDGE_SLACK)
    near = b.box[1] - a.box[3] <= (badge[3] - badge[1]) + 4 * max(a.size, b.size)
    # The line under the badge starts where the block above does (a paragraph's indent aside):
    # a two-column body under a full-width caption spans the caption's edges, column by column,
    # but its first line beside the badge starts in the second column (acmsiggraph's teaser).
    continues = b.box[0] <= edges[0] + INDENT_SLACK
    return (a, b) if same and near and continues else None


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
