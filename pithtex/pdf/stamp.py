"""Stamp policy: what may change in which PDF, and how the result reaches the disk.

- Encrypted files are opened with the empty user password (or --password) and our update
  is encrypted with the document's key; /Encrypt and /ID[0] are kept, so the permissions
  stay. Files that need a password we were not given, and damaged files, are refused.
- Signed files get metadata only, unless --force.
- PDF/A (one policy, see docs/pdf.md): metadata keeps the claim valid; --badge and, below
  PDF/A-3, --attach-record would break it, so they are refused without --force, and with
  --force the XMP stops claiming PDF/A.
- Idempotent: a file that already carries everything asked for is left alone.
- pithtex's own update, when it is the last one, is replaced rather than stacked, and
  `revert` cuts it off, giving back the original bytes exactly. When other updates were
  appended after ours, `revert` refuses (naming what would be lost) unless --force, and a
  new stamp is stacked on top, so nothing later is dropped.
- -o writes a temporary file beside the target and renames it; --in-place changes the file
  itself (O(update): cut back to the original when our own update is replaced, the new one
  appended), under an exclusive lock taken before the file is read, so two stamps of one
  file run one after the other, the second reading the first one's result.
- An interrupted stamp (killed between its writes) leaves the original followed by bytes no
  cross-reference points at; stamp and --revert recognise it and start from the original.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from ..errors import PithError, Refused, UnreadablePdf
from ..files import InputChanged, atomic_output, locked, open_input, output_path, rewrite_tail
from ..number import PithNumber
from ..value import TYPE_CHECKING, NamedTuple
from .errors import Damaged, EncryptionError, PdfSyntaxError, Shrunk, XmpError
from .facts import Facts, read_facts, refuse_locked, unfinished_update
from .objects import Name, Ref, Stream
from .reader import READ_FAILURES, PdfFile, read_failure

if TYPE_CHECKING:
    from typing import Any


class Options(NamedTuple):
    """What a stamp is asked to do (a NamedTuple: cheaper to define than a dataclass, and
    start-up time is most of a stamp's time)."""

    number: PithNumber | None = None
    record: bytes | None = None  # the record file's bytes, for --attach-record
    badge: bool = False
    attach: bool = False
    force: bool = False
    password: bytes | None = None


class Outcome(NamedTuple):
    source: str
    output: str | None
    status: str  # "stamped", "unchanged", "reverted"
    number: str | None = None
    changed: Sequence[str] = ()
    warnings: Sequence[str] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.source, "output": self.output, "status": self.status, "number": self.number,
                "changed": list(self.changed), "warnings": list(self.warnings)}


def default_output(src: Path) -> Path:
    """`paper.pdf` → `paper.pith.pdf` beside it."""
    stem = src.name[:-4] if src.name.lower().endswith(".pdf") else src.name
    return src.with_name(stem + ".pith.pdf")


# -- entry points --------------------------------------------------------------------------
def stamp_file(src: Path, output: Path, opts: Options) -> Outcome:
    """Stamp `src` into `output` (which may be `src` itself: in place, under its lock)."""
    if not _same_file(src, output):
        return _stamp(src, output, opts, None)
    target = output_path(output)  # a symlink followed to the file it names, as every output is
    with locked(target) as fd:
        return _stamp(src, output, opts, (fd, target))


