"""The PDF reader's parsing on its own: the object parser on hand-written bytes, then whole
files written byte by byte here (classic tables and their quirks, xref streams of several
/W, /Prev chains, hybrid files), read back and compared with what pikepdf reads. Bad input
must always end in the reader's own errors, never in another exception type.
"""

from __future__ import annotations

import base64
import random
import zlib
from pathlib import Path

import pikepdf
import pypdf
import pytest

from pithtex.pdf.objects import Keyword, Name, Parser, PdfSyntaxError, Ref, Stream
from pithtex.pdf.reader import READ_FAILURES, Damaged, PdfFile, decode_stream, read_failure

from ..pdfkit import Writer


def parse(data: bytes):
    return Parser(data).parse()


# -- the object parser ------------------------------------------------------------------------
@pytest.mark.parametrize(("data", "value"), [
    (b"/Type", "Type"),
    (b"/A#20B", "A B"),
    (b"/#41#42c", "ABc"),
    (b"/Name#23with#2Fslash", "Name#with/slash"),
    (b"/lower#2fhex", "lower/hex"),
    (b"/A#2", "A#2"),  # an incomplete escape stays as written
    (b"/", ""),  # the empty name is a name
    (b"/a.b-c_d*e!f", "a.b-c_d*e!f"),
])
def test_names(data: bytes, value: str):
    got = parse(data)
    assert isinstance(got, Name) and got == value


def test_names_keep_their_bytes_and_end_at_delimiters():
    assert parse(b"/caf#C3#A9").encode("latin-1") == "café".encode()  # bytes kept, read as Latin-1
    assert parse(b"[/a/b(c)/d<64>/e[/f]/g%x\n/h]") == ["a", "b", b"c", "d", b"d", "e", ["f"], "g", "h"]


@pytest.mark.parametrize(("data", "value"), [
    (b"(plain)", b"plain"),
    (b"()", b""),
    (b"(a(b(c)d)e)", b"a(b(c)d)e"),  # balanced parentheses need no escapes
    (b"(a\\(b)", b"a(b"),
    (b"(a\\)b)", b"a)b"),
    (b"(\\n\\r\\t\\b\\f\\\\)", b"\n\r\t\b\f\\"),
    (b"(\\101\\60\\0053)", b"A0\x053"),  # octal: up to three digits
    (b"(\\7x\\12)", b"\x07x\n"),
    (b"(\\777)", b"\xff"),  # the high-order overflow is ignored
    (b"(\\q\\%)", b"q%"),  # an unknown escape: the backslash alone is dropped
    (b"(one \\\ntwo \\\r\nthree \\\rfour)", b"one two three four"),  # line continuations
    (b"(50% off)", b"50% off"),  # no comment inside a string
    (b"(\x00\xff)", b"\x00\xff"),
])
def test_literal_strings(data: bytes, value: bytes):
    assert parse(data) == value


@pytest.mark.parametrize(("data", "value"), [
    (b"<4142>", b"AB"),
    (b"<>", b""),
    (b"<901FA>", b"\x90\x1f\xa0"),  # an odd count: the last digit is followed by 0
    (b"<4 1 4>", b"A@"),
    (b"< 41\n42\t43\r\n44\x0c45\x00 >", b"ABCDE"),
    (b"<6a6B>", b"jk"),
])
def test_hex_strings(data: bytes, value: bytes):
    assert parse(data) == value


@pytest.mark.parametrize(("data", "value"), [
    (b"0", 0), (b"-0", 0), (b"+17", 17), (b"007", 7), (b"123456789012345", 123456789012345),
    (b"+.5", 0.5), (b"-.002", -0.002), (b"1.", 1.0), (b"-3.25", -3.25), (b"0.0", 0.0), (b"4.", 4.0),
])
def test_numbers(data: bytes, value: float):
    got = parse(data)
    assert got == value and type(got) is type(value)


def test_true_false_null_and_keywords():
    assert parse(b"[true false null]") == [True, False, None]
    ops = []
    p = Parser(b"BT /F1 12 Tf 72 700 Td (hi) Tj ET q 1 0 0 1 0 0 cm Q nulls")
    while not p.at_end():
        ops.append(p.parse())
    assert ops == ["BT", "F1", 12, "Tf", 72, 700, "Td", b"hi", "Tj", "ET", "q", 1, 0, 0, 1, 0, 0, "cm", "Q", "nulls"]
    assert all(isinstance(ops[i], Keyword) for i in (0, 3, 6, 8, 9, 10, 17, 18, 19))


def test_arrays_and_dictionaries_nest():
    data = b"<</A[<</B[1[2<</C<<>>/D[]>>]]>>]/E<</F/G>>/H 1 0 R/I null>>"
    assert parse(data) == {"A": [{"B": [1, [2, {"C": {}, "D": []}]]}], "E": {"F": "G"}, "H": Ref(1, 0), "I": None}
    assert parse(b"<< /Key >>") == {"Key": None}  # a key without a value reads as null
    assert parse(b"<</A 1/A 2>>") == {"A": 2}


