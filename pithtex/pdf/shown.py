"""What a PDF shows as its title: page 1's text, its largest line, Info /Title, XMP dc:title.

Page 1's text comes from pypdf's extractor (imported here, on first use: stamp's start-up
never pays for it). Info and XMP are read by pithtex's own reader, the XMP through
defusedxml like every other packet. Nothing here decides anything: `verify.check_paper`
and `stamp` compare these texts with a record's title (see pithtex/titles.py).
"""

from __future__ import annotations

import re
from pathlib import Path

from ..value import NamedTuple
from .objects import decode_text
from .reader import READ_FAILURES, PdfFile

TYPE_CHECKING = False  # `typing` is for checkers only
if TYPE_CHECKING:
    from .facts import Facts

# Page 1's text beyond this many characters is not kept (a title sits at the top).
MAX_TEXT = 200_000
# A page 1 whose content streams decode to more than this is not read for text: pypdf's
# extractor is pure Python, and a title page holds far less (a hostile one could hold 75 MB).
MAX_CONTENT = 8 * 1024 * 1024
# Text runs at least this share of the largest size count as the largest line.
LARGEST_SHARE = 0.92
_BLANKS = re.compile(r"[ \t\r\n]+")


class Shown(NamedTuple):
    """The texts a PDF offers as its title; None where it has none (or it could not be read)."""

    page1: str | None = None
    largest: str | None = None  # page 1's text in its largest font size: a typeset title, likely
    info_title: str | None = None
    xmp_title: str | None = None
    pith_title: str | None = None  # the title pith.sty typeset, when it records it (Info /PithTitle)
    problem: str | None = None  # why page 1's text could not be read

    @property
    def has_text(self) -> bool:
        return bool(self.page1 and self.page1.strip())

    def named(self) -> list[tuple[str, str]]:
        """(where, title) for each title the PDF names in its metadata (not its page text)."""
        found = (("the title pith.sty typeset (Info /PithTitle)", self.pith_title),
                 ("Info /Title", self.info_title), ("XMP dc:title", self.xmp_title))
        return [(where, text) for where, text in found if text and text.strip()]


def shown_of(path: str | Path, password: bytes | None = None, facts: Facts | None = None) -> Shown:
    """The title texts of the PDF at `path`; reading problems end up in `problem`, never raised
    (the caller has read this file already, so it is a PDF). Given the `facts` the caller read,
    Info and XMP come from them (the packet is not decoded or parsed again): only page 1's
    text is read here."""
    info, xmp_title = _metadata(path, password) if facts is None else _from_facts(facts)
    page1, largest, problem = _page1(path, password)
    return Shown(page1, largest, info.get("Title"), xmp_title, info.get("PithTitle"), problem)


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
    except xmp.XmpError:
        return texts, None
    return texts, _dc_title(root, xmp)


def _from_facts(facts: Facts) -> tuple[dict[str, str], str | None]:
    """`_metadata`'s answer from facts already read: an XMP stream that does not decode
    leaves nothing, as when `_metadata` reads it; one that does not parse, Info only."""
    from . import xmp

    if facts.xmp is not None and facts.xmp.error is not None and facts.xmp_packet is None:
        return {}, None
    root = facts.xmp_tree.root if facts.xmp_tree is not None else None
    return dict(facts.titles), _dc_title(root, xmp) if root is not None else None


def _dc_title(root, xmp) -> str | None:
    """dc:title: an rdf:Alt of language alternatives; the x-default one, else the first."""
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


# pypdf on a damaged or hostile content stream raises its own errors and, deeper in its
# font and stream code, these built-in ones; any of them means "no text to be had".
def _pypdf_failures() -> tuple[type[BaseException], ...]:
    import struct
    import zlib

    from pypdf.errors import PyPdfError

    return (PyPdfError, OSError, ValueError, LookupError, TypeError, AttributeError, RecursionError,
            ZeroDivisionError, OverflowError, NotImplementedError, struct.error, zlib.error)


def _page1(path: str | Path, password: bytes | None) -> tuple[str | None, str | None, str | None]:
    """(page 1's text, its largest line, why neither could be had)."""
    import logging
    import warnings

    logging.getLogger("pypdf").setLevel(logging.CRITICAL)  # its warnings are not ours to print
    failures = _pypdf_failures()
    runs: list[tuple[float, str]] = []

    def visit(text: str, cm: list[float], tm: list[float], _font: object, size: float) -> None:
        if text.strip(" \t\r\n") and isinstance(size, (int, float)):
            scale = abs(tm[3] * cm[3]) or abs(tm[0] * cm[0]) or 1.0
            runs.append((float(size) * scale, text))

    try:
        from pypdf import PdfReader

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reader = PdfReader(str(path), strict=False)
            if reader.is_encrypted and not reader.decrypt(password or b""):
                return None, None, "pypdf cannot open the encrypted file"
            if not reader.pages:
                return None, None, "the PDF has no pages"
            page = reader.pages[0]
            contents = page.get_contents()
            size = len(contents.get_data()) if contents is not None else 0
            if size > MAX_CONTENT:
                return None, None, f"page 1's content is {size:,} bytes, too much to read for its text"
            text = page.extract_text(visitor_text=visit)[:MAX_TEXT]
    except failures as exc:
        return None, None, f"pypdf cannot read page 1's text ({type(exc).__name__}: {exc})"[:200]
    return text, _largest(runs), None


def _largest(runs: list[tuple[float, str]]) -> str | None:
    """The text set in page 1's largest size (with runs close to it: a title's math or caps)."""
    if not runs:
        return None
    top = max(size for size, _text in runs)
    text = " ".join(t for size, t in runs if size >= top * LARGEST_SHARE)
    # Only these count as white space: str.split() would also split at 0x1C-0x1F, which a
    # TeX font without a ToUnicode map uses for ligatures (T1's "fi" is 0x1C).
    return _BLANKS.sub(" ", text).strip(" ") or None
