"""arXiv identifiers: read every accepted form once, then hand an `ArxivId` around.

arXiv has used two schemes (both documented by arXiv):
- new style, since April 2007: `YYMM.NNNN` up to December 2014 and `YYMM.NNNNN` from
  January 2015, e.g. `2104.04473`;
- old style, until March 2007: `archive/YYMMNNN` or `archive.SC/YYMMNNN` (a subject class
  of two capitals), e.g. `hep-th/9901001`, `math.AG/0309136`, from August 1991.
Either may end in a version `vN` (N from 1). Text may start with `arXiv:` (any case).

A Pith record names one version of a paper (`source.version`). An id with a version asks
for that version; an id without one accepts the version the resolver chose.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from ..errors import InvalidNumber
from ..value import Frozen

# The archives of old-style ids (arXiv's list; none was added after March 2007).
OLD_ARCHIVES = frozenset((
    "acc-phys", "adap-org", "alg-geom", "ao-sci", "astro-ph", "atom-ph", "bayes-an", "chao-dyn", "chem-ph",
    "cmp-lg", "comp-gas", "cond-mat", "cs", "dg-ga", "funct-an", "gr-qc", "hep-ex", "hep-lat", "hep-ph",
    "hep-th", "math", "math-ph", "mtrl-th", "nlin", "nucl-ex", "nucl-th", "patt-sol", "physics", "plasm-ph",
    "q-alg", "q-bio", "quant-ph", "solv-int", "supr-con",
))
_NEW = re.compile(r"(?P<yy>[0-9]{2})(?P<mm>[0-9]{2})\.(?P<num>[0-9]{4,5})")
_OLD = re.compile(r"(?P<archive>[a-z-]+)(?:\.(?P<sc>[A-Z]{2}))?/(?P<yy>[0-9]{2})(?P<mm>[0-9]{2})(?P<num>[0-9]{3})")
_VERSION = re.compile(r"v([1-9][0-9]{0,3})")
EXAMPLES = "e.g. 2104.04473, 2104.04473v2 or hep-th/9901001"


class ArxivId(Frozen):
    """A valid arXiv id: `paper` without version (`2104.04473`), `version` or None."""

    __slots__ = ("paper", "version")
    paper: str
    version: int | None

    def __init__(self, paper: str, version: int | None = None) -> None:
        object.__setattr__(self, "paper", paper)
        object.__setattr__(self, "version", version)

    @classmethod
    def parse(cls, text: str) -> ArxivId:
        """Read `[arXiv:]ID[vN]`; raise InvalidNumber (exit code 2) saying what is wrong."""
        shown = text.strip()[:80]  # an error message shows at most this much of the input
        body = text.strip()
        body = body[6:] if body[:6].lower() == "arxiv:" else body
        paper, version = body, None
        if len(body) > 40:  # the longest real id (math-ph/0703001v99 and the like) is far shorter
            raise InvalidNumber(f"invalid arXiv id {shown!r}: too long to be one ({EXAMPLES})")
        split = re.search(r"v[0-9]+$", body)
        if split:
            paper = body[: split.start()]
            if not _VERSION.fullmatch(split.group()):
                raise InvalidNumber(f"invalid arXiv id {shown!r}: the version must be v1, v2, ...")
            version = int(split.group()[1:])
        problem = _paper_problem(paper)
        if problem:
            raise InvalidNumber(f"invalid arXiv id {shown!r}: {problem} ({EXAMPLES})")
        return cls(paper, version)

    def __str__(self) -> str:
        return self.paper + (f"v{self.version}" if self.version else "")

    @property
    def prefixed(self) -> str:
        return f"arXiv:{self}"


def looks_like(text: str) -> bool:
    """True for text that is an arXiv id in some accepted form (for choosing how to read an argument)."""
    try:
        ArxivId.parse(text)
    except InvalidNumber:
        return False
    return True


def _paper_problem(paper: str) -> str | None:
    new, old = _NEW.fullmatch(paper), _OLD.fullmatch(paper)
    if new:
        yymm, digits = int(new["yy"] + new["mm"]), len(new["num"])
        if not 1 <= int(new["mm"]) <= 12:
            return f"month {new['mm']} does not exist"
        if yymm < 704:
            return "new-style ids start in April 2007 (0704); older papers have ids like hep-th/9901001"
        if digits != (4 if yymm < 1501 else 5):
            return f"ids of {new['yy']}{new['mm']} have {4 if yymm < 1501 else 5} digits after the dot"
        if int(new["num"]) == 0:
            return "the sequence number starts at 1"
        return None
    if old:
        if old["archive"] not in OLD_ARCHIVES:
            return f"{old['archive']!r} is not an arXiv archive"
        year = int(old["yy"]) + (1900 if int(old["yy"]) >= 91 else 2000)
        if not 1 <= int(old["mm"]) <= 12:
            return f"month {old['mm']} does not exist"
        if not (1991, 8) <= (year, int(old["mm"])) <= (2007, 3):
            return "old-style ids run from 9108 to 0703"
        if int(old["num"]) == 0:
            return "the sequence number starts at 1"
        return None
    return "not an arXiv id"


def record_source(record: dict[str, Any]) -> tuple[str | None, int | None]:
    """The arXiv id and version a canonical record names in `source`, where it names them."""
    source = record.get("source")
    if not isinstance(source, dict) or source.get("kind") not in (None, "arxiv"):
        return None, None
    paper = source.get("id") if isinstance(source.get("id"), str) else None
    version = source.get("version")
    return paper, version if isinstance(version, int) and not isinstance(version, bool) else None


def source_problem(record: dict[str, Any], asked: ArxivId) -> tuple[Literal["pass", "fail"], str]:
    """Does a canonical record name the paper (and version) asked for? ("pass" or "fail", detail)."""
    paper, version = record_source(record)
    if paper is None:  # a record of no named paper is not the record of the paper asked for
        return "fail", f"asked for {asked.prefixed}, but the record names no arXiv paper"
    named = f"arXiv:{paper}" + (f"v{version}" if version else "")
    if paper != asked.paper:
        return "fail", f"asked for {asked.prefixed}, but the record is of {named}"
    if asked.version is not None and version != asked.version:
        return "fail", f"asked for {asked.prefixed}, but the record is of {named}"
    return "pass", f"the record is of {named}, the paper asked for"