@pytest.mark.parametrize(("data", "value"), [
    (b"[1 0 R 2 0 R]", [Ref(1, 0), Ref(2, 0)]),
    (b"[1 2 3]", [1, 2, 3]),
    (b"[1 2 R]", [Ref(1, 2)]),
    (b"[12\n0\r\nR/N]", [Ref(12, 0), "N"]),
    (b"[1 0 R(s)]", [Ref(1, 0), b"s"]),
    (b"[1 0 Rx]", [1, 0, "Rx"]),  # `Rx` is a keyword, not the reference marker
    (b"[1.0 0 R]", [1.0, 0, "R"]),  # a reference has integers only
    (b"[-1 0 R]", [-1, 0, "R"]),
])
def test_indirect_references(data: bytes, value: list):
    assert parse(data) == value


def test_comments_are_white_space():
    assert parse(b"[1 % a comment with ] and >> in it\n2]") == [1, 2]
    assert parse(b"<</A%c\n/B%d\r/C 3>>") == {"A": "B", "C": 3}
    assert parse(b"% 12 0 obj\n%another\r\n  7") == 7  # a commented-out header is no object
    p = Parser(b"7 % the end, no newline")
    assert p.parse() == 7 and p.at_end()


@pytest.mark.parametrize("bad", [
    b"", b"   % only a comment", b"<</A 1", b"[1 2", b"(open", b"(open \\", b"<<1 2>>", b"<</A 1 >",
    b")", b"]", b">>", b"{", b"<", b"<4G>", b"<41", b"1" * 50, b"[" * 100, b"<<" * 100,
])
def test_malformed_objects_are_pdf_syntax_errors(bad: bytes):
    with pytest.raises(PdfSyntaxError):
        parse(bad)


RICH = (b"<</Type/Page/Name#20x (str\\(ing\\) \\101 (in)) /Hex <41 42 4> /N [+.5 -0 1. 3 0 R [true null]]"
        b" /D << /E /F % note\n >> /G 12 0 R>>")


def test_every_truncation_of_an_object_is_a_syntax_error():
    assert parse(RICH)["G"] == Ref(12, 0)
    for end in range(len(RICH)):
        with pytest.raises(PdfSyntaxError):
            parse(RICH[:end])


# -- indirect objects and streams -------------------------------------------------------------
def indirect(data: bytes):
    return Parser(data).indirect()


def test_an_indirect_object_and_its_number():
    assert indirect(b"12 3 obj\n<</A 1>>\nendobj") == (Ref(12, 3), {"A": 1})
    assert indirect(b"  4 0 obj (x) endobj") == (Ref(4, 0), b"x")
    with pytest.raises(PdfSyntaxError, match="no object header"):
        indirect(b"x 0 obj 1 endobj")
    with pytest.raises(PdfSyntaxError, match="expected 'obj'"):
        indirect(b"4 0 R")
    with pytest.raises(PdfSyntaxError, match="object 5 expected"):
        Parser(b"4 0 obj 1 endobj").indirect(expect=Ref(5))


@pytest.mark.parametrize(("after", "raw"), [
    (b"\n", b"0123456789"), (b"\r\n", b"0123456789"), (b"\r", b"0123456789"),
])
def test_stream_data_starts_after_the_end_of_line(after: bytes, raw: bytes):
    ref, stream = indirect(b"1 0 obj <</Length 10>> stream" + after + raw + b"\nendstream\nendobj")
    assert ref == Ref(1) and isinstance(stream, Stream) and stream.raw == raw


@pytest.mark.parametrize(("length", "why"), [
    (b"10", "right"), (b"30", "too long"), (b"5", "too short"), (b"-4", "negative"),
    (b"(ten)", "not a number"), (b"9999999999", "past the end of the file"), (b"12", "off by the EOL"),
])
def test_stream_lengths_right_and_wrong(tmp_path: Path, length: bytes, why: str):
    """A wrong /Length falls back to the endstream keyword, as qpdf (pikepdf) recovers it."""
    body = b"<</Length " + length + b">>\nstream\n0123456789\nendstream"
    data = build({1: CATALOG, 2: PAGES, 3: body})
    path = write(tmp_path, data)
    with PdfFile(path) as pdf:
        raw = pdf.get(Ref(3)).raw
    with pikepdf.open(path) as pdf:
        theirs = pdf.get_object((3, 0)).read_raw_bytes()
    assert raw == b"0123456789", why
    assert theirs.rstrip(b"\r\n") == raw, why
    if why not in ("not a number", "past the end of the file"):  # pypdf 7 fails on those two itself
        assert pypdf.PdfReader(path).get_object(3).get_data().rstrip(b"\r\n") == raw, why


