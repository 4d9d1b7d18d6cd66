"""A lazy PDF reader: cross-reference sections, trailer and single objects on demand.

The file is read with positioned reads of what is asked for (an object, a section, the
tail), never whole and never mapped: a 70 MB PDF costs the few kB a stamp looks at, and a
file truncated under us (latexmk rewriting it) is a short read, one clear line, where a
mapping would kill the process with SIGBUS. Damage is never
repaired silently: a `startxref` that points nowhere, a broken xref section or an object
not where the xref says it is raises `Damaged`, and the stamp refuses the file.
"""

from __future__ import annotations

import os
import re
import zlib
from pathlib import Path

from ..files import open_input
from ..value import TYPE_CHECKING, LazyPattern
from .errors import Damaged, EncryptionError, Oversize, PdfSyntaxError, SavedWebPage, Shrunk, TooDeep
from .objects import WHITESPACE, Name, NeedMore, Parser, Ref, Stream

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any, TypeVar

    T = TypeVar("T")

# Section chains longer than this are loops or attacks.
MAX_SECTIONS = 512
MAX_OBJECTS = 10_000_000
_STARTXREF = re.compile(rb"startxref[\x00\t\n\x0c\r ]+(\d+)")
_TABLE_ENTRY = LazyPattern(rb"(\d{10}) (\d{5}) ([nf])(?:\r\n| \r| \n)")
_LOOSE_ENTRY = LazyPattern(rb"[\x00\t\n\x0c\r ]*(\d+)[ ]+(\d+)[ ]+([nf])")
_HEADER = re.compile(rb"%PDF-(\d\.\d)")
_OBJSTM_PAIR = re.compile(rb"[\x00\t\n\x0c\r ]*(\d{1,10})[\x00\t\n\x0c\r ]+(\d{1,10})")


# What reading a file can raise: the file system's errors, damage (every ValueError the
# parser meets is turned into `Damaged` where the bytes are read) and encryption we cannot
# open. Anything else (TypeError, KeyError, ...) is a bug of ours and must surface as one.
READ_FAILURES = (OSError, Damaged, PdfSyntaxError, EncryptionError)


def read_failure(path: Path | str, exc: BaseException) -> str:
    """The one-line reason a PDF could not be read, naming the file (shared by stamp and inspect)."""
    if isinstance(exc, FileNotFoundError):
        return f"{path}: no such file"
    if isinstance(exc, Shrunk):
        return f"{path}: {exc}"
    if isinstance(exc, IsADirectoryError):
        return f"{path}: is a directory, not a PDF"
    if isinstance(exc, SavedWebPage):
        return f"{path}: {exc}"
    if isinstance(exc, (Damaged, PdfSyntaxError)):
        return f"{path}: damaged or not a PDF, refusing to repair it silently ({exc})"
    if isinstance(exc, EncryptionError):
        return f"{path}: encrypted PDF: {exc}"
    return f"{path}: cannot be read as a PDF ({exc.strerror if isinstance(exc, OSError) else exc})"


def html_problem(head: bytes) -> str | None:
    """Why a file's first bytes are a saved web page rather than a PDF, or None."""
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if start.startswith((b"<!doctype html", b"<html")) or (start.startswith(b"<?xml") and b"<html" in start[:512]):
        return "an HTML page saved under a PDF name, not a PDF (download the PDF itself, e.g. arxiv.org/pdf/ID)"
    return None


class XrefRows:
    """An xref stream's entries, decoded row by row when asked for.

    A long paper's xref stream lists thousands of objects; a stamp looks up a dozen, so
    decoding them all up front would be most of its work.
    """

    def __init__(self, data: bytes, widths: list[int], index: list[int]) -> None:
        self.data, self.widths, self.row = data, widths, sum(widths)
        self.runs: list[tuple[int, int, int]] = []  # (first number, count, first row)
        rows = 0
        for i in range(0, len(index) - 1, 2):
            self.runs.append((index[i], index[i + 1], rows))
            rows += index[i + 1]
        if rows * self.row > len(data):
            raise PdfSyntaxError("xref stream shorter than its /Index")

    def get(self, num: int, default: Any = None) -> Any:
        for first, count, start in self.runs:  # the first subsection naming a number wins
            if first <= num < first + count:
                return self._row(start + num - first)
        return default

    def _row(self, i: int) -> tuple[int, int, int]:
        w0, w1, _w2 = self.widths
        p, d = i * self.row, self.data
        kind = int.from_bytes(d[p:p + w0], "big") if w0 else 1
        return kind, int.from_bytes(d[p + w0:p + w0 + w1], "big"), int.from_bytes(d[p + w0 + w1:p + self.row], "big")

    def __iter__(self) -> Iterator[int]:
        for first, count, _start in self.runs:
            yield from range(first, first + count)

    def items(self) -> Iterator[tuple[int, tuple[int, int, int]]]:
        return ((num, self.get(num)) for num in self)

    def top(self) -> int:
        return max((first + count - 1 for first, count, _ in self.runs if count), default=0)


