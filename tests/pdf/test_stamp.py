"""`pithtex stamp`: every test PDF (and the corpus, when present) stamped, checked by qpdf and
pypdf, re-stamped and reverted."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from pypdf import PdfReader

from pithtex.errors import PithError, Refused
from pithtex.number import PithNumber
from pithtex.pdf.facts import inspect_pdf
from pithtex.pdf.stamp import Options, revert_file, stamp_file

from ..conftest import BODY, CORPUS, SEED_PATH, URL, assert_clean_error, fixture_pdf, pdf_sources, pithtex_cli
from ..pdfkit import Writer

NUMBER = PithNumber.parse(f"pith:2021:{BODY}")
OTHER = "AAAAAAAAAAAAAAAAAAAAAAAAAA"
ENCRYPTED = pdf_sources(lambda p: p.name.startswith("005-"))
DAMAGED = pdf_sources(lambda p: p.name.startswith("017-"))  # the corpus's: startxref points at zeros
STAMPABLE = pdf_sources(lambda p: not p.name.startswith(("005-", "017-")))
OWN_STAMPABLE = [p for p in STAMPABLE if isinstance(p, Path)]


def qpdf_ok(path: Path) -> bool:
    return subprocess.run(["qpdf", "--check", str(path)], capture_output=True, timeout=60).returncode == 0


def last_xref_form(data: bytes) -> str:
    offset = int(data[data.rindex(b"startxref") + 9:].split()[0])
    return "table" if data[offset:offset + 4] == b"xref" else "stream"


def copy(src: Path, tmp_path: Path, name: str = "in.pdf") -> Path:
    dst = tmp_path / name
    shutil.copyfile(src, dst)
    return dst


def test_fixtures_cover_both_xref_forms_and_encryption():
    assert len(OWN_STAMPABLE) >= 12 and ENCRYPTED
    assert {last_xref_form(p.read_bytes()) for p in OWN_STAMPABLE} == {"table", "stream"}


if CORPUS:
    @pytest.mark.corpus
    def test_corpus_is_whole():
        """The sweep was asked for (or found): all of it must be there, not a stray folder."""
        assert len(list(CORPUS.glob("*.pdf"))) >= 30 and DAMAGED


def zeroed_xref(src: Path) -> bytes:
    """A copy of a classic-table file whose startxref points at zeros (as 017 in the corpus)."""
    data = bytearray(src.read_bytes())
    offset = int(data[data.rindex(b"startxref") + 9:].split()[0])
    end = data.index(b"trailer", offset)
    data[offset:end] = bytes(end - offset)
    return bytes(data)


@pytest.mark.parametrize("src", STAMPABLE, ids=lambda p: p.name[:24])
def test_corpus_pdf_stamps_cleanly(src: Path, tmp_path: Path):
    inp = copy(src, tmp_path)
    original = inp.read_bytes()
    out = tmp_path / "out.pdf"
    outcome = stamp_file(inp, out, Options(NUMBER))
    assert outcome.status == "stamped"
    data = out.read_bytes()
    assert inp.read_bytes() == original, "the input must never change"
    assert data.startswith(original)
    assert last_xref_form(data) == last_xref_form(original), "the update keeps the file's xref form"
    assert data[:9] == original[:9], "header version unchanged"
    if qpdf_ok(inp):
        assert qpdf_ok(out)
    with out.open("rb") as fh:
        info = PdfReader(fh).metadata
        assert info["/PithNumber"] == BODY and info["/PithURL"] == URL
    seen = inspect_pdf(out)
    assert seen["number"] == BODY and seen["agree"] and seen["pithtex_update"]
    assert seen["xmp"] == {"number": BODY, "url": URL, "long": NUMBER.long}
    # a second stamp changes nothing; the same input gives the same bytes; revert is exact
    again = tmp_path / "again.pdf"
    assert stamp_file(out, again, Options(NUMBER)).status == "unchanged"
    assert again.read_bytes() == data
    twin = tmp_path / "twin.pdf"
    stamp_file(inp, twin, Options(NUMBER))
    assert twin.read_bytes() == data
    back = tmp_path / "back.pdf"
    revert_file(out, back)
    assert back.read_bytes() == original


def test_xref_stream_update_lists_itself(tmp_path: Path):
    src = next(p for p in OWN_STAMPABLE if last_xref_form(p.read_bytes()) == "stream")
    out = tmp_path / "out.pdf"
    stamp_file(copy(src, tmp_path), out, Options(NUMBER))
    import pikepdf

    with pikepdf.open(out) as pdf:
        assert pdf.Root.Metadata.Type == "/Metadata" and pdf.Root.Metadata.Subtype == "/XML"
        assert "/Filter" not in pdf.Root.Metadata
        size = int(pdf.trailer.Size)
        assert size == max(o.objgen[0] for o in pdf.objects if o.objgen[0]) + 1


@pytest.mark.parametrize("src", ENCRYPTED, ids=lambda p: p.name[:24])
def test_encrypted_is_refused_and_untouched(src: Path, tmp_path: Path):
    inp = copy(src, tmp_path)
    before = inp.read_bytes()
    proc = pithtex_cli("stamp", str(inp), "--number", BODY)
    err = assert_clean_error(proc, 1)
    assert "encrypted" in err and str(inp) in err
    assert inp.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.pdf"]


@pytest.mark.parametrize("src", [None, *DAMAGED], ids=lambda p: p.name[:24] if p else "zeroed-008")
def test_damaged_xref_is_refused_not_repaired(src: Path | None, tmp_path: Path):
    if src is None:
        inp = tmp_path / "in.pdf"
        inp.write_bytes(zeroed_xref(fixture_pdf("008")))
    else:
        inp = copy(src, tmp_path)
    err = assert_clean_error(pithtex_cli("stamp", str(inp), "--number", BODY, "-o", str(tmp_path / "o.pdf")))
    assert "damaged" in err
    assert not (tmp_path / "o.pdf").exists()


# -- the command line -----------------------------------------------------------------------
SIMPLE = fixture_pdf("004")


def test_cli_default_output_name_and_inspect(tmp_path: Path):
    inp = copy(SIMPLE, tmp_path, "paper.pdf")
    proc = pithtex_cli("stamp", str(inp), "--number", f"pith:2021:{BODY}")
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "paper.pith.pdf"
    assert out.exists() and "stamped" in proc.stdout
    shown = pithtex_cli("inspect", str(out))
    assert shown.returncode == 0 and BODY in shown.stdout
    assert shown.stdout.splitlines()[-1].split() == ["sources", "agree", "yes"]
    report = json.loads(pithtex_cli("inspect", str(out), "--json").stdout)
    assert report["number"] == BODY and report["links"] == [] and report["attachment"] is False


def test_cli_idempotent_says_so_and_copies_bytes(tmp_path: Path):
    inp = copy(SIMPLE, tmp_path)
    out, out2 = tmp_path / "out.pdf", tmp_path / "out2.pdf"
    assert pithtex_cli("stamp", str(inp), "--number", BODY, "-o", str(out)).returncode == 0
    proc = pithtex_cli("stamp", str(out), "--number", BODY, "-o", str(out2))
    assert proc.returncode == 0 and "nothing to change" in proc.stdout
    assert out2.read_bytes() == out.read_bytes()


def test_cli_different_number_refused_unless_force(tmp_path: Path):
    inp = copy(SIMPLE, tmp_path)
    out = tmp_path / "out.pdf"
    pithtex_cli("stamp", str(inp), "--number", BODY, "-o", str(out))
    err = assert_clean_error(pithtex_cli("stamp", str(out), "--number", OTHER, "-o", str(tmp_path / "x.pdf")), 1)
    assert "--force" in err and BODY in err
    assert not (tmp_path / "x.pdf").exists()
    forced = tmp_path / "forced.pdf"
    assert pithtex_cli("stamp", str(out), "--number", OTHER, "-o", str(forced), "--force").returncode == 0
    # our own last update is replaced, not stacked: the original plus exactly one update
    data = forced.read_bytes()
    assert data.startswith(inp.read_bytes()) and data.count(b"%pithtex-update") == 1
    assert inspect_pdf(forced)["number"] == OTHER


def test_cli_in_place_and_revert_in_place(tmp_path: Path):
    inp = copy(SIMPLE, tmp_path)
    original = inp.read_bytes()
    assert pithtex_cli("stamp", str(inp), "--number", BODY, "--in-place").returncode == 0
    assert inp.read_bytes().startswith(original) and inspect_pdf(inp)["number"] == BODY
    assert pithtex_cli("stamp", "--revert", str(inp), "--in-place").returncode == 0
    assert inp.read_bytes() == original
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.pdf"], "no temp file left behind"
    err = assert_clean_error(pithtex_cli("stamp", "--revert", str(inp), "--in-place"), 1)
    assert "nothing to revert" in err


def test_cli_record_sets_the_year_and_attaches(tmp_path: Path):
    from ..conftest import SEED_TITLE
    from ..pdfkit import make_pdf

    inp = make_pdf(tmp_path / "in.pdf", title=SEED_TITLE, shows_title=True)
    out = tmp_path / "out.pdf"
    proc = pithtex_cli("stamp", str(inp), "--record", str(SEED_PATH), "--attach-record", "-o", str(out), "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["number"] == BODY
    seen = inspect_pdf(out)
    assert seen["attachment"] and seen["attachment_number"] == BODY and seen["agree"]
    assert seen["xmp"]["long"] == f"pith:2021:{BODY}"
    with out.open("rb") as fh:
        attached = PdfReader(fh).attachments
        assert json.loads(attached["pith-record.json"][0]) == json.loads(SEED_PATH.read_text("utf-8"))
    assert qpdf_ok(out)


def test_cli_no_number_anywhere_is_a_clean_error(tmp_path: Path):
    inp = copy(SIMPLE, tmp_path)
    err = assert_clean_error(pithtex_cli("stamp", str(inp)))
    assert "--number" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.pdf"]


def test_cli_without_number_completes_what_is_missing(tmp_path: Path):
    inp = copy(SIMPLE, tmp_path)
    partial = tmp_path / "partial.pdf"
    pithtex_cli("stamp", str(inp), "--number", BODY, "-o", str(partial))
    done = tmp_path / "done.pdf"
    proc = pithtex_cli("stamp", str(partial), "--badge", "-o", str(done))
    assert proc.returncode == 0, proc.stderr
    seen = inspect_pdf(done)
    assert seen["number"] == BODY and seen["links"] == [URL] and seen["agree"]
    assert done.read_bytes().count(b"%pithtex-update") == 1


def test_badge_lies_on_page_one_outside_the_arxiv_band(tmp_path: Path):
    out = tmp_path / "out.pdf"
    stamp_file(copy(SIMPLE, tmp_path), out, Options(NUMBER, badge=True))
    with out.open("rb") as fh:
        page = PdfReader(fh).pages[0]
        links = [a.get_object() for a in page["/Annots"] if a.get_object()["/Subtype"] == "/Link"]
        link = next(a for a in links if a["/A"]["/URI"] == URL)
        x0, y0, x1, y1 = (float(v) for v in link["/Rect"])
        assert y1 - y0 > 5
        box = page.mediabox
        assert x0 >= float(box.left) + 40 and x1 <= float(box.right) and y1 <= float(box.top)
        assert "pith:YBK5PTAK" in page.extract_text()
    assert qpdf_ok(out)
    assert inspect_pdf(out)["links"] == [URL]


def test_batch_with_jobs_reports_failures(tmp_path: Path):
    good = [copy(p, tmp_path, f"g{i}.pdf") for i, p in enumerate(STAMPABLE[:4])]
    bad = copy(ENCRYPTED[0], tmp_path, "locked.pdf")
    garbage = tmp_path / "junk.pdf"
    garbage.write_bytes(b"not a pdf at all")
    outdir = tmp_path / "out"
    outdir.mkdir()
    proc = pithtex_cli("stamp", *map(str, [*good, bad, garbage]), "--number", BODY, "-o", str(outdir),
                       "--jobs", "2")
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    summary = proc.stderr.strip().splitlines()[-1]
    assert "4 stamped" in summary and "2 failed" in summary and "locked.pdf" in summary and "junk.pdf" in summary
    assert sorted(p.name for p in outdir.iterdir()) == sorted(p.name for p in good)
    assert proc.stderr.count("\r") == 0, "no progress bar when not on a terminal"


def test_library_errors_are_pith_errors(tmp_path: Path):
    with pytest.raises(Refused):
        stamp_file(copy(ENCRYPTED[0], tmp_path), tmp_path / "o.pdf", Options(NUMBER))
    with pytest.raises(PithError):
        stamp_file(tmp_path / "missing.pdf", tmp_path / "o.pdf", Options(NUMBER))
    assert not (tmp_path / "o.pdf").exists()


def hybrid_pdf() -> bytes:
    """A classic table whose trailer has /XRefStm: Info lives in an object stream only that lists."""
    w = Writer(b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
    w.obj(1, b"<< /Type /Catalog /Pages 2 0 R >>")
    w.obj(2, b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
    w.obj(3, b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>")
    packed = b"5 0 << /Title (Hybrid \\(test\\)) >>"
    w.obj(4, b"<< /Type /ObjStm /N 1 /First 4 /Length %d >>\nstream\n" % len(packed) + packed + b"\nendstream")
    rows = bytes([2, 0, 4, 0])
    w.obj(6, b"<< /Type /XRef /Size 7 /W [1 2 1] /Index [5 1] /Length 4 >>\nstream\n" + rows + b"\nendstream")
    entries = {num: (w.offsets[num], 0, b"n") if num in w.offsets else (0, 0, b"f") for num in range(1, 7)}
    table = w.table({0: (0, 65535, b"f"), **entries},
                    b"<< /Size 7 /Root 1 0 R /Info 5 0 R /XRefStm %d >>" % w.offsets[6], eol=b"\r\n")
    return w.end(table)


def test_hybrid_file_keeps_a_table_and_its_info(tmp_path: Path):
    inp = tmp_path / "hybrid.pdf"
    inp.write_bytes(hybrid_pdf())
    assert qpdf_ok(inp)
    out = tmp_path / "out.pdf"
    stamp_file(inp, out, Options(NUMBER))
    assert qpdf_ok(out) and last_xref_form(out.read_bytes()) == "table"
    with out.open("rb") as fh:
        info = PdfReader(fh).metadata
        assert info["/Title"] == "Hybrid (test)" and info["/PithNumber"] == BODY
    revert_file(out, tmp_path / "back.pdf")
    assert (tmp_path / "back.pdf").read_bytes() == inp.read_bytes()


def test_badge_placement_avoids_content_and_the_arxiv_band():
    from pithtex.pdf.badge import place

    page, size = (0.0, 0.0, 612.0, 792.0), (60.0, 9.0)
    (_m, (x, y, _x1, _y1)), free = place(page, [(72, 700, 580, 785)], size)  # text in the top margin
    assert free and y < 72 and x >= 40
    (_m, (x, y, _x1, _y1)), free = place(page, [(72, 20, 300, 780)], size)  # a tall left column
    assert free and x > 300 and y > 700
    (_m, (x, _y, _x1, _y1)), free = place(page, [(0, 0, 612, 792)], size)  # a full-page scan
    assert not free and x >= 40


@pytest.mark.parametrize("rotate", [90, 180, 270])
def test_badge_on_rotated_page_is_upright_and_outside_the_band(rotate: int):
    from pithtex.pdf.badge import place

    page, size = (0.0, 0.0, 612.0, 792.0), (60.0, 9.0)
    (matrix, rect), free = place(page, [], size, rotate)
    assert free and rect[0] >= 40 and rect[2] <= 612 and rect[3] <= 792 and rect[1] >= 0
    # the badge's x axis, turned by /Rotate clockwise on screen, points right: it reads upright
    a, b = matrix[0], matrix[1]
    turned = {90: (b, -a), 180: (-a, -b), 270: (-b, a)}[rotate]
    assert turned == (1, 0)