def test_a_length_given_by_reference(tmp_path: Path):
    raw = b"abc\nendstream\nend"  # the keyword inside the data: only the /Length can tell
    data = build({1: CATALOG, 2: PAGES, 3: b"<</Length 4 0 R>>stream\r\n" + raw + b"\nendstream", 4: b"17"})
    path = write(tmp_path, data)
    with PdfFile(path) as pdf:
        assert pdf.get(Ref(3)).raw == raw
    with pikepdf.open(path) as pdf:
        assert pdf.get_object((3, 0)).read_raw_bytes() == raw


def test_a_length_by_reference_to_itself_is_damage(tmp_path: Path):
    data = build({1: CATALOG, 2: PAGES, 3: b"<</Length 3 0 R>>stream\nabc\nendstream", 4: b"<</Length 5 0 R>>"
                  b"stream\nabc\nendstream", 5: b"(not a number)"})
    with PdfFile(write(tmp_path, data)) as pdf:
        with pytest.raises(Damaged, match="refers to itself"):
            pdf.get(Ref(3))
        assert pdf.get(Ref(4)).raw == b"abc"  # a /Length that is no number: the keyword decides


def test_a_stream_without_endstream_is_a_syntax_error():
    with pytest.raises(PdfSyntaxError, match="without endstream"):
        indirect(b"1 0 obj <</Length 99>> stream\nabc endobj")


# -- whole files, written here (tests/pdfkit.py's Writer) --------------------------------------
CATALOG = b"<</Type/Catalog/Pages 2 0 R>>"
PAGES = b"<</Type/Pages/Kids[]/Count 0>>"


def build(objects: dict[int, bytes], trailer: bytes = b"") -> bytes:
    w = Writer()
    for num, body in objects.items():
        w.obj(num, body)
    size = max(objects) + 1
    return w.end(w.table(w.entries(), b"<</Size %d/Root 1 0 R%s>>" % (size, trailer)))


def write(folder: Path, data: bytes) -> Path:
    path = folder / "t.pdf"
    path.write_bytes(data)
    return path


def xref_stream(w: Writer, num: int, rows: dict[int, tuple[int, int, int]], widths: list[int], trailer: bytes,
                index: list[int] | None = None, predictor: bool = False) -> int:
    """An xref stream object (its own row added) with the given /W, optionally Flate with PNG Up rows."""
    at = len(w.out)
    rows = {**rows, num: (1, at, 0)}
    index = index if index is not None else [0, max(rows) + 1]
    data = bytearray()
    for first, count in zip(index[::2], index[1::2], strict=True):
        for n in range(first, first + count):
            kind, f2, f3 = rows.get(n, (0, 0, 0))
            row = b"".join(v.to_bytes(wd, "big") for v, wd in zip((kind, f2, f3), widths, strict=True) if wd)
            data += row
    head = b"/Type/XRef/Size %d/W[%d %d %d]/Index[%s]" % (max(rows) + 1, *widths, b" ".join(b"%d" % i for i in index))
    if predictor:
        width = sum(widths)
        prior, encoded = bytes(width), bytearray()
        for i in range(0, len(data), width):
            row = data[i:i + width]
            encoded += b"\x02" + bytes((a - b) & 0xFF for a, b in zip(row, prior, strict=True))
            prior = row
        data = zlib.compress(bytes(encoded))
        head += b"/Filter/FlateDecode/DecodeParms<</Predictor 12/Columns %d>>" % width
    w.obj(num, b"<<" + head + trailer + b"/Length %d>>stream\n" % len(data) + bytes(data) + b"\nendstream")
    return at


def object_stream(w: Writer, num: int, members: dict[int, bytes]) -> dict[int, tuple[int, int, int]]:
    """An object stream holding `members`; the type-2 xref rows that point into it."""
    offsets, body = [], b""
    for n, value in members.items():
        offsets.append(b"%d %d" % (n, len(body)))
        body += value + b" "
    header = b" ".join(offsets) + b"\n"
    data = zlib.compress(header + body)
    w.obj(num, b"<</Type/ObjStm/N %d/First %d/Filter/FlateDecode/Length %d>>stream\n" % (
        len(members), len(header), len(data)) + data + b"\nendstream")
    return {n: (2, num, i) for i, n in enumerate(members)}


def pike(path: Path, num: int):
    """Object `num` as pikepdf reads it, in plain Python values."""
    with pikepdf.open(path) as pdf:
        return plain(pdf.get_object((num, 0)))


def plain(obj):
    if isinstance(obj, pikepdf.Stream):
        return obj.read_bytes()
    if isinstance(obj, (pikepdf.Name, pikepdf.String)):
        return str(obj)
    if isinstance(obj, pikepdf.Array):
        return [plain(x) for x in obj]
    return obj


