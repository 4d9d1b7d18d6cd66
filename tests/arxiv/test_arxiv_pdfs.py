"""Any arXiv PDF is a Pith paper (issue 24, items 1-3, 5, 6, 8): identified by arXiv's stamp (old
and new style ids), resolved at a real resolver on 127.0.0.1, its record verified once, and the
PDF bound to it: its visible title, and the stamp's id and version equal to the record's.

PDFs: synthetic one-page papers with arXiv's rotated grey stamp in the left margin
(tests/arxivkit.py), and real pdflatex runs with the stamp added as arXiv adds it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pithtex.client import Client

from ..arxivkit import NEW_STAMP, OLD_STAMP, add_stamp, arxiv_pdf
from ..conftest import assert_clean_error, pithtex_cli
from ..recordkit import TestKey, canonical, full_record
from ..resolverkit import FakeResolver, Reply

RESOLVE = "/api/pith-number/resolve"
TITLE = "A Test Paper"


@pytest.fixture(scope="module")
def key() -> TestKey:
    return TestKey()


def record(key: TestKey, title: str = TITLE, arxiv_id: str = "2401.00001", version: int = 1) -> dict:
    doc = full_record(canonical(title=title, arxiv_id=arxiv_id, version=version), key)
    doc["paper"] = {"title": title}
    return doc


def cli(fake: FakeResolver, tmp_path: Path, key: TestKey, *args: str) -> subprocess.CompletedProcess:
    return pithtex_cli(*args, "--base-url", fake.base, "--keys", str(key.key_file(tmp_path)),
                       env={"XDG_CACHE_HOME": str(tmp_path / "cache")})


def asked(fake: FakeResolver) -> list[str]:
    return [r.path.split("arxiv=")[1].split("&")[0] for r in fake.requests if r.path.startswith(RESOLVE)]


# -- identify, resolve, verify, bind --------------------------------------------------------------
@pytest.mark.parametrize(("stamp", "arxiv_id", "version", "query"), [
    (NEW_STAMP, "2401.00001", 1, "2401.00001v1"),
    (OLD_STAMP, "hep-th/9901001", 2, "hep-th%2F9901001v2"),
])
def test_a_stamped_pdf_verifies_by_its_stamp(fake, tmp_path, key, stamp, arxiv_id, version, query):
    fake.route(RESOLVE, Reply.json(record(key, arxiv_id=arxiv_id, version=version)))
    pdf = arxiv_pdf(tmp_path / "paper.pdf", stamp=stamp)
    p = cli(fake, tmp_path, key, "verify", str(pdf))
    assert p.returncode == 0, p.stdout + p.stderr
    assert asked(fake) == [query]
    shown = f"{arxiv_id}v{version}"
    assert f"this PDF shows its title and arXiv's stamp {shown}" in p.stdout
    assert "a key --keys added, not the Pith registry" in p.stdout  # an added key is named as added
    report = json.loads(cli(fake, tmp_path, key, "verify", str(pdf), "--json").stdout)
    assert report["verified"] and report["shows"] == {"arxiv": shown, "where": "arXiv's stamp",
                                                      "stamp": " ".join(stamp.split())}
    assert report["checks"]["arxiv"] == "pass" and report["checks"]["paper"] == "pass"


def test_a_record_of_another_version_is_not_verified(fake, tmp_path, key):
    fake.route(RESOLVE, Reply.json(record(key, version=3)))
    pdf = arxiv_pdf(tmp_path / "paper.pdf")  # the stamp says v1
    p = cli(fake, tmp_path, key, "verify", str(pdf))
    assert p.returncode == 1, p.stdout
    assert "arXiv's stamp 2401.00001v1 (version 1), but the record is of version 3" in p.stdout
    assert "verified:" not in p.stdout


def test_a_stamp_of_another_paper_is_invalid(fake, tmp_path, key):
    fake.route(RESOLVE, Reply.json(record(key, arxiv_id="2401.00002")))
    pdf = arxiv_pdf(tmp_path / "paper.pdf")
    p = cli(fake, tmp_path, key, "verify", str(pdf))
    assert p.returncode == 1 and "the record is of arXiv:2401.00002v1" in p.stdout, p.stdout


def test_the_stamped_pdf_of_another_title_is_not_verified(fake, tmp_path, key):
    """A genuine record and stamp id, on a PDF whose page shows another paper: never verified."""
    fake.route(RESOLVE, Reply.json(record(key)))
    pdf = arxiv_pdf(tmp_path / "paper.pdf", title="Some Other Paper Entirely", info_title=TITLE)
    p = cli(fake, tmp_path, key, "verify", str(pdf))
    assert p.returncode != 0 and "verified:" not in p.stdout, p.stdout


def test_the_pdfs_own_link_or_doi_names_it_but_a_citation_does_not(fake, tmp_path, key):
    fake.route(RESOLVE, Reply.json(record(key)))
    linked = arxiv_pdf(tmp_path / "linked.pdf", stamp=None, links=("https://arxiv.org/abs/2401.00001v1",))
    p = cli(fake, tmp_path, key, "verify", str(linked))
    assert p.returncode == 0 and "page 1's arXiv link 2401.00001v1" in p.stdout, p.stdout
    cited = arxiv_pdf(tmp_path / "journal.pdf", stamp=None, body="As in arXiv:2401.00001v1 and 10.1000/x.",
                      links=("https://arxiv.org/abs/2401.00001", "https://arxiv.org/abs/1706.03762"))
    err = assert_clean_error(cli(fake, tmp_path, key, "verify", str(cited)), 3)
    assert "cannot tell which record this PDF is" in err and "journal's or conference's copy" in err
    assert asked(fake) == ["2401.00001v1"]  # the citation was never looked up


def test_a_record_file_verifies_an_unstamped_pdf(fake, tmp_path, key):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record(key)))
    pdf = arxiv_pdf(tmp_path / "journal.pdf", stamp=None)
    p = cli(fake, tmp_path, key, "verify", str(pdf), "--record", str(path))
    assert p.returncode == 0 and "this PDF shows its title" in p.stdout, p.stdout + p.stderr
    assert fake.requests == []


def test_an_html_page_saved_as_pdf_is_one_clear_line(fake, tmp_path, key):
    page = tmp_path / "2401.00001.pdf"
    page.write_bytes(b"<!DOCTYPE html>\n<html><head><title>arXiv</title></head><body>...</body></html>\n")
    for command in ("verify", "stamp", "badge"):
        err = assert_clean_error(cli(fake, tmp_path, key, command, str(page)), 2)
        assert "an HTML page saved under a PDF name, not a PDF" in err


# -- real TeX PDFs, with arXiv's stamp added --------------------------------------------------------
@pytest.fixture(scope="module")
def tex_pdf(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("tex")
    (folder / "paper.tex").write_text(
        "\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\title{Efficient Fine-Tuning of Flows}\n"
        "\\author{A. Author}\n\\begin{document}\n\\maketitle\n\\section{Introduction}Some text of the paper, "
        "citing arXiv:1706.03762v5.\n\\end{document}\n", "utf-8")
    subprocess.run(["pdflatex", "-interaction=nonstopmode", "paper.tex"], cwd=folder, capture_output=True,
                   timeout=120, check=True)
    return folder / "paper.pdf"


@pytest.mark.parametrize(("stamp", "served", "code"), [
    ("arXiv:2401.00001v1  [cs.LG]  2 Jan 2024", ("2401.00001", 1), 0),  # genuine
    ("arXiv:2401.00001v2  [cs.LG]  9 Feb 2024", ("2401.00001", 1), 1),  # another version
    ("arXiv:2401.00009v1  [cs.LG]  2 Jan 2024", ("2401.00001", 1), 1),  # another paper
    (None, ("2401.00001", 1), 3),  # a journal's copy: no id at all
])
def test_real_tex_pdfs(fake, tmp_path, key, tex_pdf, stamp, served, code):
    fake.route(RESOLVE, Reply.json(record(key, "Efficient Fine-Tuning of Flows", *served)))
    pdf = add_stamp(tex_pdf, tmp_path / "paper.pdf", stamp) if stamp else tex_pdf
    p = cli(fake, tmp_path, key, "verify", str(pdf))
    assert p.returncode == code, p.stdout + p.stderr
    assert ("verified: record" in p.stdout) == (code == 0)


# -- stamp and badge by name only ------------------------------------------------------------------
def test_stamp_by_name_only(fake, tmp_path, key):
    doc = record(key)
    fake.route(RESOLVE, Reply.json(doc))
    pdf = arxiv_pdf(tmp_path / "paper.pdf")
    p = cli(fake, tmp_path, key, "stamp", str(pdf))
    assert p.returncode == 0, p.stdout + p.stderr
    number = doc["pith_number"].split(":")[-1]
    assert f"stamped pith:{number}" in p.stdout
    inspect = json.loads(pithtex_cli("inspect", str(tmp_path / "paper.pith.pdf"), "--json").stdout)
    assert inspect["number"] == number
    # and the stamped PDF still verifies, now by its number, its stamp checked too
    again = cli(fake, tmp_path, key, "verify", str(tmp_path / "paper.pith.pdf"))
    assert again.returncode == 0 and "arXiv's stamp 2401.00001v1" in again.stdout, again.stdout


def test_stamp_refuses_a_record_that_does_not_verify(fake, tmp_path, key):
    doc = record(key, version=2)  # the resolver names the record of another version
    fake.route(RESOLVE, Reply.json(doc))
    pdf = arxiv_pdf(tmp_path / "paper.pdf")
    err = assert_clean_error(cli(fake, tmp_path, key, "stamp", str(pdf)), 1)
    assert "not stamped: its record does not verify" in err and "version 2" in err
    assert not (tmp_path / "paper.pith.pdf").exists()


def test_badge_of_a_pdf(fake, tmp_path, key):
    fake.route(RESOLVE, Reply.json(record(key)))
    pdf = arxiv_pdf(tmp_path / "paper.pdf")
    p = cli(fake, tmp_path, key, "badge", str(pdf), "-o", str(tmp_path / "b.svg"))
    assert p.returncode == 0, p.stderr
    assert "verified" in (tmp_path / "b.svg").read_text()


# -- many PDFs ------------------------------------------------------------------------------------
def test_a_folder_one_line_a_file_worst_exit_and_offline_cache(fake, tmp_path, key):
    fake.route(RESOLVE, Reply.json(record(key)))
    folder = tmp_path / "papers"
    (folder / "sub").mkdir(parents=True)
    arxiv_pdf(folder / "a.pdf")
    arxiv_pdf(folder / "sub" / "b.PDF", stamp="arXiv:2401.00002v1  [cs.CL]  2 Jan 2024")  # record of another
    arxiv_pdf(folder / "c.pdf", stamp=None)  # no id
    (folder / "notes.txt").write_text("not a PDF, not looked at")
    p = cli(fake, tmp_path, key, "verify", str(folder))
    lines = p.stdout.splitlines()
    assert [line.split("  ")[0] for line in lines] == [str(folder / "a.pdf"), str(folder / "c.pdf"),
                                                       str(folder / "sub" / "b.PDF")]
    assert "2401.00001v1" in lines[0] and "verified:" in lines[0]
    assert "unchecked" in lines[1] and "invalid" in lines[2]
    assert p.returncode == 1  # the worst: invalid
    assert "3 files: 1 verified, 1 invalid, 1 unchecked" in p.stderr
    rows = [json.loads(line) for line in cli(fake, tmp_path, key, "verify", str(folder / "a.pdf"),
                                              str(folder / "c.pdf"), "--json").stdout.splitlines()]
    assert [(r["arxiv"], r["state"], r["exit_code"]) for r in rows] == [("2401.00001v1", "verified", 0),
                                                                         (None, "unchecked", 3)]
    served = len(fake.requests)
    offline = cli(fake, tmp_path, key, "verify", str(folder / "a.pdf"), str(folder / "a.pdf"), "--offline")
    assert offline.returncode == 0 and offline.stdout.count("verified:") == 2, offline.stdout + offline.stderr
    assert len(fake.requests) == served  # the cache answered


def mixed_folder(folder: Path, n: int) -> Path:
    """n PDFs: verified, of another record (invalid) and with no id (unchecked), in turn."""
    folder.mkdir(parents=True)
    stamps = ["arXiv:2401.00001v1  [cs.DL]  2 Jan 2024", "arXiv:2401.00002v1  [cs.CL]  2 Jan 2024", None]
    for i in range(n):
        arxiv_pdf(folder / f"{i:02d}.pdf", stamp=stamps[i % 3])
    return folder


def test_worker_processes_give_the_same_lines_in_the_same_order(fake, tmp_path, key):
    fake.route(RESOLVE, Reply.json(record(key)))
    folder = mixed_folder(tmp_path / "papers", 10)
    one, four = (cli(fake, tmp_path, key, "verify", str(folder), "--jobs", jobs) for jobs in ("1", "4"))
    assert one.stdout.count("\n") == 10 and one.returncode == 1, one.stdout + one.stderr
    assert (four.stdout, four.returncode, four.stderr) == (one.stdout, one.returncode, one.stderr)
    assert assert_clean_error(cli(fake, tmp_path, key, "verify", str(folder), "--jobs", "0"), 2)


def test_the_library_reads_files_in_forked_workers(fake, tmp_path, key):
    """Each file's verdict is made in a worker, none in the calling process (which runs no
    other thread: a fork copies only the thread that makes it)."""
    fake.route(RESOLVE, Reply.json(record(key)))
    folder = mixed_folder(tmp_path / "papers", 7)
    pids = tmp_path / "pids"
    code = f"""
