"""Stamp policy: what may change in which PDF, and how the result reaches the disk.

- Encrypted files are refused (never write plaintext into one); damaged ones too (no
  silent repair). Signed files get metadata only, unless --force.
- Idempotent: a file that already carries everything asked for is left alone.
- pithtex's own update, when it is the last one, is replaced rather than stacked, and
  `revert` cuts it off, giving back the original bytes exactly.
- Outputs are written to a temporary file beside the target and renamed over it, so a
  failure never leaves a half-written file; --in-place also fsyncs before the rename.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import PithError, Refused
from ..files import atomic_output
from ..number import PithNumber
from .objects import Name, PdfSyntaxError, Ref, Stream
from .reader import READ_FAILURES, PdfFile, decode_stream, read_failure


class StampError(PithError):
    """A file that cannot be stamped because it cannot be read as a PDF."""


@dataclass
class Options:
    number: PithNumber | None = None
    record: bytes | None = None  # the record file's bytes, for --attach-record
    badge: bool = False
    attach: bool = False
    force: bool = False


@dataclass
class Outcome:
    source: str
    output: str | None
    status: str  # "stamped", "unchanged", "reverted"
    number: str | None = None
    changed: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.source, "output": self.output, "status": self.status, "number": self.number,
                "changed": self.changed, "warnings": self.warnings}


def default_output(src: Path) -> Path:
    """`paper.pdf` → `paper.pith.pdf` beside it."""
    stem = src.name[:-4] if src.name.lower().endswith(".pdf") else src.name
    return src.with_name(stem + ".pith.pdf")


# -- entry points --------------------------------------------------------------------------
def stamp_file(src: Path, output: Path, opts: Options) -> Outcome:
    """Stamp `src` into `output` (which may be `src` itself: in place)."""
    in_place = _same_file(src, output)
    with _open(src) as pdf:
        plan = _plan(pdf, src, opts)
        if isinstance(plan, str):
            outcome = Outcome(str(src), str(output), "unchanged", plan)
            if not in_place:
                _write(output, src, pdf.size, b"", in_place=False)
            return outcome
        keep, tail, outcome = plan
        outcome.output = str(output)
        _write(output, src, keep, tail, in_place=in_place)
        return outcome


def _same_file(src: Path, output: Path) -> bool:
    try:
        return os.path.samefile(src, output)
    except OSError:
        return False


def revert_file(src: Path, output: Path) -> Outcome:
    """Cut pithtex's own last update off, restoring the original bytes."""
    from .update import pithtex_original_size

    with _open(src) as pdf:
        original = pithtex_original_size(pdf)
        if original is None:
            raise Refused(f"{src}: its last update is not pithtex's: nothing to revert")
        _write(output, src, original, b"", in_place=_same_file(src, output))
    return Outcome(str(src), str(output), "reverted", changed=["removed the pithtex update"])


class _open:
    """PdfFile with every read failure turned into one clear StampError."""

    def __init__(self, src: Path, size: int | None = None) -> None:
        self.src, self.size = src, size

    def __enter__(self) -> PdfFile:
        try:
            self.pdf = PdfFile(self.src, self.size)
        except READ_FAILURES as exc:
            raise StampError(read_failure(self.src, exc)) from None
        return self.pdf

    def __exit__(self, exc_type, exc, tb) -> None:
        self.pdf.close()
        if isinstance(exc, READ_FAILURES) and not isinstance(exc, (PithError, OSError)):
            raise StampError(read_failure(self.src, exc)) from None