def test_a_classic_file(tmp_path: Path):
    data = build({1: CATALOG, 2: b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
                  3: b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>", 4: b"(a title)"}, b"/Info<</Title 4 0 R>>")
    path = write(tmp_path, data)
    with PdfFile(path) as pdf:
        assert pdf.version == "1.7" and pdf.form == "table" and len(pdf.sections) == 1
        assert pdf.startxref == data.index(b"xref\n") and pdf.max_object() == 4
        assert pdf.get(Ref(4)) == b"a title" and pdf.get(Ref(9)) is None
        assert [ref for ref, _page, _inh in pdf.pages()] == [Ref(3)]
        assert pdf.entry(0) == (0, 0, 65535)
    with pikepdf.open(path) as theirs:
        assert len(theirs.pages) == 1 and str(theirs.get_object((4, 0))) == "a title"


@pytest.mark.parametrize("quirk", ["eol-before-xref", "blank-lines", "lf-entries", "crlf-entries", "cr-entries",
                                   "spaces-before-eol"])
def test_xref_table_quirks(tmp_path: Path, quirk: str):
    w = Writer()
    for num, body in {1: CATALOG, 2: PAGES, 3: b"(three)", 5: b"(five)"}.items():
        w.obj(num, body)
    entries = {**w.entries(), 4: (0, 1, b"f")}
    eol = {"lf-entries": b"\n", "crlf-entries": b"\r\n", "cr-entries": b" \r", "spaces-before-eol": b"   \n"}
    gap = b"\n\r\n  \n" if quirk == "blank-lines" else b""
    w.out += b"\n" if quirk == "eol-before-xref" else b""
    at = w.table(entries, b"<</Size 6/Root 1 0 R>>", eol.get(quirk, b" \n"), gap)
    data = w.end(at - 1 if quirk == "eol-before-xref" else at)  # that writer counted the EOL before `xref`
    path = write(tmp_path, data)
    with PdfFile(path) as pdf:
        assert pdf.get(Ref(3)) == b"three" and pdf.get(Ref(5)) == b"five" and pdf.get(Ref(4)) is None
        assert pdf.entry(4) == (0, 0, 1) and pdf.entry(5) == (1, w.offsets[5], 0)
    assert pike(path, 5) == "five"


def test_table_with_several_subsections_and_object_generations(tmp_path: Path):
    w = Writer()
    w.obj(1, CATALOG)
    w.obj(2, PAGES)
    w.obj(7, b"(seven)", gen=2)
    at = w.table({0: (0, 65535, b"f"), 1: (w.offsets[1], 0, b"n"), 2: (w.offsets[2], 0, b"n"),
                  7: (w.offsets[7], 2, b"n")}, b"<</Size 8/Root 1 0 R>>")
    with PdfFile(write(tmp_path, w.end(at))) as pdf:
        assert pdf.entry(7) == (1, w.offsets[7], 2) and pdf.get(Ref(7, 2)) == b"seven"
        assert pdf.entry(5) is None and pdf.max_object() == 7


WIDTHS = [[1, 2, 1], [1, 4, 2], [0, 3, 0], [2, 3, 1], [1, 8, 0], [1, 2, 2]]


@pytest.mark.parametrize("predictor", [False, True], ids=["raw", "flate-png-up"])
@pytest.mark.parametrize("widths", WIDTHS, ids=["-".join(map(str, w)) for w in WIDTHS])
def test_xref_streams_of_several_widths(tmp_path: Path, widths: list[int], predictor: bool):
    w = Writer(b"%PDF-1.5\n")
    w.obj(1, CATALOG)
    w.obj(2, PAGES)
    w.obj(3, b"<</Plain 3>>")
    rows = {n: (1, off, 0) for n, off in w.offsets.items()}
    if widths[0]:  # with no type field every row is type 1: no free rows, no object streams
        rows.update(object_stream(w, 4, {5: b"<</In 5 0 R/Str(five)>>", 6: b"[6 (six)]"}))
        rows[4] = (1, w.offsets[4], 0)
    at = xref_stream(w, 9, rows, widths, b"/Root 1 0 R", predictor=predictor)
    path = write(tmp_path, w.end(at))
    with PdfFile(path) as pdf:
        assert pdf.form == "stream" and pdf.startxref == at
        assert pdf.get(Ref(3)) == {"Plain": 3}
        assert pdf.max_object() == 9
        if widths[0]:
            assert pdf.entry(5) == (2, 4, 0) and pdf.entry(6) == (2, 4, 1 if widths[2] else 0)  # /W 0: index 0
            assert pdf.get(Ref(5)) == {"In": Ref(5), "Str": b"five"} and pdf.get(Ref(6)) == [6, b"six"]
            assert pdf.entry(7) == (0, 0, 0) and pdf.get(Ref(7)) is None
    with pikepdf.open(path) as theirs:
        assert int(theirs.get_object((3, 0)).Plain) == 3
        if widths[0]:
            assert bytes(theirs.get_object((5, 0)).Str) == b"five"


def test_an_xref_stream_with_several_index_runs(tmp_path: Path):
    w = Writer(b"%PDF-1.5\n")
    w.obj(1, CATALOG)
    w.obj(2, PAGES)
    w.obj(20, b"(twenty)")
    w.obj(21, b"(twenty-one)")
    rows = {n: (1, off, 0) for n, off in w.offsets.items()}
    at = xref_stream(w, 22, rows, [1, 2, 1], b"/Root 1 0 R", index=[0, 3, 20, 3])
    path = write(tmp_path, w.end(at))
    with PdfFile(path) as pdf:
        assert pdf.get(Ref(21)) == b"twenty-one" and pdf.entry(10) is None and pdf.max_object() == 22
    assert pike(path, 21) == "twenty-one"


def two_sections(tmp_path: Path, *, newest: str = "table", older: str = "table") -> tuple[Path, int, int]:
    """A file and one incremental update: object 3 changed, 5 freed, 6 added, /Info only in the older trailer."""
    w = Writer()
    for num, body in {1: CATALOG, 2: PAGES, 3: b"(old three)", 4: b"<</Title(info)>>", 5: b"(five)"}.items():
        w.obj(num, body)
    if older == "table":
        first = w.table(w.entries(), b"<</Size 6/Root 1 0 R/Info 4 0 R/ID[<01><02>]>>")
    else:
        first = xref_stream(w, 7, {n: (1, o, 0) for n, o in w.offsets.items()}, [1, 4, 1],
                            b"/Root 1 0 R/Info 4 0 R/ID[<01><02>]")
    w.out += b"startxref\n%d\n%%%%EOF\n" % first
    w.obj(3, b"(new three)")
    w.obj(6, b"(six)")
    if newest == "table":
        upd = w.table({3: (w.offsets[3], 0, b"n"), 5: (0, 1, b"f"), 6: (w.offsets[6], 0, b"n")},
                      b"<</Size 8/Root 1 0 R/Prev %d>>" % first)
    else:
        upd = xref_stream(w, 8, {3: (1, w.offsets[3], 0), 6: (1, w.offsets[6], 0)} | {5: (0, 0, 1)}, [1, 4, 1],
                          b"/Root 1 0 R/Prev %d" % first, index=[3, 1, 5, 2, 8, 1])
    return write(tmp_path, w.end(upd)), first, upd


@pytest.mark.parametrize(("newest", "older"), [("table", "table"), ("table", "stream"), ("stream", "table"),
                                               ("stream", "stream")])
def test_prev_chains(tmp_path: Path, newest: str, older: str):
    path, first, upd = two_sections(tmp_path, newest=newest, older=older)
    with PdfFile(path) as pdf:
        assert [s.offset for s in pdf.sections] == [upd, first]
        assert [s.form for s in pdf.sections] == [newest, older]
        assert pdf.get(Ref(3)) == b"new three" and pdf.get(Ref(6)) == b"six"
        assert pdf.get(Ref(5)) is None  # freed by the update
        # The newest trailer as written, and completed from the older one.
        assert "Info" not in pdf.newest_trailer and pdf.trailer["Info"] == Ref(4)
        assert pdf.trailer["ID"] == [b"\x01", b"\x02"] and pdf.get(pdf.trailer["Info"]) == {"Title": b"info"}
    with pikepdf.open(path) as theirs:
        # (qpdf reads the newest trailer alone, so /Info is looked up by number here.)
        assert str(theirs.get_object((3, 0))) == "new three" and str(theirs.get_object((4, 0)).Title) == "info"
        assert theirs.get_object((5, 0)) is None


@pytest.mark.parametrize("form", ["left-out", "listed-free"])
def test_hybrid_file(tmp_path: Path, form: str):
    """A table for old readers plus /XRefStm for the objects it leaves out (in object streams).
    Our reader also fills the table's free entries from the stream (some writers list the
    compressed objects so); qpdf does not, so pikepdf is asked about the other form only."""
    w = Writer(b"%PDF-1.5\n")
    w.obj(1, CATALOG)
    w.obj(2, PAGES)
    w.obj(3, b"(in the table)")
    rows = object_stream(w, 4, {5: b"(only in the stream)", 6: b"<</Six 6>>"})
    stm = xref_stream(w, 7, {4: (1, w.offsets[4], 0), **rows}, [1, 2, 1], b"")
    entries = {**w.entries({1, 2, 3}), 4: (w.offsets[4], 0, b"n")}
    if form == "listed-free":
        entries.update({5: (0, 0, b"f"), 6: (0, 0, b"f")})
    at = w.table(entries, b"<</Size 8/Root 1 0 R/XRefStm %d>>" % stm)
    path = write(tmp_path, w.end(at))
    with PdfFile(path) as pdf:
        assert pdf.form == "table" and len(pdf.sections) == 1
        assert pdf.get(Ref(3)) == b"in the table"
        assert pdf.get(Ref(5)) == b"only in the stream" and pdf.get(Ref(6)) == {"Six": 6}
    if form == "left-out":
        with pikepdf.open(path) as theirs:
            assert str(theirs.get_object((5, 0))) == "only in the stream"
            assert int(theirs.get_object((6, 0)).Six) == 6


def test_comments_and_junk_around_the_structure(tmp_path: Path):
    w = Writer(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3 binary comment\n% another comment\n")
    w.obj(1, b"% a comment before the value\n<</Type/Catalog % and inside\n/Pages 2 0 R>>")
    w.out += b"% between objects: 9 0 obj (not an object) endobj\n"
    w.obj(2, PAGES)
    w.obj(3, b"[1 % ]\n 2]")
    at = w.table(w.entries(), b"<</Size 4 % a comment in the trailer\n/Root 1 0 R>>")
    data = w.end(at) + b"% after the end\n\x00\x00junk\n"
    path = write(tmp_path, data)
    with PdfFile(path) as pdf:
        assert pdf.version == "1.4" and pdf.catalog()["Pages"] == Ref(2) and pdf.get(Ref(3)) == [1, 2]
    assert pike(path, 3) == [1, 2]


# -- damage: always the reader's own errors ---------------------------------------------------
def good() -> bytes:
    return build({1: CATALOG, 2: PAGES, 3: b"(three)"})


def replace(data: bytes, old: bytes, new: bytes) -> bytes:
    assert old in data
    return data.replace(old, new, 1)


DAMAGED = {
    "empty": (lambda: b"", "empty file"),
    "no-header": (lambda: good().replace(b"%PDF-1.7", b"%XYZ-1.7"), "no %PDF- header"),
    "no-startxref": (lambda: good().replace(b"startxref", b"startxre"), "no startxref"),
    "startxref-past-the-end": (lambda: startxref(good(), 99999), "outside the file"),
    "startxref-at-garbage": (lambda: startxref(good(), 5), "broken cross-reference"),
    "no-root": (lambda: replace(good(), b"/Root 1 0 R", b"/Rot 1 0 R"), "no /Root"),
    "short-subsection": (lambda: replace(good(), b"0 4\n", b"0 5\n"), "bad xref entry"),
    "bad-subsection": (lambda: replace(good(), b"0 4\n", b"0 x\n"), "bad subsection header"),
    "huge-subsection": (lambda: replace(good(), b"0 4\n", b"0 99999999999\n"), "absurd subsection size"),
    "trailer-not-a-dict": (lambda: replace(good(), b"trailer\n<<", b"trailer\n[<<"), "broken cross-reference"),
    "prev-loop": (lambda: loop(), "loops"),
    "prev-outside": (lambda: replace(good(), b"/Root 1 0 R", b"/Root 1 0 R/Prev 999999"), "outside the file"),
}


def startxref(data: bytes, offset: int) -> bytes:
    at = data.rindex(b"startxref\n") + 10
    return data[:at] + b"%d" % offset + data[data.index(b"\n", at):]


def loop() -> bytes:
    data = good()
    at = data.index(b"xref\n")
    return replace(data, b"/Root 1 0 R", b"/Root 1 0 R/Prev %d" % at)


@pytest.mark.parametrize("case", DAMAGED)
def test_damaged_structure_is_refused_in_one_line(tmp_path: Path, case: str):
    make, says = DAMAGED[case]
    path = write(tmp_path, make())
    with pytest.raises(Damaged, match=says) as caught:
        PdfFile(path).close()
    line = read_failure(path, caught.value)
    assert "\n" not in line and line.startswith(f"{path}: damaged or not a PDF")


def xref_stream_file() -> bytes:
    w = Writer(b"%PDF-1.5\n")
    w.obj(1, CATALOG)
    w.obj(2, PAGES)
    at = xref_stream(w, 3, {n: (1, o, 0) for n, o in w.offsets.items()}, [1, 2, 1], b"/Root 1 0 R")
    return w.end(at)


@pytest.mark.parametrize(("old", "new", "says"), [
    (b"/W[1 2 1]", b"/W[1 2]", "bad /W"),
    (b"/W[1 2 1]", b"/W[1 9 1]", "bad /W"),
    (b"/W[1 2 1]", b"/W[1 -2 1]", "bad /W"),
    (b"/Size 4", b"/Size -1", "bad /Size"),
    (b"/Index[0 4]", b"/Index[0 40]", "shorter than its /Index"),
    (b"/Index[0 4]", b"/Index[0 (4)]", "bad /Index"),
    (b"/Type/XRef", b"/Type/XRaf", "neither at 'xref' nor at an xref stream"),
    (b"/Root 1 0 R", b"/Root 1 0 R/Filter/LZWDecode", "unsupported stream filter /LZWDecode"),
    (b"/Root 1 0 R", b"/Root 1 0 R/Filter/FlateDecode", "corrupt Flate stream"),
    (b"/Root 1 0 R", b"/Root 1 0 R/Filter 5", "bad /Filter"),
    (b"/Root 1 0 R", b"/Root 1 0 R/Filter true", "bad /Filter"),
])
def test_damaged_xref_streams_are_refused(tmp_path: Path, old: bytes, new: bytes, says: str):
    path = write(tmp_path, replace(xref_stream_file(), old, new))
    with pytest.raises(Damaged, match=says):
        PdfFile(path).close()


def test_objects_not_where_the_xref_says_are_damage_when_read(tmp_path: Path):
    data = good()
    bad = replace(data, b"3 0 obj", b"4 0 obj")  # the xref still points there for object 3
    with PdfFile(write(tmp_path, bad)) as pdf, pytest.raises(Damaged, match="not at the offset the xref gives"):
        pdf.get(Ref(3))
    huge = build({1: CATALOG, 2: PAGES, 3: b"[1 " + b"9" * 5000 + b" R]"})  # more digits than int() takes
    with PdfFile(write(tmp_path, huge)) as pdf, pytest.raises(Damaged):
        pdf.get(Ref(3))


def test_broken_object_streams_are_damage(tmp_path: Path):
    w = Writer(b"%PDF-1.5\n")
    w.obj(1, CATALOG)
    w.obj(2, PAGES)
    rows = object_stream(w, 4, {5: b"(five)"})
    w.obj(6, b"<</Type/ObjStm/N 99/First 2/Length 4>>stream\n5 0 \nendstream")
    w.obj(8, b"(not a stream)")
    at = xref_stream(w, 7, {**{n: (1, o, 0) for n, o in w.offsets.items()}, **rows, 9: (2, 6, 0), 10: (2, 8, 0)},
                     [1, 2, 1], b"/Root 1 0 R")
    with PdfFile(write(tmp_path, w.end(at))) as pdf:
        assert pdf.get(Ref(5)) == b"five"
        with pytest.raises(Damaged, match="bad /N"):
            pdf.get(Ref(9))
        with pytest.raises(Damaged, match="object stream 8 is missing"):
            pdf.get(Ref(10))


def samples() -> list[bytes]:
    table = build({1: CATALOG, 2: b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
                   3: b"<</Type/Page/Parent 2 0 R/Contents 4 0 R>>",
                   4: b"<</Length 5 0 R/Filter/FlateDecode>>stream\n" + zlib.compress(b"BT ET") + b"\nendstream",
                   5: b"%d" % len(zlib.compress(b"BT ET"))}, b"/Info<</Title(x)>>")
    w = Writer(b"%PDF-1.5\n")
    w.obj(1, CATALOG)
    w.obj(2, PAGES)
    rows = object_stream(w, 3, {4: b"<</A[1 2 (three)]>>", 5: b"(five)"})
    stream = w.end(xref_stream(w, 6, {**{n: (1, o, 0) for n, o in w.offsets.items()}, **rows}, [1, 2, 1],
                               b"/Root 1 0 R", predictor=True))
    return [table, stream]


def read_everything(path: Path) -> None:
    with PdfFile(path) as pdf:
        for num in range(min(pdf.max_object(), 40) + 1):  # a damaged table may claim millions
            value = pdf.get(Ref(num))
            if isinstance(value, Stream):
                decode_stream(value)
        list(pdf.pages())


def test_damage_anywhere_ends_in_the_readers_errors(tmp_path: Path):
    """Truncations and byte changes all over two small files: each is read whole, or refused
    with one of the reader's errors, never another exception (that would be reported as a bug)."""
    rng = random.Random(18)
    path = tmp_path / "m.pdf"
    outcomes = {"read": 0, "refused": 0}
    for data in samples():
        variants = [data[:end] for end in range(0, len(data), 2)]
        for _ in range(400):
            b = bytearray(data)
            for _ in range(rng.randint(1, 3)):
                b[rng.randrange(len(b))] = rng.choice(b"0123456789 /<>[]()%\nRrobjxef\x00\xff")
            variants.append(bytes(b))
        for variant in variants:
            path.write_bytes(variant)
            try:
                read_everything(path)
                outcomes["read"] += 1
            except READ_FAILURES as exc:
                assert "\n" not in read_failure(path, exc)
                outcomes["refused"] += 1
    assert outcomes["read"] > 50 and outcomes["refused"] > 50, outcomes


# -- stream filters ---------------------------------------------------------------------------
def paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def png_rows(data: bytes, width: int, bpp: int, kinds: list[int]) -> bytes:
    """PNG-predicted rows (the filter type byte first), one of types 0-4 per row."""
    out, prior = bytearray(), bytes(width)
    for r, start in enumerate(range(0, len(data), width)):
        row, kind = data[start:start + width], kinds[r % len(kinds)]
        out.append(kind)
        for i, x in enumerate(row):
            left = row[i - bpp] if i >= bpp else 0
            upleft = prior[i - bpp] if i >= bpp else 0
            guess = (0, left, prior[i], (left + prior[i]) // 2, paeth(left, prior[i], upleft))[kind]
            out.append((x - guess) & 0xFF)
        prior = row
    return bytes(out)


def test_png_predictors_of_every_type(tmp_path: Path):
    pixels = bytes((i * 37 + (i // 12) * 91) & 0xFF for i in range(12 * 10))  # 10 rows of 4 RGB pixels
    encoded = zlib.compress(png_rows(pixels, 12, 3, [0, 1, 2, 3, 4, 4, 3, 2, 1, 0]))
    parms = b"<</Predictor 15/Colors 3/BitsPerComponent 8/Columns 4>>"
    body = b"<</Filter/FlateDecode/DecodeParms %s/Length %d>>stream\n" % (parms, len(encoded)) + encoded
    path = write(tmp_path, build({1: CATALOG, 2: PAGES, 3: body + b"\nendstream"}))
    with PdfFile(path) as pdf:
        assert decode_stream(pdf.get(Ref(3))) == pixels
    assert pike(path, 3) == pixels


@pytest.mark.parametrize("tail", [0, 5, 11])  # whole rows, then a cut row the decoder drops
def test_rows_all_filtered_up(tmp_path: Path, tail: int):
    """The path every pdfTeX cross-reference stream takes (each row Up) gives what pikepdf does."""
    pixels = bytes((i * 53 + (i // 7) * 29) & 0xFF for i in range(12 * 40))
    encoded = png_rows(pixels, 12, 1, [2]) + bytes([2] + [9] * (tail - 1) if tail else [])
    parms = b"<</Predictor 12/Columns 12>>"
    data = zlib.compress(encoded)
    body = b"<</Filter/FlateDecode/DecodeParms %s/Length %d>>stream\n" % (parms, len(data)) + data
    path = write(tmp_path, build({1: CATALOG, 2: PAGES, 3: body + b"\nendstream"}))
    with PdfFile(path) as pdf:
        assert decode_stream(pdf.get(Ref(3))) == pixels
    assert pike(path, 3)[:len(pixels)] == pixels


HELLO_FLATE = zlib.compress(b"hello")


@pytest.mark.parametrize(("filters", "parms", "raw", "value"), [
    (b"/AHx", b"", b"68 65 6C\n6C 6F>", b"hello"),
    (b"/ASCIIHexDecode", b"", b"68656C6C6F7>", b"hellop"),  # an odd count: a final 0
    (b"/A85", b"", b"<~BOu!rDZ~>", b"hello"),
    (b"[/AHx /Fl]", b"/DecodeParms[null null]", HELLO_FLATE.hex().encode() + b">", b"hello"),
    (b"[/AHx /Fl]", b"/DecodeParms[null]", HELLO_FLATE.hex().encode() + b">", b"hello"),
    (b"[/A85 /Fl]", b"", base64.a85encode(HELLO_FLATE) + b"~>", b"hello"),
])
def test_filter_chains(filters: bytes, parms: bytes, raw: bytes, value: bytes):
    assert decode_stream(Stream(parse(b"<</Filter " + filters + parms + b">>"), raw)) == value


def test_a_short_decode_parms_array_still_decodes_every_filter(tmp_path: Path):
    """qpdf calls such a stream unfilterable; its filters are plain, so we decode them all."""
    raw = zlib.compress(b"hello").hex().encode() + b">"
    body = b"<</Filter[/AHx/Fl]/DecodeParms[null]/Length %d>>stream\n" % len(raw) + raw + b"\nendstream"
    with PdfFile(write(tmp_path, build({1: CATALOG, 2: PAGES, 3: body}))) as pdf:
        assert decode_stream(pdf.get(Ref(3))) == b"hello"


def test_flate_cut_short_decodes_as_far_as_it_goes_and_limits_hold():
    text = bytes(range(256)) * 64
    packed = zlib.compress(text)
    cut = decode_stream(Stream({"Filter": Name("FlateDecode")}, packed[:len(packed) // 2]))
    assert 0 < len(cut) < len(text) and text.startswith(cut)
    with pytest.raises(PdfSyntaxError, match="corrupt Flate"):
        decode_stream(Stream({"Filter": Name("FlateDecode")}, b"not flate at all"))
    with pytest.raises(PdfSyntaxError, match="more than the limit"):
        decode_stream(Stream({"Filter": Name("FlateDecode")}, packed), limit=1000)


@pytest.mark.parametrize(("filters", "says"), [
    (5, "bad /Filter"), (True, "bad /Filter"), (1.5, "bad /Filter"), (b"AHx", "bad /Filter"),
    (Name("JBIG2Decode"), "unsupported stream filter /JBIG2Decode"), ([Name("AHx"), 7], "unsupported stream filter /7"),
])
def test_unusable_filters_are_syntax_errors(filters, says: str):
    with pytest.raises(PdfSyntaxError, match=says):
        decode_stream(Stream({"Filter": filters}, b"41>"))
    with pytest.raises(PdfSyntaxError, match="cannot be decoded"):
        decode_stream(Stream({"Filter": Name("AHx")}, b"4G>"))
