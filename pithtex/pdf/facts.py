"""The pith facts of a PDF, read once, typed: the one reader behind stamp, inspect, verify and check.

`read_facts(pdf)` walks the lazy reader (`reader.PdfFile`) over exactly what pith needs:
Info, the XMP packet, link annotations with their rectangles, an attached record, the
signature and certification state, PDF/A claims, encryption and pithtex's own update
marker. Numbers come back as `PithNumber` values; nobody below parses body strings again.
Page-1-only callers (stamp, the arXiv check) pass `pages=1`, so a 782-page PDF costs what
its first page costs. `Facts` keeps the XMP packet and its parsed tree and the attached
record's bytes, so no caller decodes or parses them again; `inspect_pdf` is the JSON view.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

from ..errors import PithError, Refused, UnreadablePdf
from ..limits import MAX_RECORD_BYTES, MAX_XMP_PACKET
from ..number import BASE32_ALPHABET, BODY_LENGTH, PithNumber
from ..value import TYPE_CHECKING, LazyPattern, NamedTuple
from .errors import EncryptionError, PasswordNeeded, PdfSyntaxError, XmpError
from .objects import Name, Ref, Stream, decode_text
from .reader import READ_FAILURES, PdfFile, Section, decode_stream, read_failure

if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

# A link to a number's page on any host (pith's baseurl= option may point at a mirror), in
# either case: number.py's alphabet, spelt out (IGNORECASE would also let in the Kelvin sign).
_BODY_CHARS = re.escape("".join(sorted(set(BASE32_ALPHABET + BASE32_ALPHABET.lower()))))
# (compiled on first use: a PDF without links never needs it)
PITH_URL = LazyPattern(f"/pith/([{_BODY_CHARS}]{{{BODY_LENGTH}}})(?![A-Za-z0-9])")
# Files with more pages than this are scanned for links on their first pages only.
MAX_LINK_PAGES = 5000
MAX_NAMES = 10_000
RECORD_NAME = "pith-record.json"


def number_in(text: Any) -> PithNumber | None:
    """A Pith Number written in any accepted form, or None."""
    if not isinstance(text, str):
        return None
    try:
        return PithNumber.parse(text)
    except PithError:
        return None


def number_in_url(text: Any) -> PithNumber | None:
    """The number a pith URL points at, or None."""
    m = PITH_URL.search(text) if isinstance(text, str) else None
    return PithNumber(m.group(1).upper()) if m else None


# -- the facts (value types are NamedTuples: a dataclass costs 5x more to create at import) ----
class Link(NamedTuple):
    """A link annotation to a pith page: where it points and where it sits."""

    uri: str
    number: PithNumber
    page: int  # 0-based
    rect: tuple[float, float, float, float] | None  # x0, y0, x1, y1 from the page's lower left
    # What a reader sees of its page: MediaBox within CropBox (None when the page names neither)
    visible: tuple[float, float, float, float] | None = None

    @property
    def off_page(self) -> bool:
        """Wholly or partly outside its page's visible box (half a point of rounding allowed):
        a viewer shows none of it there, or a clipped part, and nobody can click it."""
        if self.rect is None or self.visible is None:
            return False
        x0, y0, x1, y1 = self.rect
        vx0, vy0, vx1, vy1 = self.visible
        return x0 < vx0 - 0.5 or y0 < vy0 - 0.5 or x1 > vx1 + 0.5 or y1 > vy1 + 0.5


class Xmp(NamedTuple):
    """The pith properties of the XMP packet, as written (strings) and as numbers."""

    number_text: str | None = None
    url_text: str | None = None
    long_text: str | None = None
    pdfa: str | None = None  # "2B", "1A", ...
    schema_declared: bool = False
    error: str | None = None

    @property
    def number(self) -> PithNumber | None:
        return number_in(self.number_text)

    @property
    def url_number(self) -> PithNumber | None:
        return number_in_url(self.url_text)

    @property
    def long(self) -> PithNumber | None:
        return number_in(self.long_text)

    @property
    def has_pith(self) -> bool:
        return any(v is not None for v in (self.number_text, self.url_text, self.long_text))


class Encryption(NamedTuple):
    """What /Encrypt says, and whether we could open the file."""

    summary: str  # "R4 AES-128", or why it is not supported
    opened: bool
    reason: str | None = None  # why not, in one clause
    password_needed: bool = False
    encrypt_metadata: bool = True


class PithtexUpdate(NamedTuple):
    """pithtex's own incremental update, and what was appended after it."""

    original_size: int
    last: bool  # nothing after it: it can be replaced or cut off exactly
    later: tuple[str, ...] = ()  # what later updates changed, in words ("the Info dictionary", ...)


