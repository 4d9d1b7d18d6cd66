"""Page 1 of a PDF as a reader sees it, read once: the one value everything that judges what a
PDF shows reads (verify's binding, the arXiv identification, `stamp` and `badge` by name).

`read_view(path, password)` opens the PDF once in pithtex's own reader (its pith facts: Info,
XMP, links, the number it carries; page 1's content measured against the bounds, its fonts'
text layers checked against their glyphs) and once in PDFium (page 1's text after every
transformation, forms included, each character of its top part checked on the page rendered
as a viewer draws it: annotations and form fields on top, optional content as shown on
screen). It is a top-level function of picklable arguments returning a picklable value, so it
can run in a worker process with limits of its own; every caller passes the `PageView` down
instead of opening the file again.
"""

from __future__ import annotations

from pathlib import Path

from ..value import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from .facts import Facts
    from .seen import PageOne
    from .shown import Shown


class PageView(NamedTuple):
    """What one reading of a PDF found: its pith facts, and the titles it shows (with page 1
    as read: its lines with sizes and boxes, body size, arXiv's stamp, links, what was hidden)."""

    facts: Facts
    shown: Shown

    @property
    def page(self) -> PageOne:
        from .seen import PageOne

        return self.shown.page or PageOne(problem=self.shown.problem)


def read_view(path: str | Path, password: bytes | None = None, pages: int | None = None,
              index: int = 0) -> PageView:
    """The PDF at `path` read once (its links on `pages` pages, None: all). UnreadablePdf (one
    sentence) when it is no PDF; page 1's own problems end up in `view.page.problem`. `index`:
    another page read as page 1 is (0: page 1), for `check`, which judges the badge on its page."""
    from .shown import facts_and_shown

    facts, shown = facts_and_shown(path, password, pages, index)
    return PageView(facts, shown)
