"""The binding reads what page 1 visibly shows (issue 24, item 4): each forgery of the issue,
and a genuine copy of each that still verifies.

Every PDF is made here by tests/pdfkit.py and goes through the real command line: `stamp
--record` must refuse each forgery (and stamp each genuine copy), and `verify --record` on
the forgery stamped anyway must not say "verified". A forgery's page shows another paper's
title at the top, and hides the record's title right under it (at the same size, where it
would count if it were visible), or only names it in metadata.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from pithtex.latex.options import CLASS_NAMES
from pithtex.pdf import titles
from pithtex.pdf.page import read_page_one, shows_title
from pithtex.pdf.seen import title_lines
from pithtex.pdf.shown import shown_of
from pithtex.verify import check_paper

from ..conftest import SEED_PATH, SEED_TITLE, pithtex_cli, seed_doc
from ..pdfkit import body_text, page_pdf, run, wrapped
from ..recordkit import TestKey, canonical, full_record

OTHER = "Attention Is All You Need"
FAKE = wrapped(OTHER, 20, 720)  # another paper's title, where a title goes
BODY = body_text()


def real(y: float = 670, size: float = 20, ops: bytes = b"", x: float = 72) -> bytes:
    return wrapped(SEED_TITLE, size, y, x=x, ops=ops)


def scattered(size: float) -> bytes:
    """The record's title one letter at a time, in order, at random places over the page."""
    place = random.Random(24)
    return b"".join(run(c, size, place.uniform(72, 540), place.uniform(100, 700))
                    for c in SEED_TITLE if c != " ")


# name: (the forgery's page, the genuine copy's page), as page_pdf's content and keywords
FORGERIES = {
    "white-0.5pt": ((FAKE + real(size=0.5, ops=b"1 1 1 rg") + BODY, {}),
                    # white on a dark banner is what a reader sees
                    (b"q 0.1 0.1 0.4 rg 60 630 492 120 re f Q\n" + real(720, ops=b"1 1 1 rg") + BODY, {})),
    "off-the-page": ((FAKE + real(x=700) + BODY, {}), (real(720) + BODY, {})),
    "render-mode-3": ((FAKE + real(ops=b"3 Tr") + BODY, {}), (real(720, ops=b"2 Tr") + BODY, {})),
    "hidden-layer": ((FAKE + BODY, {"layer": real()}), (BODY, {"layer": real(720), "layer_on": True})),
    "layer-off-by-base-state": ((FAKE + BODY, {"layer": real(), "layer_how": "base-state"}),
                                (BODY, {"layer": real(720), "layer_on": True, "layer_how": "base-state"})),
    "form-in-a-hidden-layer": ((FAKE + BODY, {"layer": real(), "layer_how": "form"}),
                               (BODY, {"layer": real(720), "layer_on": True, "layer_how": "form"})),
    "transparent-fill": ((FAKE + real(ops=b"/GS0 gs") + BODY, {}), (real(720, ops=b"/GS0 gs 2 Tr") + BODY, {})),
    "clipped": ((FAKE + real(ops=b"0 0 10 10 re W n") + BODY, {}),
                (real(720, ops=b"50 600 520 160 re W n") + BODY, {})),
    "letters-at-3pt": ((FAKE + scattered(3) + BODY, {}), (real(720) + scattered(3) + BODY, {})),
    "citation-in-a-sentence": ((FAKE + body_text(sentence=f"We build on {SEED_TITLE} [3].") + BODY, {}),
                               (real(720) + body_text(sentence=f"We build on {SEED_TITLE} [3].") + BODY, {})),
    "only-info-title": ((FAKE + BODY, {"info_title": SEED_TITLE}), (real(720) + BODY, {"info_title": SEED_TITLE})),
    "only-xmp-title": ((FAKE + BODY, {"xmp_title": SEED_TITLE}), (real(720) + BODY, {"xmp_title": SEED_TITLE})),
    "only-pith-title": ((FAKE + BODY, {"pith_title": SEED_TITLE}), (real(720) + BODY, {"pith_title": SEED_TITLE})),
    "covered-by-a-box": ((FAKE + real() + b"q 1 1 1 rg 50 610 520 90 re f Q\n" + BODY, {}),
                         (b"q 0.9 0.9 0.9 rg 50 640 520 120 re f Q\n" + real(720) + BODY, {})),
    "in-an-annotation": ((FAKE + BODY, {"annotation": SEED_TITLE}), (real(720) + BODY, {"annotation": SEED_TITLE})),
    "black-on-black": ((FAKE + b"q 0 0 0 rg 50 610 520 90 re f Q\n" + real() + BODY, {}),
                       (b"q 0 0 0 rg 50 640 520 120 re f Q\n" + real(720, ops=b"1 1 0 rg") + BODY, {})),
}


