"""Reading a PDF inside hard bounds, and many PDFs without losing a verdict (issue 32, "unbounded
work" and "verify FOLDER/ loses verdicts").

Each PDF is read in a forked child under an address-space limit, a CPU limit and a deadline
(pithtex/workers/bounded.py): a child that dies is its file's "unchecked: reading X stopped (why)",
never a traceback nor the end of the run. Everything here runs in real processes, with real
signals; a test waits on events (a child writing its pid into a FIFO, a process ending), never
on the clock, and guards memory by the children's own peak (ru_maxrss), a count.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from . import bombkit
from .arxivkit import arxiv_pdf
from .conftest import assert_clean_error, pithtex_cli

MIB = 1024  # ru_maxrss is in KiB


def python(code: str, *args: str) -> subprocess.CompletedProcess:
    """`code` in a fresh interpreter (one thread, so the reads fork), arguments in sys.argv[1:]."""
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300)


# -- one call in a bounded child ---------------------------------------------------------------
DEATHS = """
import json, os, signal, sys, time
from pithtex.errors import Refused
from pithtex.workers import bounded

def kill_self():
    os.kill(os.getpid(), signal.SIGKILL)

def spin():
    while True:
        pass

def refuse():
    raise Refused("no, and why")

small = bounded.Limits(memory=64 * 2**20, cpu=1, wall=0.5, answer=1000)
cases = {"abort": (os.abort, ()), "kill": (kill_self, ()), "memory": (bytearray, (2**30,)),
         "cpu": (spin, ()), "deadline": (time.sleep, (3600,)), "answer": (bytes, (10_000,)),
         "refused": (refuse, ()), "ok": (sum, ([1, 2, 3],))}
out = {}
for name, (call, args) in cases.items():
    limits = small._replace(wall=3600.0) if name == "cpu" else small
    try:
        out[name] = ["answer", bounded.run(call, args, name=f"{name}.pdf", limits=limits).value]
    except bounded.Stopped as exc:
        out[name] = ["stopped", str(exc), exc.exit_code]
    except Refused as exc:
        out[name] = ["refused", str(exc), exc.exit_code]
