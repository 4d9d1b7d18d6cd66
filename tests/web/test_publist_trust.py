"""`pithtex badge --list` trusts an entry only as the paper it names, and reads any .bib within bounds."""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from pathlib import Path

import pytest

from pithtex.errors import InputError
from pithtex.web import bibtex, publist, publist_check

from ..conftest import assert_clean_error, pithtex_cli
from ..recordkit import TestKey
from ..resolverkit import FakeResolver
from .test_badge_list import KEY, paper, serve


@pytest.fixture
def env(tmp_path: Path, fake: FakeResolver) -> dict[str, str]:
    return {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PITH_BASE_URL": fake.base}


def test_an_entry_whose_id_names_another_paper_is_invalid_text(tmp_path, fake, env):
    right_id, right = paper(1, "Schrödinger bridges for {BERT}-style models")
    right["paper"]["authors_text"] = "Alice Smith, Jan Müller-Lüdenscheidt"  # unsigned, not in author order
    other_id, other = paper(2, "A Different Paper Entirely")
    serve(fake, right_id, right)
    serve(fake, other_id, other)
    bib = tmp_path / "papers.bib"
    bib.write_text(  # the first entry's title in LaTeX, case and braces its own; the second's id is wrong
        f'@article{{right2024, title = {{Schr{{\\"o}}dinger Bridges for {{BERT}}-Style Models}},\n'
        '  author = {M{\\"u}ller-L{\\"u}denscheidt, Jan and Smith, Alice},\n'
        f"  eprint = {{{right_id}}}}}\n"
        f"@article{{wrong2023id, title = {{My Own Paper on Bridges}}, eprint = {{{other_id}}}}}\n"
        "@book{thesis, title = {A thesis}}\n@article{journal1, title = {In print}, doi = {10.1000/xyz.1}}\n")
    out = tmp_path / "out"
    proc = pithtex_cli("badge", "--list", str(bib), "-o", str(out), "--keys", str(KEY.key_file(tmp_path)), env=env)
    assert proc.returncode == 1, proc.stderr  # a wrong id is a failure the exit code says
    assert re.search(rf"^verified +arXiv:{right_id}", proc.stdout, re.M), proc.stdout
    assert re.search(rf"^invalid +arXiv:{other_id}", proc.stdout, re.M), proc.stdout
    assert ("papers.bib's wrong2023id says “My Own Paper on Bridges”, the record is of “A Different Paper Entirely”"
            in proc.stdout)
    html = (out / "publications.html").read_text()
    assert html.count("<pith-badge ") == 1 and f'arxiv="{right_id}"' in html and f'arxiv="{other_id}"' not in html
    assert "My Own Paper on Bridges" in html and "no Pith badge" in html
    # what was skipped is named, by key, with why
    assert "skipped 2 BibTeX entries" in proc.stderr
    assert "pithtex: skipped thesis (line 5): no eprint, arxiv or arXiv DOI field" in proc.stderr
    assert "pithtex: skipped journal1 (line 6): its DOI 10.1000/xyz.1 is not an arXiv DOI" in proc.stderr


def test_titles_compare_as_the_pdf_matcher_does():
    wanted = publist.paper_of("2401.00001", 3, "The C++ Way", key="k", source="papers.bib")
    assert publist.entry_mismatch(wanted, "The {C++} way") is None
    assert publist.entry_mismatch(wanted, "The C way") is not None  # symbols tell titles apart
    assert publist.entry_mismatch(wanted, None) is not None  # no authenticated title: nothing to bind to
    assert publist.entry_mismatch(publist.paper_of("2401.00001", 3), "Anything") is None  # a plain list names none
    by = publist.paper_of("2401.00001", 3, "The C++ Way", key="k", source="papers.bib")
    by = dataclasses.replace(by, author="Müller")
    assert publist.entry_mismatch(by, "The C++ way", "A. Smith, J. Muller") is None  # accents set aside
    assert publist.entry_mismatch(by, "The C++ way", None) is None  # no authors to compare
    said = publist.entry_mismatch(by, "The C++ way", "A. Smith, B. Jones")  # one title, two papers
    assert said == "papers.bib's k's first author is “Müller”, the record's authors (unsigned) are “A. Smith, B. Jones”"


@pytest.mark.parametrize(("content", "said"), [
    ('@string{a0 = "xxxxxxxx"}\n' + "".join(f"@string{{a{i} = a{i - 1} # a{i - 1}}}\n" for i in range(1, 40))
     + "@article{k, title = a39, eprint = {2401.00001}}\n", "expands past 16 MiB"),
    ("@article{k, title = {\\emph" + "{" * 200 + "x" + "}" * 200 + "}, eprint = {2401.00001}}\n",
     "braces nested 200 deep"),
    ("@article{k, title = {a}, eprint = {2401.00001}}\n@article{k, title = {b}, eprint = {2401.00002}}\n",
     "line 2: a second entry named 'k'"),
])
def test_a_hostile_bib_is_one_line(tmp_path, env, content, said):
    bib = tmp_path / "papers.bib"
    bib.write_text(content)
    err = assert_clean_error(pithtex_cli("badge", "--list", str(bib), "-o", str(tmp_path / "out"), env=env))
    assert said in err and str(bib) in err, err
    assert not (tmp_path / "out" / "publications.html").exists()


def _calls(text: str) -> int:
    """How many Python function calls reading `text` makes (the work, counted, not timed)."""
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(profile)
    try:
        publist.read_list(text, "papers.bib", bib=True)
    finally:
        sys.setprofile(None)
    return count


def test_reading_a_bib_is_linear_in_its_size():
    entry = ('@article{{key{i},\n  title = {{A {{\\"o}}ber title number {i}}},\n  author = {{M{{\\"u}}ller, J.}},\n'
             '  eprint = {{2401.{i:05d}}},\n  abstract = {{{words}}},\n}}\n\n')
    one = "".join(entry.format(i=i, words="word " * 60) for i in range(1, 201))
    two = "".join(entry.format(i=i, words="word " * 60) for i in range(1, 401))
    small, large = _calls(one), _calls(two)
    assert large < 2.2 * small, (small, large)  # twice the entries: twice the work, not four times
    (first,) = bibtex.entries(one[: one.index("\n\n") + 2])
    assert first.line == 1 and bibtex.decoded(first.fields["title"], "key1") == "A öber title number 1"


@pytest.mark.parametrize("command", [("badge", "--list", "LIST", "-o", "OUT"), ("verify", "RECORD")])
def test_a_key_file_naming_one_key_id_twice_is_refused(tmp_path, env, command):
    other = TestKey(KEY.key_id)  # the same id, another key: which one verifies must not hang on the order
    good = json.loads(KEY.key_file(tmp_path).read_text())["keys"][0]
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps({"keys": [good, {"key_id": other.key_id, "public_key_hex": other.raw_public.hex()}]}))
    arxiv, record = paper(1)
    (tmp_path / "record.json").write_text(json.dumps(record))
    (tmp_path / "list.txt").write_text(f"{arxiv}\n")
    names = {"LIST": str(tmp_path / "list.txt"), "OUT": str(tmp_path / "out"), "RECORD": str(tmp_path / "record.json")}
    proc = pithtex_cli(*[names.get(part, part) for part in command], "--keys", str(keys), env=env)
    err = assert_clean_error(proc)
    assert f"key '{KEY.key_id}' is given twice" in err and str(keys) in err, err
    assert not (tmp_path / "out").exists()


def test_a_bib_that_drives_the_parser_past_its_limits_is_one_line(monkeypatch):
    """A megabyte of `@a{` keeps bibtexparser busy for many CPU seconds: its worker process,
    given one CPU second here, is stopped by the kernel's limit, and the list is refused in one line."""
    monkeypatch.setattr(publist_check, "BIB_CPU_SECONDS", 1)
    with pytest.raises(InputError) as refused:
        publist_check.parse_bounded("@a{" * (2**20 // 3), "papers.bib")
    assert str(refused.value).startswith("papers.bib: reading it took more than the 1 s of CPU")
    # and a good file comes back from the worker as the parser gives it
    text = '@string{j = "J"}\n@article{k1, title = {A {\\"o} title}, journal = j, eprint = {2401.00001}}\n'
    assert publist_check.parse_bounded(text, "papers.bib") == bibtex.entries(text, "papers.bib")
