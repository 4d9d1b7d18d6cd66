"""Every command that writes goes through pithtex/files.py: regular files only, symlinks
followed to their target, no folders created, modes kept, nothing half-written or left over.
Real device nodes, FIFOs, symlinks, read-only and full file systems."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from pithtex.pdf.facts import inspect_pdf

from .conftest import BODY, ROOT, assert_clean_error, pithtex_cli
from .fskit import assert_read_only, leftovers, small_pdf, tmpfs


def stamp(*args: str, cwd: Path | None = None):
    return pithtex_cli("stamp", *args, "--number", BODY, cwd=cwd)


def stamped(path: Path) -> bool:
    return inspect_pdf(path)["number"] is not None


def test_a_device_node_is_refused_and_left_alone(tmp_path):
    device = tmp_path / "null"
    os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a real /dev/null twin
    p = stamp(str(small_pdf(tmp_path / "in.pdf")), "-o", str(device))
    assert "character device, not a regular file" in assert_clean_error(p)
    assert stat.S_ISCHR(device.lstat().st_mode)
    assert "character device" in assert_clean_error(pithtex_cli("badge", BODY, "-o", str(device)))


def test_a_fifo_is_refused_and_left_alone(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    p = stamp(str(small_pdf(tmp_path / "in.pdf")), "-o", str(fifo))
    assert "is a FIFO" in assert_clean_error(p)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert "is a FIFO" in assert_clean_error(pithtex_cli("badge", BODY, "-o", str(fifo)))


def test_output_symlink_is_followed_to_its_target(tmp_path):
    target = tmp_path / "real.pdf"
    target.write_bytes(b"old")
    target.chmod(0o640)
    link = tmp_path / "link.pdf"
    link.symlink_to(target)
    p = stamp(str(small_pdf(tmp_path / "in.pdf")), "-o", str(link))
    assert p.returncode == 0, p.stderr
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert stamped(target) and stat.S_IMODE(target.stat().st_mode) == 0o640
    assert str(target) in p.stdout  # the report names the file really written
    svg = tmp_path / "badge.svg"
    (tmp_path / "badge-link.svg").symlink_to(svg)
    assert pithtex_cli("badge", BODY, "-o", str(tmp_path / "badge-link.svg")).returncode == 0
    assert svg.read_text().startswith("<svg") and (tmp_path / "badge-link.svg").is_symlink()


def test_in_place_through_a_symlink_stamps_the_target_and_keeps_its_mode(tmp_path):
    paper = small_pdf(tmp_path / "paper.pdf")
    paper.chmod(0o604)
    link = tmp_path / "link.pdf"
    link.symlink_to(paper.name)
    p = pithtex_cli("stamp", "link.pdf", "--in-place", "--number", BODY, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert link.is_symlink() and stamped(paper)
    assert stat.S_IMODE(paper.stat().st_mode) == 0o604
    assert sorted(x.name for x in tmp_path.iterdir()) == ["link.pdf", "paper.pdf"]


def test_dash_and_folders_are_refused(tmp_path):
    small_pdf(tmp_path / "in.pdf")
    assert "writes files only, not to stdout" in assert_clean_error(stamp("in.pdf", "-o", "-", cwd=tmp_path))
    assert not (tmp_path / "-").exists()
    (tmp_path / "folder").mkdir()
    assert "is a folder" in assert_clean_error(stamp("in.pdf", "-o", "folder", cwd=tmp_path))
    assert "is a folder" in assert_clean_error(pithtex_cli("badge", BODY, "-o", str(tmp_path / "folder")))
    assert list((tmp_path / "folder").iterdir()) == []


@pytest.mark.parametrize("command", ["stamp", "badge", "badge-png", "embed", "bundle"])
def test_a_missing_folder_is_named_and_not_created(tmp_path, command):
    small_pdf(tmp_path / "in.pdf")
    out = tmp_path / "missing" / "dir"
    args = {
        "stamp": ["stamp", "in.pdf", "--number", BODY, "-o", str(out / "x.pdf")],
        "badge": ["badge", BODY, "-o", str(out / "x.svg")],
        "badge-png": ["badge", BODY, "--format", "png", "-o", str(out / "x.png")],
        "embed": ["badge", BODY, "--format", "embed", "-o", str(out / "x.html")],
        "bundle": ["bundle", str(ROOT / "examples" / "article"), "-o", str(out / "x.tar.gz")],
    }[command]
    err = assert_clean_error(pithtex_cli(*args, cwd=tmp_path))
    assert f"the folder {out} does not exist" in err
    assert not (tmp_path / "missing").exists()


@pytest.mark.parametrize("command", ["stamp", "stamp-in-place", "badge", "badge-png", "embed"])
def test_a_read_only_folder_is_a_clean_exit_2(tmp_path, command):
    with tmpfs(tmp_path / "ro", "ro") as ro:
        assert_read_only(ro)
        args = {
            "stamp": ["stamp", str(small_pdf(tmp_path / "in.pdf")), "--number", BODY, "-o", str(ro / "x.pdf")],
            "stamp-in-place": None,
            "badge": ["badge", BODY, "-o", str(ro / "x.svg")],
            "badge-png": ["badge", BODY, "--format", "png", "-o", str(ro / "x.png")],
            "embed": ["badge", BODY, "--format", "embed", "-o", str(ro / "x.html")],
        }[command]
        if args is None:  # a PDF inside a read-only folder, stamped in place
            with tmpfs(tmp_path / "rw", "size=1m") as rw:
                small_pdf(rw / "p.pdf")
                subprocess.run(["mount", "-o", "remount,ro", str(rw)], check=True)
                err = assert_clean_error(pithtex_cli("stamp", str(rw / "p.pdf"), "--in-place", "--number", BODY))
                assert not stamped(rw / "p.pdf")
        else:
            err = assert_clean_error(pithtex_cli(*args))
        assert "Read-only file system" in err or "Permission denied" in err
        assert list(ro.iterdir()) == []


def test_a_full_file_system_leaves_nothing_behind(tmp_path):
    big = small_pdf(tmp_path / "big.pdf", padding=200_000)
    with tmpfs(tmp_path / "small", "size=64k") as small:
        err = assert_clean_error(stamp(str(big), "-o", str(small / "out.pdf")))
        assert "No space left on device" in err
        assert list(small.iterdir()) == [] and leftovers(small) == []


def test_batch_outputs_that_collide_are_refused_before_writing(tmp_path):
    for folder in ("a", "b", "out"):
        (tmp_path / folder).mkdir()
    small_pdf(tmp_path / "a" / "p.pdf")
    small_pdf(tmp_path / "b" / "p.pdf")
    err = assert_clean_error(stamp("a/p.pdf", "b/p.pdf", "-o", "out", cwd=tmp_path))
    assert "a/p.pdf and b/p.pdf would both be written to out/p.pdf" in err
    assert list((tmp_path / "out").iterdir()) == []
    # One input's output would replace another input: refused too, both inputs untouched.
    small_pdf(tmp_path / "a" / "p.pith.pdf")
    before = (tmp_path / "a" / "p.pith.pdf").read_bytes()
    err = assert_clean_error(stamp("a/p.pdf", "a/p.pith.pdf", cwd=tmp_path))
    assert "would replace a/p.pith.pdf, another input" in err
    assert (tmp_path / "a" / "p.pith.pdf").read_bytes() == before


def test_new_files_honour_the_umask_and_replaced_files_keep_their_mode(tmp_path):
    exe = Path(sys.executable).parent / "pithtex"
    out = tmp_path / "upload.tar.gz"
    for umask, mode in (("022", 0o644), ("077", 0o600)):
        out.unlink(missing_ok=True)
        script = f'umask {umask}; exec "$0" bundle "$1" -o "$2"'
        p = subprocess.run(["sh", "-c", script, str(exe), str(ROOT / "examples" / "article"), str(out)],
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stdout[-1000:] + p.stderr
        assert stat.S_IMODE(out.stat().st_mode) == mode
    badge = tmp_path / "b.svg"
    badge.write_text("old")
    badge.chmod(0o600)
    assert pithtex_cli("badge", BODY, "-o", str(badge)).returncode == 0
    assert stat.S_IMODE(badge.stat().st_mode) == 0o600 and badge.read_text().startswith("<svg")
    assert leftovers(tmp_path) == []


KILL_BEFORE_RENAME = """
import os
import signal

signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal, even if the suite runs in the background

real_replace = os.replace

def replace(src, dst, **kw):
    os.kill(os.getpid(), signal.{signal})  # arrives while the temporary file is complete
    return real_replace(src, dst, **kw)

os.replace = replace
"""


@pytest.mark.parametrize(("name", "code"), [("SIGTERM", 143), ("SIGINT", 130)])
def test_a_signal_in_the_middle_of_a_write_leaves_nothing_behind(tmp_path, name, code):
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(KILL_BEFORE_RENAME.format(signal=name))
    out = tmp_path / "out"
    out.mkdir()
    (out / "b.svg").write_text("old")
    p = pithtex_cli("badge", BODY, "-o", str(out / "b.svg"), env={"PYTHONPATH": str(hook)})
    assert p.returncode == code and "Traceback" not in p.stderr
    assert sorted(x.name for x in out.iterdir()) == ["b.svg"] and (out / "b.svg").read_text() == "old"


def test_an_input_error_inside_the_write_is_not_called_an_output_error(tmp_path):
    """atomic_output names only its own failures; what the block reads fails as itself."""
    from pithtex.files import OutputError, atomic_output

    out = tmp_path / "out.pdf"
    with pytest.raises(OSError) as raised, atomic_output(out) as fh:
        fh.write(b"%PDF-")
        raise OSError(5, "Input/output error", str(tmp_path / "in.pdf"))
    assert not isinstance(raised.value, OutputError) and raised.value.filename.endswith("in.pdf")
    assert sorted(p.name for p in tmp_path.iterdir()) == [], "no output, no temporary file"
