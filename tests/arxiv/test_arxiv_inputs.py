"""What `pithtex check`/`bundle` accept as an upload, and the one-line refusals for the rest."""

from __future__ import annotations

import io
import json
import shutil
import tarfile
import zipfile
from pathlib import Path

import pytest

from pithtex.arxiv.logparse import parse_log

from ..conftest import ROOT, assert_clean_error, pithtex_cli

PLAIN = ROOT / "tests" / "fixtures" / "arxiv" / "plain"


def make_tar(path: Path, members: dict[str, bytes], **kinds: str) -> Path:
    with tarfile.open(path, "w:gz") as t:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
        for name, target in kinds.items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            t.addfile(info)
    return path


def plain_members() -> dict[str, bytes]:
    return {p.relative_to(PLAIN).as_posix(): p.read_bytes() for p in sorted(PLAIN.rglob("*")) if p.is_file()}


def test_archives_as_uploaded_pass(tmp_path: Path):
    tgz = make_tar(tmp_path / "up.tar.gz", plain_members())
    zpath = tmp_path / "up.zip"
    with zipfile.ZipFile(zpath, "w") as z:
        for name, data in plain_members().items():
            z.writestr(name, data)
    for archive in (tgz, zpath):
        p = pithtex_cli("check", str(archive), "--json", timeout=300)
        assert p.returncode == 0, p.stdout[-2000:]
        j = json.loads(p.stdout)
        assert j["ok"] and j["main"] == "paper.tex" and j["path"] == str(archive)


def test_a_single_tex_file_is_its_folders_main(tmp_path: Path):
    shutil.copytree(PLAIN, tmp_path / "p")
    (tmp_path / "p" / "notes.tex").write_text("\\documentclass{article}\\begin{document}x\\end{document}\n")
    p = pithtex_cli("check", str(tmp_path / "p" / "paper.tex"), "--json", timeout=300)
    j = json.loads(p.stdout)
    assert p.returncode == 0 and j["main"] == "paper.tex"
    assert "several-main-files" not in {d["rule"] for d in j["diagnostics"]}
    p = pithtex_cli("check", str(tmp_path / "p"), "--json", timeout=300)
    assert "several-main-files" in {d["rule"] for d in json.loads(p.stdout)["diagnostics"]}


@pytest.mark.parametrize("case", ["missing", "not-a-paper", "empty-folder", "no-documentclass", "corrupt-tgz",
                                  "corrupt-zip", "traversal", "absolute", "symlink", "text-as-tgz",
                                  "nested-main"])
def test_unusable_input_is_one_clean_line(tmp_path: Path, case: str):
    target = tmp_path / "x"
    if case == "missing":
        target = tmp_path / "nowhere"
    elif case == "not-a-paper":
        target = tmp_path / "notes.txt"
        target.write_text("hello")
    elif case == "empty-folder":
        target.mkdir()
    elif case == "no-documentclass":
        target = tmp_path / "part.tex"
        target.write_text("\\section{Only a part}\n")
    elif case == "corrupt-tgz":
        target = tmp_path / "up.tar.gz"
        target.write_bytes(make_tar(tmp_path / "ok.tar.gz", plain_members()).read_bytes()[:200])
    elif case == "corrupt-zip":
        target = tmp_path / "up.zip"
        target.write_bytes(b"PK\x03\x04 this is not really a zip")
    elif case == "traversal":
        target = make_tar(tmp_path / "up.tar.gz", {"paper.tex": b"\\documentclass{article}", "../evil.tex": b"x"})
    elif case == "absolute":
        target = make_tar(tmp_path / "up.tar.gz", {"/tmp/evil.tex": b"x"})
    elif case == "symlink":
        target = make_tar(tmp_path / "up.tar.gz", {"paper.tex": b"x"}, **{"link.tex": "/etc/passwd"})
    elif case == "text-as-tgz":
        target = tmp_path / "up.tgz"
        target.write_text("plain text, not gzip")
    elif case == "nested-main":
        target = make_tar(tmp_path / "up.tar.gz", {f"paper/{k}": v for k, v in plain_members().items()})
    p = pithtex_cli("check", str(target))
    err = assert_clean_error(p, 2)
    if case == "nested-main":
        assert "paper/paper.tex is in a subfolder" in err
    assert str(target) in err or target.name in err
    assert not (tmp_path.parent / "evil.tex").exists()


def test_timeout_must_be_positive():
    for bad in ("0", "-3", "nan"):
        assert "--timeout" in assert_clean_error(pithtex_cli("check", str(PLAIN), "--timeout", bad), 2)


def test_bundle_refuses_bad_output_names(tmp_path: Path):
    err = assert_clean_error(pithtex_cli("bundle", str(PLAIN), "-o", str(tmp_path / "up.zip")), 2)
    assert ".tar.gz" in err
    assert_clean_error(pithtex_cli("bundle", str(tmp_path / "nowhere"), "-o", str(tmp_path / "u.tar.gz")), 2)
    assert list(tmp_path.iterdir()) == []


LOG = """\
This is pdfTeX, Version 3.141592653
./paper.tex:12: LaTeX Error: File `no-such-figure' not found.
! Undefined control sequence.
<recently read> \\foo
l.20 \\foo
LaTeX Warning: Reference `sec:x' on page 1 undefined on input line 9.
LaTeX Warning: Citation `knuth' on page 1 undefined on input line 10.
Package natbib Warning: Citation `lamport' on page 1 undefined on input line 11.
Missing character: There is no ^^^^2603 in font cmr10!
Overfull \\hbox (3.2pt too wide) in paragraph at lines 4--5
Overfull \\vbox (1.0pt too high) has occurred while \\output is active
Underfull \\hbox (badness 10000) in paragraph at lines 6--7
/tmp/sandbox/x/sections/a.tex:3: Emergency stop.
LaTeX Warning: Label(s) may have changed. Rerun to get cross-references right.
"""


def test_log_is_read_into_counted_facts():
    f = parse_log(LOG, "paper.tex", "/tmp/sandbox/x")
    assert [(e.file, e.line) for e in f.errors] == [("paper.tex", 12), ("paper.tex", 20)]
    assert f.missing_files == ["no-such-figure"]
    assert f.undefined_references == ["sec:x"] and f.undefined_citations == ["knuth", "lamport"]
    assert f.missing_characters == ["^^^^2603 (cmr10)"]
    assert (f.overfull_boxes, f.underfull_boxes, f.rerun) == (2, 1, True)