class Facts:
    """What `read_facts` found; filled in as it reads (a plain class: see pithtex/value.py for
    why not a dataclass)."""

    def __init__(self, file: str, update: PithtexUpdate | None = None) -> None:
        self.file = file
        self.info: dict[str, str] = {}  # /PithNumber, /PithURL, /PithTitle as written
        self.xmp: Xmp | None = None
        self.links: list[Link] = []
        self.links_all_pages = True
        self.attachment: PithNumber | None = None
        self.attachment_bytes: bytes | None = None
        self.signed = False
        self.certified = False
        self.output_intents = False
        self.page1_left = 0.0
        self.encryption: Encryption | None = None
        self.update = update
        self.unfinished: int | None = None  # an interrupted stamp's bytes start here (see unfinished_update)
        # The XMP packet as decoded, and its tree (parsed once, here; a stamp merges into it).
        self.xmp_packet: bytes | None = None
        self.xmp_tree: Any = None  # xmp.Parsed, when the packet parsed
        self.titles: dict[str, str] = {}  # Info /Title and /PithTitle, for pdf/shown.py

    def __repr__(self) -> str:
        return f"Facts({', '.join(f'{k}={v!r}' for k, v in vars(self).items())})"

    @property
    def pdfa(self) -> str | None:
        return self.xmp.pdfa if self.xmp else None

    @property
    def info_number(self) -> PithNumber | None:
        return number_in(self.info.get("PithNumber"))

    @property
    def page1_links(self) -> list[Link]:
        return [link for link in self.links if link.page == 0]

    @property
    def sources(self) -> dict[str, PithNumber]:
        """The number each source states, in order of authority (Info, XMP, record, links)."""
        xmp = self.xmp or Xmp()
        found = {"info": self.info_number, "info_url": number_in_url(self.info.get("PithURL")),
                 "xmp": xmp.number, "xmp_url": xmp.url_number, "xmp_long": xmp.long, "attachment": self.attachment}
        found.update({f"link{i}": link.number for i, link in enumerate(self.links)})
        return {where: number for where, number in found.items() if number is not None}

    @property
    def number(self) -> PithNumber | None:
        """The most authoritative number stated (with its year when an XMP long form gives one)."""
        sources = self.sources
        first = next(iter(sources.values()), None)
        if first is None:
            return None
        long = (self.xmp.long if self.xmp else None)
        return long if long is not None and long.body == first.body else first

    @property
    def agree(self) -> bool:
        return len({n.body for n in self.sources.values()}) == 1

    @property
    def locked(self) -> bool:
        """Encrypted, and not opened: nothing past the encryption was read."""
        return self.encryption is not None and not self.encryption.opened

    def as_dict(self) -> dict[str, Any]:
        """The JSON of `pithtex inspect --json` (numbers as their bodies)."""
        xmp = None
        if self.xmp is not None and (self.xmp.has_pith or self.xmp.error):
            xmp = {k: v for k, v in (("number", self.xmp.number_text), ("url", self.xmp.url_text),
                                     ("long", self.xmp.long_text), ("error", self.xmp.error)) if v is not None}
        enc = self.encryption
        out: dict[str, Any] = {
            "file": self.file, "number": self.number.body if self.number else None, "info": dict(self.info),
            "xmp": xmp, "links": [link.uri for link in self.links], "attachment": self.attachment is not None,
            "agree": self.agree, "pithtex_update": self.update is not None, "encrypted": enc is not None,
            "signed": self.signed, "certified": self.certified, "pdfa": self.pdfa,
            "sources": {k: v.body for k, v in self.sources.items()},
            "links_all_pages": self.links_all_pages,
            "links_off_page": [{"uri": link.uri, "page": link.page + 1, "rect": list(link.rect or ()),
                                "visible": list(link.visible or ())} for link in self.links if link.off_page],
        }
        if self.attachment is not None:
            out["attachment_number"] = self.attachment.body
        if enc is not None:
            out["encryption"] = {"method": enc.summary, "opened": enc.opened, "reason": enc.reason}
        if self.update is not None and self.update.later:
            out["after_pithtex_update"] = list(self.update.later)
        if self.unfinished is not None:
            out["unfinished_update"] = {"original_size": self.unfinished}
        return out