out["forks"], out["alive"] = bounded.forks, len(bounded.alive)
print(json.dumps(out))
"""


def test_a_child_that_dies_or_passes_a_limit_is_one_line_naming_the_file_and_why():
    out = json.loads(python(DEATHS).stdout)
    assert out.pop("ok") == ["answer", 6]
    assert out.pop("refused") == ["refused", "no, and why", 1]  # an error crosses with its class and code
    assert (out.pop("forks"), out.pop("alive")) == (8, 0)  # one child each, none left
    why = {name: said for name, (kind, said, code) in out.items() if kind == "stopped" and code == 3}
    assert why == {
        "abort": "reading abort.pdf stopped (the reader aborted (SIGABRT), as PDFium does when it cannot go on)",
        "kill": "reading kill.pdf stopped (its worker was killed (SIGKILL))",
        "memory": "reading memory.pdf stopped (it needed over 64 MiB of memory)",
        "cpu": "reading cpu.pdf stopped (it used over 1 s of CPU)",
        "deadline": "reading deadline.pdf stopped (it took over 0.5 s)",
        "answer": "reading answer.pdf stopped (its answer was over 1,000 bytes)",
    }


# -- the bombs: each ends in one line, its reader's peak memory bounded ----------------------------
PEAK = """
import resource, sys
from pithtex.cli import main
code = main(sys.argv[1:])
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, code)
"""


@pytest.mark.parametrize(("make", "code", "says"), [
    (lambda p: bombkit.metadata_bomb(p), 2, "its XMP metadata (the catalog's /Metadata stream) inflates to over 8 MiB"),
    (lambda p: bombkit.fan_out(p, 6, width=8), 3, "cannot tell which record this PDF is"),
    (lambda p: bombkit.fan_out(p, 24), 3, "cannot tell which record this PDF is"),
    (lambda p: bombkit.type3(p), 3, "cannot tell which record this PDF is"),
], ids=["metadata", "fan-out", "deep-forms", "type3"])
def test_each_bomb_ends_in_one_line_within_bounded_memory(tmp_path, make, code, says):
    """verify, badge and stamp --record on each bomb: one line, and the worker that read it peaked
    under 300 MB (the metadata bomb held 2.6 GB; pithtex's reader and PDFium are refused it by
    counts before they inflate or walk it)."""
    bomb = make(tmp_path / "bomb.pdf")
    assert bomb.stat().st_size < 500_000
    proc = python(PEAK, "verify", "--offline", str(bomb))
    peak, exit_code = proc.stdout.split()
    assert int(exit_code) == code and says in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert 0 < int(peak) < 300 * MIB, peak  # the forked reader's own peak (it ran: the count is not 0)
    if code == 2:  # badge reads the PDF the same way; stamp with a record refuses the packet too
        assert says in assert_clean_error(pithtex_cli("badge", "--offline", str(bomb)), 2)


def test_a_metadata_bomb_is_refused_by_stamp_with_a_record(tmp_path):
    from .recordkit import TestKey, canonical, full_record

    record = tmp_path / "record.json"
    title = "Efficient Routing in Sparse Expert Networks"
    record.write_text(json.dumps(full_record(canonical(title=title), TestKey())))
    bomb = bombkit.metadata_bomb(tmp_path / "bomb.pdf")
    proc = python(PEAK, "stamp", str(bomb), "--record", str(record), "-o", str(tmp_path / "out.pdf"))
    peak, exit_code = proc.stdout.split()
    assert int(exit_code) == 1 and "XMP metadata is unreadable" in proc.stderr, proc.stderr
    assert int(peak) < 300 * MIB and not (tmp_path / "out.pdf").exists()


# -- many files: a killed worker, an unlistable folder, Ctrl-C ------------------------------------
# The real command line, with pdf/view.read_view wrapped so a file named stall*.pdf writes its
# reader's pid into the FIFO named after it and then waits forever: the test sees the event,
# then sends its signal.
STALLING = """
import os, signal, sys
from pithtex.pdf import view
real = view.read_view
def stalling(path, *args, **kw):
    name = os.path.basename(str(path))
    if name.startswith("stall"):
        with open(os.path.join(sys.argv[1], name + ".fifo"), "w") as fifo:
            fifo.write(f"{os.getpid()}\\n")
        while True:
            signal.pause()
    return real(path, *args, **kw)
view.read_view = stalling
if os.environ.get("TEST_WALL"):  # a short deadline, to see it pass
    from pithtex import limits
    limits.READ_WALL_SECONDS, limits.NETWORK_SECONDS = float(os.environ["TEST_WALL"]), 0.1