def stamp_and_verify(pdf: Path, out: Path, force: bool = False) -> tuple[subprocess.CompletedProcess,
                                                                          subprocess.CompletedProcess | None]:
    stamped = pithtex_cli("stamp", str(pdf), "--record", str(SEED_PATH), "-o", str(out), *(["--force"] * force))
    if stamped.returncode != 0:
        return stamped, None
    return stamped, pithtex_cli("verify", str(out), "--record", str(SEED_PATH))


@pytest.mark.parametrize("kind", FORGERIES)
def test_a_forgery_never_verifies_and_its_genuine_copy_does(tmp_path, kind):
    (forged, forged_kw), (genuine, genuine_kw) = FORGERIES[kind]
    pdf = page_pdf(tmp_path / "forged.pdf", forged, **forged_kw)
    refused, _ = stamp_and_verify(pdf, tmp_path / "refused.pdf")
    assert refused.returncode == 1 and "not stamped with" in refused.stderr, (kind, refused.stderr)
    assert not (tmp_path / "refused.pdf").exists()
    stamped, verified = stamp_and_verify(pdf, tmp_path / "forced.pdf", force=True)
    assert stamped.returncode == 0 and verified is not None, stamped.stderr
    assert verified.returncode == 3 and "[??  ] paper" in verified.stdout, (kind, verified.stdout)
    assert " verified" not in verified.stdout.splitlines()[0]
    pdf = page_pdf(tmp_path / "genuine.pdf", genuine, **genuine_kw)
    stamped, verified = stamp_and_verify(pdf, tmp_path / "stamped.pdf")
    assert stamped.returncode == 0 and not stamped.stderr, (kind, stamped.stderr)
    assert verified is not None and verified.returncode == 0, (kind, verified.stdout)
    assert "[ok  ] paper      page 1 shows the record's title" in verified.stdout, verified.stdout


def test_white_text_does_not_override_invalid(tmp_path):
    """The page and its Info /Title are another paper's: hiding the record's title in white keeps it invalid."""
    pdf = page_pdf(tmp_path / "forged.pdf", FAKE + real(ops=b"1 1 1 rg") + BODY, info_title=OTHER)
    refused, _ = stamp_and_verify(pdf, tmp_path / "refused.pdf")
    assert refused.returncode == 1 and "the PDF is of another paper" in refused.stderr, refused.stderr
    _, verified = stamp_and_verify(pdf, tmp_path / "forced.pdf", force=True)
    assert verified is not None and verified.returncode == 1 and "[FAIL] paper" in verified.stdout, verified.stdout
    genuine = page_pdf(tmp_path / "genuine.pdf", real(720) + BODY, info_title=SEED_TITLE)
    _, verified = stamp_and_verify(genuine, tmp_path / "stamped.pdf")
    assert verified is not None and verified.returncode == 0, verified.stdout


def test_the_page_read_as_a_reader_sees_it(tmp_path):
    """read_page_one: lines top to bottom with sizes and boxes, the body size, what was hidden, the title."""
    pdf = page_pdf(tmp_path / "p.pdf", real(720) + real(size=0.5, ops=b"1 1 1 rg") + BODY,
                   uri="https://arxiv.org/abs/1706.03762v5")
    page = read_page_one(pdf)
    assert page.problem is None and page.body_size == 10 and page.uris == ("https://arxiv.org/abs/1706.03762v5",)
    assert page.hidden == sum(1 for c in SEED_TITLE if c != " ")  # the white 0.5 pt copy
    heading = title_lines(page)
    assert [line.size for line in heading] == [20, 20] and shows_title(page, SEED_TITLE)
    assert not shows_title(page, OTHER)

    assert heading[0].bbox[3] > heading[1].bbox[3] > page.lines[-1].bbox[3]
    assert page.lines[-1].size == 10