# -- reading ----------------------------------------------------------------------------------
def facts_of(path: str | Path, password: bytes | None = None, pages: int | None = None) -> Facts:
    """Open `path` and read its facts; UnreadablePdf (one sentence, exit 2) when it is no PDF."""
    with opened_pdf(path, password) as pdf:
        return read_facts(pdf, pages)


@contextlib.contextmanager
def opened_pdf(path: str | Path, password: bytes | None = None) -> Iterator[PdfFile]:
    """`path` open in pithtex's reader; what it cannot open or read, there or in the block, is
    UnreadablePdf (one sentence, exit 2)."""
    try:
        with PdfFile(path, password=password) as pdf:
            yield pdf
    except READ_FAILURES as exc:
        raise UnreadablePdf(read_failure(path, exc)) from None


def refuse_locked(facts: Facts, name: str | Path | None = None) -> None:
    """Refused (exit 1) for an encrypted file that did not open: the one wording stamp,
    verify and inspect give (`name` as the user wrote the path; else the file read)."""
    enc = facts.encryption
    if enc is None or enc.opened:  # (not `locked`)
        return
    name = facts.file if name is None else name
    raise Refused(f"{name}: encrypted PDF: {enc.reason}" if enc.password_needed
                  else f"{name}: encrypted PDF that pithtex cannot open: {enc.reason}")


def inspect_pdf(path: str | Path, password: bytes | None = None) -> dict[str, Any]:
    """Everything pith in a PDF as a JSON-ready dict (`Facts.as_dict`: what `pithtex inspect
    --json` prints). Keys: number (the body or None), info {PithNumber, PithURL}, xmp {number,
    url, long} or None, links [URI...], attachment (bool), agree (bool), pithtex_update (bool),
    and sources, encrypted, encryption, signed, pdfa, links_all_pages for detail."""
    return facts_of(path, password).as_dict()


def read_facts(pdf: PdfFile, pages: int | None = None, writing: bool = False) -> Facts:
    """Everything pith in an open PDF; `pages` bounds the link scan (None: all, up to MAX_LINK_PAGES).
    `writing`: keep the XMP tree fit to be written again (each element's prefixes), for a stamp."""
    facts = Facts(str(pdf.path), update=pithtex_update(pdf))
    facts.unfinished = unfinished_update(pdf)
    if pdf.encrypted:
        facts.encryption = _encryption(pdf)
        if pdf.locked is not None:
            return facts  # strings and streams are ciphertext: nothing trustworthy to read
    catalog = pdf.catalog()
    facts.signed, facts.certified = signature_state(pdf, catalog)
    facts.output_intents = catalog.get("OutputIntents") is not None
    facts.info = read_info(pdf)
    facts.titles = read_info(pdf, TITLE_KEYS)
    facts.xmp, facts.xmp_packet, facts.xmp_tree = read_xmp(pdf, catalog, writing)
    facts.links, facts.links_all_pages, facts.page1_left = read_links(pdf, pages)
    facts.attachment_bytes = attached_record(pdf, catalog)
    facts.attachment = _record_number(facts.attachment_bytes)
    return facts


def _encryption(pdf: PdfFile) -> Encryption:
    if pdf.security is not None:
        params = pdf.security.params
        return Encryption(params.summary, True, encrypt_metadata=params.encrypt_metadata)
    locked = pdf.locked
    return Encryption("unsupported" if not isinstance(locked, PasswordNeeded) else "password",
                      False, str(locked), isinstance(locked, PasswordNeeded))


TITLE_KEYS = ("Title", "PithTitle")