def _stamp(src: Path, output: Path, opts: Options, lock: tuple[int, Path] | None) -> Outcome:
    with _open(src, password=opts.password) as whole:
        _check_locked(whole, lock, src)
        cut = unfinished_update(whole)
        size = whole.size
        if cut is None:
            plan = _plan(whole, src, opts)
        else:
            with _open(src, cut, opts.password) as pdf:  # the original under an interrupted stamp
                plan = _plan(pdf, src, opts)
    warnings = [] if cut is None else [f"an interrupted pithtex stamp had left {size - cut:,} unreferenced bytes "
                                       f"after byte {cut:,}: " + ("removed" if lock else "not copied")]
    if isinstance(plan, str):
        if lock is not None and cut is not None:
            rewrite_tail(lock[0], lock[1], size, cut)
        elif lock is None:
            _write(output, src, cut or size, b"")
        return Outcome(str(src), str(output), "unchanged", plan, warnings=warnings)
    keep, tail, outcome, prev = plan
    outcome = outcome._replace(output=str(output), warnings=[*warnings, *outcome.warnings])
    if lock is None:
        _write(output, src, keep, tail)
    elif tail:
        commit = tail.rindex(b"startxref")
        rewrite_tail(lock[0], lock[1], size, keep, tail, commit, _interim(tail[commit:], prev))
    else:
        rewrite_tail(lock[0], lock[1], size, keep)
    return outcome


def _check_locked(pdf: PdfFile, lock: tuple[int, Path] | None, src: Path) -> None:
    """What was read is the file that is locked (not one renamed over the name meanwhile)."""
    if lock is not None:
        info = os.fstat(lock[0])
        if pdf.identity != (info.st_dev, info.st_ino):
            raise UnreadablePdf(f"{src}: was replaced while being stamped: run the stamp again")


def _interim(final: bytes, original: int) -> bytes:
    """The original's `startxref` line, zero-padded to the length of our final one."""
    width = len(final) - len(b"startxref\n\n%%EOF\n")
    return b"startxref\n%0*d\n%%%%EOF\n" % (width, original)


def _same_file(src: Path, output: Path) -> bool:
    try:
        return os.path.samefile(src, output)
    except OSError:
        return False


def revert_file(src: Path, output: Path, force: bool = False, password: bytes | None = None) -> Outcome:
    """Cut pithtex's own update off, restoring the original bytes (in place: the same inode
    cut back, under its lock; the original is a prefix of the file).

    When other updates were appended after ours, cutting would drop them too: refused,
    saying what they change, unless `force`. An interrupted stamp's bytes are cut off the
    same way, giving back the file as it was before that stamp.
    """
    if not _same_file(src, output):
        return _revert(src, output, force, password, None)
    target = output_path(output)
    with locked(target) as fd:
        return _revert(src, output, force, password, (fd, target))


def _revert(src: Path, output: Path, force: bool, password: bytes | None, lock: tuple[int, Path] | None) -> Outcome:
    with _open(src, password=password) as pdf:
        _check_locked(pdf, lock, src)
        size, cut = pdf.size, unfinished_update(pdf)
        update = None if cut is not None else read_facts(pdf, pages=1).update
    if cut is not None:
        keep, changed = cut, ["removed an interrupted pithtex stamp's unreferenced bytes"]
    elif update is None:
        raise Refused(f"{src}: it carries no pithtex update: nothing to revert")
    elif not update.last and not force:
        raise Refused(f"{src}: updates appended after pithtex's change {', '.join(update.later)}; "
                      "reverting would lose them (--force reverts anyway)")
    else:
        keep = update.original_size
        changed = ["removed the pithtex update"] + (
            [f"and the later updates ({', '.join(update.later)})"] if not update.last else [])
    if lock is None:
        _write(output, src, keep, b"")
    else:
        rewrite_tail(lock[0], lock[1], size, keep)
    return Outcome(str(src), str(output), "reverted", changed=changed)


class _open:
    """PdfFile with read failures (damage, encryption, the file system) as one clear UnreadablePdf.

    Only what reading a damaged file raises is translated, while opening and while planning:
    any other exception is a bug and travels on untouched, traceback and all.
    """

    def __init__(self, src: Path, size: int | None = None, password: bytes | None = None) -> None:
        self.src, self.size, self.password = src, size, password

    def __enter__(self) -> PdfFile:
        try:
            self.pdf = PdfFile(self.src, self.size, self.password)
        except READ_FAILURES as exc:
            raise UnreadablePdf(read_failure(self.src, exc)) from None
        return self.pdf

    def __exit__(self, exc_type: object, exc: BaseException | None, tb: object) -> None:
        self.pdf.close()
        if isinstance(exc, (Damaged, PdfSyntaxError, EncryptionError, Shrunk)):
            raise UnreadablePdf(read_failure(self.src, exc)) from None


