"""Glyphs are what they look like, whatever the text layer says (issue 32): a title set in a font
whose glyphs cannot be told from its text layer is read from the rendered page by Tesseract.

Real XeLaTeX and LuaLaTeX papers (composite fonts) verify by what their title band reads; a
pdfLaTeX paper (Type 1 fonts, glyph names read from the programs) never starts Tesseract; a
composite font whose ToUnicode map reads paper A's title over glyphs that draw paper B's, and a
Type 1 font whose program's own encoding does the same, neither verify nor are stamped; and
without Tesseract such a title is "unchecked" in one line. Tesseract's runs are counted by a
`tesseract` on PATH that notes each one (tests/ocrkit.py), so the counts hold in any process.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from pithtex.pdf import ocr

from .. import ocrkit, viewkit
from ..conftest import BODY, SEED_PATH, SEED_TITLE, pithtex_cli
from ..recordkit import TestKey, canonical, full_record
from ..resolverkit import FakeResolver, Reply

RESOLVE = "/api/pith-number/resolve"
# paper B, set word for word as long as A (so each of A's letters has a glyph of B under it)
DRAWN = "Recurrent Network of Visual Speech Encoders"
READ_SAME = "its rendered title reads the same"


@pytest.fixture(scope="module")
def key() -> TestKey:
    return TestKey()


def record(key: TestKey) -> dict:
    doc = full_record(canonical(title=viewkit.TITLE_A, arxiv_id="2401.00001", version=1), key)
    doc["paper"] = {"title": viewkit.TITLE_A}
    return doc


def cli(fake: FakeResolver, tmp_path: Path, key: TestKey, path: str, *args: str) -> subprocess.CompletedProcess:
    return pithtex_cli(*args, "--base-url", fake.base, "--keys", str(key.key_file(tmp_path)),
                       env={"XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": path})


def tex_paper(folder: Path, route: str) -> Path:
    """The seed record's paper with pith.sty, compiled by `route` as an author would."""
    from ..texrun import compile_tex, write_doc

    write_doc(folder, "\\documentclass{article}\n\\usepackage{pith}\\pithnumber{" + BODY + "}\n\\title{"
              + SEED_TITLE + "}\\author{A. Author}\n\\begin{document}\n\\maketitle\nSome text of the paper.\n"
              "\\end{document}\n")
    run = compile_tex(folder, route)
    assert run.pdf is not None and "! " not in run.log, run.log[-2000:]
    return run.pdf


@pytest.mark.slow
@pytest.mark.parametrize("route", ["xelatex", "lualatex", "pdflatex"])
def test_a_tex_paper_verifies_reading_its_title_from_pixels_only_when_its_fonts_need_it(tmp_path, route):
    pdf = tex_paper(tmp_path / route, route)
    path, counted = ocrkit.counting_path(tmp_path / "bin")
    p = pithtex_cli("verify", str(pdf), "--record", str(SEED_PATH), env={"PATH": path})
    assert p.returncode == 0 and "[ok  ] paper" in p.stdout, p.stdout + p.stderr
    if route == "pdflatex":  # Type 1 fonts whose glyph names the programs give: never read from pixels
        assert ocrkit.runs(counted) == 0 and READ_SAME not in p.stdout, p.stdout
    else:  # composite (Type 0) fonts: the title band is read
        assert ocrkit.runs(counted) == 1, ocrkit.runs(counted)
        assert READ_SAME in p.stdout and "composite (Type 0) font" in p.stdout, p.stdout


MAKERS = {"type0": ocrkit.type0_title, "type1": ocrkit.type1_title,
          "type1-hidden": lambda path, **kw: ocrkit.type1_title(path, hidden=True, **kw)}


