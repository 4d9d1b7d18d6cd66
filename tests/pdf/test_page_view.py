"""Page 1 seen as a reader sees it, read once (issue 32, items 1-3).

Each forgery of the issue visibly shows paper B while its text layer holds paper A's title,
and carries arXiv's stamp of A: `verify` must not say "verified" and `stamp` by name must not
stamp it, against a real resolver on 127.0.0.1 that answers A's signed record. Its genuine
twin, the same machinery beside its title, verifies and is stamped. Then what must be found:
arXiv's stamp drawn after a figure's form (or inside a form), the title above a figure's
labels, a subtitle inserted into the printed title; and how often each command opens the PDF.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from pithtex.pdf.page import read_page_one, title_text
from pithtex.pdf.view import PageView, read_view

from .. import bombkit, viewkit
from ..conftest import pithtex_cli
from ..recordkit import TestKey, canonical, full_record
from ..resolverkit import FakeResolver, Reply

RESOLVE = "/api/pith-number/resolve"


@pytest.fixture(scope="module")
def key() -> TestKey:
    return TestKey()


def record(key: TestKey, title: str = viewkit.TITLE_A) -> dict:
    doc = full_record(canonical(title=title, arxiv_id="2401.00001", version=1), key)
    doc["paper"] = {"title": title}
    return doc


def cli(fake: FakeResolver, tmp_path: Path, key: TestKey, *args: str) -> subprocess.CompletedProcess:
    return pithtex_cli(*args, "--base-url", fake.base, "--keys", str(key.key_file(tmp_path)),
                       env={"XDG_CACHE_HOME": str(tmp_path / "cache")})


@pytest.mark.parametrize("case", viewkit.CASES)
def test_a_forgery_neither_verifies_nor_is_stamped_by_name_and_its_twin_does(fake, tmp_path, key, case):
    fake.route(RESOLVE, Reply.json(record(key)))
    make = viewkit.CASES[case]
    forged = make(tmp_path / "forged.pdf", True)
    verdict = cli(fake, tmp_path, key, "verify", str(forged))
    assert verdict.returncode == 3, (case, verdict.stdout, verdict.stderr)
    assert "[??  ] paper" in verdict.stdout and " verified " not in verdict.stdout.splitlines()[0], verdict.stdout
    stamped = cli(fake, tmp_path, key, "stamp", str(forged))
    assert stamped.returncode == 1 and "not stamped: its record does not verify" in stamped.stderr, stamped.stderr
    assert not (tmp_path / "forged.pith.pdf").exists()

    genuine = make(tmp_path / "genuine.pdf", False)
    verdict = cli(fake, tmp_path, key, "verify", str(genuine))
    assert verdict.returncode == 0, (case, verdict.stdout, verdict.stderr)
    assert f'[ok  ] paper      page 1 shows the record\'s title "{viewkit.TITLE_A}"' in verdict.stdout
    stamped = cli(fake, tmp_path, key, "stamp", str(genuine))
    assert stamped.returncode == 0 and "stamped pith:" in stamped.stdout, stamped.stderr
    assert (tmp_path / "genuine.pith.pdf").exists()


@pytest.mark.parametrize("case", viewkit.CASES)
def test_what_each_forgery_shows_is_what_is_read(tmp_path, case):
    """The reading itself: the forgery's page 1 does not show A's title as its title (B's, the
    author line under a covered title, or nothing readable); the twin's does."""
    forged = read_page_one(viewkit.CASES[case](tmp_path / "forged.pdf", True))
    assert "Efficient Routing" not in forged.text, (case, forged)
    assert forged.problem is not None or forged.hidden >= len(viewkit.TITLE_A.replace(" ", "")), forged
    genuine = read_page_one(viewkit.CASES[case](tmp_path / "genuine.pdf", False))
    assert genuine.problem is None and genuine.hidden == 0
    assert title_text(genuine) == viewkit.TITLE_A


