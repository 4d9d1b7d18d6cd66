"""An output that replaces no file costs no fsync: it is linked into place (link() never
replaces), so a crash can lose only that new output, which its input makes again. An output
that replaces a file is still fsynced before its rename and its folder after, since there
the old content is what a crash would otherwise lose. Counted by wrapping os.fsync, not timed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pithtex.files import atomic_output, write_atomic

from .conftest import BODY, pithtex_cli
from .faultkit import leftovers, run
from .pdfkit import make_pdf


@pytest.fixture
def fsyncs(monkeypatch) -> list[str]:
    """The path of every file or folder this process fsyncs, in order."""
    seen: list[str] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        seen.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return seen


def test_a_new_file_is_written_without_an_fsync(tmp_path: Path, fsyncs: list[str]):
    out = write_atomic(tmp_path / "new.json", "{}\n")
    assert out.read_text() == "{}\n" and fsyncs == [] and leftovers(tmp_path) == []
    assert os.stat(out).st_nlink == 1 and oct(os.stat(out).st_mode & 0o777) == oct(0o666 & ~_umask())


def test_a_replaced_file_is_synced_before_and_after_its_rename(tmp_path: Path, fsyncs: list[str]):
    target = tmp_path / "old.json"
    target.write_text("old\n")
    write_atomic(target, "new\n")
    assert target.read_text() == "new\n"
    assert len(fsyncs) == 2 and fsyncs[1] == str(tmp_path)  # the file (under its temp name), then the folder
    assert fsyncs[0].startswith(str(tmp_path / ".old.json.pithtex-"))


def test_a_file_that_appears_meanwhile_is_replaced_the_durable_way(tmp_path: Path, fsyncs: list[str], monkeypatch):
    # Nothing was there when the write began; another program creates the name before ours is
    # placed. link() refuses to replace it, so it gets the fsync-and-rename path after all.
    target = tmp_path / "race.pdf"
    real = os.link

    def link(src, dst, **kw):
        Path(dst).write_bytes(b"theirs")
        return real(src, dst, **kw)

    monkeypatch.setattr(os, "link", link)
    with atomic_output(target) as out:
        out.write(b"ours")
    assert target.read_bytes() == b"ours" and len(fsyncs) == 2 and leftovers(tmp_path) == []


def test_a_batch_into_a_new_folder_syncs_nothing(tmp_path: Path):
    sources = [make_pdf(tmp_path / f"in{i}.pdf", title=f"paper {i}") for i in range(3)]
    out_dir = tmp_path / "stamped"
    out_dir.mkdir()
    counted = run(tmp_path, "stamp", *map(str, sources), "--number", BODY, "-o", f"{out_dir}/", path=str(out_dir))
    assert counted.returncode == 0, counted.stderr
    assert "fsync" not in counted.boundaries and counted.boundaries.count("link") == 3, counted.boundaries
    for i in range(3):
        proc = pithtex_cli("inspect", str(out_dir / f"in{i}.pdf"))
        assert proc.returncode == 0 and BODY in proc.stdout
    # The same batch again replaces those three files: each is synced, then its folder.
    again = run(tmp_path, "stamp", *map(str, sources), "--number", BODY, "-o", f"{out_dir}/", "--force",
                path=str(out_dir))
    assert again.returncode == 0, again.stderr
    assert again.boundaries.count("fsync") == 6 and "link" not in again.boundaries, again.boundaries


@pytest.mark.parametrize("fault", ["kill", "EIO"])
def test_a_new_output_is_whole_or_absent_at_every_boundary(tmp_path: Path, fault: str):
    source = make_pdf(tmp_path / "paper.pdf")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "paper.pdf"
    counted = run(tmp_path, "stamp", str(source), "--number", BODY, "-o", str(out), path=str(out_dir))
    assert counted.returncode == 0
    whole = out.read_bytes()
    for k in range(1, len(counted.boundaries) + 1):
        for name in [out.name, *leftovers(out_dir)]:
            (out_dir / name).unlink(missing_ok=True)
        proc = run(tmp_path, "stamp", str(source), "--number", BODY, "-o", str(out), fault=fault, at=k,
                   path=str(out_dir))
        assert proc.returncode == (137 if fault == "kill" else 2), (k, proc.stderr)
        assert not out.exists() or out.read_bytes() == whole, k
        if fault == "EIO":  # a failure cleans up after itself; a kill leaves a temporary to find later
            assert leftovers(out_dir) == [] and not out.exists(), k


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