@pytest.mark.parametrize("font", MAKERS)
def test_a_font_whose_text_layer_reads_another_title_than_its_glyphs_neither_verifies_nor_is_stamped(
        fake, tmp_path, key, font):
    """Forged: the glyphs draw paper B's title, the text layer reads A's, letter for letter. A
    composite font is read from pixels (Tesseract reads B); a Type 1 program's own encoding is
    read, and its glyph names say B; one that hides the encoding it draws by in its encrypted
    part (PDFium's FreeType takes it, poppler does not) is read from pixels. The genuine twin
    (glyphs and text layer both A) verifies and is stamped: from pixels, except for the plain
    Type 1 font (no Tesseract run)."""
    fake.route(RESOLVE, Reply.json(record(key)))
    make = MAKERS[font]
    pixels = font != "type1"
    path, counted = ocrkit.counting_path(tmp_path / "bin")
    forged = make(tmp_path / "forged.pdf", drawn=DRAWN, read=viewkit.TITLE_A)
    verdict = cli(fake, tmp_path, key, path, "verify", str(forged))
    assert verdict.returncode == 3 and "[??  ] paper" in verdict.stdout, verdict.stdout + verdict.stderr
    if pixels:
        assert f'the rendered title reads "{DRAWN}"' in verdict.stdout, verdict.stdout
    stamped = cli(fake, tmp_path, key, path, "stamp", str(forged))
    assert stamped.returncode == 1 and "not stamped: its record does not verify" in stamped.stderr, stamped.stderr
    assert not (tmp_path / "forged.pith.pdf").exists()

    genuine = make(tmp_path / "genuine.pdf", drawn=viewkit.TITLE_A, read=viewkit.TITLE_A)
    before = ocrkit.runs(counted)
    verdict = cli(fake, tmp_path, key, path, "verify", str(genuine))
    assert verdict.returncode == 0, verdict.stdout + verdict.stderr
    assert (READ_SAME in verdict.stdout) == pixels, verdict.stdout
    stamped = cli(fake, tmp_path, key, path, "stamp", str(genuine))
    assert stamped.returncode == 0 and "stamped pith:" in stamped.stdout, stamped.stderr
    assert ocrkit.runs(counted) - before == (2 if pixels else 0)


def test_without_tesseract_a_title_in_an_untold_font_is_unchecked_in_one_line(fake, tmp_path, key):
    fake.route(RESOLVE, Reply.json(record(key)))
    genuine = ocrkit.type0_title(tmp_path / "genuine.pdf", drawn=viewkit.TITLE_A, read=viewkit.TITLE_A)
    path = ocrkit.path_without_tesseract(tmp_path / "bin")
    verdict = cli(fake, tmp_path, key, path, "verify", str(genuine))
    assert verdict.returncode == 3, verdict.stdout + verdict.stderr
    said = [line for line in verdict.stdout.splitlines() if line.startswith("  [??  ]")]
    assert len(said) == 1 and said[0].startswith("  [??  ] paper"), verdict.stdout  # the one check not passed
    assert "tesseract is needed to read its title" in said[0] and "composite (Type 0) font" in said[0]
    assert " verified" not in verdict.stdout.splitlines()[0]
    stamped = cli(fake, tmp_path, key, path, "stamp", str(genuine))
    assert stamped.returncode == 1 and "not stamped: its record does not verify" in stamped.stderr, stamped.stderr


def test_the_pixels_are_read_in_the_page_view_and_only_for_the_title(tmp_path, monkeypatch):
    """What a bounded worker hands back (view.read_view, pickled): the title band as Tesseract
    read it. A composite font elsewhere on the page (not the title's) starts no Tesseract."""
    import pickle

    from pithtex.pdf.view import read_view

    path, counted = ocrkit.counting_path(tmp_path / "bin")
    monkeypatch.setenv("PATH", path)
    view = pickle.loads(pickle.dumps(read_view(
        ocrkit.type0_title(tmp_path / "title.pdf", drawn=viewkit.TITLE_A, read=viewkit.TITLE_A))))
    assert view.page.untold is not None and "composite (Type 0) font" in view.page.untold
    assert view.page.pixels is not None and ocr.reads(viewkit.TITLE_A, view.page.pixels), view.page.pixels
    assert ocrkit.runs(counted) == 1
    body = read_view(ocrkit.type0_title(tmp_path / "body.pdf", drawn=DRAWN, read=viewkit.TITLE_A, below=True))
    assert body.page.untold is None and body.page.pixels is None and ocrkit.runs(counted) == 1
    assert body.shown.largest == viewkit.TITLE_A