import os
from pithtex import client as C
real = C.Client.verdict
def marked(self, path, password=None):
    with open({str(pids)!r}, "a") as out:
        out.write(f"{{os.getpid()}}\\n")
    return real(self, path, password)
C.Client.verdict = marked
c = C.Client({str(key.key_file(tmp_path))!r}, base_url={fake.base!r}, cache={str(tmp_path / "cache")!r})
for v in c.verify_files([{str(folder)!r}], jobs=2):
    print(os.path.basename(v.file), v.state)
print(os.getpid())
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    lines = out.stdout.splitlines()
    assert lines[:-1] == [f"{i:02d}.pdf {('verified', 'invalid', 'unchecked')[i % 3]}" for i in range(7)], out.stderr
    workers = pids.read_text().split()
    assert len(workers) == 7 and lines[-1] not in workers


def test_only_what_verified_is_cached(fake, tmp_path, key):
    fake.route(RESOLVE, Reply.json(record(key, version=2)))
    pdf = arxiv_pdf(tmp_path / "paper.pdf")
    assert cli(fake, tmp_path, key, "verify", str(pdf)).returncode == 1
    assert not list((tmp_path / "cache").rglob("*arxiv*/**/*.json"))
    assert assert_clean_error(cli(fake, tmp_path, key, "verify", str(pdf), str(pdf), "--offline"), 3)