def read_info(pdf: PdfFile, keys: tuple[str, ...] = ("PithNumber", "PithURL", "PithTitle")) -> dict[str, str]:
    info = pdf.resolve(pdf.trailer.get("Info"))
    if not isinstance(info, dict):
        return {}
    out = {}
    for key in keys:
        text = decode_text(pdf.resolve(info.get(key)))
        if text is not None:
            out[key] = text
    return out


def metadata_packet(pdf: PdfFile, catalog: dict[str, Any]) -> bytes | None:
    stream = pdf.resolve(catalog.get("Metadata"))
    if not isinstance(stream, Stream):
        return None
    return decode_stream(stream, limit=MAX_XMP_PACKET)


def refuse_inflated_metadata(pdf: PdfFile, path: str | Path) -> None:
    """PDFium inflates the catalog's /Metadata stream whole when it opens a file (400 KB that
    inflate to 400 MiB cost 16 s and 2.6 GB): one over MAX_XMP_PACKET decoded is no metadata,
    and the PDF is refused (UnreadablePdf) before any page of it is read."""
    from .errors import Oversize

    try:
        metadata_packet(pdf, pdf.catalog())
    except Oversize:
        raise UnreadablePdf(f"{path}: its XMP metadata (the catalog's /Metadata stream) inflates to over "
                            f"{MAX_XMP_PACKET // 2**20} MiB, more than any metadata is; pithtex does not read "
                            "this PDF") from None
    except PdfSyntaxError:  # damaged: the facts say so, and PDFium inflates nothing of it
        return


def read_xmp(pdf: PdfFile, catalog: dict[str, Any], writing: bool = False) -> tuple[Xmp | None, bytes | None, Any]:
    """(the pith properties, the packet, its parsed tree): each None where there is none, or
    (Xmp(error=...), packet or None, None) for a packet that cannot be decoded or parsed."""
    try:
        packet = metadata_packet(pdf, catalog)
    except PdfSyntaxError as exc:
        return Xmp(error=str(exc)), None, None
    if packet is None:
        return None, None, None
    from . import xmp  # the XML parser: only for a packet there is

    try:
        tree = xmp.parse(packet, writing=writing)
    except XmpError as exc:
        return Xmp(error=str(exc)), packet, None
    found = xmp.pith_of(tree.root)
    return Xmp(found.get("number"), found.get("url"), found.get("long"), found.get("pdfa"),
               bool(found.get("schema_declared"))), packet, tree


def read_links(pdf: PdfFile, pages: int | None = None) -> tuple[list[Link], bool, float]:
    """Pith links over the first `pages` pages (all, bounded), whether all were read, page 1's left edge."""
    links: list[Link] = []
    limit = MAX_LINK_PAGES if pages is None else min(pages, MAX_LINK_PAGES)
    complete, left = True, 0.0
    # One page beyond the limit tells whether there were more; with `pages` given, never look past it.
    for i, (_ref, page, inherited) in enumerate(pdf.pages(limit=limit if pages is not None else limit + 1)):
        if i >= limit:
            complete = False
            break
        media = _box(pdf, inherited.get("MediaBox"))
        if i == 0:
            left = media[0] if media else 0.0
        annots = pdf.resolve(page.get("Annots"))
        for annot_ref in annots if isinstance(annots, list) else []:
            annot = pdf.resolve(annot_ref)
            uri = link_uri(pdf, annot)
            number = number_in_url(uri)
            if uri is not None and number is not None and all(link.uri != uri or link.page != i for link in links):
                links.append(Link(uri, number, i, _box(pdf, annot.get("Rect")),
                                  visible_box(media, _box(pdf, inherited.get("CropBox")))))
    return links, complete, left


Box = tuple[float, float, float, float]


def visible_box(media: Box | None, crop: Box | None) -> Box | None:
    """The part of a page a viewer shows: the CropBox clipped to the MediaBox (PDF 32000 14.11.2)."""
    if media is None:
        return crop
    if crop is None:
        return media
    box = (max(media[0], crop[0]), max(media[1], crop[1]), min(media[2], crop[2]), min(media[3], crop[3]))
    return box if box[0] < box[2] and box[1] < box[3] else media


