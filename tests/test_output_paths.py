"""Every command that writes goes through pithtex/files.py: regular files only, symlinks
followed to their target, no folders created, modes kept, nothing half-written or left over.
Real device nodes, FIFOs, symlinks, read-only and full file systems."""

from __future__ import annotations

import contextlib
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
    err = assert_clean_error(pithtex_cli("badge", BODY, "--format", "md", "-o", str(tmp_path / "folder")))
    assert "is a folder" in err
    assert list((tmp_path / "folder").iterdir()) == []
    # stamp writes into a folder it is given (batch form), so one input goes in by its name
    assert stamp("in.pdf", "-o", "folder", cwd=tmp_path).returncode == 0
    assert [p.name for p in (tmp_path / "folder").iterdir()] == ["in.pdf"]


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
import contextlib
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
    assert_badge_write_survives(tmp_path, KILL_BEFORE_RENAME.format(signal=name), code)


def assert_badge_write_survives(tmp_path, hook_code: str, code: int) -> None:
    """`badge -o out/b.svg` over an old b.svg, with `hook_code` planted as sitecustomize: the
    command ends with `code`, no traceback, and out/ holds the old b.svg alone."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(hook_code)
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


# -- round 4: a folder named with a slash, a full disk named, a second signal held -----------
def test_dash_o_folder_with_one_input_writes_into_the_folder(tmp_path):
    """`papers/*.pdf -o stamped/` is the documented batch form: with one match it writes
    stamped/NAME, never a file called `stamped`; a slash naming no folder is refused."""
    (tmp_path / "papers").mkdir()
    small_pdf(tmp_path / "papers" / "one.pdf")
    (tmp_path / "stamped").mkdir()
    p = stamp("papers/one.pdf", "-o", "stamped/", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert [x.name for x in (tmp_path / "stamped").iterdir()] == ["one.pdf"]
    assert stamped(tmp_path / "stamped" / "one.pdf")
    err = assert_clean_error(stamp("papers/one.pdf", "-o", "new/", cwd=tmp_path))
    assert "new/: no such folder" in err
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize(("args", "name"), [(["-o", "site/"], "pith-YBK5PTAK.svg"),
                                           (["-o", "site", "--format", "png", "--theme", "dark"],
                                            "pith-YBK5PTAK-dark.png")])
def test_an_image_badge_into_a_folder_gets_the_name_the_snippets_use(tmp_path, args, name):
    (tmp_path / "site").mkdir()
    p = pithtex_cli("badge", BODY, *args, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert [x.name for x in (tmp_path / "site").iterdir()] == [name]
    err = assert_clean_error(pithtex_cli("badge", BODY, "-o", "nosite/", cwd=tmp_path))
    assert "the folder nosite does not exist" in err and not (tmp_path / "nosite").exists()


@pytest.mark.parametrize("command", ["badge-md", "badge-embed", "bundle"])
def test_a_trailing_slash_is_never_a_file_for_badge_and_bundle(tmp_path, command):
    args = {
        "badge-md": ["badge", BODY, "--format", "md", "-o", "new/"],
        "badge-embed": ["badge", BODY, "--format", "embed", "-o", "new/"],
        "bundle": ["bundle", str(ROOT / "examples" / "article"), "-o", "new/"],
    }[command]
    err = assert_clean_error(pithtex_cli(*args, cwd=tmp_path))
    assert "new/: names a folder (it ends in /), and none is there; give a file name" in err
    assert list(tmp_path.iterdir()) == []


def test_the_same_file_typed_twice_is_named_as_typed(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "out").mkdir()
    small_pdf(tmp_path / "a" / "r.pdf")
    err = assert_clean_error(stamp("a/r.pdf", "./a/r.pdf", "-o", "out", cwd=tmp_path))
    assert "a/r.pdf and ./a/r.pdf would both be written to out/r.pdf" in err


def _full(folder: Path) -> None:
    """Fill a 64k tmpfs to its last page: the next write of any size fails with ENOSPC."""
    fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        with contextlib.suppress(OSError):
            while os.write(fd, b"\0" * 4096):
                pass
    finally:
        os.close(fd)


@pytest.mark.parametrize("command", ["badge-svg", "badge-png", "badge-embed", "bundle"])
def test_a_full_disk_in_badge_and_bundle_names_the_file(tmp_path, command):
    with tmpfs(tmp_path / "small", "size=64k") as small:
        _full(small)
        out = {"badge-svg": "b.svg", "badge-png": "b.png", "badge-embed": "b.html", "bundle": "up.tar.gz"}[command]
        args = {
            "badge-svg": ["badge", BODY, "-o", str(small / out)],
            "badge-png": ["badge", BODY, "--format", "png", "--scale", "2", "-o", str(small / out)],
            "badge-embed": ["badge", BODY, "--format", "embed", "-o", str(small / out)],
            "bundle": ["bundle", str(ROOT / "examples" / "article"), "-o", str(small / out)],
        }[command]
        err = assert_clean_error(pithtex_cli(*args, cwd=tmp_path, timeout=300))
        named = small / ("pith-badge.js" if command == "badge-embed" else out)
        assert f"{named}: cannot write it (No space left on device)" in err
        assert sorted(p.name for p in small.iterdir()) == ["filler"]


SECOND_SIGNAL_IN_CLEAN_UP = """
import contextlib
import os
import signal

signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal, even if the suite runs in the background

real_replace, real_unlink = os.replace, os.unlink

def replace(src, dst, **kw):
    os.kill(os.getpid(), signal.{signal})  # the first: the temporary file is complete
    return real_replace(src, dst, **kw)

def unlink(path, **kw):
    if ".pithtex-" in os.fspath(path):
        os.kill(os.getpid(), signal.{signal})  # the second, as the clean-up removes it
    return real_unlink(path, **kw)

os.replace, os.unlink = replace, unlink
"""


@pytest.mark.parametrize(("name", "code"), [("SIGTERM", 143), ("SIGINT", 130)])
def test_a_second_signal_during_the_clean_up_still_leaves_nothing_behind(tmp_path, name, code):
    assert_badge_write_survives(tmp_path, SECOND_SIGNAL_IN_CLEAN_UP.format(signal=name), code)


SECOND_SIGNAL_IN_CUT_BACK = """
import contextlib
import os
import signal

signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal, even if the suite runs in the background

real_pwrite, real_ftruncate = os.pwrite, os.ftruncate

def pwrite(fd, data, offset):
    n = real_pwrite(fd, data, offset)
    os.kill(os.getpid(), signal.{signal})  # the first: part of the update is on disk
    return n

def ftruncate(fd, length):
    os.kill(os.getpid(), signal.{signal})  # the second, as the update is cut back
    return real_ftruncate(fd, length)

os.pwrite, os.ftruncate = pwrite, ftruncate
"""


@pytest.mark.parametrize(("name", "code"), [("SIGTERM", 143), ("SIGINT", 130)])
def test_a_second_signal_during_an_in_place_cut_back_still_gives_the_original(tmp_path, name, code):
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(SECOND_SIGNAL_IN_CUT_BACK.format(signal=name))
    paper = small_pdf(tmp_path / "p.pdf")
    before = paper.read_bytes()
    p = pithtex_cli("stamp", str(paper), "--number", BODY, "--in-place", env={"PYTHONPATH": str(hook)})
    assert p.returncode == code and "Traceback" not in p.stderr, p.stderr
    assert paper.read_bytes() == before