# -- what is there, what is missing -------------------------------------------------------
@dataclass
class State:
    """The pith facts of a file, read once; `missing()` compares them with what is asked."""

    info: dict[str, str]
    pith: dict[str, Any]
    attached: str | None
    link: str | None
    signed: bool

    @property
    def number(self) -> str | None:
        from .inspect import _body, _url_body

        return _body(self.info.get("PithNumber")) or _body(self.pith.get("number")) or self.attached \
            or _url_body(self.link)

    @property
    def pdfa(self) -> str | None:
        return self.pith.get("pdfa")

    @property
    def page1_link(self) -> bool:
        return self.link is not None

    def xmp_long(self, number: PithNumber) -> str | None:
        """A long form already in the XMP for this very number (kept when we know no year)."""
        from .inspect import _body

        long = self.pith.get("long")
        return long if _body(long) == number.body else None

    def missing(self, number: PithNumber, opts: Options) -> list[str]:
        from .inspect import _url_body

        out: list[str] = []
        if self.info.get("PithNumber") != number.body or self.info.get("PithURL") != number.url:
            out.append("info")
        pith = self.pith
        if pith.get("number") != number.body or pith.get("url") != number.url or \
                (number.long is not None and pith.get("long") != number.long) or \
                (pith.get("pdfa") and not pith.get("schema_declared")):
            out.append("xmp")
        if opts.badge and _url_body(self.link) != number.body:
            out.append("badge")
        if opts.attach and self.attached != number.body:
            out.append("attachment")
        return out


def _state(pdf: PdfFile, src: Path) -> State:
    from . import inspect, xmp

    if "Encrypt" in pdf.trailer:
        raise Refused(f"{src}: encrypted PDF: refusing to write metadata into it (decrypt it first)")
    catalog = pdf.catalog()
    pith: dict[str, Any] = {}
    try:
        packet = inspect.metadata_packet(pdf, catalog)
        pith = xmp.read_pith(packet) if packet is not None else {}
    except (xmp.XmpError, PdfSyntaxError):
        pith = {}
    return State(inspect.read_info(pdf), pith, inspect.read_attachment(pdf, catalog), _page1_link(pdf),
                 inspect.is_signed(pdf, catalog))


def _page1_link(pdf: PdfFile) -> str | None:
    from .inspect import _PITH_URL, link_uri

    for _ref, page, _inh in pdf.pages(limit=1):
        annots = pdf.resolve(page.get("Annots"))
        for annot in annots if isinstance(annots, list) else []:
            uri = link_uri(pdf, pdf.resolve(annot))
            if uri and _PITH_URL.search(uri):
                return uri
    return None


# -- the plan -----------------------------------------------------------------------------
def _plan(pdf: PdfFile, src: Path, opts: Options) -> tuple[int, bytes, Outcome] | str:
    """(bytes of the input to keep, bytes to append, outcome), or the body when nothing is missing."""
    from .update import pithtex_original_size

    state = _state(pdf, src)
    found = state.number
    number = opts.number
    if number is None:
        if found is None:
            raise PithError(f"{src}: no Pith Number in this PDF: give --number ID or --record FILE")
        number = PithNumber.parse(found)
    if found is not None and found != number.body and not opts.force:
        raise Refused(f"{src}: already carries Pith Number {found}, not {number.body} "
                      "(use --force to replace it)")
    missing = state.missing(number, opts)
    if not missing:
        return number.body
    warnings: list[str] = []
    if state.signed and (opts.badge or opts.attach):
        if not opts.force:
            raise Refused(f"{src}: signed PDF: only metadata may change; --badge/--attach-record "
                          "would invalidate its certification (use --force to do it anyway)")
        warnings.append("signed PDF: the badge/attachment invalidates its certification (--force)")
    original = pithtex_original_size(pdf)
    if original is None:
        return _build(pdf, src, pdf.size, number, opts, state, missing, warnings)
    # Replace our own last update instead of stacking another: start again from the original,
    # keeping what that update added unless this stamp asks for less.
    carry = Options(number, opts.record, opts.badge or state.page1_link, opts.attach, opts.force)
    if state.attached == number.body and carry.record is None:
        carry.record = _attached_bytes(pdf)
        carry.attach = carry.record is not None
    with _open(src, original) as base:
        base_state = _state(base, src)
        base_state.signed = state.signed
        if not base_state.xmp_long(number) and state.xmp_long(number):
            base_state.pith["long"] = state.xmp_long(number)
        base_missing = base_state.missing(number, carry)
        if not base_missing:
            return original, b"", Outcome(str(src), None, "stamped", number.body, ["removed the pithtex update"])
        return _build(base, src, original, number, carry, base_state, base_missing, warnings)