def _box(pdf: PdfFile, value: Any) -> tuple[float, float, float, float] | None:
    value = pdf.resolve(value)
    if not (isinstance(value, list) and len(value) == 4):
        return None
    nums = [pdf.resolve(v) for v in value]
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in nums):
        return None
    x0, y0, x1, y1 = (float(v) for v in nums)
    return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)


def link_uri(pdf: PdfFile, annot: Any) -> str | None:
    if not isinstance(annot, dict) or annot.get("Subtype") != "Link":
        return None
    action = pdf.resolve(annot.get("A"))
    if not isinstance(action, dict) or action.get("S") != "URI":
        return None
    uri = pdf.resolve(action.get("URI"))
    return uri.decode("latin-1") if isinstance(uri, bytes) else None


def embedded_files(pdf: PdfFile, catalog: dict[str, Any]) -> list[tuple[str, Any]]:
    """(name, filespec) pairs of the EmbeddedFiles name tree, flattened (bounded)."""
    names = pdf.resolve(catalog.get("Names"))
    tree = pdf.resolve(names.get("EmbeddedFiles")) if isinstance(names, dict) else None
    out: list[tuple[str, Any]] = []
    stack = [tree]
    seen = 0
    while stack and len(out) < MAX_NAMES and seen < MAX_NAMES:
        node = pdf.resolve(stack.pop())
        seen += 1
        if not isinstance(node, dict):
            continue
        pairs = pdf.resolve(node.get("Names"))
        if isinstance(pairs, list):
            for i in range(0, len(pairs) - 1, 2):
                key = pdf.resolve(pairs[i])
                out.append((decode_text(key) or "", pairs[i + 1]))
        kids = pdf.resolve(node.get("Kids"))
        if isinstance(kids, list):
            stack.extend(reversed(kids))
    return out


def attached_record(pdf: PdfFile, catalog: dict[str, Any]) -> bytes | None:
    """The bytes of an attached `pith-record.json` (the first one that decodes)."""
    for name, spec_ref in embedded_files(pdf, catalog):
        spec = pdf.resolve(spec_ref)
        if not isinstance(spec, dict):
            continue
        filename = decode_text(pdf.resolve(spec.get("UF"))) or decode_text(pdf.resolve(spec.get("F"))) or name
        if filename != RECORD_NAME and name != RECORD_NAME:
            continue
        ef = pdf.resolve(spec.get("EF"))
        stream = pdf.resolve(ef.get("F") or ef.get("UF")) if isinstance(ef, dict) else None
        if not isinstance(stream, Stream):
            continue
        try:
            return decode_stream(stream, limit=MAX_RECORD_BYTES)
        except PdfSyntaxError:
            continue
    return None


def _record_number(data: bytes | None) -> PithNumber | None:
    """The number of an attached record, recomputed from its canonical form (never trusted)."""
    if data is None:
        return None

    from ..record import canonical_of, number_of, parse_document

    try:  # parse_document: the shared reading rules (a 200,000-deep attachment is refused, not a RecursionError)
        return number_of(canonical_of(parse_document(data, "the attached record")))
    except PithError:  # not JSON, not a record
        return None


def signature_state(pdf: PdfFile, catalog: dict[str, Any]) -> tuple[bool, bool]:
    """(signed, certified): a signature field with a value or /SigFlags; /Perms /DocMDP."""
    perms = pdf.resolve(catalog.get("Perms"))
    certified = isinstance(perms, dict) and perms.get("DocMDP") is not None
    if certified or catalog.get("Perms") is not None:
        return True, certified
    form = pdf.resolve(catalog.get("AcroForm"))
    if not isinstance(form, dict):
        return False, False
    flags = pdf.resolve(form.get("SigFlags"))
    if isinstance(flags, int) and flags & 1:
        return True, False
    fields = pdf.resolve(form.get("Fields"))
    stack = list(fields) if isinstance(fields, list) else []
    visited = 0
    while stack and visited < MAX_NAMES:
        visited += 1
        item = pdf.resolve(stack.pop())
        if not isinstance(item, dict):
            continue
        if item.get("FT") == Name("Sig") and item.get("V") is not None:
            return True, False
        kids = pdf.resolve(item.get("Kids"))
        if isinstance(kids, list):
            stack.extend(k for k in kids if isinstance(k, (Ref, dict)))
    return False, False