from pithtex.cli import main
sys.exit(main(sys.argv[2:]))
"""


def stalled_run(tmp_path: Path, folder: Path, *args: str, env: dict | None = None) -> subprocess.Popen:
    fifos = tmp_path / "fifos"
    fifos.mkdir(exist_ok=True)
    for pdf in folder.rglob("stall*.pdf"):
        os.mkfifo(fifos / (pdf.name + ".fifo"))
    return subprocess.Popen([sys.executable, "-c", STALLING, str(fifos), "verify", "--offline", str(folder), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})


def reader_pid(tmp_path: Path, name: str) -> int:
    """Block until the reader of `name` has started and said its pid."""
    with open(tmp_path / "fifos" / (name + ".fifo")) as fifo:
        return int(fifo.readline())


def papers(folder: Path, *names: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        arxiv_pdf(folder / name)
    return folder


def gone(pid: int) -> bool:
    return not Path(f"/proc/{pid}").exists()  # reaped by its parent: not even a zombie


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_killed_worker_costs_its_file_only_by_name(tmp_path, jobs):
    folder = papers(tmp_path / "papers", "a.pdf", "stall.pdf", "z.pdf")
    proc = stalled_run(tmp_path, folder, "--jobs", jobs)
    pid = reader_pid(tmp_path, "stall.pdf")
    os.kill(pid, signal.SIGKILL)
    out, err = proc.communicate(timeout=300)
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == [str(folder / n) for n in ("a.pdf", "stall.pdf", "z.pdf")], out
    assert lines[1].endswith(f"unchecked: reading {folder / 'stall.pdf'} stopped (its worker was killed (SIGKILL))")
    assert "stopped" not in lines[0] + lines[2] and "Traceback" not in err, out + err
    assert proc.returncode == 3 and err.strip().endswith("pithtex: 3 files: 3 unchecked"), err
    assert gone(pid)


def unlistable(folder: Path) -> Path:
    """A real folder no process can list, root included: its path is longer than PATH_MAX
    (made one level at a time, relative to the level above)."""
    name = "d" * 255
    folder.mkdir()
    fd = os.open(folder, os.O_RDONLY)
    try:
        for _ in range(17):  # 17 x 256 characters: past Linux's 4,096
            os.mkdir(name, dir_fd=fd)
            deeper = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = deeper
    finally:
        os.close(fd)
    return folder


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_unlistable_folder_is_its_own_line_and_the_run_goes_on(tmp_path, jobs):
    folder = papers(tmp_path / "papers", "a.pdf")
    unlistable(folder / "b")
    papers(folder / "c", "z.pdf")
    proc = pithtex_cli("verify", "--offline", str(folder), "--jobs", jobs)
    lines = proc.stdout.splitlines()
    assert len(lines) == 3 and lines[0].startswith(str(folder / "a.pdf")), proc.stdout + proc.stderr
    assert "unchecked: the folder" in lines[1] and "cannot be listed (File name too long); its PDFs were not checked" \
        in lines[1]
    assert lines[2].startswith(str(folder / "c" / "z.pdf"))
    assert proc.returncode == 3 and proc.stderr.strip() == "pithtex: 3 files: 3 unchecked", proc.stderr


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_twice_ends_the_run_and_every_worker(tmp_path, jobs):
    """Two Ctrl-C 10 ms apart while every worker is busy: the command ends, interrupted (130),
    its workers killed and reaped (they hung, both alive, before)."""
    folder = papers(tmp_path / "papers", "stall1.pdf", "stall2.pdf")
    proc = stalled_run(tmp_path, folder, "--jobs", jobs)
    pids = [reader_pid(tmp_path, "stall1.pdf")] + ([reader_pid(tmp_path, "stall2.pdf")] if jobs == "2" else [])
    proc.send_signal(signal.SIGINT)
    import time

    time.sleep(0.01)  # the second Ctrl-C of an impatient user
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=300)
    assert proc.returncode == 130 and err.strip().splitlines()[-1] == "pithtex: interrupted", err
    assert all(gone(pid) for pid in pids), pids


@pytest.mark.parametrize("asked", ["99999999999999999999", "0", "-1", "300"])
def test_jobs_is_a_usable_count_of_processes(tmp_path, asked):
    """--jobs takes 1 to four a usable CPU (issue 32); anything else is one line, exit 2."""
    folder = papers(tmp_path / "papers", "a.pdf")
    proc = pithtex_cli("verify", "--offline", str(folder), "--jobs", asked)
    from pithtex.limits import JOBS_PER_CPU

    most = len(os.sched_getaffinity(0)) * JOBS_PER_CPU
    said = assert_clean_error(proc, 2)
    assert asked in said and f"from 1 to {most}" in said, said


@pytest.mark.parametrize("asked", ["0", "300"])
def test_jobs_is_checked_for_one_file_too(tmp_path, asked):
    """One PDF reads no more than one at a time, but a careless --jobs is said, not ignored:
    the same line, before any reading or fetching (offline here: no record is looked for)."""
    proc = pithtex_cli("verify", "--offline", str(papers(tmp_path / "papers", "a.pdf") / "a.pdf"), "--jobs", asked)
    said = assert_clean_error(proc, 2)
    assert said.startswith(f"pithtex: --jobs {asked}: give a number of processes from 1 to"), said


def test_jobs_at_four_a_cpu_is_taken(tmp_path):
    from pithtex.limits import JOBS_PER_CPU

    most = len(os.sched_getaffinity(0)) * JOBS_PER_CPU
    proc = pithtex_cli("verify", "--offline", str(papers(tmp_path / "papers", "a.pdf")), "--jobs", str(most))
    assert proc.returncode == 3 and "note" not in proc.stderr, proc.stderr  # offline: unchecked, read


FORKS = """
import sys
from pithtex import limits
from pithtex.client import Client
from pithtex.workers import bounded
limits.READS_PER_WORKER = int(sys.argv[4])
client = Client(base_url="http://127.0.0.1:9", offline=True, cache=sys.argv[1])
n = sum(1 for _ in client.verify_files([sys.argv[2]], jobs=int(sys.argv[3])))
print(n, bounded.forks, len(bounded.alive))
"""


@pytest.mark.parametrize(("jobs", "reads", "forks"), [("1", "100", "1"), ("3", "100", "3"), ("1", "2", "3"),
                                                     ("2", "2", "3")])
def test_a_run_of_many_files_forks_once_a_worker_not_once_a_file(tmp_path, jobs, reads, forks):
    """A count, not a time: one fork a worker (a worker reading for the pool reads in place, it
    forks no other), whether one by one or three at a time, a worker replaced after `reads`
    files (each later worker closes the pipes of those before it, so a retired one sees its
    end), and none left afterwards."""
    folder = papers(tmp_path / "papers", "a.pdf", "b.pdf", "c.pdf", "d.pdf", "e.pdf")
    out = python(FORKS, str(tmp_path / "cache"), str(folder), jobs, reads)
    assert out.stdout.split() == ["5", forks, "0"], out.stdout + out.stderr


def test_one_pdf_whose_reader_is_killed_is_unchecked_in_one_line(tmp_path):
    """`verify one.pdf`: its reader killed (as PDFium aborting or the kernel's OOM killer would)
    is one line naming the file and why, exit 3."""
    folder = papers(tmp_path / "papers", "stall.pdf")
    fifos = tmp_path / "fifos"
    fifos.mkdir()
    os.mkfifo(fifos / "stall.pdf.fifo")
    proc = subprocess.Popen([sys.executable, "-c", STALLING, str(fifos), "verify", "--offline",
                             str(folder / "stall.pdf")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    pid = reader_pid(tmp_path, "stall.pdf")
    assert pid != proc.pid  # read in a worker, not in the command's process
    os.kill(pid, signal.SIGKILL)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 3 and out == "", (out, err)
    assert err.strip() == f"pithtex: reading {folder / 'stall.pdf'} stopped (its worker was killed (SIGKILL))"
    assert gone(pid)


@pytest.mark.parametrize(("jobs", "wall"), [("1", "5"), ("2", "5.2")])
def test_a_worker_past_its_deadline_costs_its_file_only(tmp_path, jobs, wall):
    """A read that never ends (its reader waits forever) is stopped at its deadline (shortened
    here to 5 s, which the other files' reads stay far within, and for a worker of the pool two
    network deadlines of 0.1 s more), by name; the next file is read by a new worker."""
    folder = papers(tmp_path / "papers", "a.pdf", "stall.pdf", "z.pdf")
    proc = stalled_run(tmp_path, folder, "--jobs", jobs, env={"TEST_WALL": "5"})
    pid = reader_pid(tmp_path, "stall.pdf")
    out, err = proc.communicate(timeout=300)
    lines = out.splitlines()
    assert len(lines) == 3 and lines[1].endswith(f"unchecked: reading {folder / 'stall.pdf'} stopped (it took over "
                                                  f"{wall} s)"), out + err
    assert "stopped" not in lines[0] + lines[2] and proc.returncode == 3, out + err
    assert gone(pid)