# -- what is there, what is missing -------------------------------------------------------
def _facts(pdf: PdfFile, src: Path) -> Facts:
    """Page-1 facts of a file we may write into; refuses encryption we cannot open."""
    facts = read_facts(pdf, pages=1, writing=True)
    refuse_locked(facts, src)
    return facts


def missing(facts: Facts, number: PithNumber, opts: Options) -> list[str]:
    """What the file lacks of what was asked: "info", "xmp", "badge", "attachment"."""
    out: list[str] = []
    if xmp_only(facts):
        if any(key in facts.info for key in PITH_INFO_KEYS):
            out.append("info")  # to be taken out again
    elif facts.info.get("PithNumber") != number.body or facts.info.get("PithURL") != number.url:
        out.append("info")
    xmp = facts.xmp
    if xmp is None or xmp.number_text != number.body or xmp.url_text != number.url or \
            (number.long is not None and xmp.long_text != number.long) or (xmp.pdfa and not xmp.schema_declared):
        out.append("xmp")
    if opts.badge and not any(link.number.body == number.body for link in facts.page1_links):
        out.append("badge")
    if opts.attach and (facts.attachment is None or facts.attachment.body != number.body):
        out.append("attachment")
    return out


PITH_INFO_KEYS = ("PithNumber", "PithURL", "PithTitle")


def xmp_only(facts: Facts) -> bool:
    """PDF/A-4 (ISO 19005-4, 6.1.3) allows no document information dictionary entry but
    /ModDate: the number goes into the XMP alone, and the Info dictionary is left as it is
    (pith's keys, should an earlier stamp have put them there, are taken out)."""
    return bool(facts.pdfa and facts.pdfa.startswith("4"))


def _xmp_long(facts: Facts, number: PithNumber) -> str | None:
    """A long form already in the XMP for this very number (kept when we know no year)."""
    long = facts.xmp.long if facts.xmp else None
    return long.long if long is not None and long.body == number.body else None


def _pdfa_policy(facts: Facts, src: Path, opts: Options, missing: list[str], warnings: list[str]) -> bool:
    """The one PDF/A policy (docs/pdf.md, "PDF/A"); True when the XMP must stop claiming PDF/A."""
    level = facts.pdfa
    if not level:
        return False
    breaks = []
    if "badge" in missing:
        breaks.append("the badge's font (standard Helvetica) is not embedded")
    if "attachment" in missing and not level.startswith("3"):
        breaks.append(f"PDF/A-{level[:1]} does not allow attached files")
    if not breaks:
        return False
    if not opts.force:
        raise Refused(f"{src}: PDF/A-{level} file: {'; '.join(breaks)}",
                      remedy=("force", "do it anyway, dropping the PDF/A claim"))
    warnings.append(f"PDF/A-{level}: {'; '.join(breaks)}: the XMP no longer claims PDF/A (--force)")
    return True