# -- pithtex's own update ---------------------------------------------------------------------
def pithtex_update(pdf: PdfFile) -> PithtexUpdate | None:
    """Find pithtex's update by its marker, and tell whether anything was appended after it.

    Other writers may copy our trailer key into theirs, so the key alone proves nothing:
    our update is the section whose trailer holds the key *and* which begins right after
    the marker line at the original length; it is the last one when no other section lies
    beyond it and the file ends with its own `startxref`.
    """
    from .update import TRAILER_KEY, marker_line

    sizes = set()
    for section in pdf.sections:
        size = section.trailer.get(TRAILER_KEY)
        if isinstance(size, int) and 0 < size <= section.offset < pdf.size:
            line = marker_line(size)
            if pdf.read(size, size + len(line)) == line:
                sizes.add(size)
    if not sizes:
        return None
    size = max(sizes)  # the newest pithtex update, when one was stacked on later edits
    ours = min((s for s in pdf.sections if s.offset >= size), key=lambda s: s.offset)
    after = [s for s in pdf.sections if s.offset > ours.offset]
    ending = b"startxref\n%d\n%%%%EOF\n" % ours.offset
    last = not after and pdf.read(pdf.size - len(ending), pdf.size) == ending
    return PithtexUpdate(size, last, () if last else _later_changes(pdf, after))


def unfinished_update(pdf: PdfFile) -> int | None:
    """Where an interrupted pithtex stamp began, when the file is the original followed by an
    update of ours that no cross-reference section points at (a kill between `rewrite_tail`'s
    writes); None otherwise. The file reads as the original; its first N bytes are it exactly.

    Recognised by our own trailer near the end (`/PithtexOriginalSize N`, within the last
    few kB: it closes the update), the marker line at N, and every live section starting
    before N: nothing the readers see lies in those bytes."""
    from .update import TRAILER_KEY, marker_line

    key = b"/" + TRAILER_KEY.encode("latin-1") + b" "
    tail = pdf.read(max(0, pdf.size - _TRAILER_REACH), pdf.size)
    at = tail.rfind(key)
    if at < 0:
        return None
    digits = re.match(rb"\d{1,15}", tail[at + len(key):at + len(key) + 16])
    size = int(digits.group()) if digits else 0
    if not 0 < size < pdf.size or any(section.offset >= size for section in pdf.sections):
        return None
    line = marker_line(size)
    return size if pdf.read(size, size + len(line)) == line else None


_TRAILER_REACH = 4096  # our update's trailer ends at most this far before the end of the file


def _later_changes(pdf: PdfFile, sections: list[Section]) -> tuple[str, ...]:
    """What the updates after ours change, in words, for a refusal that says what would be lost."""
    nums = {num for section in sections for num in section.entries}
    if not nums:
        return ("bytes appended after the pithtex update",)
    if pdf.locked is not None:
        return (f"{len(nums)} object{'s' if len(nums) != 1 else ''} (encrypted: not readable without the password)",)
    catalog = pdf.catalog()
    words = []
    info, meta, root = pdf.trailer.get("Info"), catalog.get("Metadata"), pdf.trailer.get("Root")
    named = {getattr(info, "num", None): "the Info dictionary", getattr(meta, "num", None): "the XMP metadata",
             getattr(root, "num", None): "the document catalog"}
    for num, word in named.items():
        if num in nums:
            words.append(word)
            nums.discard(num)
    signatures = 0
    for num in sorted(nums)[:MAX_NAMES]:
        try:
            value = pdf.get(Ref(num, 0))
        except (PdfSyntaxError, ValueError, EncryptionError):
            continue
        if isinstance(value, dict) and (value.get("Type") == "Sig" or "ByteRange" in value):
            signatures += 1
    if signatures:
        words.append("a signature" if signatures == 1 else f"{signatures} signatures")
    others = len(nums) - signatures
    if others:
        words.append(f"{others} other object{'s' if others != 1 else ''}")
    return tuple(words)
