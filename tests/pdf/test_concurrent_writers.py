"""One writer at a time: --in-place and --revert --in-place hold an exclusive lock from reading
the file to their last write; a second writer waits (bounded), then reads the first one's
result. Made deterministic by holding the lock here and watching the second writer wait."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from pithtex import files

from ..conftest import BODY, assert_clean_error, pithtex_cli
from ..pdfkit import make_pdf, qpdf_check

OTHER = "A" * 26
EXE = str(Path(sys.executable).parent / "pithtex")

# Announces (by creating a file) that this process found the lock taken and is waiting.
WAIT_HOOK = r'''
import fcntl, os

_real = fcntl.flock
def flock(fd, op):
    try:
        return _real(fd, op)
    except BlockingIOError:
        open(os.environ["WAITING_FLAG"], "a").close()
        raise
fcntl.flock = flock
'''


def stamped(tmp: Path, source: Path, number: str) -> bytes:
    out = tmp / f"{number[:4]}.pdf"
    assert pithtex_cli("stamp", str(source), "--number", number, "-o", str(out)).returncode == 0
    return out.read_bytes()


def start_waiting_writer(tmp: Path, *args: str) -> subprocess.Popen:
    hook = tmp / "hook"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(WAIT_HOOK)
    flag = tmp / "waiting"
    path_var = os.pathsep.join(filter(None, [str(hook), os.environ.get("PYTHONPATH")]))
    proc = subprocess.Popen([EXE, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "WAITING_FLAG": str(flag), "PYTHONPATH": path_var})
    hang = time.monotonic() + 300  # a hang guard only: the flag appears as soon as it tries the lock
    while not flag.exists():
        assert proc.poll() is None, ("the second writer did not wait for the lock", proc.communicate())
        assert time.monotonic() < hang, "the second writer never tried the lock"
        time.sleep(0.01)
    return proc


def test_a_second_writer_waits_and_reads_what_the_first_wrote(tmp_path: Path):
    paper = make_pdf(tmp_path / "paper.pdf")
    original = paper.read_bytes()
    first = stamped(tmp_path, paper, OTHER)
    with files.locked(paper) as fd:
        second = start_waiting_writer(tmp_path, "stamp", str(paper), "--number", BODY, "--in-place")
        os.pwrite(fd, first[len(original):], len(original))  # the first writer's stamp, under the lock
    _out, err = second.communicate(timeout=60)
    assert second.returncode == 1, err  # it read the first one's number and refused to replace it
    assert f"already carries Pith Number {OTHER}, not {BODY}" in err
    assert paper.read_bytes() == first and qpdf_check(paper) == 0


def test_a_revert_waiting_for_a_stamp_cuts_the_stamp_it_finds(tmp_path: Path):
    paper = make_pdf(tmp_path / "paper.pdf")
    original = paper.read_bytes()
    first = stamped(tmp_path, paper, OTHER)
    with files.locked(paper) as fd:
        second = start_waiting_writer(tmp_path, "stamp", str(paper), "--revert", "--in-place")
        os.pwrite(fd, first[len(original):], len(original))
    _out, err = second.communicate(timeout=60)
    assert second.returncode == 0, err
    assert paper.read_bytes() == original


def test_a_writer_that_waits_too_long_refuses_in_one_line(tmp_path: Path):
    paper = make_pdf(tmp_path / "paper.pdf")
    original = paper.read_bytes()
    with files.locked(paper):
        proc = pithtex_cli("stamp", str(paper), "--number", BODY, "--in-place", env={"PITHTEX_LOCK_WAIT": "0.2"})
    err = assert_clean_error(proc, 1)
    assert f"{paper}: another program is writing it (waited 0.2 s)" in err
    assert paper.read_bytes() == original


def test_dash_o_over_a_file_being_stamped_in_place_waits_for_it(tmp_path: Path):
    """-o replacing a file takes its lock too: an in-place stamp of the old file is not lost
    by appending to a file the rename has just unlinked."""
    paper = make_pdf(tmp_path / "paper.pdf")
    source = make_pdf(tmp_path / "source.pdf", title="other")
    with files.locked(paper):
        writer = start_waiting_writer(tmp_path, "stamp", str(source), "--number", BODY, "-o", str(paper))
        assert writer.poll() is None
    _out, err = writer.communicate(timeout=60)
    assert writer.returncode == 0, err
    assert pithtex_cli("inspect", str(paper), "--json").stdout.count(BODY) >= 1


def test_two_writers_at_the_same_moment(tmp_path: Path):
    """Real races: whichever wins, one number is stamped, the other refused, the file sound."""
    paper = make_pdf(tmp_path / "paper.pdf")
    original = paper.read_bytes()
    for _ in range(8):
        paper.write_bytes(original)
        procs = [subprocess.Popen([EXE, "stamp", str(paper), "--number", number, "--in-place"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for number in (BODY, OTHER)]
        codes = sorted(p.wait(timeout=60) for p in procs)
        for p in procs:
            p.communicate()
        assert codes == [0, 1]
        assert qpdf_check(paper) == 0 and paper.read_bytes().startswith(original)
        assert pithtex_cli("stamp", str(paper), "--revert", "--in-place").returncode == 0
        assert paper.read_bytes() == original