def _attached_bytes(pdf: PdfFile) -> bytes | None:
    from .inspect import RECORD_NAME, embedded_files

    for name, spec in embedded_files(pdf, pdf.catalog()):
        spec = pdf.resolve(spec)
        ef = pdf.resolve(spec.get("EF")) if isinstance(spec, dict) else None
        stream = pdf.resolve(ef.get("F")) if isinstance(ef, dict) else None
        if name == RECORD_NAME and isinstance(stream, Stream):
            return decode_stream(stream)
    return None


class Allocator:
    def __init__(self, pdf: PdfFile) -> None:
        self.next = pdf.max_object() + 1

    def __call__(self) -> Ref:
        self.next += 1
        return Ref(self.next - 1, 0)


def _build(pdf: PdfFile, src: Path, base_size: int, number: PithNumber, opts: Options, state: State,
           missing: list[str], warnings: list[str]) -> tuple[int, bytes, Outcome]:
    from . import update

    alloc = Allocator(pdf)
    objects: dict[Ref, Any] = {}
    catalog_ref = pdf.trailer["Root"]
    catalog = dict(pdf.catalog())
    changed: list[str] = []
    info_ref = _info(pdf, number, objects, alloc)
    changed.append("Info /PithNumber /PithURL")
    if "xmp" in missing:
        changed.append(_xmp(pdf, catalog, number, state, objects, alloc, warnings))
    if "badge" in missing:
        from .badge import add_badge

        warnings.extend(add_badge(pdf, number, objects, alloc))
        if state.pdfa:
            warnings.append("the badge uses the standard, unembedded Helvetica: the file is no longer PDF/A")
        changed.append("badge and link on page 1")
    if "attachment" in missing:
        if opts.record is None:
            raise PithError(f"{src}: --attach-record needs --record FILE")
        _attach(pdf, catalog, opts.record, state, objects, alloc, warnings, src, opts.force)
        changed.append("attached record")
    if catalog != pdf.catalog():
        objects[catalog_ref] = catalog
    tail = update.build(pdf, base_size, objects, info_ref)
    return base_size, tail, Outcome(str(src), None, "stamped", number.body, changed, warnings)


def _info(pdf: PdfFile, number: PithNumber, objects: dict, alloc: Allocator) -> Ref:
    ref = pdf.trailer.get("Info")
    info = pdf.resolve(ref)
    new = dict(info) if isinstance(info, dict) else {}
    new[Name("PithNumber")] = number.body
    new[Name("PithURL")] = number.url
    if not isinstance(ref, Ref) or not isinstance(info, dict):
        ref = alloc()
    objects[ref] = new
    return ref


def _xmp(pdf: PdfFile, catalog: dict, number: PithNumber, state: State, objects: dict, alloc: Allocator,
         warnings: list[str]) -> str:
    from . import xmp

    ref = catalog.get("Metadata")
    old = pdf.resolve(ref)
    values = {"number": number.body, "url": number.url, "long": number.long or state.xmp_long(number) or ""}
    packet = None
    try:
        packet = decode_stream(old, limit=xmp.MAX_PACKET) if isinstance(old, Stream) else None
        new_packet = xmp.merge(packet, values)
    except (xmp.XmpError, PdfSyntaxError) as exc:
        warnings.append(f"the existing XMP could not be read ({exc}); wrote a new packet")
        new_packet = xmp.merge(None, values)
    keep = {k: v for k, v in old.dict.items() if k not in ("Length", "Filter", "DecodeParms", "DL", "Type",
                                                           "Subtype")} if isinstance(old, Stream) else {}
    stream = Stream({Name("Type"): Name("Metadata"), Name("Subtype"): Name("XML"), **keep}, new_packet)
    if not isinstance(ref, Ref) or not isinstance(old, Stream):
        ref = alloc()
        catalog[Name("Metadata")] = ref
    objects[ref] = stream
    return "XMP pith properties" + (" and PDF/A extension schema" if state.pdfa else "")