def test_arxivs_stamp_is_read_from_the_left_margin_only_when_visible(tmp_path):
    stamp = "arXiv:1706.03762v5  [cs.CL]  6 Dec 2017"
    rotated = b"q 0.5 g BT /F1 20 Tf 0 1 -1 0 32 260 Tm (%s) Tj ET Q\n" % stamp.encode()
    page = read_page_one(page_pdf(tmp_path / "a.pdf", real(720) + rotated + BODY))
    assert page.stamp == "arXiv:1706.03762v5 [cs.CL] 6 Dec 2017"
    assert not any("arXiv" in line.text for line in page.lines)
    assert titles.shows(SEED_TITLE, "\n".join(line.text for line in title_lines(page)))  # the stamp is no title
    downward = b"q BT /F1 20 Tf 0 -1 1 0 20 700 Tm (arXiv:hep-th/9901001v2  25 Jan 1999) Tj ET Q\n"  # old style
    assert read_page_one(page_pdf(tmp_path / "b.pdf", downward + BODY)).stamp == "arXiv:hep-th/9901001v2 25 Jan 1999"
    hidden = b"q 3 Tr BT /F1 20 Tf 0 1 -1 0 32 260 Tm (%s) Tj ET Q\n" % stamp.encode()
    assert read_page_one(page_pdf(tmp_path / "c.pdf", real(720) + hidden + BODY)).stamp is None
    # in the body (a citation), an arXiv id is no stamp
    assert read_page_one(page_pdf(tmp_path / "d.pdf", body_text(sentence="See arXiv:1706.03762."))).stamp is None


# -- whole words, symbols kept: the decision over real PDFs ------------------------------------
@pytest.mark.parametrize(("record", "shown", "passes"), [
    ("On Art", "Gordon Arthur", False), ("On Art", "On Art", True),
    ("BERT Models", "Robert Models", False), ("BERT Models", "BERT Models", True),
    ("C Templates", "C++ Templates", False), ("C++ Templates", "C Templates", False),
    ("C++ Templates", "C++ Templates", True), ("Deep Nets", "Deep Netsuke Carving", False),
])
def test_a_title_matches_as_whole_words_with_its_symbols(tmp_path, record, shown, passes):
    doc = full_record(canonical(title=record), TestKey("k"))
    doc["paper"] = {"title": record}
    pdf = page_pdf(tmp_path / "p.pdf", run(shown, 24, 72, 700) + BODY)
    check = check_paper(doc, shown_of(pdf))
    assert (check.status == "pass") is passes, check
    assert titles.shows(record, shown) is passes


def test_metadata_alone_never_passes_but_can_fail():
    from pithtex.pdf.shown import Shown

    doc = seed_doc()
    assert check_paper(doc, Shown(page1="", info_title=SEED_TITLE, xmp_title=SEED_TITLE,
                                  pith_title=SEED_TITLE)).status == "unknown"
    check = check_paper(doc, Shown(page1=OTHER, largest=OTHER, xmp_title=OTHER))
    assert check.status == "fail" and "its XMP dc:title" in check.detail


