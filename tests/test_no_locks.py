"""A file system whose flock fails (ENOLCK: NFS without a lock daemon, some FUSE and CIFS
mounts) never gets an in-place change unlocked in silence: the change is refused in one
line, the file is left as it was, and `-o` (a new file renamed over) still works.

The failing file system is simulated the way the kernel answers there: fcntl.flock raising
ENOLCK, in-process through the library and, for two real writers at once, in subprocesses
through a sitecustomize on PYTHONPATH."""

from __future__ import annotations

import errno
import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pithtex import files
from pithtex.errors import OutputError
from pithtex.number import PithNumber
from pithtex.pdf.stamp import Options, revert_file, stamp_file

from .conftest import BODY, assert_clean_error, pithtex_cli
from .pdfkit import make_pdf, qpdf_check

OTHER = "A" * 26
EXE = str(Path(sys.executable).parent / "pithtex")

NO_LOCKS_HOOK = r'''
import errno, fcntl, os

def flock(fd, op):
    raise OSError(errno.{name}, os.strerror(errno.{name}))
fcntl.flock = flock
'''


def _no_flock(monkeypatch: pytest.MonkeyPatch, code: int = errno.ENOLCK) -> None:
    def flock(fd: int, op: int) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(fcntl, "flock", flock)


@pytest.mark.parametrize("code", [errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS])
def test_an_in_place_stamp_without_locks_is_refused_and_changes_nothing(tmp_path, monkeypatch, code):
    paper = make_pdf(tmp_path / "paper.pdf")
    before = paper.read_bytes()
    _no_flock(monkeypatch, code)
    with pytest.raises(OutputError, match=r"cannot lock files .* write a new file with -o instead"):
        stamp_file(paper, paper, Options(number=PithNumber.parse(BODY)))
    assert paper.read_bytes() == before


def test_a_revert_in_place_without_locks_is_refused_and_changes_nothing(tmp_path, monkeypatch):
    paper = make_pdf(tmp_path / "paper.pdf")
    stamp_file(paper, paper, Options(number=PithNumber.parse(BODY)))
    stamped = paper.read_bytes()
    _no_flock(monkeypatch)
    with pytest.raises(OutputError, match="cannot lock files"):
        revert_file(paper, paper)
    assert paper.read_bytes() == stamped


def test_dash_o_over_an_existing_file_still_works_without_locks(tmp_path, monkeypatch):
    """-o renames a whole new file over the old one: no lock is needed for that, and none of the
    in-place writers it would wait for can run on this file system."""
    paper = make_pdf(tmp_path / "paper.pdf")
    out = tmp_path / "out.pdf"
    out.write_bytes(b"old")
    _no_flock(monkeypatch)
    stamp_file(paper, out, Options(number=PithNumber.parse(BODY)))
    assert out.read_bytes().startswith(paper.read_bytes()) and qpdf_check(out) == 0


def _writer(hook: Path, paper: Path, number: str) -> subprocess.Popen:
    path_var = os.pathsep.join(filter(None, [str(hook), os.environ.get("PYTHONPATH")]))
    return subprocess.Popen([EXE, "stamp", str(paper), "--number", number, "--in-place"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": path_var})


def test_two_writers_on_a_file_system_without_locks_lose_nothing_silently(tmp_path):
    """The red team's case: two in-place stamps at once where flock says ENOLCK. Each refuses
    in one line (exit 2); none exits 0 having lost the other's number, and the file stays a
    PDF that inspect reads and --revert -o accepts."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(NO_LOCKS_HOOK.format(name="ENOLCK"))
    paper = make_pdf(tmp_path / "paper.pdf")
    before = paper.read_bytes()
    writers = [_writer(hook, paper, BODY), _writer(hook, paper, OTHER)]
    for proc in writers:
        out, err = proc.communicate(timeout=120)
        assert_clean_error(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
        assert "cannot lock files (flock: No locks available)" in err and "-o instead" in err
    assert paper.read_bytes() == before and qpdf_check(paper) == 0
    assert pithtex_cli("inspect", str(paper)).returncode == 0
    out = tmp_path / "stamped.pdf"
    done = pithtex_cli("stamp", str(paper), "--number", BODY, "-o", str(out), env={"PYTHONPATH": str(hook)})
    assert done.returncode == 0, done.stderr
    reverted = pithtex_cli("stamp", str(out), "--revert", "-o", str(tmp_path / "back.pdf"))
    assert reverted.returncode == 0 and (tmp_path / "back.pdf").read_bytes() == before


@pytest.mark.parametrize("value", ["inf", "nan", "-1", "abc", "1e309"])
def test_a_lock_wait_that_is_no_limit_is_refused_like_pith_timeout(tmp_path, value):
    paper = make_pdf(tmp_path / "paper.pdf")
    before = paper.read_bytes()
    p = pithtex_cli("stamp", str(paper), "--number", BODY, "--in-place", env={"PITHTEX_LOCK_WAIT": value})
    assert_clean_error(p)
    assert f"PITHTEX_LOCK_WAIT={value!r}: give a non-negative, finite number of seconds" in p.stderr
    assert paper.read_bytes() == before


def test_a_lock_wait_of_zero_means_do_not_wait(tmp_path, monkeypatch):
    monkeypatch.setenv("PITHTEX_LOCK_WAIT", "0")
    paper = make_pdf(tmp_path / "paper.pdf")
    with files.locked(paper):
        proc = subprocess.run([EXE, "stamp", str(paper), "--number", BODY, "--in-place"], capture_output=True,
                              text=True, timeout=120)
    assert proc.returncode == 1 and "another program is writing it (waited 0 s)" in proc.stderr, proc.stderr
