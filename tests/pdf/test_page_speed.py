"""What reading page 1 and starting `verify` cost, guarded as counts (issue 32, "slow for one
file"; the times are bench/page_one.py's): PDFium's text page asked once for the page's text and
once a character for its text object, boxes only for the characters that need one; `verify
--help` and `verify one.pdf` importing none of what they do not use (no PDFium for help, no
`dataclasses` with `inspect` and `ast` for either), and no regex compiled at import that the
command leaves unused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from pithtex.pdf import glyphs, pdfium
from pithtex.pdf.page import read_page_one, title_text

from ..arxivkit import NEW_STAMP, arxiv_pdf
from ..recordkit import TestKey, canonical, full_record
from ..resolverkit import FakeResolver, Reply

TITLE = "A Test Paper"
BODY = "Some text of the paper, set in the body size."
# arxiv_pdf's body lines are drawn at y = 600 - 12 i (i < 30): those under the middle of the
# 792 pt page (y + 10 < 396, i >= 18) are no part of its top, where characters are read one by one
BELOW_MIDDLE = 12


def _characters(pdf: Path) -> int:
    import pypdfium2 as pdfium_lib

    doc = pdfium_lib.PdfDocument(str(pdf))
    try:
        page = doc[0]
        textpage = page.get_textpage()
        count: int = textpage.count_chars()
        textpage.close()
        page.close()
        return count
    finally:
        doc.close()


def test_page_one_asks_pdfium_a_call_a_character_and_boxes_only_for_its_top(tmp_path):
    pdf = arxiv_pdf(tmp_path / "p.pdf", title=TITLE, body=BODY)
    before = dict(pdfium.text_calls)
    page = read_page_one(pdf)
    calls = {name: pdfium.text_calls[name] - before[name] for name in before}
    assert page.problem is None and page.text.splitlines()[0] == TITLE and page.stamp == " ".join(NEW_STAMP.split())
    assert sum(BODY in line for line in page.text.splitlines()) == 30
    chars = _characters(pdf)
    assert chars > 30 * len(BODY)  # the count is of this page
    assert calls["FPDFText_GetText"] == 1 and calls["FPDFText_GetUnicode"] == 0  # the text in one call
    assert calls["FPDFText_GetTextObject"] == chars
    # boxes for the top part's characters only: none for the lines under the middle
    assert 0 < calls["FPDFText_GetCharBox"] <= chars - BELOW_MIDDLE * len(BODY)


def _imported(stderr: str) -> set[str]:
    """The modules `python -X importtime` listed."""
    return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines() if line.startswith("import time:")}


HEAVY = ("pypdfium2", "pypdfium2_raw", "PIL", "requests", "urllib3", "cryptography", "dataclasses", "inspect", "ast")


def test_verify_help_imports_nothing_heavy():
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "pithtex", "verify", "--help"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "verify" in proc.stdout, proc.stderr[-2000:]
    modules = _imported(proc.stderr)
    assert "pithtex.cli" in modules  # the listing is real
    assert {m for m in modules if m.split(".")[0] in HEAVY or m.startswith("pithtex.pdf")} == set()


# Run as `python -c`: counts each regex a pithtex module compiles at import (its body calling
# re.compile), then runs the command line; the count and the modules loaded go to stderr as JSON.
# Each compile is a line appended to one file ("pid:module"), so those of the forked reader (which
# imports the page reader itself) count too, each process's apart.
_COUNTING = """
import json, os, re, sys
log = os.open(os.environ["COMPILED_LOG"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND)
real = re.compile
def counting(pattern, flags=0):
    frame = sys._getframe(1)
    if frame.f_code.co_name == "<module>" and frame.f_globals.get("__name__", "").startswith("pithtex"):
        os.write(log, f"{os.getpid()}:{frame.f_globals['__name__']}\\n".encode())
    return real(pattern, flags)
re.compile = counting
from pithtex.cli import main
try:
    code = main(sys.argv[1:])
finally:
    with open(os.environ["COMPILED_LOG"]) as compiled:
        print(json.dumps({"compiled": compiled.read().split(), "modules": sorted(sys.modules)}), file=sys.stderr)
sys.exit(code)
"""


def test_verify_one_pdf_imports_no_dataclasses_and_compiles_only_what_it_uses(fake: FakeResolver, tmp_path):
    key = TestKey()
    pdf = arxiv_pdf(tmp_path / "paper.pdf", title=TITLE)
    document = full_record(canonical(title=TITLE, arxiv_id="2401.00001", version=1), key)
    document["paper"] = {"title": TITLE}
    fake.route("/api/pith-number/resolve", Reply.json(document))
    proc = subprocess.run([sys.executable, "-c", _COUNTING, "verify", str(pdf), "--base-url", fake.base,
                           "--keys", str(key.key_file(tmp_path))], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"),
                               "COMPILED_LOG": str(tmp_path / "compiled")})
    assert proc.returncode == 0 and "verified" in proc.stdout, proc.stdout + proc.stderr
    found = json.loads(proc.stderr.strip().splitlines()[-1])
    modules = set(found["modules"])
    assert {"pithtex.pdf.view", "pithtex.trust"} <= modules  # the listing is real
    assert "pithtex.pdf.pdfium" not in modules  # page 1 is read in the worker, which imports its reader
    assert modules & {"dataclasses", "inspect", "ast"} == set()
    # the regexes a PDF's reading and the stamp need (the object parser's, the cross-reference's,
    # the arXiv id's, the title's words): 15; arXiv links, DOIs, pith links, xref tables, titles
    # that are no titles, temporaries and surrogates are compiled on first use
    # (each process: the command's, and its reader's, which imports the reader's modules itself)
    by_process: dict[str, list[str]] = {}
    for line in found["compiled"]:
        pid, module = line.split(":")
        by_process.setdefault(pid, []).append(module)
    assert len(by_process) == 2 and max(map(len, by_process.values())) <= 15, by_process
    compiled = {module for modules_compiled in by_process.values() for module in modules_compiled}
    assert not {"pithtex.files", "pithtex.pdf.facts", "pithtex.pdf.pdfium"} & compiled


def _tex_paper(folder: Path, title: str) -> Path:
    """A real pdfLaTeX paper in T1-encoded Latin Modern (Type 1 fonts with ToUnicode maps), as
    arXiv's TeX Live writes them."""
    from ..texrun import compile_tex

    folder.mkdir()
    (folder / "paper.tex").write_text(
        "\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{lmodern}\n"
        f"\\title{{{title}}}\n\\author{{A. Author}}\n\\begin{{document}}\n\\maketitle\n"
        "\\section{Introduction}\nSome text of the paper, set in the body size, with figures and fine fluff.\n"
        "\\end{document}\n", "utf-8")
    run = compile_tex(folder, "pdflatex")
    assert run.pdf is not None, run.log[-2000:]
    return run.pdf


def _mapped_fonts(pdf: Path) -> int:
    import pikepdf

    with pikepdf.open(pdf) as doc:
        fonts = doc.pages[0].Resources.Font
        return sum("/ToUnicode" in fonts[name] for name in fonts)


def test_a_fonts_tounicode_map_is_parsed_once_a_process(tmp_path):
    """A folder's papers set in the same fonts carry byte-identical ToUnicode maps: the second
    paper's are not parsed again (glyphs.map_parses), and its page reads the same."""
    first = _tex_paper(tmp_path / "a", "Identifiers That Travel With Papers")
    second = _tex_paper(tmp_path / "b", "Numbers That Stay With Preprints")
    assert _mapped_fonts(second) >= 3  # without the cache, reading it parses at least these
    assert read_page_one(first).problem is None
    before = glyphs.map_parses[0]
    page = read_page_one(second)
    assert glyphs.map_parses[0] == before
    assert page.problem is None and page.lines[0].text == "Numbers That Stay With Preprints"
    assert page.hidden == 0


def test_a_map_parsed_before_still_catches_the_font_that_lies_with_it(tmp_path):
    """The cache holds parsed maps, never verdicts: the forgery's map is byte for byte the
    genuine twin's (both read A's title), read from the cache, and its glyphs still give it away."""
    from ..viewkit import TITLE_A, relabelled

    genuine = read_page_one(relabelled(tmp_path / "genuine.pdf", forged=False))
    assert genuine.problem is None and title_text(genuine) == TITLE_A
    before = glyphs.map_parses[0]
    forged = read_page_one(relabelled(tmp_path / "forged.pdf", forged=True))
    assert glyphs.map_parses[0] == before  # the same map, not parsed again
    assert TITLE_A not in forged.text, forged
    assert forged.problem is not None or forged.hidden >= len(TITLE_A.replace(" ", "")), forged


def test_the_parsed_maps_kept_are_bounded():
    """At most glyphs.MAPS_KEPT maps are kept, the oldest dropped first: a folder of fonts
    each with a map of its own holds no more, and a map dropped is parsed again."""
    maps = [b"1 beginbfchar <41> <%04X> endbfchar" % (0x100 + n) for n in range(glyphs.MAPS_KEPT + 1)]
    for data in maps:
        assert glyphs.to_unicode(data)[0x41] == chr(0x100 + maps.index(data))
    before = glyphs.map_parses[0]
    glyphs.to_unicode(maps[-1])  # the newest: kept
    assert glyphs.map_parses[0] == before
    glyphs.to_unicode(maps[0])  # the oldest: dropped for the newest, parsed again
    assert glyphs.map_parses[0] == before + 1