# -- bounds: a page 1 of 8 MiB of tiny text runs ----------------------------------------------
def test_a_huge_page_one_is_refused_before_it_is_read(tmp_path):
    """Peak memory, not time: the old reader took 335 MB and 6-7.5 s for this page, then said "unchecked"."""
    runs = b"".join(b"BT /F1 1 Tf %d %d Td (a) Tj ET\n" % (i % 600, (i // 600) % 780) for i in range(280_000))
    assert len(runs) > 8 * 1024 * 1024
    pdf = page_pdf(tmp_path / "big.pdf", runs)
    # VmHWM, not ru_maxrss: Linux carries the latter over from the forking pytest worker
    code = ("import re, sys; from pithtex.pdf.page import read_page_one; p = read_page_one(sys.argv[1]); "
            "print(p.problem); print(re.search(r'VmHWM:\\s+(\\d+) kB', open('/proc/self/status').read()).group(1))")
    out = subprocess.run([sys.executable, "-c", code, str(pdf)], capture_output=True, text=True, check=True).stdout
    problem, peak_kib = out.splitlines()
    assert problem == "page 1's content is over 2 MiB decoded, too much to read for what it shows"
    assert int(peak_kib) < 60 * 1024, peak_kib  # PDFium parsing it held ~256 MB
    err = pithtex_cli("stamp", str(pdf), "--record", str(SEED_PATH), "-o", str(tmp_path / "o.pdf")).stderr
    assert "too much to read for what it shows" in err, err
    # under 2 MiB, but 64,000 text runs: counted in the bytes, refused before PDFium parses them
    runs = b"".join(b"BT /F1 1 Tf %d %d Td (a) Tj ET\n" % (i % 600, (i // 600) % 780) for i in range(64_000))
    pdf = page_pdf(tmp_path / "runs.pdf", runs)
    out = subprocess.run([sys.executable, "-c", code, str(pdf)], capture_output=True, text=True, check=True).stdout
    problem, peak_kib = out.splitlines()
    assert problem == "page 1 draws over 40,000 text runs and shapes, too many to read for what it shows"
    assert int(peak_kib) < 60 * 1024, peak_kib  # PDFium parsing it held 119 MB


def test_stamp_with_a_number_never_loads_the_page_reader(tmp_path):
    """`stamp --number` reads no page text: PDFium (and pypdf) stay out of its start-up, counted
    by the modules the real command imports (-X importtime names each one)."""
    from ..conftest import BODY
    from ..pdfkit import make_pdf

    pdf = make_pdf(tmp_path / "p.pdf")
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "pithtex", "stamp", str(pdf), "--number", BODY,
                           "-o", str(tmp_path / "o.pdf")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    modules = {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert {"pithtex.cli", "pithtex.pdf.batch", "pithtex.pdf.stamp"} <= modules  # the listing is real
    loaded = {m for m in modules if m.split(".")[0] in ("pypdfium2", "pypdfium2_raw", "pypdf", "ctypes")
              or m in ("pithtex.pdf.page", "pithtex.pdf.pdfium", "pithtex.pdf.pdfium_c", "pithtex.pdf.shown")}
    assert loaded == set(), sorted(loaded)
    # ... and verify of a PDF does load it, so the listing would show it
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "pithtex", "verify", str(tmp_path / "o.pdf"),
                           "--record", str(SEED_PATH)], capture_output=True, text=True, timeout=120)
    assert {"pithtex.pdf.pdfium", "pithtex.pdf.pdfium_c", "ctypes"} <= {
        line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines()
        if line.startswith("import time:")}  # (its reader worker's listing: the same stderr)


EXAMPLE_CLASSES = list(CLASS_NAMES)


@pytest.mark.slow
@pytest.mark.parametrize("cls", EXAMPLE_CLASSES)
def test_every_example_class_shows_its_title_as_page_ones_title(tmp_path, cls):
    """Real pdflatex PDFs of examples/: the title is found among page 1's title lines, whatever
    the class makes of it (IEEEtran at 24 pt, revtex at 12 pt over 10 pt, amsart in capitals at
    the body size, beamer on a slide), and pith.sty's number line is not taken for hidden text."""
    from ..conftest import example_paper

    folder = example_paper(cls, tmp_path / cls)
    for _ in range(2):
        subprocess.run(["pdflatex", "-interaction=nonstopmode", "paper.tex"], cwd=folder, capture_output=True,
                       timeout=120)
    page = read_page_one(folder / "paper.pdf")
    heading = "\n".join(line.text for line in title_lines(page))
    assert titles.shows("Papers that Carry their Own Identifier", heading), (heading, page.lines[:6])
    assert page.hidden == 0 and any("pith:" in line.text for line in page.lines), page.lines


def test_a_page_whose_text_and_shapes_tangle_is_refused_by_a_count(tmp_path):
    """1,500 page-sized shapes beneath 1,500 words: each word would be compared with each shape
    (2.25 M comparisons, over MAX_WORK): refused, a count and not a time."""
    from pithtex.pdf.seen import MAX_WORK

    shapes = b"q 0.99 g 0 0 612 792 re f Q\n" * 1500
    words = b"".join(run("word", 10, 72 + (i % 10) * 45, 100 + (i // 10) * 4) for i in range(1500))
    assert MAX_WORK < 1500 * 1500
    page = read_page_one(page_pdf(tmp_path / "tangled.pdf", shapes + words))
    assert page.problem is not None and "overlap too much to tell what it shows" in page.problem
    fewer = read_page_one(page_pdf(tmp_path / "plain.pdf", shapes[: 30 * 28] + words))  # 30 shapes
    assert fewer.problem is None and fewer.hidden == 0 and fewer.text.split().count("word") == 1500


def test_a_page_one_beyond_the_character_limit_is_not_read_in_part(tmp_path):
    """Read in part, a page could lose the larger title drawn after 100,000 tiny letters."""
    from pithtex.pdf.seen import MAX_CHARS

    tiny = [run("a" * 20_001, 1, 20, 20 + i) for i in range(5)]  # 100,005 letters at 1 pt
    page = read_page_one(page_pdf(tmp_path / "many.pdf", b"".join(tiny) + real(670, size=12) + FAKE))
    assert page.problem == f"page 1 has over {MAX_CHARS:,} characters, too many to read for what it shows"
    page = read_page_one(page_pdf(tmp_path / "fewer.pdf", b"".join(tiny[:2]) + real(670, size=12) + FAKE))
    assert page.problem is None and not shows_title(page, SEED_TITLE) and shows_title(page, OTHER)
