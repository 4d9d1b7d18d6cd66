"""--in-place appends the update to the file itself: same inode, O(update), cut back on failure."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pithtex import files
from pithtex.errors import PithError
from pithtex.number import PithNumber
from pithtex.pdf.stamp import Options, stamp_file

from ..conftest import BODY, assert_clean_error, pithtex_cli
from ..pdfkit import make_pdf, qpdf_check

NUMBER = PithNumber.parse(BODY)


@pytest.mark.parametrize("streams", [False, True])
def test_in_place_appends_to_the_same_file(tmp_path: Path, streams: bool):
    pdf = make_pdf(tmp_path / "paper.pdf", streams=streams)
    os.chmod(pdf, 0o640)
    original = pdf.read_bytes()
    inode = pdf.stat().st_ino
    link = tmp_path / "hard.pdf"
    os.link(pdf, link)
    copy_out = tmp_path / "copy.pdf"
    stamp_file(pdf, copy_out, Options(NUMBER))
    proc = pithtex_cli("stamp", str(pdf), "--number", BODY, "--in-place")
    assert proc.returncode == 0, proc.stderr
    assert pdf.stat().st_ino == inode and link.read_bytes() == pdf.read_bytes(), "appended, not replaced"
    assert pdf.stat().st_mode & 0o777 == 0o640
    assert pdf.read_bytes() == copy_out.read_bytes() and pdf.read_bytes().startswith(original)
    assert qpdf_check(pdf) == 0


class Interrupted(BaseException):
    pass


@pytest.mark.parametrize("fail_at", [1, 2])
def test_failure_while_appending_cuts_back_to_the_original(tmp_path: Path, monkeypatch, fail_at: int):
    pdf = make_pdf(tmp_path / "paper.pdf")
    original = pdf.read_bytes()
    real = files.pwrite_all
    calls = []

    def flaky(fd: int, data: bytes, offset: int) -> None:
        calls.append(offset)
        if len(calls) == fail_at:
            real(fd, data[: len(data) // 2], offset)  # half written, then the machine "stops"
            raise Interrupted
        real(fd, data, offset)

    monkeypatch.setattr(files, "pwrite_all", flaky)
    with pytest.raises(Interrupted):
        stamp_file(pdf, pdf, Options(NUMBER))
    assert pdf.read_bytes() == original and qpdf_check(pdf) == 0


@pytest.mark.parametrize("streams", [False, True])
def test_a_crash_between_the_two_steps_leaves_the_original_readable(tmp_path: Path, monkeypatch, streams: bool):
    """Power lost after step 1 (data synced, final startxref not yet written, nothing cut back)."""
    pdf = make_pdf(tmp_path / "paper.pdf", streams=streams)
    original = pdf.read_bytes()
    real = files.pwrite_all
    calls = []

    def power_cut(fd: int, data: bytes, offset: int) -> None:
        calls.append(offset)
        if len(calls) == 2:
            raise Interrupted
        real(fd, data, offset)

    monkeypatch.setattr(files, "pwrite_all", power_cut)
    monkeypatch.setattr(os, "ftruncate", lambda fd, size: None)  # the machine is gone: nothing cuts back
    with pytest.raises(Interrupted):
        stamp_file(pdf, pdf, Options(NUMBER))
    monkeypatch.undo()
    data = pdf.read_bytes()
    assert data.startswith(original) and len(data) > len(original)
    assert qpdf_check(pdf) == 0, "reads as the original: the last startxref is still the original's"
    proc = pithtex_cli("inspect", str(pdf), "--json")
    assert proc.returncode == 0 and '"number": null' in proc.stdout
    # and stamping again works on the crashed file
    assert pithtex_cli("stamp", str(pdf), "--number", BODY, "--in-place").returncode == 0
    assert qpdf_check(pdf) == 0


def test_disk_errors_are_one_sentence_and_leave_the_file(tmp_path: Path, monkeypatch):
    pdf = make_pdf(tmp_path / "paper.pdf")
    original = pdf.read_bytes()

    def full(fd: int, data: bytes, offset: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files, "pwrite_all", full)
    with pytest.raises(PithError, match="No space left on device"):
        stamp_file(pdf, pdf, Options(NUMBER))
    assert pdf.read_bytes() == original


def test_in_place_refuses_what_is_not_the_file_it_read(tmp_path: Path):
    pdf = make_pdf(tmp_path / "paper.pdf")
    size = pdf.stat().st_size
    with files.locked(pdf) as fd, pytest.raises(PithError, match="changed size"):
        files.rewrite_tail(fd, pdf, size - 1, size - 1, b"x", 0, b"y")
    link = tmp_path / "link.pdf"
    link.symlink_to(pdf)
    with pytest.raises(PithError, match="symbolic link"), files.locked(link):
        pass
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(PithError, match="not a regular file"), files.locked(fifo):
        pass
    assert pdf.stat().st_size == size


def test_replacing_our_own_update_in_place_keeps_the_inode(tmp_path: Path):
    pdf = make_pdf(tmp_path / "paper.pdf")
    original = pdf.read_bytes()
    inode = pdf.stat().st_ino
    assert pithtex_cli("stamp", str(pdf), "--number", BODY, "--in-place").returncode == 0
    assert_clean_error(pithtex_cli("stamp", str(pdf), "--number", "A" * 26, "--in-place"), 1)
    proc = pithtex_cli("stamp", str(pdf), "--number", "A" * 26, "--in-place", "--force")
    assert proc.returncode == 0, proc.stderr
    data = pdf.read_bytes()
    assert data.startswith(original) and BODY.encode() not in data[len(original):]
    assert qpdf_check(pdf) == 0 and pdf.stat().st_ino == inode
    assert pithtex_cli("stamp", str(pdf), "--revert", "--in-place").returncode == 0
    assert pdf.read_bytes() == original and pdf.stat().st_ino == inode, "cut back, not replaced"
