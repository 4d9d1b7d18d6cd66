"""Which arXiv paper (and version) a PDF is, from what the PDF itself says about itself.

In order of authority:
1. arXiv's stamp, the grey line arXiv prints up the left margin of page 1 of every PDF it
   serves: `arXiv:1706.03762v5  [cs.CL]  6 Dec 2017`, or for an old-style id
   `arXiv:hep-th/9901001v2  6 Jan 1999`. It always carries the version.
2. The PDF's own arXiv link on page 1 (an annotation to arxiv.org/abs/ID), when page 1 links
   to one arXiv paper only: a page that links several is citing them.
3. The DOI arXiv registers for every paper, 10.48550/arXiv.ID, in the PDF's Info or XMP, or
   shown on page 1 (again one paper only).

Never anything else: an id that appears in a sentence or a reference list is a citation, not
the PDF's own; a journal or conference copy carries no stamp, and so has no id here. Every
function is pure (texts in, an `Identity` out); `pithtex.pdf.page` reads what a reader sees.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..errors import InvalidNumber
from ..value import LazyPattern, NamedTuple
from .ids import ArxivId

# An id as arXiv writes it: new style (YYMM.NNNN[N]) or old style (archive[.SC]/YYMMNNN).
_ID = r"(?:[0-9]{4}\.[0-9]{4,5}|[a-z]+(?:-[a-z]+)?(?:\.[A-Z]{2})?/[0-9]{7})(?:v[0-9]+)?"
# The stamp: "arXiv:" then the id; the category and date follow (absent on some old stamps).
STAMP = re.compile(rf"^\s*arXiv\s*:\s*(?P<id>{_ID})(?=\s|\[|$)(?:\s+\[(?P<category>[^\]]{{1,40}})\])?"
                   r"(?:\s+(?P<date>[0-9]{1,2}\s+[A-Z][a-z]{2}\s+[0-9]{4}))?")
# (LINK and DOI compiled on first use: most PDFs are told by their stamp, and need neither)
LINK = LazyPattern(rf"(?i)^https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/(?P<id>{_ID})(?:\.pdf)?/?(?:[?#].*)?$")
DOI = LazyPattern(rf"(?i)10\.48550/arXiv\.(?P<id>{_ID})(?![0-9A-Za-z/-])(?!\.[0-9A-Za-z])")


class Identity(NamedTuple):
    """The arXiv paper a PDF says it is: the id, where it says so, and the stamp as shown."""

    arxiv: ArxivId
    where: str  # "arXiv's stamp", "page 1's arXiv link", "Info's DOI", "XMP's DOI", "page 1's DOI"
    stamp: str | None = None  # the stamp's text, when the id came from it

    @property
    def from_stamp(self) -> bool:
        return self.stamp is not None

    def describe(self) -> str:
        """What the PDF shows, for a verdict: "arXiv's stamp 1706.03762v5"."""
        return f"{self.where} {self.arxiv}"


def _parsed(text: str) -> ArxivId | None:
    try:
        return ArxivId.parse(text)
    except InvalidNumber:
        return None


def stamp_id(stamp: str | None) -> ArxivId | None:
    """The id of arXiv's stamp text, or None when the text is not a stamp of a valid id."""
    if not stamp:
        return None
    m = STAMP.match(" ".join(stamp.split()))
    return _parsed(m["id"]) if m else None


def link_id(uri: str) -> ArxivId | None:
    """The id an arxiv.org/abs/ or /pdf/ link points at, or None."""
    m = LINK.match(uri.strip())
    return _parsed(m["id"]) if m else None


def doi_ids(text: str | None) -> list[ArxivId]:
    """Every arXiv DOI (10.48550/arXiv.ID) in a text."""
    found = [_parsed(m["id"]) for m in DOI.finditer(text or "")]
    return [arxiv for arxiv in found if arxiv is not None]


def _one_paper(ids: Iterable[ArxivId]) -> ArxivId | None:
    """The id when all name one paper (the most specific: one with a version), else None."""
    found = list(ids)
    if not found or len({arxiv.paper for arxiv in found}) != 1:
        return None
    versions = {arxiv.version for arxiv in found} - {None}
    if len(versions) > 1:
        return None  # two versions of one paper named: which one this PDF is cannot be told
    return ArxivId(found[0].paper, next(iter(versions), None))


def identify(stamp: str | None, uris: Iterable[str] = (), info: Iterable[str] = (), xmp: str | None = None,
             page_text: str | None = None) -> Identity | None:
    """The PDF's own arXiv id from its stamp, else its page-1 link, else its DOI (Info, XMP,
    page 1), or None: never a guess. `info` is the Info dictionary's string values."""
    arxiv = stamp_id(stamp)
    if arxiv is not None:
        return Identity(arxiv, "arXiv's stamp", " ".join((stamp or "").split()))
    candidates = (
        ("page 1's arXiv link", [a for a in map(link_id, uris) if a is not None]),
        ("Info's DOI", [a for text in info for a in doi_ids(text)]),
        ("XMP's DOI", doi_ids(xmp)),
        ("page 1's DOI", doi_ids(page_text)),
    )
    for where, ids in candidates:
        one = _one_paper(ids)
        if one is not None:
            return Identity(one, where)
    return None