# -- the library: one client, each record verified once --------------------------------------------
def test_a_record_is_verified_once_per_command(fake, tmp_path, key, monkeypatch):
    from pithtex import verify

    calls = []
    real = verify.verify_document

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(verify, "verify_document", counted)
    doc = record(key)
    fake.route(RESOLVE, Reply.json(doc))
    fake.record(doc["pith_number"].split(":")[-1], Reply.json(doc))
    client = Client(key.key_file(tmp_path), base_url=fake.base, cache=tmp_path / "cache")
    pdf = arxiv_pdf(tmp_path / "paper.pdf")
    for target in (pdf, "arXiv:2401.00001v1", doc["pith_number"]):
        calls.clear()
        checked = client.verify(target)
        assert checked.verified and len(calls) == 1, (target, len(calls))
    calls.clear()
    offline = Client(key.key_file(tmp_path), base_url=fake.base, cache=tmp_path / "cache", offline=True)
    assert offline.verify(pdf).verified and len(calls) == 1  # the cache read is the verification


def test_a_pdf_is_opened_once_in_pithtexs_reader(fake, tmp_path, key, monkeypatch):
    """Its facts and page 1's hidden content come from one parse of its cross-reference and
    object streams (they cost as much as PDFium's reading of page 1)."""
    from pithtex.pdf import reader

    opened = []
    real = reader.PdfFile.__init__

    def counted(self, path, *args, **kwargs):
        opened.append(str(path))
        real(self, path, *args, **kwargs)

    monkeypatch.setattr(reader.PdfFile, "__init__", counted)
    fake.route(RESOLVE, Reply.json(record(key)))
    client = Client(key.key_file(tmp_path), base_url=fake.base, cache=tmp_path / "cache")
    pdf = arxiv_pdf(tmp_path / "paper.pdf")
    assert client.verify(pdf).verified
    assert opened == [str(pdf)]