# -- the plan -----------------------------------------------------------------------------
def _plan(pdf: PdfFile, src: Path, opts: Options) -> tuple[int, bytes, Outcome, int] | str:
    """(bytes of the input to keep, bytes to append, outcome, the kept part's startxref), or the
    body when nothing is missing."""
    facts = _facts(pdf, src)
    found = facts.number
    number = opts.number or found
    if number is None:
        raise PithError(f"{src}: no Pith Number in this PDF, no arXiv identity of its own, and none given "
                        "(a number, or a record file)", remedy=("number", "give it"))
    if found is not None and found.body != number.body and not opts.force:
        raise Refused(f"{src}: already carries Pith Number {found.body}, not {number.body}",
                      remedy=("force", "replace it"))
    needed = missing(facts, number, opts)
    if not needed:
        return number.body
    warnings: list[str] = []
    if facts.signed and (opts.badge or opts.attach):
        if not opts.force:
            raise Refused(f"{src}: signed PDF: only metadata may change; a badge or an attached record "
                          "would invalidate its certification", remedy=("force", "do it anyway"))
        warnings.append("signed PDF: the badge/attachment invalidates its certification (--force)")
    if facts.update is None or not facts.update.last:
        # No update of ours, or later ones on top of it: stack a new one, dropping nothing.
        return _build(pdf, src, pdf.size, number, opts, facts, needed, warnings)
    # Replace our own last update instead of stacking another: start again from the original,
    # keeping what that update added unless this stamp asks for less.
    original = facts.update.original_size
    carry = Options(number, opts.record, opts.badge or any(lk.number.body == number.body for lk in
                                                           facts.page1_links), opts.attach, opts.force)
    if facts.attachment is not None and facts.attachment.body == number.body and carry.record is None:
        carry = carry._replace(record=facts.attachment_bytes, attach=facts.attachment_bytes is not None)
    long = _xmp_long(facts, number)
    with _open(src, original, opts.password) as base:
        base_facts = _facts(base, src)
        base_facts.signed = facts.signed
        base_missing = missing(base_facts, number if number.long or not long else PithNumber.parse(long), carry)
        if not base_missing:
            return original, b"", Outcome(str(src), None, "stamped", number.body, ["removed the pithtex update"]), 0
        return _build(base, src, original, number, carry, base_facts, base_missing, warnings, long)


class Allocator:
    """New object numbers after every object the file has (never taken from a trailer's /Size)."""

    def __init__(self, pdf: PdfFile) -> None:
        self.next = pdf.max_object() + 1

    def __call__(self) -> Ref:
        self.next += 1
        return Ref(self.next - 1, 0)


def _build(pdf: PdfFile, src: Path, base_size: int, number: PithNumber, opts: Options, facts: Facts,
           needed: list[str], warnings: list[str], long: str | None = None) -> tuple[int, bytes, Outcome, int]:
    from . import update

    drop_pdfa = _pdfa_policy(facts, src, opts, needed, warnings)
    alloc = Allocator(pdf)
    objects: dict[Ref, Any] = {}
    catalog_ref = pdf.trailer["Root"]
    catalog = dict(pdf.catalog())
    changed: list[str] = []
    if xmp_only(facts) and not drop_pdfa:
        info_ref = _info_without_pith(pdf, objects, alloc)
        if "info" in needed:
            changed.append("Info: pith's keys taken out (PDF/A-4 allows only /ModDate there)")
    else:
        info_ref = _info(pdf, number, objects, alloc)
        changed.append("Info /PithNumber /PithURL")
    if "xmp" in needed or drop_pdfa:
        long = number.long or long or _xmp_long(facts, number) or ""
        changed.append(_xmp(pdf, catalog, number, long, facts, objects, alloc, warnings, drop_pdfa, src, opts.force))
    if "badge" in needed:
        from .badge import add_badge

        warnings.extend(add_badge(pdf, number, objects, alloc))
        changed.append("badge and link on page 1")
    if "attachment" in needed:
        if opts.record is None:
            raise PithError(f"{src}: attaching the record needs the record file")
        _attach(pdf, catalog, opts.record, facts, objects, alloc, drop_pdfa)
        changed.append("attached record")
    if catalog != pdf.catalog():
        objects[catalog_ref] = catalog
    tail = update.build(pdf, base_size, objects, info_ref)
    return base_size, tail, Outcome(str(src), None, "stamped", number.body, changed, warnings), pdf.startxref


def _info(pdf: PdfFile, number: PithNumber, objects: dict[Ref, Any], alloc: Allocator) -> Ref:
    ref = pdf.trailer.get("Info")
    info = pdf.resolve(ref)
    new = dict(info) if isinstance(info, dict) else {}
    new[Name("PithNumber")] = number.body
    new[Name("PithURL")] = number.url
    if not isinstance(ref, Ref) or not isinstance(info, dict):
        ref = alloc()
    objects[ref] = new
    return ref


