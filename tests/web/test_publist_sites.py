"""`pithtex badge --list` on a researcher's own site, each fixture made here: two entries naming
one eprint, a site served under a path (Jekyll's baseurl, Hugo's baseURL, Hugo Blox's
config/_default/), DBLP's CoRR entries, and an -o whose parents are not there yet."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pithtex.web import publist

from ..conftest import assert_clean_error, pithtex_cli
from ..resolverkit import FakeResolver
from .test_badge_list import KEY, paper, serve


@pytest.fixture
def env(tmp_path: Path, fake: FakeResolver) -> dict[str, str]:
    return {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PITH_BASE_URL": fake.base}


def test_two_entries_naming_one_eprint_each_keep_their_key(tmp_path, fake, env):
    """A preprint and its published version both name the eprint: one fetch, and each entry is
    compared with its own title, indexed by its own key and listed where the .bib has it."""
    arxiv, record = paper(1, "Bridges for Models")
    serve(fake, arxiv, record)
    bib = tmp_path / "papers.bib"
    bib.write_text(f"@misc{{smith2024pre, title = {{Bridges for Models}}, eprint = {{{arxiv}}}}}\n"
                   "@book{other, title = {No id}}\n"
                   f"@inproceedings{{smith2024, title = {{Bridges for {{M}}odels}}, eprint = {{{arxiv}v1}}}}\n"
                   f"@article{{smith2025wrong, title = {{Another Work}}, eprint = {{{arxiv}}}}}\n")
    out = tmp_path / "out"
    proc = pithtex_cli("badge", "--list", str(bib), "-o", str(out), "--keys", str(KEY.key_file(tmp_path)), env=env)
    assert proc.returncode == 1, proc.stderr  # the third entry's title is another paper's
    papers = json.loads((out / "pith.json").read_text())["papers"]
    assert papers["smith2024pre"]["state"] == papers["smith2024"]["state"] == "verified"
    assert papers["smith2024"]["snippet"] == papers["smith2024pre"]["snippet"] is not None
    assert papers["smith2025wrong"]["state"] == "invalid" and papers["smith2025wrong"]["snippet"] is None
    assert "papers.bib's smith2025wrong says “Another Work”, the record is of “Bridges for Models”" in proc.stdout
    assert papers[arxiv] == papers["smith2024pre"]  # the id names the first entry
    items = re.findall(r"<li>.*</li>", (out / "publications.html").read_text())
    assert [i.count("<pith-badge ") for i in items] == [1, 1, 0]  # in the .bib's order
    assert len(fake.hits(f"/api/pith-number/resolve?arxiv={arxiv}&json=true")) == 1  # fetched once


def _site(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


@pytest.mark.parametrize(("kind", "files", "out", "prefix"), [
    ("jekyll", {"_config.yml": "title: Lab\nbaseurl: /lab # the project page's path\nurl: https://u.github.io\n"},
     "assets/pith", "/lab/assets/pith/"),
    ("jekyll", {"_config.yml": 'baseurl: ""\n'}, "assets/pith", "/assets/pith/"),
    # al-folio's own line, emptied as its docs say for a user site: only the comment is left
    ("jekyll", {"_config.yml": "url: https://me.github.io\nbaseurl: # the subpath of your site, e.g. /blog/\n"},
     "assets/pith", "/assets/pith/"),
    ("hugo", {"hugo.toml": 'title = "x"\nbaseURL = "https://example.org/~me/"\n[params]\nbaseURL = "/no/"\n'},
     "static/pith", "/~me/pith/"),
    # Hugo Blox: no config at the root, config/_default/hugo.yaml instead
    ("hugo", {"config/_default/hugo.yaml": "title: Me\nbaseURL: 'https://me.example.org/site/'\n",
              "config/_default/params.yaml": "baseURL: /no/\n"}, "static/uploads/pith", "/site/uploads/pith/"),
])
def test_the_site_s_own_path_prefixes_every_url(tmp_path, fake, env, kind, files, out, prefix):
    arxiv, record = paper(1)
    number = serve(fake, arxiv, record)
    site = _site(tmp_path / "site", files)
    (site / "papers.bib").write_text(f"@article{{p1, title = {{Paper number 1}}, eprint = {{{arxiv}}}}}\n")
    proc = pithtex_cli("badge", "--list", "papers.bib", "-o", out, "--site", kind, "--keys",
                       str(KEY.key_file(tmp_path)), env=env, cwd=site)
    assert proc.returncode == 0, proc.stderr
    data = "_data/pith.json" if kind == "jekyll" else "data/pith.json"
    index = json.loads((site / data).read_text())
    assert index["script"] == f"{prefix}pith-badge.js" and index["base"] == prefix
    assert prefix.startswith(index["site_path"] + "/")  # what a build under another path swaps out
    snippet = index["papers"]["p1"]["snippet"]
    assert f'src="{prefix}records/{number.body}.json"' in snippet
    assert f'<img src="{prefix}badges/pith-{number.body[:8]}.svg"' in snippet
    assert f'<script src="{prefix}pith-badge.js"' in (site / out / "publications.html").read_text()


def test_dblp_entries_give_the_arxiv_id_in_url_or_ee(tmp_path, fake, env):
    """DBLP exports a CoRR paper with `journal = {CoRR}`, `volume = {abs/ID}` and the id only in
    `url`/`ee` links to arxiv.org; all three are read, and a URL elsewhere names no paper."""
    ids = []
    for i in (1, 2, 3):
        arxiv, record = paper(i)
        serve(fake, arxiv, record)
        ids.append(arxiv)
    bib = tmp_path / "dblp.bib"
    bib.write_text(
        f"@article{{DBLP:journals/corr/abs-{ids[0]},\n  title = {{Paper number 1}},\n  journal = {{CoRR}},\n"
        f"  volume = {{abs/{ids[0]}}},\n  year = {{2024}},\n  url = {{https://arxiv.org/abs/{ids[0]}}}\n}}\n"
        f"@inproceedings{{DBLP:conf/x/Two24, title = {{Paper number 2}}, ee = {{http://arxiv.org/pdf/{ids[1]}v1.pdf}}}}\n"
        f"@article{{DBLP:journals/corr/three, title = {{Paper number 3}}, journal = {{CoRR}},\n"
        f"  volume = {{abs/{ids[2]}}}}}\n"
        "@article{DBLP:journals/x/Four, title = {Elsewhere}, url = {https://example.org/abs/2401.00004}}\n")
    wanted, skipped = publist.read_list(bib.read_text(), "dblp.bib", bib=True)
    assert [str(w.arxiv) for w in wanted] == [ids[0], f"{ids[1]}v1", ids[2]]
    assert [s.key for s in skipped] == ["DBLP:journals/x/Four"]
    proc = pithtex_cli("badge", "--list", str(bib), "-o", str(tmp_path / "out"), "--keys",
                       str(KEY.key_file(tmp_path)), env=env)
    assert proc.returncode == 0, proc.stderr
    assert len(re.findall("^verified ", proc.stdout, re.M)) == 3


def test_o_makes_its_missing_parents_and_refuses_a_file_on_the_way(tmp_path, fake, env):
    arxiv, record = paper(1)
    serve(fake, arxiv, record)
    listing = tmp_path / "papers.txt"
    listing.write_text(f"{arxiv}\n")
    keys = str(KEY.key_file(tmp_path))
    out = tmp_path / "a" / "b" / "c"
    proc = pithtex_cli("badge", "--list", str(listing), "-o", str(out), "--keys", keys, env=env)
    assert proc.returncode == 0, proc.stderr
    assert (out / "publications.html").read_text().count("<pith-badge ") == 1
    (tmp_path / "file").write_text("not a folder")
    err = assert_clean_error(pithtex_cli("badge", "--list", str(listing), "-o", str(tmp_path / "file" / "x" / "y"),
                                         "--keys", keys, env=env))
    assert f"-o: {tmp_path / 'file'} is not a folder, so {tmp_path / 'file' / 'x' / 'y' / 'records'} cannot be made" \
        in err, err


def test_an_outage_keeps_twins_verified_and_a_wrong_id_invalid(tmp_path):
    """The resolver gone and no cache: each entry is compared again with the folder's copy of
    the record its id names, so the twin keeps its badge and the entry whose title is another
    paper's stays invalid (exit 1), not unchecked."""
    from ..resolverkit import serving

    arxiv, record = paper(1, "Bridges for Models")
    bib, out, keys = tmp_path / "papers.bib", tmp_path / "out", str(KEY.key_file(tmp_path))
    bib.write_text(f"@misc{{wrong, title = {{Another Work}}, eprint = {{{arxiv}}}}}\n"
                   f"@misc{{right, title = {{Bridges for Models}}, eprint = {{{arxiv}}}}}\n"
                   f"@misc{{twin, title = {{Bridges for models}}, eprint = {{{arxiv}v2}}}}\n")
    with serving() as fake:
        serve(fake, arxiv, record)
        env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PITH_BASE_URL": fake.base}
        first = pithtex_cli("badge", "--list", str(bib), "-o", str(out), "--keys", keys, env=env)
    assert first.returncode == 1, first.stderr
    env["XDG_CACHE_HOME"] = str(tmp_path / "no-cache")
    again = pithtex_cli("badge", "--list", str(bib), "-o", str(out), "--keys", keys, env=env)
    assert again.returncode == 1, again.stdout + again.stderr
    papers = json.loads((out / "pith.json").read_text())["papers"]
    assert {k: papers[k]["state"] for k in ("wrong", "right", "twin")} == {
        "wrong": "invalid", "right": "verified", "twin": "verified"}
    assert papers[arxiv] == papers["right"]  # the id names the first entry that verified, not the wrong one
    assert "papers.bib's wrong says “Another Work”, the record is of “Bridges for Models”" in again.stdout
    assert again.stdout.count("the resolver could not be reached; used ") == 2


def test_twins_are_bounded_with_the_list():
    """A .bib of 2,100 entries naming 1,500 papers (bench/bibtex.py's shape) is read: its
    papers are checked once each, and entries past the 2,000 a list may have are not kept as twins."""
    text = "".join(f"@misc{{k{i}, title = {{Paper {i % 1500 + 1}}}, eprint = {{2401.{i % 1500 + 1:05d}}}}}\n"
                   for i in range(2100))
    wanted, skipped = publist.read_list(text, "big.bib", bib=True)
    assert len(wanted) == 1500 and skipped == []
    assert sum(1 + len(w.twins) for w in wanted) == publist.MAX_PAPERS
