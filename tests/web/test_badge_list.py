"""`pithtex badge --list`: a publication list from a .bib or a plain list, verified, into a folder."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pithtex.number import PithNumber
from pithtex.web import bibtex, publist

from ..conftest import assert_clean_error, pithtex_cli
from ..recordkit import TestKey, canonical, full_record
from ..resolverkit import FakeResolver, Reply

KEY = TestKey("lab-key-1")


def paper(i: int, title: str | None = None) -> tuple[str, dict]:
    arxiv = f"2401.{i:05d}"
    title = title or f"Paper number {i}"
    record = full_record(canonical(title=title, arxiv_id=arxiv), KEY)
    record["paper"] = {"title": title}
    return arxiv, record


def serve(fake: FakeResolver, arxiv: str, record: dict, *, resolve: bool = True) -> PithNumber:
    number = PithNumber.parse(record["pith_number"])
    if resolve:
        for asked in (arxiv, f"{arxiv}v1"):
            fake.route(f"/api/pith-number/resolve?arxiv={asked}&json=true",
                       Reply.json({"pith_number": record["pith_number"]}))
    fake.record(number.body, Reply.json(record))
    return number


BIB_FORMS = [
    '@article{{p{i},\n  title = {{Paper number {i}}},\n  eprint = {{{a}}},\n  archivePrefix = {{arXiv}},\n}}\n',
    '@misc{{p{i}, title = "Paper {{number}} {i}", arxiv = "{a}"}}\n',
    '@inproceedings(p{i}, title = {{Paper number {i}}}, doi = {{10.48550/arXiv.{a}}})\n',
    '@article{{p{i}, title = {{Paper number {i}}}, journal = jrnl # " 2024", eprint = "arXiv:{a}"}}\n',
    '% a comment line with an @ sign: me@example.org\n'
    '@Misc{{p{i}, Title = {{Paper number {i}}}, EPRINT = {{{a}v1}}}}\n',
]


def bib_of(ids: list[str]) -> str:
    parts = ['@string{jrnl = "Journal of Tests"}\n', "@comment{ignored @article{x, eprint={2401.99999}} }\n",
             "@preamble{ \"\\newcommand{\\noop}[1]{}\" }\n",
             "@book{nothing, title = {A book without any arXiv id}, year = 2020}\n"]
    for i, a in enumerate(ids):
        parts.append(BIB_FORMS[i % len(BIB_FORMS)].format(i=int(a.split(".")[1]), a=a))
    return "".join(parts)


@pytest.fixture
def env(tmp_path: Path, fake: FakeResolver) -> dict[str, str]:
    return {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PITH_BASE_URL": fake.base}


def test_thirty_papers_from_a_bib_in_one_command(tmp_path, fake, env):
    ids, numbers = [], []
    for i in range(1, 31):
        arxiv, record = paper(i)
        ids.append(arxiv)
        numbers.append(serve(fake, arxiv, record))
    bib = tmp_path / "papers.bib"
    bib.write_text(bib_of(ids))
    out = tmp_path / "site" / "pith"
    out.parent.mkdir()
    proc = pithtex_cli("badge", "--list", str(bib), "-o", str(out), "--keys", str(KEY.key_file(tmp_path)), env=env)
    assert proc.returncode == 0, proc.stderr
    assert "30 of 30 papers verified" in proc.stderr and "skipped 1 BibTeX entry that names no arXiv id" in proc.stderr
    assert proc.stdout.count("verified ") == 30 and "30 signed by a --keys key" in proc.stderr
    assert proc.stdout.count(f"signed by {KEY.key_id}, a key --keys added, not the Pith registry") == 30
    assert "\r" not in proc.stderr  # no progress line when stderr is not a terminal
    names = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    expected = sorted(["pith-badge.js", "pith.json", "publications.html", "publications.md", "publications.rst"]
                      + [f"records/{n.body}.json" for n in numbers]
                      + [f"badges/pith-{n.body[:8]}.svg" for n in numbers]
                      + [f"snippets/{n.body}.{k}" for n in numbers for k in ("html", "md", "rst")])
    assert names == expected
    for n in numbers:  # each record file is the record, verifiable as is
        check = pithtex_cli("verify", str(out / "records" / f"{n.body}.json"), "--keys",
                            str(KEY.key_file(tmp_path)), env=env) if n is numbers[0] else None
        assert check is None or check.returncode == 0, check and check.stdout
        assert json.loads((out / "records" / f"{n.body}.json").read_text())["pith_number"] == n.long
    for kind in ("html", "md", "rst"):
        text = (out / f"publications.{kind}").read_text()
        assert text.count("<script") == 1 and text.count('src="pith-badge.js"') == 1
        assert text.count("<pith-badge ") == 30
        for i, n in enumerate(numbers):
            assert f'number="{n.body}" src="records/{n.body}.json" arxiv="{ids[i]}"' in text
        assert f"&quot;key_id&quot;:&quot;{KEY.key_id}&quot;" in text  # the --keys key, as the page's key
    md = (out / "publications.md").read_text().splitlines()
    assert md[1] == "" and all(line.startswith("- arXiv:2401.") for line in md[2:]) and len(md) == 32
    first = numbers[0]
    assert (f"[![pith: {first.body[:8]}](badges/pith-{first.body[:8]}.svg)](https://pith.science/pith/{first.body})"
            in md[2])
    assert "“Paper number 1”" in md[2]  # the record's title, authenticated by its hash


def test_failures_are_listed_as_text_and_set_the_exit_code(tmp_path, fake, env):
    good_id, good = paper(1)
    bad_id, bad = paper(2)
    serve(fake, good_id, good)
    bad["canonical_record"]["metadata"]["primary_cat"] = "cs.LG"  # the signature no longer holds
    serve(fake, bad_id, bad)
    gone = "2401.00003"  # the resolver knows no number for it: 404
    listing = tmp_path / "papers.txt"
    listing.write_text(f"# my papers\n{good_id}\n\n10.48550/arXiv.{bad_id}   # a DOI\narXiv:{gone}\n")
    out = tmp_path / "out"
    keys = str(KEY.key_file(tmp_path))
    proc = pithtex_cli("badge", "--list", str(listing), "-o", str(out), "--keys", keys, env=env)
    assert proc.returncode == 1, proc.stderr  # some failed verification
    assert "1 of 3 papers verified" in proc.stderr
    assert f"arXiv:{bad_id}; arXiv:{gone}" in proc.stderr
    assert re.search(rf"^invalid +arXiv:{bad_id}", proc.stdout, re.M)
    assert re.search(rf"^unchecked +arXiv:{gone}", proc.stdout, re.M)
    for kind in ("html", "md", "rst"):
        text = (out / f"publications.{kind}").read_text()
        assert text.count("<pith-badge ") == 1  # only the one that verified
        assert bad_id in text and gone in text and "no Pith badge" in text
    assert len(list((out / "records").iterdir())) == 1
    # only papers that cannot be decided: exit 3
    listing.write_text(f"{gone}\n{good_id}\n")
    proc = pithtex_cli("badge", "--list", str(listing), "-o", str(out), "--keys", keys, env=env)
    assert proc.returncode == 3, proc.stderr


def test_assets_url_makes_every_url_absolute(tmp_path, fake, env):
    arxiv, record = paper(1)
    number = serve(fake, arxiv, record)
    listing = tmp_path / "papers.txt"
    listing.write_text(f"{number.prefixed}\n")  # by its Pith Number: no resolving
    for base, prefix in (("https://example.org/assets/pith", "https://example.org/assets/pith/"),
                         ("/pith/", "/pith/")):
        out = tmp_path / prefix.strip("/").replace("/", "_").replace(":", "")
        proc = pithtex_cli("badge", "--list", str(listing), "-o", str(out), "--assets-url", base, "--keys",
                           str(KEY.key_file(tmp_path)), env=env)
        assert proc.returncode == 0, proc.stderr
        for kind in ("html", "md", "rst"):
            text = (out / f"publications.{kind}").read_text()
            assert f'<script src="{prefix}pith-badge.js" defer>' in text
            assert f'src="{prefix}records/{number.body}.json"' in text
            assert f"{prefix}badges/pith-{number.body[:8]}.svg" in text
            urls = re.findall(r'(?:src|srcset)="([^"]*)"|\]\(([^)]*)\)', text)
            assert all(u.startswith((prefix, "https://pith.science/")) for pair in urls for u in pair if u), urls
        snippet = (out / "snippets" / f"{number.body}.html").read_text()
        assert "<script" not in snippet and f'src="{prefix}records/{number.body}.json"' in snippet
    proc = pithtex_cli("badge", "--list", str(listing), "-o", str(tmp_path / "x"), "--assets-url", "../pith", env=env)
    assert "--assets-url" in assert_clean_error(proc)


@pytest.mark.parametrize(("content", "said"), [
    ("", "names no paper"),
    ("# only a comment\n\n", "names no paper"),
    ("2104.04473\nnot-a-paper\n", "line 2: "),
    ("2104.04473\n10.1000/xyz\n", "line 2: "),
    ("@article{x, title = {unclosed}\n", "line 1: '@article{x, title = {unclosed}': Unexpectedly reached end"),
])
def test_bad_input_is_one_line_naming_the_line(tmp_path, env, content, said):
    listing = tmp_path / ("papers.bib" if content.startswith("@") else "papers.txt")
    listing.write_text(content)
    proc = pithtex_cli("badge", "--list", str(listing), "-o", str(tmp_path / "out"), env=env)
    err = assert_clean_error(proc)
    assert said in err and str(listing) in err, err
    assert not (tmp_path / "out" / "publications.html").exists()


def test_unreadable_list_and_output_that_is_a_file(tmp_path, env):
    err = assert_clean_error(pithtex_cli("badge", "--list", str(tmp_path / "none.txt"), "-o", str(tmp_path / "o"),
                                         env=env))
    assert "no such file" in err
    err = assert_clean_error(pithtex_cli("badge", "--list", str(tmp_path), "-o", str(tmp_path / "o"), env=env))
    assert str(tmp_path) in err
    listing = tmp_path / "l.txt"
    listing.write_text("2104.04473\n")
    (tmp_path / "file").write_text("x")
    err = assert_clean_error(pithtex_cli("badge", "--list", str(listing), "-o", str(tmp_path / "file"), env=env))
    assert "not a folder" in err


def test_bibtex_reader_handles_braces_quotes_strings_and_comments():
    text = ('@string{ me = "A. Author" }\n@comment{ @article{no, eprint={1}} }\n'
            '@article{k1, author = me # " and " # {B. {\\"O}ther}, title = "A {"}quoted{"} title",\n'
            '  note = {a {nested {braces}} here}, year = 2024}\n')
    (entry,) = bibtex.entries(text)
    assert entry.key == "k1" and entry.line == 3
    assert entry.fields["author"] == 'A. Author and B. {\\"O}ther'
    assert entry.fields["title"] == 'A {"}quoted{"} title' and "year" not in entry.fields  # only what a list reads
    assert bibtex.decoded(entry.fields["author"], "k1") == "A. Author and B. Öther"


def test_the_label_sets_the_id_apart_from_a_hostile_title():
    wanted = publist.paper_of("2401.00001", 1)
    forged = "Real title\u201d, arXiv:2401.99999 \u202e\u200bx\x07"
    label = publist.paper_label(publist.Checked(wanted, "verified", title=forged))
    assert label.startswith("arXiv:2401.00001 \u201c") and label.endswith("\u201d")
    assert "\u201d, arXiv:2401.99999" not in label and "\\u201d, arXiv:2401.99999" in label
    assert not any(c in label for c in "\u202e\u200b\x07")


def test_progress_only_on_a_terminal_and_links_follow_base_url(tmp_path, fake, env):
    import os
    import pty
    import subprocess
    import sys

    arxiv, record = paper(1)
    number = serve(fake, arxiv, record)
    listing = tmp_path / "papers.txt"
    listing.write_text(f"{arxiv}\n")
    out = tmp_path / "out"
    exe = Path(sys.executable).parent / "pithtex"
    leader, follower = pty.openpty()
    proc = subprocess.run([str(exe), "badge", "--list", str(listing), "-o", str(out), "--base-url", fake.base,
                           "--keys", str(KEY.key_file(tmp_path))], stdout=subprocess.PIPE, stderr=follower,
                          env={**os.environ, **env}, timeout=120)
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal's other end closed: all was read
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    assert proc.returncode == 0, seen
    assert b"\rpithtex: checked 1/1" in seen and b"1 of 1 papers verified" in seen
    text = (out / "publications.md").read_text()
    assert f"]({fake.base}/pith/{number.body})" in text  # the fallback links to --base-url's page


def test_assets_url_needs_list(tmp_path):
    err = assert_clean_error(pithtex_cli("badge", "YBK5PTAKOSCXY2WMLIIB7DMYH6", "--assets-url", "/pith/"))
    assert "--list" in err


def test_a_full_disk_names_the_file(tmp_path, fake, env):
    from ..fskit import tmpfs

    ids = []
    for i in range(1, 6):
        arxiv, record = paper(i)
        ids.append(arxiv)
        serve(fake, arxiv, record)
    listing = tmp_path / "papers.txt"
    listing.write_text("\n".join(ids) + "\n")
    with tmpfs(tmp_path / "small", "size=72k") as small:
        proc = pithtex_cli("badge", "--list", str(listing), "-o", str(small / "out"), "--keys",
                           str(KEY.key_file(tmp_path)), env=env)
        err = assert_clean_error(proc)
        assert re.search(rf"{re.escape(str(small / 'out'))}/\S+: cannot write it \(No space left on device\)", err), err


def test_papers_are_checked_a_few_at_a_time(tmp_path, fake, env):
    from pithtex.web.publist_check import JOBS

    numbers = []
    for i in range(1, 21):
        _arxiv, record = paper(i)
        number = PithNumber.parse(record["pith_number"])
        fake.record(number.body, Reply.json(record, delay=0.3))  # slow enough that checks overlap
        numbers.append(number)
    listing = tmp_path / "papers.txt"
    listing.write_text("".join(f"{n.body}\n" for n in numbers))
    proc = pithtex_cli("badge", "--list", str(listing), "-o", str(tmp_path / "out"), "--keys",
                       str(KEY.key_file(tmp_path)), env=env)
    assert proc.returncode == 0, proc.stderr
    assert len(fake.requests) == 20 and 2 <= fake.peak <= JOBS, fake.peak


def test_a_paper_named_twice_is_listed_once_where_first_named():
    papers, skipped = publist.read_list("2401.00002\n2401.00001v2\nhttps://doi.org/10.48550/arXiv.2401.00002\n"
                                        "2401.00001\n", "l.txt", bib=False)
    assert [str(p.arxiv) for p in papers] == ["2401.00002", "2401.00001v2"] and skipped == []


def test_a_small_file_on_a_full_disk_names_the_file(tmp_path):
    # a file smaller than the write buffer fails at its flush: that error, naming the file,
    # must not be replaced by the bare ENOSPC of closing the temporary file afterwards
    from ..fskit import tmpfs

    with tmpfs(tmp_path / "full", "size=64k") as full:
        filler = full / "filler"
        with filler.open("wb", buffering=0) as handle:
            try:
                while True:
                    handle.write(b"x" * 4096)
            except OSError:
                pass
        out = full / "pith.svg"
        err = assert_clean_error(pithtex_cli("badge", "YBK5PTAKOSCXY2WMLIIB7DMYH6", "-o", str(out)))
        assert f"{out}: cannot write it (No space left on device)" in err, err