# `verify one.pdf` as the command line runs it, the modules of the command's own process after it.
ONE_PDF = """
import sys
from pithtex.cli import main
from pithtex.workers import bounded
code = main(sys.argv[1:])
heavy = sorted({name.split(".")[0] for name in sys.modules} & {"pypdfium2", "pypdfium2_raw", "PIL"})
print(code, bounded.forks, len(bounded.alive), heavy)
"""


def test_one_pdf_is_read_by_its_worker_alone_while_the_command_imports_the_rest(fake, tmp_path, key):
    """`verify one.pdf` starts its bounded reader before it imports the keys, the resolver and
    the checks: PDFium and PIL are imported in that worker only, never in the command's own
    process (they were, before its one fork); one worker, none left. Counts, not times."""
    fake.route(RESOLVE, Reply.json(record(key)))
    pdf = arxiv_pdf(tmp_path / "paper.pdf")
    proc = subprocess.run([sys.executable, "-c", ONE_PDF, "verify", str(pdf), "--base-url", fake.base, "--keys",
                           str(key.key_file(tmp_path))], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert proc.stdout.splitlines()[-1] == "0 1 0 []", proc.stdout + proc.stderr


def test_stamp_with_a_number_never_loads_the_page_reader(tmp_path):
    pdf = arxiv_pdf(tmp_path / "paper.pdf")
    code = ("import sys; from pithtex.cli import main; "
            f"rc = main(['stamp', {str(pdf)!r}, '--number', 'YBK5PTAKOSCXY2WMLIIB7DMYH6', '-o', "
            f"{str(tmp_path / 'out.pdf')!r}]); "
            "print(rc, sorted(m for m in sys.modules if m.startswith(('pypdfium2', 'pypdf', 'pithtex.pdf.page'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.split("\n")[-2] == "0 []", out.stdout + out.stderr


@pytest.mark.parametrize("jobs", [1, 2])
def test_memory_and_open_files_stay_flat_over_many_pdfs(tmp_path, jobs):
    """Ten times the files, the same peak of Python memory and of open files: nothing of one
    file is kept for the next (a count, not a time: 60 PDFs against 600). The files are named
    lazily here; a folder's listing costs its names (about 100 bytes each), read one folder
    at a time."""
    import os
    import tracemalloc

    from pithtex.workers import bounded

    one = arxiv_pdf(tmp_path / "one.pdf").read_bytes()

    def folder(n: int) -> Path:
        made = tmp_path / f"n{n}"
        made.mkdir()
        for i in range(n):
            (made / f"{i:05d}.pdf").write_bytes(one)
        return made

    small, large = folder(60), folder(600)
    client = Client(base_url="http://127.0.0.1:9", offline=True, cache=tmp_path / "cache")

    workers = [0]

    def run(where: Path) -> tuple[int, int, int]:
        open_files = [0]
        names = (where / f"{i:05d}.pdf" for i in range(len(os.listdir(where))))

        def count_open(_done: int, _name: str) -> None:
            open_files[0] = max(open_files[0], len(os.listdir("/proc/self/fd")))
            workers[0] = max(workers[0], len(bounded.alive))

        tracemalloc.start()
        undecided = sum(v.exit_code == 3 for v in client.verify_files(names, progress=count_open, jobs=jobs))
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return undecided, peak, open_files[0]

    run(small)  # once first: imports and the interpreter's own caches,
    run(large)  # and its table of interned strings (a path's parts), grown once to hold 600 names
    n_small, peak_small, files_small = run(small)
    n_large, peak_large, files_large = run(large)
    assert (n_small, n_large) == (60, 600)  # each read, identified, and offline without a cached record
    assert peak_large < peak_small * 1.25 + 64 * 1024, (peak_small, peak_large)
    assert files_large <= files_small + 1, (files_small, files_large)
    assert workers[0] == jobs  # the files were read in as many workers as asked (one reader for --jobs 1)