def _info_without_pith(pdf: PdfFile, objects: dict[Ref, Any], alloc: Allocator) -> Ref | None:
    """The Info dictionary for the new trailer of a PDF/A-4 file: the one it has, untouched
    unless it holds pith's keys (then without them); None when it has none."""
    ref = pdf.trailer.get("Info")
    info = pdf.resolve(ref)
    if not isinstance(info, dict):
        return None
    kept = {key: value for key, value in info.items() if key not in PITH_INFO_KEYS}
    if isinstance(ref, Ref) and len(kept) == len(info):
        return ref
    if not isinstance(ref, Ref):  # a direct dictionary in the trailer: an update's trailer needs a reference
        ref = alloc()
    objects[ref] = kept
    return ref


def _xmp(pdf: PdfFile, catalog: dict[str, Any], number: PithNumber, long: str, facts: Facts, objects: dict[Ref, Any],
         alloc: Allocator, warnings: list[str], drop_pdfa: bool, src: Path, force: bool) -> str:
    from . import xmp

    ref = catalog.get("Metadata")
    old = pdf.resolve(ref)
    values = {"number": number.body, "url": number.url, "long": long}
    # The packet read (and parsed) once, with the facts: decoded or not, parsed or not.
    packet = facts.xmp_packet
    try:
        if facts.xmp is not None and facts.xmp.error is not None:
            raise XmpError(facts.xmp.error)
        new_packet = xmp.merge(packet, values, drop_pdfa, facts.xmp_tree)
    except XmpError as exc:
        # A packet that is not XML is neither replaced nor guessed at silently (docs/pdf.md).
        if not force:
            raise Refused(f"{src}: the XMP metadata is unreadable ({exc})",
                          remedy=("force", "keep what can be read of it")) from None
        kept = xmp.salvage(packet) if packet is not None else None
        warnings.append(f"the existing XMP could not be read ({exc}); " +
                        ("kept what could be read of it (--force)" if kept else "wrote a new packet (--force)"))
        new_packet = xmp.merge(None, values, drop_pdfa, kept, like=packet if kept else None)
    keep = {k: v for k, v in old.dict.items() if k not in ("Length", "Filter", "DecodeParms", "DL", "Type",
                                                           "Subtype")} if isinstance(old, Stream) else {}
    stream = Stream({Name("Type"): Name("Metadata"), Name("Subtype"): Name("XML"), **keep}, new_packet)
    if not isinstance(ref, Ref) or not isinstance(old, Stream):
        ref = alloc()
        catalog[Name("Metadata")] = ref
    objects[ref] = stream
    if drop_pdfa:
        return "XMP pith properties, PDF/A claim removed"
    return "XMP pith properties" + (" and PDF/A extension schema" if facts.pdfa else "")


def _attach(pdf: PdfFile, catalog: dict[str, Any], record: bytes, facts: Facts, objects: dict[Ref, Any],
            alloc: Allocator, drop_pdfa: bool) -> None:
    """The record as an embedded file (and an associated file, /AF, on PDF/A-3)."""
    import hashlib

    from .facts import RECORD_NAME, embedded_files
    from .objects import HexString

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
    if (facts.pdfa and facts.pdfa.startswith("3") and not drop_pdfa) or catalog.get("AF") is not None:
        af = pdf.resolve(catalog.get("AF"))
        catalog[Name("AF")] = [*(af if isinstance(af, list) else []), spec_ref]


# -- writing ------------------------------------------------------------------------------
def _write(target: Path, src: Path, keep: int, tail: bytes) -> None:
    """target := first `keep` bytes of src + tail, through the one output helper (temp file,
    fsync, rename; the replaced file's owner, mode and xattrs kept)."""
    try:
        with atomic_output(target) as out, open_input(src) as fin:
            out.copy_from(fin.fileno(), keep, tail)
    except InputChanged as exc:
        raise UnreadablePdf(f"{src}: {exc.strerror}") from None
