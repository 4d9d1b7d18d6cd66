"""A replaced file keeps who owns it: owner, group, mode, extended attributes and ACLs (-o,
--revert -o), or the write is refused before anything is written; in-place changes keep the
inode itself (hard links, owner and all)."""

from __future__ import annotations

import os
import stat
import struct
from pathlib import Path

import pytest

from pithtex import files

from .conftest import BODY, assert_clean_error, pithtex_cli
from .pdfkit import make_pdf

ACL = "system.posix_acl_access"


def acl(user: int) -> bytes:
    """A POSIX access ACL as the kernel stores it: owner rw, user `user` rw, group r, mask rw, other none."""
    entries = [(0x01, 6, 0xFFFFFFFF), (0x02, 6, user), (0x04, 4, 0xFFFFFFFF), (0x10, 6, 0xFFFFFFFF),
               (0x20, 0, 0xFFFFFFFF)]
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries)


def decorate(path: Path) -> dict:
    """Mode 0660 plus an xattr and an ACL (where the file system has them), owned by someone
    else when we are root; what the file must still have afterwards."""
    path.chmod(0o640)
    os.setxattr(path, "user.origin", b"from the lab")
    os.setxattr(path, ACL, acl(4242))
    if os.geteuid() == 0:
        os.chown(path, 1234, 2345)
    return owned(path)


def owned(path: Path) -> dict:
    info = path.stat()
    return {"uid": info.st_uid, "gid": info.st_gid, "mode": stat.S_IMODE(info.st_mode),
            "xattrs": {name: os.getxattr(path, name) for name in sorted(os.listxattr(path))}}


@pytest.mark.parametrize("command", ["stamp", "revert"])
def test_dash_o_over_a_file_keeps_owner_group_mode_xattrs_and_acl(tmp_path: Path, command: str):
    source = make_pdf(tmp_path / "paper.pdf")
    if command == "revert":
        assert pithtex_cli("stamp", str(source), "--number", BODY, "--in-place").returncode == 0
    out = tmp_path / "out.pdf"
    out.write_bytes(b"old")
    before = decorate(out)
    args = ["--number", BODY] if command == "stamp" else ["--revert"]
    if os.geteuid() != 0:  # not root: our own file, so everything can be kept
        assert before["uid"] == os.geteuid()
    proc = pithtex_cli("stamp", str(source), *args, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:5] == b"%PDF-"
    assert owned(out) == before
    assert os.getxattr(out, ACL) == acl(4242)


def test_in_place_changes_keep_the_inode_and_whoever_owns_it(tmp_path: Path):
    paper = make_pdf(tmp_path / "paper.pdf")
    original = paper.read_bytes()
    before = decorate(paper)
    inode = paper.stat().st_ino
    os.link(paper, tmp_path / "link.pdf")
    for args in (["--number", BODY, "--in-place"], ["--number", "A" * 26, "--in-place", "--force"],
                 ["--revert", "--in-place"]):
        proc = pithtex_cli("stamp", str(paper), *args)
        assert proc.returncode == 0, proc.stderr
        assert paper.stat().st_ino == inode and owned(paper) == before
        assert (tmp_path / "link.pdf").read_bytes() == paper.read_bytes()
    assert paper.read_bytes() == original


def test_an_owner_this_user_cannot_give_is_refused_before_writing(tmp_path: Path, monkeypatch):
    """Not root and not the owner (or not in the group): chown would fail after the work, and
    a file silently passing to another user is what this refuses. Run as any user: the
    process's ids are what is asked, so they are what the test sets."""
    out = tmp_path / "out.pdf"
    out.write_bytes(b"old")
    owner = out.stat()
    monkeypatch.setattr(os, "geteuid", lambda: owner.st_uid + 1)
    with pytest.raises(files.OutputError, match=f"belongs to user {owner.st_uid}; pithtex cannot give"):
        files.write_atomic(out, b"new")
    monkeypatch.setattr(os, "geteuid", lambda: owner.st_uid or 1)
    if owner.st_uid == 0:
        os.chown(out, 1, owner.st_gid)
    monkeypatch.setattr(os, "getegid", lambda: owner.st_gid + 1)
    monkeypatch.setattr(os, "getgroups", lambda: [])
    with pytest.raises(files.OutputError, match=f"has group {owner.st_gid}, which this user is not in"):
        files.write_atomic(out, b"new")
    assert out.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == ["out.pdf"]


def test_dash_o_over_a_hard_linked_file_is_refused(tmp_path: Path):
    source = make_pdf(tmp_path / "paper.pdf")
    out = tmp_path / "out.pdf"
    out.write_bytes(b"old")
    os.link(out, tmp_path / "other-name.pdf")
    err = assert_clean_error(pithtex_cli("stamp", str(source), "--number", BODY, "-o", str(out)))
    assert f"{out}: has 1 other hard link(s)" in err
    assert out.read_bytes() == b"old" == (tmp_path / "other-name.pdf").read_bytes()


def test_a_batch_naming_one_file_twice_through_a_hard_link_is_refused(tmp_path: Path):
    paper = make_pdf(tmp_path / "paper.pdf")
    original = paper.read_bytes()
    os.link(paper, tmp_path / "same.pdf")
    err = assert_clean_error(pithtex_cli("stamp", "paper.pdf", "same.pdf", "--number", BODY, "--in-place",
                                         cwd=tmp_path))
    assert "paper.pdf and same.pdf would both be written to same.pdf" in err
    assert paper.read_bytes() == original