@pytest.mark.parametrize("stamp_in_form", [False, True], ids=["after-a-form", "inside-a-form"])
def test_arxivs_stamp_is_found_after_a_figures_form_and_inside_a_form(tmp_path, stamp_in_form):
    """1512.03385v1 and 1603.05027v3 draw the stamp after a figure whose labels sit in a form
    XObject; the labels' form coordinates once put them in the stamp's margin band."""
    page = read_page_one(viewkit.figure_then_stamp(tmp_path / "p.pdf", stamp_in_form=stamp_in_form))
    assert page.stamp == "arXiv:2401.00001v1 [cs.CL] 2 Jan 2024"
    assert title_text(page) == viewkit.TITLE_A
    assert any("Layer 1" in line.text for line in page.lines)  # the figure's labels are read, at their size
    label = next(line for line in page.lines if "Layer 1" in line.text)
    assert label.size == 10 and label.bbox[0] > 290


def test_a_figures_labels_are_not_taken_for_the_title(tmp_path):
    """Labels set at 60 pt in a form drawn at 0.2 are 12 pt on the page, above a 17 pt title."""
    page = read_page_one(viewkit.figure_above_title(tmp_path / "p.pdf"))
    assert title_text(page) == viewkit.TITLE_A
    assert next(line for line in page.lines if "Encoder" in line.text).size == 12


def test_a_subtitle_inserted_into_the_printed_title_is_the_title(fake, tmp_path, key):
    """STaR's PDF prints "STaR: Self-Taught Reasoner Bootstrapping Reasoning With Reasoning"
    for the record's "STaR: Bootstrapping Reasoning With Reasoning"; a heading with anything
    else beside the title's words is not accepted."""
    wanted = "STaR: Bootstrapping Reasoning With Reasoning"
    fake.route(RESOLVE, Reply.json(record(key, wanted)))
    printed = viewkit.line("STaR: Self-Taught Reasoner", 20, viewkit.TITLE_Y) + viewkit.line(
        "Bootstrapping Reasoning With Reasoning", 20, viewkit.TITLE_Y - 24)
    verdict = cli(fake, tmp_path, key, "verify", str(viewkit.paper(tmp_path / "star.pdf", printed)))
    assert verdict.returncode == 0, verdict.stdout
    assert "with a subtitle inserted" in verdict.stdout
    more = printed + viewkit.line("and Other Matters Entirely", 20, viewkit.TITLE_Y - 48)
    verdict = cli(fake, tmp_path, key, "verify", str(viewkit.paper(tmp_path / "more.pdf", more)))
    assert verdict.returncode == 3 and "[??  ] paper" in verdict.stdout, verdict.stdout
    reordered = viewkit.line("Reasoning With Reasoning: STaR Bootstrapping", 20, viewkit.TITLE_Y)
    verdict = cli(fake, tmp_path, key, "verify", str(viewkit.paper(tmp_path / "other.pdf", reordered)))
    assert verdict.returncode == 3, verdict.stdout


def test_the_page_view_is_one_picklable_value(tmp_path):
    """What a bounded worker process hands back: read_view's value survives pickling whole."""
    pdf = viewkit.annotated(tmp_path / "p.pdf", forged=False)
    view = read_view(pdf)
    again = pickle.loads(pickle.dumps(view))
    assert isinstance(again, PageView) and again.page == view.page and again.page.stamp is not None
    assert again.facts.titles == view.facts.titles and title_text(again.page) == viewkit.TITLE_A


# Counts how often a command reads the PDF: Python's audit events name every file opened; the
# header reads, pithtex's reader (PdfFile) and PDFium's documents (FPDF_LoadDocument) are counted where they are made.
# Each count is a line appended to one file, so the reads a forked worker makes count too.
COUNTER = """
import os, sys
target = os.path.realpath(sys.argv[1])
log = os.open(os.environ["COUNT_LOG"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND)
def note(what):
    os.write(log, what.encode() + b"\\n")
def hook(event, args):
    if event == "open" and args and isinstance(args[0], (str, bytes)) and os.path.realpath(args[0]) == target:
        note("opened")
sys.addaudithook(hook)

def counting(owner, name, what):
    real = getattr(owner, name)
    def wrapped(*a, **k):
        note(what)
        return real(*a, **k)
    setattr(owner, name, wrapped)

import pithtex.target
import pithtex.pdf.reader
import pithtex.pdf.pdfium_c
loading = pithtex.pdf.pdfium_c.load
def load():
    library = loading()
    counting(library, "FPDF_LoadDocument", "renderer")
    return library
pithtex.pdf.pdfium_c.load = load
counting(pithtex.pdf.reader.PdfFile, "__init__", "reader")
counting(pithtex.target, "_header_says_pdf", "header")
from pithtex.cli import main
try:
    code = main(sys.argv[2:])
finally:
    with open(os.environ["COUNT_LOG"]) as counted:
        seen = counted.read().split()
    print(" ".join(f"{what} {seen.count(what)}" for what in ("opened", "header", "reader", "renderer")),
          file=sys.stderr)
sys.exit(code)
"""