def _attach(pdf: PdfFile, catalog: dict, record: bytes, state: State, objects: dict, alloc: Allocator,
            warnings: list[str], src: Path, force: bool) -> None:
    """The record as an embedded file (and an associated file, /AF, on PDF/A-3)."""
    from .inspect import RECORD_NAME, embedded_files
    from .objects import HexString

    if state.pdfa and not state.pdfa.startswith("3"):
        if not force:
            raise Refused(f"{src}: PDF/A-{state.pdfa} does not allow this attachment (use --force)")
        warnings.append(f"PDF/A-{state.pdfa}: the attachment makes the file non-conforming (--force)")
    import hashlib

    file_ref, spec_ref, tree_ref = alloc(), alloc(), alloc()
    objects[file_ref] = Stream({Name("Type"): Name("EmbeddedFile"), Name("Subtype"): Name("application/json"),
                                Name("Params"): {Name("Size"): len(record),
                                                 Name("CheckSum"): HexString(hashlib.md5(
                                                     record, usedforsecurity=False).digest())}}, record)
    objects[spec_ref] = {Name("Type"): Name("Filespec"), Name("F"): RECORD_NAME, Name("UF"): RECORD_NAME,
                         Name("Desc"): "Pith record", Name("AFRelationship"): Name("Data"),
                         Name("EF"): {Name("F"): file_ref, Name("UF"): file_ref}}
    pairs = [(name, spec) for name, spec in embedded_files(pdf, catalog) if name != RECORD_NAME]
    pairs.append((RECORD_NAME, spec_ref))
    pairs.sort(key=lambda pair: pair[0])
    flat: list[Any] = []
    for name, spec in pairs:
        flat.extend((name, spec))
    objects[tree_ref] = {Name("Names"): flat}
    names = pdf.resolve(catalog.get("Names"))
    catalog[Name("Names")] = {**(names if isinstance(names, dict) else {}), Name("EmbeddedFiles"): tree_ref}
    if (state.pdfa and state.pdfa.startswith("3")) or catalog.get("AF") is not None:
        af = pdf.resolve(catalog.get("AF"))
        catalog[Name("AF")] = [*(af if isinstance(af, list) else []), spec_ref]


# -- writing ------------------------------------------------------------------------------
_CHUNK = 1 << 24


def _write(target: Path, src: Path, keep: int, tail: bytes, in_place: bool) -> None:
    """target := first `keep` bytes of src + tail, through the one output helper (temp file,
    rename, the replaced file's mode kept; fsync when in place)."""
    with atomic_output(target, sync=in_place) as out, open(src, "rb") as fin:
        _copy(fin.fileno(), out.fileno(), keep)
        out.seek(keep)
        out.write(tail)


def _copy(fin: int, fout: int, count: int) -> None:
    """Kernel-side copy (reflink where the file system can), without reading into Python."""
    done = 0
    try:
        while done < count:
            n = os.copy_file_range(fin, fout, min(_CHUNK, count - done), done, done)
            if n == 0:
                break
            done += n
    except OSError:
        pass
    while done < count:  # fallback: plain reads, chunk by chunk
        os.lseek(fin, done, os.SEEK_SET)
        chunk = os.read(fin, min(1 << 20, count - done))
        if not chunk:
            raise StampError("input changed size while being read")
        os.lseek(fout, done, os.SEEK_SET)
        os.write(fout, chunk)
        done += len(chunk)