@pytest.mark.parametrize(("read", "shows"), [
    (viewkit.TITLE_A, True),
    ("Efficient Routlng in Sparse Expert Netw0rks\nA. Author", True),  # l for i, 0 for o
    ("Efflcient Rout ing in Sparse Expert Networks", True),  # a space too many
    ("| Efficient Routing in Sparse Expert Networks |", True),  # a rule read as a bar
    ("Efficient Routing in Dense Expert Networks", False),  # a word changed
    ("Efficient Routing in Sparse Networks", False),  # a word left out
    ("Efficient Routing in Very Sparse Expert Networks", False),  # a word added
    (DRAWN, False),
    ("", False),
])
def test_what_the_pixels_read_is_the_title_despite_ocr_slips_but_not_another(read, shows):
    assert ocr.reads(viewkit.TITLE_A, read) is shows


def test_a_title_with_math_is_read_around_its_formula():
    title = r"An $\mathcal{O}(n \log n)$ Bound for $k$-Means Clustering"
    assert ocr.reads(title, "An O(nlogn) Bound for k-Means Clustering")
    assert ocr.reads(title, "An (n log n) Bound for k-Means Clustering")
    assert not ocr.reads(title, "An O(n log n) Bound for Spectral Clustering")


def test_tesseract_is_bounded_in_what_it_writes_and_in_cpu(tmp_path, monkeypatch):
    """A `tesseract` that writes without end is cut at 64 KiB; one that spins is stopped by its
    CPU limit (prlimit); either leaves the title unread, saying why."""
    from PIL import Image

    image = Image.new("L", (40, 20), 255)
    chatty = tmp_path / "chatty"
    chatty.mkdir()
    (chatty / "tesseract").write_text("#!/bin/sh\nexec yes\n")
    (chatty / "tesseract").chmod(0o755)
    monkeypatch.setenv("PATH", f"{chatty}:/usr/bin:/bin")
    assert ocr.read_image(image) == (None, "tesseract wrote over 64 KiB for the title")
    spinning = tmp_path / "spinning"
    spinning.mkdir()
    (spinning / "tesseract").write_text("#!/bin/sh\nwhile :; do :; done\n")
    (spinning / "tesseract").chmod(0o755)
    monkeypatch.setenv("PATH", f"{spinning}:/usr/bin:/bin")
    monkeypatch.setattr(ocr, "CPU_SECONDS", 1)
    text, problem = ocr.read_image(image)
    assert text is None and problem is not None and problem.startswith("tesseract was stopped by signal"), problem


def test_a_reader_killed_mid_read_takes_its_tesseract_with_it(tmp_path):
    """A bounded worker killed while Tesseract reads (its deadline, Ctrl-C) leaves no Tesseract
    running on: the program dies with the process that started it (setpriv --pdeathsig)."""
    import signal
    import sys

    slow = tmp_path / "slow"
    slow.mkdir()
    pid_file = tmp_path / "tesseract.pid"
    (slow / "tesseract").write_text(f"#!/bin/sh\necho $$ > {pid_file}.part && mv {pid_file}.part {pid_file}\n"
                                    "exec sleep 600\n")
    (slow / "tesseract").chmod(0o755)
    reader = subprocess.Popen(
        [sys.executable, "-c", "from PIL import Image; from pithtex.pdf import ocr; "
         "ocr.read_image(Image.new('L', (40, 20), 255))"],
        env={**os.environ, "PATH": f"{slow}:/usr/bin:/bin"})
    try:
        while not pid_file.exists():  # an event: the program has started (a dead reader fails below)
            assert reader.poll() is None, "the reader ended before tesseract started"
            time.sleep(0.01)
        tesseract = int(pid_file.read_text())
        reader.send_signal(signal.SIGKILL)
        reader.wait()
        gone = time.monotonic() + 60  # a bound on failure, not a speed: the kernel kills at once
        while _state(tesseract) != "Z" and time.monotonic() < gone:
            time.sleep(0.01)
        assert _state(tesseract) == "Z", "tesseract outlived the reader that started it"
    finally:
        if reader.poll() is None:
            reader.kill()
            reader.wait()


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return "Z"