def counted(fake: FakeResolver, tmp_path: Path, key: TestKey, pdf: Path, *args: str) -> tuple[int, str]:
    proc = subprocess.run([sys.executable, "-c", COUNTER, str(pdf), *args, "--base-url", fake.base,
                           "--keys", str(key.key_file(tmp_path))], capture_output=True, text=True, timeout=120,
                          env={"XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin",
                               "COUNT_LOG": str(tmp_path / "counts")})
    return proc.returncode, proc.stderr.strip().splitlines()[-1]


def test_each_command_reads_the_pdf_once_per_reader(fake, tmp_path, key):
    """verify: the header read once, pithtex's reader once, PDFium once: the file opened twice (it
    read the header four times, opened the file five). stamp by name: pithtex's reader twice
    (reading, then stamping), PDFium once (it was four and two); the stamp's copy of the
    original bytes is the third opening."""
    fake.route(RESOLVE, Reply.json(record(key)))
    pdf = viewkit.annotated(tmp_path / "paper.pdf", forged=False)
    code, counts = counted(fake, tmp_path, key, pdf, "verify", str(pdf))
    assert code == 0 and counts == "opened 2 header 1 reader 1 renderer 1", counts
    code, counts = counted(fake, tmp_path, key, pdf, "stamp", str(pdf))
    assert code == 0 and counts == "opened 3 header 0 reader 2 renderer 1", counts


def test_forms_that_fan_out_are_counted_as_drawn_and_refused_before_pdfium_parses_them(tmp_path):
    """Each form counted as often as it is drawn: 8**6 leaves are 262,144 text runs, refused by
    count; 2**24 (16.8 M: PDFium parsing them held 16.8 GB) nest deeper than forms are read;
    2**11 are read as usual. Counts, not times."""
    from pithtex.pdf.seen import MAX_PAINTS

    bomb = bombkit.fan_out(tmp_path / "bomb.pdf", 11)  # 2,048 leaves: read as usual
    page = read_page_one(bomb)
    assert page.problem is None
    bomb = bombkit.fan_out(tmp_path / "bomb.pdf", 6, width=8)  # 262,144 leaves within the nesting allowed
    assert bomb.stat().st_size < 20_000
    page = read_page_one(bomb)
    assert page.problem == f"page 1 draws over {MAX_PAINTS:,} text runs and shapes, too many to read for what it shows"
    page = read_page_one(bombkit.fan_out(tmp_path / "deep.pdf", 24))  # 16.8 M, nested deeper than forms are read
    assert page.problem == "page 1 nests its forms over 12 deep, too deep to read for what it shows"
    page = read_page_one(bombkit.fan_out(tmp_path / "small.pdf", 10))
    assert page.problem is None and title_text(page) == viewkit.TITLE_A


def test_type3_glyph_procedures_spend_the_content_budget(tmp_path):
    """A Type 3 font's glyph procedures are content PDFium parses: 3 MiB of them are refused
    like 3 MiB of page content, before PDFium reads them (they took 40 s and 3.6 GB)."""
    import pikepdf

    def edit(pdf: pikepdf.Pdf, page: pikepdf.Page) -> None:
        heavy = pdf.make_stream(b"0 0 1 1 re f\n" * 250_000)  # 3.25 MB decoded, a few kB stored
        page.Resources.Font.T3 = pikepdf.Dictionary(
            Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type3, FontBBox=[0, 0, 1, 1], FontMatrix=[1, 0, 0, 1, 0, 0],
            CharProcs=pikepdf.Dictionary(a=heavy), Encoding=pikepdf.Dictionary(Differences=[97, pikepdf.Name.a]),
            FirstChar=97, LastChar=97, Widths=[1])
    pdf = viewkit.paper(tmp_path / "t3.pdf", viewkit.line(viewkit.TITLE_A, 20, viewkit.TITLE_Y)
                        + b"BT /T3 10 Tf 72 100 Td (a) Tj ET\n", edit=edit)
    assert read_page_one(pdf).problem == ("page 1's content is over 2 MiB decoded, too much to read for what it "
                                          "shows")
