"""`pithtex badge --list`'s pith.json index, and the last good list kept through a resolver outage."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

from ..conftest import assert_clean_error, pithtex_cli
from ..resolverkit import Reply, serving
from .test_badge_list import KEY, paper, serve


def _bib(ids: list[str]) -> str:
    return "".join(f"@article{{key{i}, title = {{Paper number {int(a[5:])}}}, eprint = {{{a}}}}}\n"
                   for i, a in enumerate(ids, start=1)) + "@book{nothing, title = {No id}}\n"


def test_the_index_names_every_paper_by_key_and_id_and_survives_an_outage(tmp_path):
    bib, keys = tmp_path / "papers.bib", str(KEY.key_file(tmp_path))
    out, cache = tmp_path / "out", tmp_path / "cache"
    with serving() as fake:
        ids, numbers = [], []
        for i in (1, 2, 3):
            arxiv, record = paper(i)
            ids.append(arxiv)
            numbers.append(serve(fake, arxiv, record))
        bib.write_text(_bib(ids))
        env = {"XDG_CACHE_HOME": str(cache), "PITH_BASE_URL": fake.base}
        first = pithtex_cli("badge", "--list", str(bib), "-o", str(out), "--keys", keys, env=env)
        assert first.returncode == 0, first.stderr
    index = json.loads((out / "pith.json").read_text())
    assert index["script"] == "pith-badge.js" and index["base"] == "" and "site_path" not in index
    papers = index["papers"]
    assert set(papers) == {"key1", "key2", "key3", *ids}  # by BibTeX key and by arXiv id
    for i, (arxiv, number) in enumerate(zip(ids, numbers, strict=True), start=1):
        entry = papers[f"key{i}"]
        assert entry is not None and papers[arxiv] == entry
        assert entry["state"] == "verified" and entry["number"] == number.body and entry["arxiv"] == arxiv
        assert entry["record"] == f"records/{number.body}.json" and (out / entry["record"]).is_file()
        assert entry["snippet"] == (out / "snippets" / f"{number.body}.html").read_text().strip()
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", entry["verified_at"])
    before = (out / "publications.html").read_text()
    assert before.count("<pith-badge ") == 3
    # the resolver is gone (its port closed): the folder's records stand in, and the run says how old
    env = {"XDG_CACHE_HOME": str(tmp_path / "empty-cache"), "PITH_BASE_URL": env["PITH_BASE_URL"]}
    again = pithtex_cli("badge", "--list", str(bib), "-o", str(out), "--keys", keys, env=env)
    assert again.returncode == 0, again.stderr
    assert len(re.findall("^verified ", again.stdout, re.M)) == 3
    assert again.stdout.count("the resolver could not be reached; used ") == 3
    assert f"which verified moments ago ({papers['key1']['verified_at']})" in again.stdout
    assert "3 verified from copies that verified before" in again.stderr
    assert (out / "publications.html").read_text() == before
    assert json.loads((out / "pith.json").read_text())["papers"]["key2"]["verified_at"] == papers["key2"]["verified_at"]
    # no folder to keep from: the cache (what verified there) stands in
    shutil.rmtree(out)
    env["XDG_CACHE_HOME"] = str(cache)
    cached = pithtex_cli("badge", "--list", str(bib), "-o", str(out), "--keys", keys, env=env)
    assert cached.returncode == 0, cached.stderr
    assert cached.stdout.count("used the copy in the resolver's cache, which verified moments ago (20") == 3
    assert (out / "publications.html").read_text().count("<pith-badge ") == 3


def _cache_entries(cache: Path) -> list[Path]:
    return sorted((cache / "pithtex" / "records").glob("*/*.json"))


def test_the_age_of_a_kept_copy_is_when_it_verified_not_the_file_s_mtime(tmp_path):
    """The cache entry records `verified_at`; a file touched since (a backup restored, a sync)
    keeps its age, and an entry from before the field is used, its age said to be unknown."""
    bib, keys = tmp_path / "papers.bib", str(KEY.key_file(tmp_path))
    out, cache = tmp_path / "out", tmp_path / "cache"
    with serving() as fake:
        ids, numbers = [], []
        for i in (1, 2):
            arxiv, record = paper(i)
            ids.append(arxiv)
            numbers.append(serve(fake, arxiv, record).body)
        bib.write_text(_bib(ids))
        env = {"XDG_CACHE_HOME": str(cache), "PITH_BASE_URL": fake.base}
        first = pithtex_cli("badge", "--list", str(bib), "-o", str(out), "--keys", keys, env=env)
        assert first.returncode == 0, first.stderr
    entries = _cache_entries(cache)
    assert len(entries) == 2
    three_days = 3 * 86400 + 600
    for path in entries:
        entry = json.loads(path.read_text())
        assert isinstance(entry["verified_at"], float) and entry["verified_at"] > 0
        if entry["number"] == numbers[0]:
            entry["verified_at"] -= three_days  # it verified three days ago; its file is written now
        else:
            del entry["verified_at"]  # an entry an older pithtex wrote
        path.write_text(json.dumps(entry))
    shutil.rmtree(out)  # no folder to keep from: the cache stands in
    proc = pithtex_cli("badge", "--list", str(bib), "-o", str(out), "--keys", keys, env=env)
    assert proc.returncode == 0, proc.stderr  # the resolver is gone, both copies still verify
    said = dict(zip(ids, proc.stdout.split(f"arXiv:{ids[1]}"), strict=True))  # each paper's lines
    assert "used the copy in the resolver's cache, which verified 3 days ago (20" in said[ids[0]], said
    assert ("which verified at an unknown time (its cache entry, written by an older pithtex, gives no "
            "verified_at)") in said[ids[1]], said
    assert "; 1 verified at an unknown time" in proc.stderr and "the oldest verified 20" in proc.stderr
    papers = json.loads((out / "pith.json").read_text())["papers"]
    assert papers["key2"]["verified_at"] is None and papers["key2"]["state"] == "verified"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", papers["key1"]["verified_at"])
    assert (out / "publications.html").read_text().count("<pith-badge ") == 2


def test_a_kept_record_of_another_paper_never_stands_in(tmp_path):
    """A pith.json edited to point an entry at another paper's record: the copy verifies, but is
    not the paper, so the entry is unchecked text, never a badge."""
    bib, keys, out = tmp_path / "papers.bib", str(KEY.key_file(tmp_path)), tmp_path / "out"
    with serving() as fake:
        ids = []
        for i in (1, 2):
            arxiv, record = paper(i)
            ids.append(arxiv)
            serve(fake, arxiv, record)
        bib.write_text(_bib(ids))
        env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PITH_BASE_URL": fake.base}
        assert pithtex_cli("badge", "--list", str(bib), "-o", str(out), "--keys", keys, env=env).returncode == 0
    index = json.loads((out / "pith.json").read_text())
    index["papers"]["key1"] = index["papers"]["key2"]
    (out / "pith.json").write_text(json.dumps(index))
    env["XDG_CACHE_HOME"] = str(tmp_path / "empty-cache")
    proc = pithtex_cli("badge", "--list", str(bib), "-o", str(out), "--keys", keys, env=env)
    assert proc.returncode == 3, proc.stderr
    assert re.search(rf"^unchecked +arXiv:{ids[0]}", proc.stdout, re.M) and re.search(
        rf"^verified +arXiv:{ids[1]}", proc.stdout, re.M), proc.stdout
    assert (out / "publications.html").read_text().count("<pith-badge ") == 1


def test_ctrl_c_ends_the_run_without_waiting_for_fetches_in_flight(tmp_path):
    """Three resolves held open by a slow loopback resolver (PITH_TIMEOUT an hour): Ctrl-C ends the
    run, exit 130, while all three are still being answered, and writes no list."""
    listing, out = tmp_path / "papers.txt", tmp_path / "out"
    ids = [f"2401.0000{i}" for i in (1, 2, 3)]
    listing.write_text("".join(f"{a}\n" for a in ids))
    with serving() as fake:
        for arxiv in ids:
            fake.route(f"/api/pith-number/resolve?arxiv={arxiv}&json=true", Reply(delay=3600))
        env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "PITH_BASE_URL": fake.base,
               "PITH_TIMEOUT": "3600"}
        exe = shutil.which("pithtex", path=str(Path(sys.executable).parent))
        assert exe is not None
        proc = subprocess.Popen([exe, "badge", "--list", str(listing), "-o", str(out)], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            for _ in range(6000):  # the event: all three resolves are in flight (bounded: at most 10 minutes)
                if fake.active == 3 or proc.poll() is not None:
                    break
                threading.Event().wait(0.1)
            assert fake.active == 3, proc.poll()
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=600)
            still_answering = fake.active
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 130 and err.strip() == "pithtex: interrupted", (proc.returncode, err)
    assert still_answering == 3  # it ended before any fetch in flight did: it waited for none
    assert not (out / "publications.html").exists()


def test_site_refuses_a_folder_that_is_no_such_site_before_any_fetch(tmp_path):
    listing = tmp_path / "papers.txt"
    listing.write_text("2401.00001\n")
    site = tmp_path / "site"
    site.mkdir()
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PITH_BASE_URL": "http://127.0.0.1:9"}
    err = assert_clean_error(pithtex_cli("badge", "--list", str(listing), "-o", str(site / "assets" / "pith"),
                                         "--site", "jekyll", "--site-root", str(site), env=env))
    assert f"--site jekyll: {site} has no _config.yml" in err, err
    (site / "hugo.toml").write_text("")
    err = assert_clean_error(pithtex_cli("badge", "--list", str(listing), "-o", str(site / "pith"), "--site", "hugo",
                                         "--site-root", str(site), env=env))
    assert f"is not under {site / 'static'}, which Hugo serves" in err, err
    assert not (site / "pith").exists() and not (site / "data").exists()
    err = assert_clean_error(pithtex_cli("badge", "2401.00001", "--site", "hugo", env=env))
    assert "--site is for --list" in err