def test_which_fonts_glyphs_cannot_be_told_from_their_text_layer(tmp_path):
    """glyphs.untold, font by font: names that mean letters are told (a standard font, WinAnsi
    whole); a composite font, a Type 3 font and a TrueType font with an encoding of its own that
    its ToUnicode map reads letters through are not."""
    import pikepdf

    from pithtex.pdf import glyphs
    from pithtex.pdf.reader import PdfFile

    pdf = pikepdf.new()
    page = pdf.add_blank_page()
    reads = pdf.make_stream(b"begincmap 1 begincodespacerange <00> <FF> endcodespacerange\n"
                            b"2 beginbfchar <41> <0041> <E9> <00E9> endbfchar endcmap")
    fonts = {
        "Helv": pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1,
                                   BaseFont=pikepdf.Name.Helvetica, Encoding=pikepdf.Name.WinAnsiEncoding,
                                   ToUnicode=reads),
        "Comp": pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type0, BaseFont=pikepdf.Name("/X"),
                                   Encoding=pikepdf.Name("/Identity-H")),
        "Draw": pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type3, FontBBox=[0, 0, 1, 1],
                                   FontMatrix=[1, 0, 0, 1, 0, 0], CharProcs=pikepdf.Dictionary(),
                                   Encoding=pikepdf.Dictionary(Differences=[65, pikepdf.Name.A])),
        "True": pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.TrueType,
                                   BaseFont=pikepdf.Name("/ABCDEF+Liberation"), ToUnicode=reads),
    }
    page.Resources = pikepdf.Dictionary(Font=pikepdf.Dictionary({f"/{k}": v for k, v in fonts.items()}))
    pdf.save(tmp_path / "fonts.pdf")
    with PdfFile(tmp_path / "fonts.pdf") as opened:
        _ref, _page, inherited = next(opened.pages(limit=1))
        table = opened.resolve(opened.resolve(inherited.get("Resources")).get("Font"))
        said = {name: glyphs.untold(opened, font) for name, font in table.items()}
    assert said == {"Helv": None, "Comp": "a composite (Type 0) font, whose codes name no glyph",
                    "Draw": "a Type 3 font, whose glyphs are drawings of its own",
                    "True": "a TrueType font with its own encoding (code 0x41), which pithtex does not read"}
    assert glyphs.font_key("ABCDEF+LMRoman17-Regular-Identity-H") == "LMRoman17-Regular"


def test_the_codes_a_page_shows_are_read_by_font_within_a_budget():
    """glyphs.shown_codes: strings (nested, escaped, hex, in TJ arrays) under the font the last
    Tf chose, an inline image's data skipped; past its budget of tokens it says it stopped."""
    from pithtex.pdf.glyphs import shown_codes

    content = (b"BT /F1 12 Tf (Ab\\(c\\)) Tj [(x) -20 <4142>] TJ /F2 9 Tf (a(b)c) Tj /F1 Do (zz) Tj ET "
               b"BI /W 1 ID \x00((( EI Q BT /F1 9 Tf (\\104) Tj ET")
    used: dict[int, set[int]] = {}
    assert shown_codes(content, {"F1": 1, "F2": 2}, used, [10_000])
    assert {font: bytes(sorted(codes)) for font, codes in used.items()} == {1: b"()ABDbcx", 2: b"()abcz"}
    assert not shown_codes(content * 1000, {"F1": 1}, {}, [100])


def test_a_tj_array_is_read_whole_as_its_tokens_would_be():
    """pdfTeX's TJ arrays (escaped ligatures, kerning numbers) are read in one match, with the
    same codes and the same budget spent as token by token: `[`, each string and number, `]`, TJ."""
    from pithtex.pdf.glyphs import shown_codes

    content = b"BT /F1 9 Tf [(ti\\034ers)-302(a\\)b\\\\)27<4142>]TJ (c\\\nd) Tj [(x) 1e5] TJ ET"
    used: dict[int, set[int]] = {}
    budget = [100]
    assert shown_codes(content, {"F1": 1}, used, budget)
    assert bytes(sorted(used[1])) == b"\x1c)AB\\abcdeirstx"  # an escaped end of line is no code
    assert 100 - budget[0] == 20  # ("1e5" is no number: that array is read token by token)
    assert shown_codes(content, {"F1": 1}, {}, [20]) and not shown_codes(content, {"F1": 1}, {}, [19])
