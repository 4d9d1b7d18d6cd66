"""What a PDF shows as its title: page 1's visible text, the lines that are its title, and
what its metadata names (Info /Title, XMP dc:title, pith.sty's /PithTitle).

Page 1 is read as a reader sees it (pdf/page.py: only visible text, its title the largest
text in its top part). Info and XMP are read by pithtex's own reader, the XMP through
defusedxml like every other packet. Nothing here decides anything: `verify.check_paper`
and `stamp` compare these texts with a record's title (see pithtex/pdf/titles.py). Metadata
never shows that a PDF is a paper (anyone can write it); it can show that it is another.
"""

from __future__ import annotations

from pathlib import Path

from ..value import TYPE_CHECKING, NamedTuple
from .errors import XmpError
from .objects import decode_text
from .page import read_page_one, title_text
from .reader import READ_FAILURES, PdfFile
from .seen import PageOne

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

    from .facts import Facts



class Shown(NamedTuple):
    """The texts a PDF offers as its title; None where it has none (or it could not be read)."""

    page1: str | None = None  # page 1's visible text
    largest: str | None = None  # page 1's title: its largest visible text in its top part (seen.title_lines)
    info_title: str | None = None
    xmp_title: str | None = None
    pith_title: str | None = None  # the title pith.sty typeset, when it records it (Info /PithTitle)
    problem: str | None = None  # why page 1's text could not be read
    page: PageOne | None = None  # page 1 as read, with arXiv's stamp and its links

    @property
    def has_text(self) -> bool:
        return bool(self.page1 and self.page1.strip())

    def named(self) -> list[tuple[str, str]]:
        """(where, title) for each title the PDF names in its metadata (not its page text); one
        with no letter or digit names nothing (hyperref's empty title is "()" in some XMP)."""
        found = (("the title pith.sty typeset (Info /PithTitle)", self.pith_title),
                 ("Info /Title", self.info_title), ("XMP dc:title", self.xmp_title))
        return [(where, text) for where, text in found if text and any(char.isalnum() for char in text)]


def shown_of(path: str | Path, password: bytes | None = None, facts: Facts | None = None,
             opened: PdfFile | None = None, index: int = 0) -> Shown:
    """The title texts of the PDF at `path`; reading problems end up in `problem`, never raised
    (the caller has read this file already, so it is a PDF). Given the `facts` the caller read,
    Info and XMP come from them (the packet is not decoded or parsed again): only page 1's
    text is read here; `opened`, the file open in pithtex's reader, is read again, not reopened.
    `index`: the page read as page 1 is (0: page 1 itself)."""
    info, xmp_title = _metadata(path, password) if facts is None else _from_facts(facts)
    page = read_page_one(path, password, opened, index)
    page1 = None if page.problem else page.text
    return Shown(page1, title_text(page) or None, info.get("Title"), xmp_title, info.get("PithTitle"), page.problem,
                 page)


def facts_and_shown(path: str | Path, password: bytes | None = None,
                    pages: int | None = None, index: int = 0) -> tuple[Facts, Shown]:
    """A PDF's pith facts (links on `pages` pages, as `facts_of`) and what it shows, from one
    opening of the file in pithtex's reader (its cross-reference and object streams parsed
    once). UnreadablePdf (one sentence) when it is no PDF, or its metadata inflates past what
    metadata is; page 1's problems end up in the Shown."""
    from .facts import opened_pdf, read_facts, refuse_inflated_metadata

    with opened_pdf(path, password) as pdf:
        facts = read_facts(pdf, pages)
        if facts.xmp is not None and facts.xmp.error is not None:  # a packet too large to be metadata?
            refuse_inflated_metadata(pdf, path)
        return facts, shown_of(path, password, facts, pdf, index)


def _metadata(path: str | Path, password: bytes | None) -> tuple[dict[str, str], str | None]:
    from . import xmp
    from .facts import metadata_packet

    try:
        with PdfFile(path, password=password) as pdf:
            if pdf.locked is not None:
                return {}, None
            info = pdf.resolve(pdf.trailer.get("Info"))
            texts = {}
            for name in ("Title", "PithTitle"):
                text = decode_text(pdf.resolve(info.get(name))) if isinstance(info, dict) else None
                if text is not None:
                    texts[name] = text
            packet = metadata_packet(pdf, pdf.catalog())
    except READ_FAILURES:
        return {}, None
    if packet is None:
        return texts, None
    try:
        root = xmp.parse(packet, writing=False).root
    except XmpError:
        return texts, None
    return texts, _dc_title(root)


def _from_facts(facts: Facts) -> tuple[dict[str, str], str | None]:
    """`_metadata`'s answer from facts already read: an XMP stream that does not decode
    leaves nothing, as when `_metadata` reads it; one that does not parse, Info only."""
    if facts.xmp is not None and facts.xmp.error is not None and facts.xmp_packet is None:
        return {}, None
    root = facts.xmp_tree.root if facts.xmp_tree is not None else None
    return dict(facts.titles), _dc_title(root) if root is not None else None


def _dc_title(root: Element) -> str | None:
    """dc:title: an rdf:Alt of language alternatives; the x-default one, else the first."""
    from . import xmp

    dc = "http://purl.org/dc/elements/1.1/"
    for desc in xmp.descriptions(root):
        title = desc.find(f"{{{dc}}}title")
        if title is None:
            continue
        items = list(title.iter(f"{{{xmp.RDF}}}li"))
        lang = f"{{{xmp.XML_NS}}}lang"
        best = next((li for li in items if li.get(lang) == "x-default"), items[0] if items else None)
        text = (best.text if best is not None else title.text) or ""
        return text.strip() or None
    return None