class Section:
    """One cross-reference section: where it is, its form and its trailer."""

    def __init__(self, offset: int, form: str, trailer: dict[str, Any],
                 entries: dict[int, tuple[int, int, int]] | XrefRows) -> None:
        self.offset = offset
        self.form = form  # "table" or "stream"
        self.trailer = trailer
        self.entries = entries  # object number -> (kind, offset or stream, gen or index)


WINDOW = 4096  # bytes read at an object's offset first; more only when it runs past them
_MARGIN = 64  # a value parsed this close to a window's end may have been cut off: read more


class PdfFile:
    """An open PDF; use as a context manager. `size` is the byte length read (less than the
    file's to read the original under our update); `bytes_read` counts what was read."""

    def __init__(self, path: str | Path, size: int | None = None, password: bytes | None = None) -> None:
        self.path = Path(path)
        self._file = open_input(self.path)  # a regular file only: a FIFO or device is refused
        self._fd = self._file.fileno()
        info = os.fstat(self._fd)
        self.identity = (info.st_dev, info.st_ino)
        self.size = size if size is not None else info.st_size
        self.bytes_read = 0
        if self.size == 0:
            self._file.close()
            raise Damaged("empty file")
        self._entries: dict[int, tuple[int, int, int] | None] = {}  # object number -> its newest xref entry
        self.sections: list[Section] = []
        self._cache: dict[int, Any] = {}
        self._objstm: dict[int, tuple[bytes, list[tuple[int, int]], int]] = {}
        self._loading: set[int] = set()
        # Encrypted files: `security` decrypts what `get` returns; `locked` says why it cannot.
        self.security: Any = None  # a crypt.Security (imported only for encrypted files)
        self.locked: EncryptionError | None = None
        try:
            self._check_header()
            self._load_xref()
            self._unlock(password)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        self._file.close()

    def read(self, start: int, end: int) -> bytes:
        """Bytes [start, end) of the file as read (clipped to `size`); Shrunk when the file
        now ends before them."""
        start, end = max(0, start), min(end, self.size)
        if start >= end:
            return b""
        parts, at = [], start
        while at < end:
            chunk = os.pread(self._fd, end - at, at)
            if not chunk:
                now = os.fstat(self._fd).st_size
                raise Shrunk(f"the file shrank from {self.size:,} to {now:,} bytes while it was read "
                             "(another program is rewriting it?); try again when it is done")
            parts.append(chunk)
            at += len(chunk)
        self.bytes_read += end - start
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def parse_at(self, offset: int, parse: Callable[[Parser], T]) -> T:
        """`parse(parser)` on a window of the file from `offset`: WINDOW bytes first, then
        eight times more (or what a stream's /Length asks) until the value ends well inside
        it or the window reaches the end of the file, where errors are final."""
        want = WINDOW
        while True:
            end = min(self.size, offset + want)
            complete = end >= self.size
            p = Parser(self.read(offset, end), 0, self._length, origin=offset, complete=complete)
            try:
                value = parse(p)
            except NeedMore as more:
                want = max(want * 8, more.size)
                continue
            except ValueError:  # PdfSyntaxError, bad numbers: final unless it stopped at the window's end
                if complete or p.pos + _MARGIN <= len(p.data):
                    raise
                want *= 8
                continue
            if complete or p.pos + _MARGIN <= len(p.data):
                return value
            want *= 8

    def __enter__(self) -> PdfFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- structure ------------------------------------------------------------------------
    def _check_header(self) -> None:
        head = self.read(0, 1024)
        m = _HEADER.search(head)
        if not m:
            problem = html_problem(head)
            raise SavedWebPage(problem) if problem else Damaged("no %PDF- header: not a PDF")
        self.version = m.group(1).decode()

    def _unlock(self, password: bytes | None) -> None:
        encrypt = self.trailer.get("Encrypt")
        if encrypt is None:
            return
        from .crypt import open_security  # `cryptography` costs ~45 ms: only for encrypted files

        ref = encrypt if isinstance(encrypt, Ref) else None
        try:
            self.security = open_security(self.get(encrypt), ref, self.trailer.get("ID"), password)
        except EncryptionError as exc:
            self.locked = exc

    @property
    def encrypted(self) -> bool:
        return "Encrypt" in self.trailer

    @property
    def trailer(self) -> dict[str, Any]:
        return self.sections[0].trailer

    @property
    def form(self) -> str:
        return self.sections[0].form

    @property
    def startxref(self) -> int:
        return self.sections[0].offset

    def _load_xref(self) -> None:
        tail = self.read(self.size - 2048, self.size)
        found = list(_STARTXREF.finditer(tail))
        if not found:
            raise Damaged("no startxref at the end of the file (truncated?)")
        offset: int | None = int(found[-1].group(1))
        seen: set[int] = set()
        merged: dict[str, Any] = {}
        while offset is not None:
            if offset in seen or len(seen) >= MAX_SECTIONS:
                raise Damaged("the cross-reference chain loops")
            seen.add(offset)
            section = self._section(offset)
            self.sections.append(section)
            for key, value in section.trailer.items():
                merged.setdefault(key, value)
            hybrid = section.trailer.get("XRefStm")
            if isinstance(section.entries, dict) and isinstance(hybrid, int):  # a table's entries
                # A hybrid file: its stream's entries fill what the table leaves free or out.
                for num, entry in self._section(hybrid).entries.items():
                    if section.entries.get(num, (0,))[0] == 0:
                        section.entries[num] = entry
            prev = section.trailer.get("Prev")
            if prev is not None and not isinstance(prev, int):
                # Not an offset: readers take it as the chain's end while it names nothing,
                # but once an update adds the object it names (a hostile `/Prev 6 0 R`),
                # qpdf finds a stream there and rebuilds the file as damaged.
                raise Damaged(f"the trailer's /Prev is not a byte offset ({type(prev).__name__})")
            offset = prev
        # The newest trailer as written (to tell whose update is last), then completed:
        # keys such as /Root or /ID missing from it come from older ones.
        self.newest_trailer = dict(self.sections[0].trailer)
        for key, value in merged.items():
            self.sections[0].trailer.setdefault(key, value)
        if not isinstance(self.trailer.get("Root"), Ref):
            raise Damaged("the trailer has no /Root")

    def _section(self, offset: int) -> Section:
        if not 0 <= offset < self.size:
            raise Damaged(f"startxref/Prev offset {offset} is outside the file")
        offset = self._past_blanks(offset)
        try:
            if self.read(offset, offset + 4) == b"xref":
                return self._table(offset)
            return self._xref_stream(offset)
        except TooDeep as exc:  # the section is where it should be: what it holds is the trouble
            raise Damaged(f"the cross-reference section at byte {offset}: {exc}") from None
        except ValueError as exc:  # PdfSyntaxError and int()/bytes.fromhex() on damaged bytes
            raise Damaged(f"broken cross-reference section at byte {offset}: {exc}") from None

    def _past_blanks(self, offset: int) -> int:
        """The offset moved past a few white-space bytes (some writers count the end of line
        before `xref` or `N 0 obj`). Unambiguous, so no guess: the section still has to be
        exactly there, and our update's /Prev points at its first byte."""
        head = self.read(offset, offset + 64)
        return offset + len(head) - len(head.lstrip(WHITESPACE))

    def _table(self, offset: int) -> Section:
        return self.parse_at(offset, lambda p: self._table_at(p, offset))

    def _table_at(self, p: Parser, offset: int) -> Section:
        p.pos = 4
        entries: dict[int, tuple[int, int, int]] = {}
        while True:
            p.skip()
            if p.data[p.pos:p.pos + 7] == b"trailer":
                p.pos += 7
                break
            start, count = p.keyword(), p.keyword()
            if not (start.isdigit() and count.isdigit()):
                raise PdfSyntaxError("bad subsection header")
            first, n = int(start), int(count)
            if n > MAX_OBJECTS:
                raise PdfSyntaxError("absurd subsection size")
            p.skip()
            if not p.complete and p.pos + 20 * n + _MARGIN > len(p.data):
                raise NeedMore(p.pos + 20 * n + WINDOW)  # the whole subsection in one window
            p.pos = self._table_entries(p.data, p.pos, first, n, entries)
        trailer = p.parse()
        if not isinstance(trailer, dict):
            raise PdfSyntaxError("trailer is not a dictionary")
        return Section(offset, "table", trailer, entries)

    @staticmethod
    def _table_entries(data: bytes, pos: int, first: int, n: int, out: dict[int, tuple[int, int, int]]) -> int:
        block = data[pos:pos + 20 * n]
        entries = _TABLE_ENTRY.findall(block)
        if len(entries) != n:  # n matches of 20 bytes in 20n bytes: the standard layout
            entries, end = [], pos  # a writer with odd spacing: read entry by entry
            for _ in range(n):
                m = _LOOSE_ENTRY.match(data, end)
                if not m:
                    raise PdfSyntaxError(f"bad xref entry at byte {end}")
                entries.append(m.groups())
                end = m.end()
        else:
            end = pos + 20 * n
        for i, (off, gen, kind) in enumerate(entries):
            out.setdefault(first + i, (1, int(off), int(gen)) if kind == b"n" else (0, 0, int(gen)))
        return end

    def _xref_stream(self, offset: int) -> Section:
        _, stream = self.parse_at(offset, Parser.indirect)
        if not isinstance(stream, Stream) or stream.dict.get("Type") != "XRef":
            raise PdfSyntaxError("startxref points neither at 'xref' nor at an xref stream")
        d = stream.dict
        widths = d.get("W")
        size = d.get("Size")
        if not (isinstance(widths, list) and len(widths) == 3 and all(isinstance(w, int) and 0 <= w <= 8
                                                                         for w in widths)):
            raise PdfSyntaxError("bad /W in xref stream")
        if not isinstance(size, int) or not 0 <= size <= MAX_OBJECTS:
            raise PdfSyntaxError("bad /Size in xref stream")
        index = d.get("Index", [0, size])
        if not (isinstance(index, list) and all(isinstance(v, int) and 0 <= v <= MAX_OBJECTS for v in index)):
            raise PdfSyntaxError("bad /Index in xref stream")
        if _holds_ref(d.get("DecodeParms")) or _holds_ref(d.get("Filter")):
            # ISO 32000 wants them direct; qpdf resolves such a reference while it is still
            # reading the xref, and once an update follows, caches the object as null.
            raise PdfSyntaxError("an indirect reference in the xref stream's /Filter or /DecodeParms")
        entries = XrefRows(decode_stream(stream), widths, index)
        trailer = {k: v for k, v in d.items() if k not in ("Length", "Filter", "DecodeParms", "W", "Index", "Type")}
        return Section(offset, "stream", trailer, entries)

    # -- objects --------------------------------------------------------------------------
    def _length(self, ref: Ref) -> Any:
        value = self.get(ref)
        return value if isinstance(value, int) else None

    def get(self, ref: Any) -> Any:
        """The value behind a reference (anything else is returned as is); a missing object is None."""
        if not isinstance(ref, Ref):
            return ref
        if ref.num in self._cache:
            return self._cache[ref.num]
        if ref.num in self._loading:  # /Length or an object stream that leads back to itself
            raise Damaged(f"object {ref.num} refers to itself")
        if self.locked is not None and ref != self.trailer.get("Encrypt"):
            raise self.locked
        self._loading.add(ref.num)
        try:
            value = self._load(ref)
        finally:
            self._loading.discard(ref.num)
        self._cache[ref.num] = value
        return value

    def entry(self, num: int) -> tuple[int, int, int] | None:
        """(kind, offset or object stream, generation or index) from the newest section naming `num`."""
        if num not in self._entries:
            self._entries[num] = next((e for e in (s.entries.get(num) for s in self.sections) if e is not None), None)
        return self._entries[num]

    def _load(self, ref: Ref) -> Any:
        entry = self.entry(ref.num)
        if entry is not None and entry[0] == 1:
            try:
                _, value = self.parse_at(entry[1], lambda p: p.indirect(expect=ref))
            except TooDeep as exc:  # found where the xref says, but nested past any document's need
                raise Damaged(f"object {ref.num}: {exc}") from None
            except ValueError as exc:  # PdfSyntaxError, bad numbers
                raise Damaged(f"object {ref.num} is not at the offset the xref gives: {exc}") from None
            # Undecryptable data is an EncryptionError of its own (a cipher we lack, a bad
            # key or damaged ciphertext), not a misplaced object.
            return value if self.security is None else self.security.decrypt(ref, value)
        if entry is not None and entry[0] == 2:
            return self._from_objstm(entry[1], entry[2], ref)
        return None

    def _from_objstm(self, stm_num: int, index: int, ref: Ref) -> Any:
        if stm_num not in self._objstm:
            stm = self.get(Ref(stm_num, 0))
            if not isinstance(stm, Stream):
                raise Damaged(f"object stream {stm_num} is missing")
            try:
                data = decode_stream(stm)
            except PdfSyntaxError as exc:
                raise Damaged(f"object stream {stm_num} cannot be decoded: {exc}") from None
            first, count = stm.dict.get("First"), stm.dict.get("N", 0)
            if not (isinstance(count, int) and 0 <= count <= len(data) // 2):
                raise Damaged(f"object stream {stm_num} has a bad /N")
            pairs, pos = [], 0
            for _ in range(count):
                m = _OBJSTM_PAIR.match(data, pos)
                if not m:
                    raise Damaged(f"object stream {stm_num} has a broken header")
                pairs.append((int(m.group(1)), int(m.group(2))))
                pos = m.end()
            self._objstm[stm_num] = (data, pairs, first if isinstance(first, int) else 0)
        data, pairs, first = self._objstm[stm_num]
        for num, off in pairs:
            if num == ref.num:
                try:
                    return Parser(data, first + off).parse()
                except ValueError as exc:
                    raise Damaged(f"object {ref.num} in object stream {stm_num}: {exc}") from None
        return None

    def resolve(self, value: Any) -> Any:
        return self.get(value) if isinstance(value, Ref) else value

    def max_object(self) -> int:
        """The highest object number the cross-reference sections list.

        Deliberately not the trailer's /Size: a damaged or hostile /Size (4000000000) copied
        into our update would make a file that only had warnings fail `qpdf --check`.
        """
        return max((s.entries.top() if isinstance(s.entries, XrefRows) else max(s.entries, default=0)
                    for s in self.sections), default=0)

    def catalog(self) -> dict[str, Any]:
        root = self.get(self.trailer["Root"])
        if not isinstance(root, dict):
            raise Damaged("/Root is not a dictionary")
        return root

    def pages(self, limit: int | None = None) -> Iterator[tuple[Any, dict[str, Any], dict[str, Any]]]:
        """(Ref, page dict, inherited) for each page in order; `inherited` holds Resources/MediaBox/Rotate."""
        root = self.catalog().get("Pages")
        stack: list[tuple[Any, dict[str, Any]]] = [(root, {})]
        seen: set[int] = set()
        count = 0
        while stack:
            ref, inherited = stack.pop()
            node = self.get(ref)
            if not isinstance(node, dict) or (isinstance(ref, Ref) and ref.num in seen):
                continue
            if isinstance(ref, Ref):
                seen.add(ref.num)
            here = dict(inherited)
            for key in ("Resources", "MediaBox", "CropBox", "Rotate"):
                if key in node:
                    here[key] = node[key]
            kids = node.get("Kids")
            if isinstance(self.resolve(kids), list) and node.get("Type") != "Page":
                stack.extend((kid, here) for kid in reversed(self.resolve(kids)))
                continue
            yield ref, node, here
            count += 1
            if limit is not None and count >= limit:
                return


def decode_stream(stream: Stream, limit: int = 256 * 1024 * 1024) -> bytes:
    """The decoded bytes of a stream (Flate, ASCIIHex, ASCII85, with PNG/TIFF predictors).

    Damaged data raises PdfSyntaxError, whatever the decoder's own exception.
    """
    try:
        return _decode(stream, limit)
    except PdfSyntaxError:
        raise
    except ValueError as exc:  # bytes.fromhex/a85decode on bad bytes
        raise PdfSyntaxError(f"stream cannot be decoded: {exc}") from None


def _decode(stream: Stream, limit: int) -> bytes:
    filters = stream.dict.get("Filter")
    params = stream.dict.get("DecodeParms")
    if isinstance(filters, Name):
        filters, params = [filters], [params]
    elif filters is None:
        return stream.raw
    if not isinstance(filters, list):  # a number or a boolean has no len(): that was a TypeError
        raise PdfSyntaxError("bad /Filter (neither a name nor an array)")
    if not isinstance(params, list):
        params = [params] * len(filters)
    # A /DecodeParms array shorter than /Filter: the filters it leaves out take no parameters
    # (zip alone stopped at the shorter list and skipped them, handing out half-decoded bytes).
    params = params + [None] * (len(filters) - len(params))
    data = stream.raw
    for name, parms in zip(filters, params, strict=False):
        if name in ("FlateDecode", "Fl"):
            data = _inflate(data, limit)
            if isinstance(parms, dict):
                data = _unpredict(data, parms)
        elif name in ("ASCIIHexDecode", "AHx"):
            digits = bytes(b for b in data.split(b">")[0] if b not in b"\x00\t\n\x0c\r ")
            data = bytes.fromhex((digits + b"0" * (len(digits) % 2)).decode("ascii"))
        elif name in ("ASCII85Decode", "A85"):
            import base64

            body = data.strip()
            body = body[2:] if body.startswith(b"<~") else body
            data = base64.a85decode(body.split(b"~>")[0], ignorechars=b" \t\n\r\x0c\x00")
        elif name != "Crypt":  # /Crypt was applied when the object was read
            raise PdfSyntaxError(f"unsupported stream filter /{name}")
    return data


def _inflate(data: bytes, limit: int) -> bytes:
    d = zlib.decompressobj()
    try:
        out = d.decompress(data, limit)
    except zlib.error:
        # Streams cut short by their writer still decode as far as they go.
        d = zlib.decompressobj()
        out = b""
        for i in range(0, len(data), 256):
            try:
                out += d.decompress(data[i:i + 256])
            except zlib.error:
                break
        if not out:
            raise PdfSyntaxError("corrupt Flate stream") from None
    if d.unconsumed_tail:
        raise Oversize("stream decodes to more than the limit")
    return out


def _unpredict(data: bytes, parms: dict[str, Any]) -> bytes:
    predictor = parms.get("Predictor", 1)
    if not isinstance(predictor, int) or predictor < 10:
        return data
    values = [parms.get(k, d) for k, d in (("Columns", 1), ("Colors", 1), ("BitsPerComponent", 8))]
    if not all(isinstance(v, int) and 1 <= v <= 1 << 20 for v in values):
        raise PdfSyntaxError("bad /DecodeParms for a PNG predictor")
    columns = max(1, values[0] * values[1] * values[2] // 8)
    bpp = max(1, values[1] * values[2] // 8)
    up = _all_up(data, columns)
    if up is not None:
        return up
    out = bytearray()
    prior = bytearray(columns)
    for start in range(0, len(data) - columns, columns + 1):
        kind = data[start]
        row = bytearray(data[start + 1:start + 1 + columns])
        if kind == 1:
            for i in range(bpp, len(row)):
                row[i] = (row[i] + row[i - bpp]) & 0xFF
        elif kind == 2:
            row = bytearray((a + b) & 0xFF for a, b in zip(row, prior, strict=True))
        elif kind == 3:
            for i in range(len(row)):
                left = row[i - bpp] if i >= bpp else 0
                row[i] = (row[i] + (left + prior[i]) // 2) & 0xFF
        elif kind == 4:
            for i in range(len(row)):
                a = row[i - bpp] if i >= bpp else 0
                b, c = prior[i], prior[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                row[i] = (row[i] + pred) & 0xFF
        out += row
        prior = row
    return bytes(out)


def _all_up(data: bytes, columns: int) -> bytes | None:
    """The rows decoded when every one is filtered Up (as in every cross-reference stream
    pdfTeX writes), else None: then each column is the running sum of its raw bytes, modulo
    256, which C-level iteration computes without a Python step per byte."""
    from itertools import accumulate

    stride = columns + 1
    rows = len(data) // stride
    data = data[: rows * stride]
    if not rows or data[0::stride].strip(b"\x02"):
        return None
    out = bytearray(rows * columns)
    for j in range(columns):
        out[j::columns] = bytes(map((255).__and__, accumulate(data[j + 1::stride])))
    return bytes(out)


def _holds_ref(value: Any) -> bool:
    """Whether a direct value holds an indirect reference anywhere inside it."""
    if isinstance(value, Ref):
        return True
    if isinstance(value, dict):
        return any(_holds_ref(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_ref(v) for v in value)
    return False
