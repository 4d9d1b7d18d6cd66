"""The incremental-update writer: new object versions plus one cross-reference section.

The update keeps the file's own xref form: after a classic table we write a table, after
an xref stream we write an xref stream that lists itself. It starts with a marker line and
records the original length in its trailer, so pithtex can recognise, replace and revert
its own update exactly. Nothing here depends on time: same input, same bytes.
"""

from __future__ import annotations

try:  # CPython's own MD5: `hashlib` loads OpenSSL (about 2 ms, half a stamp's own work) for two digests
    from _md5 import md5
except ImportError:  # an interpreter built without it
    from hashlib import md5

from ..value import TYPE_CHECKING
from .errors import Damaged
from .objects import HexString, Name, Ref, Stream, indirect_object, serialize
from .reader import PdfFile

if TYPE_CHECKING:
    from typing import Any, TypeGuard

MARKER = b"%pithtex-update"
# Object numbers and generations an xref can hold (the table writes 10 and 5 digits).
MAX_NUMBER = 8_388_607
MAX_GEN = 65_535
TRAILER_KEY = Name("PithtexOriginalSize")


def marker_line(original_size: int) -> bytes:
    return b"\n" + MARKER + b" %d\n" % original_size


def build(pdf: PdfFile, base_size: int, objects: dict[Ref, Any], info: Ref | None) -> bytes:
    """The bytes to append to the first `base_size` bytes of `pdf` (`info`: the trailer's
    /Info, None for a file that has none and gets none: PDF/A-4)."""
    out = bytearray(marker_line(base_size))
    offsets: dict[int, tuple[int, int]] = {}
    security = pdf.security
    for ref in sorted(objects):
        if not (0 < ref.num < MAX_NUMBER and 0 <= ref.gen <= MAX_GEN):
            raise Damaged(f"object {ref.num} {ref.gen} R is outside the numbers an xref can list")
        offsets[ref.num] = (base_size + len(out), ref.gen)
        value = objects[ref] if security is None else security.encrypt(ref, objects[ref])
        out += indirect_object(ref, value)
    # /Size from the objects that exist (ours included), never copied from an old trailer.
    size = max(pdf.max_object() + 1, max(offsets, default=0) + 1)
    trailer: dict[Any, Any] = {Name("Size"): size, Name("Root"): pdf.trailer["Root"], Name("Info"): info,
                               Name("ID"): _ids(pdf, base_size, out), Name("Prev"): pdf.startxref,
                               TRAILER_KEY: base_size}
    if info is None:
        del trailer[Name("Info")]
    if "Encrypt" in pdf.trailer:  # the same handler and permissions as before
        trailer[Name("Encrypt")] = pdf.trailer["Encrypt"]
        if not _usable_id(pdf.trailer.get("ID")):
            del trailer[Name("ID")]  # the key was derived without an /ID: a new one would change it
    if pdf.form == "stream":
        out += _xref_stream(base_size + len(out), size, offsets, trailer)
    else:
        out += _xref_table(base_size + len(out), offsets, trailer)
    return bytes(out)


def _usable_id(old: object) -> TypeGuard[list[Any]]:
    return isinstance(old, list) and bool(old) and isinstance(old[0], bytes) and 0 < len(old[0]) <= 64


def _ids(pdf: PdfFile, base_size: int, content: bytes | bytearray) -> list[HexString]:
    """Keep /ID[0]; /ID[1] is a digest of this update, so it changes with the content only."""
    old = pdf.trailer.get("ID")
    if _usable_id(old):
        first = bytes(old[0])
    else:  # no ID yet: derive a stable one from the original's size and trailer
        first = md5(b"%d" % base_size + serialize(pdf.newest_trailer), usedforsecurity=False).digest()
    second = md5(first + content, usedforsecurity=False).digest()
    return [HexString(first), HexString(second)]


def _subsections(nums: list[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for num in sorted(nums):
        if runs and runs[-1][0] + runs[-1][1] == num:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((num, 1))
    return runs


def _xref_table(offset: int, offsets: dict[int, tuple[int, int]], trailer: dict[str, Any]) -> bytes:
    lines = [b"xref\n"]
    for first, count in _subsections(list(offsets)):
        lines.append(b"%d %d\n" % (first, count))
        for num in range(first, first + count):
            off, gen = offsets[num]
            lines.append(b"%010d %05d n\r\n" % (off, gen))
    lines.append(b"trailer\n" + serialize(trailer) + b"\nstartxref\n%d\n%%%%EOF\n" % offset)
    return b"".join(lines)


def _xref_stream(offset: int, size: int, offsets: dict[int, tuple[int, int]], trailer: dict[str, Any]) -> bytes:
    """An xref stream object numbered `size` that lists itself; /Size counts it too."""
    own = size
    entries = {**offsets, own: (offset, 0)}
    width = max(1, (offset.bit_length() + 7) // 8)
    runs = _subsections(list(entries))
    rows = bytearray()
    for first, count in runs:
        for num in range(first, first + count):
            off, gen = entries[num]
            rows += b"\x01" + off.to_bytes(width, "big") + gen.to_bytes(2, "big")
    d: dict[Any, Any] = {Name("Type"): Name("XRef"), **trailer, Name("Size"): own + 1,
                         Name("W"): [1, width, 2], Name("Index"): [n for run in runs for n in run]}
    body = indirect_object(Ref(own, 0), Stream(d, bytes(rows)))
    return body + b"startxref\n%d\n%%%%EOF\n" % offset
