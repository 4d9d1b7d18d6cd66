"""The sandbox is arXiv-like: nothing of the author's TeX set-up leaks in, and runs are bounded."""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ..conftest import ROOT, assert_clean_error, pithtex_cli

PLAIN = ROOT / "tests" / "fixtures" / "arxiv" / "plain"


def copy_plain(tmp_path: Path, old: str, new: str) -> Path:
    dest = tmp_path / "paper"
    shutil.copytree(PLAIN, dest)
    tex = dest / "paper.tex"
    tex.write_text(tex.read_text().replace(old, new, 1))
    return dest


def test_personal_texmf_tree_and_texinputs_do_not_count(tmp_path: Path):
    home = tmp_path / "texmf" / "tex" / "latex"
    home.mkdir(parents=True)
    (home / "mypersonalmacros.sty").write_text("\\ProvidesPackage{mypersonalmacros}\n")
    paper = copy_plain(tmp_path, "\\usepackage{hyperref}", "\\usepackage{hyperref}\n\\usepackage{mypersonalmacros}")
    env = {"TEXMFHOME": str(tmp_path / "texmf"), "TEXINPUTS": f"{home}:"}
    p = pithtex_cli("check", str(paper), "--json", env=env, timeout=300)
    j = json.loads(p.stdout)
    assert p.returncode == 1
    assert [d["line"] for d in j["diagnostics"] if d["rule"] == "package-missing"] == [4]
    assert j["routes"][0]["ok"] is False  # and the compile itself did not find it either


def test_absolute_input_is_refused_by_the_compile_too(tmp_path: Path):
    outside = tmp_path / "outside.tex"
    outside.write_text("Text from outside the upload.\n")
    paper = copy_plain(tmp_path, "\\input{sections/body}", f"\\input{{{outside}}}")
    p = pithtex_cli("check", str(paper), "--json", timeout=300)
    j = json.loads(p.stdout)
    assert p.returncode == 1
    rules = {d["rule"] for d in j["diagnostics"]}
    assert "unsafe-path" in rules and j["routes"][0]["ok"] is False


def test_a_looping_paper_is_stopped_by_the_time_limit(tmp_path: Path):
    paper = copy_plain(tmp_path, "\\maketitle", "\\maketitle\n\\def\\loop{\\loop}\\loop")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    p = pithtex_cli("check", str(paper), "--json", "--timeout", "2", timeout=HANG, env={"TMPDIR": str(scratch)})
    j = json.loads(p.stdout)
    assert p.returncode == 1
    assert j["routes"][0]["timed_out"] is True
    wait_until_gone(scratch)
    assert list(scratch.iterdir()) == []  # the timed-out run's sandbox and private TeX trees removed
    assert [d["rule"] for d in j["diagnostics"] if d["severity"] == "error"] == ["compile-timeout"]


def test_routes_share_a_first_pass_but_not_its_verdict(tmp_path: Path):
    # An error only pdflatex meets: the shared latex first pass succeeds, the seeded pdflatex
    # route fails and is compiled again from scratch (a shared .aux never decides a verdict).
    dest = tmp_path / "paper"
    shutil.copytree(PLAIN, dest)
    (dest / "figs" / "box.eps").unlink()
    tex = dest / "paper.tex"
    pdf_only = "\\ifdefined\\pdfoutput\\ifnum\\pdfoutput>0 \\nosuchmacro\\fi\\fi"
    tex.write_text(tex.read_text().replace("\\includegraphics[width=2cm]{figs/box}", "\\fbox{box}")
                   .replace("\\maketitle", "\\maketitle\n" + pdf_only))
    p = pithtex_cli("check", str(dest), "--json", "--engine", "all", timeout=300)
    code, j = p.returncode, json.loads(p.stdout)
    routes = {r["route"]: r for r in j["routes"]}
    assert code == 1
    assert not routes["pdflatex"]["ok"] and routes["latex"]["ok"] and routes["xelatex"]["ok"]
    assert routes["latex"]["shared_first_pass"] and routes["latex"]["runs"] == 1
    assert not routes["pdflatex"]["shared_first_pass"] and not routes["xelatex"]["shared_first_pass"]
    errors = [d for d in j["diagnostics"] if d["severity"] == "error"]
    assert {(d["rule"], d["route"], d["line"]) for d in errors} == {("compile-error", "pdflatex", 8)}
    assert "Undefined control sequence" in errors[0]["message"]


# Ctrl-C as a terminal delivers it: a suite started in the background (`make test &`, or
# from a script) inherits SIGINT ignored, and a Python started so keeps ignoring it, as it
# should. The checks these tests interrupt start with SIGINT at its default, as a user's do.
WITH_CTRL_C = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
               "os.execv(sys.argv[1], sys.argv[1:])")


def start_check(paper: Path, scratch: Path, *args: str) -> subprocess.Popen:
    """`pithtex check` as a user runs it, with its temporary folders under `scratch`."""
    exe = str(Path(sys.executable).parent / "pithtex")
    return subprocess.Popen([sys.executable, "-c", WITH_CTRL_C, exe, "check", str(paper), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "TMPDIR": str(scratch)})


def tex_processes_in(scratch: Path, part: str = "") -> list[int]:
    """Processes working inside `scratch` (with `part` in their folder's path: TeX runs are in
    pithtex-check-*, kpsewhich look-ups in a folder of their own)."""
    found = []
    for cwd in Path("/proc").glob("[0-9]*/cwd"):
        try:
            link = os.readlink(cwd)
            if link.startswith(str(scratch)) and part in link:
                found.append(int(cwd.parent.name))
        except (OSError, ValueError):
            continue
    return found


# Hang guards only: what a test waits for happens in well under a second on a quiet machine,
# and these are far beyond anything a busy one takes. No assertion depends on how fast.
HANG = 300.0


def wait_for_tex(scratch: Path, runs: int = 1, proc: subprocess.Popen | None = None) -> list[int]:
    """The TeX runs working in `scratch`, once there are at least `runs` of them (watched in
    /proc: the event is a process appearing, however long a loaded machine takes)."""
    hang = time.monotonic() + HANG
    while True:
        found = tex_processes_in(scratch, "/pithtex-check-")
        if len(found) >= runs:
            return found
        assert proc is None or proc.poll() is None, ("the check ended before its TeX runs started", proc.communicate())
        assert time.monotonic() < hang, f"no {runs} TeX runs started in {HANG:g} s"
        time.sleep(0.02)


def wait_until_gone(scratch: Path) -> None:
    """Every process that worked in `scratch` has ended: each one's exit waited for through a
    pidfd (an event, not a pause). A process killed with its group may outlive, by a moment,
    the parent that reaped only its own child."""
    while True:
        pids = tex_processes_in(scratch)
        if not pids:
            return
        for pid in pids:
            try:
                fd = os.pidfd_open(pid)
            except ProcessLookupError:
                continue
            try:
                ready, _, _ = select.select([fd], [], [], HANG)
                assert ready, f"process {pid} still runs in {scratch} {HANG:g} s after the check ended"
            finally:
                os.close(fd)


# When the interrupt comes: once every route's TeX runs (with --engine all the shared first
# pass and xelatex: the other routes wait for the first pass; with one route its own run), at
# once when the first TeX run appears (routes still being started: the race that left a
# pithtex-check-* folder), and twice in a row (an impatient user; the second lands while the
# first is handled). The runs loop, and their time limit (600 s) is beyond the hang guard: exit
# 130 and "interrupted" show the Ctrl-C ended them, not the limit, however loaded the machine.
@pytest.mark.parametrize("engine, runs, times", [("all", 2, 1), ("latex", 1, 1), ("all", 1, 1), ("all", 1, 2)])
def test_ctrl_c_stops_every_route_at_once_and_leaves_nothing(tmp_path: Path, engine: str, runs: int,
                                                             times: int):
    paper = copy_plain(tmp_path, "\\maketitle", "\\maketitle\n\\def\\loop{\\loop}\\loop")
    scratch = tmp_path / "tmp"  # the check's sandboxes go here, so we can see what is left
    scratch.mkdir()
    proc = start_check(paper, scratch, "--engine", engine, "--timeout", "600")
    try:
        wait_for_tex(scratch, runs, proc)
        for _ in range(times):
            proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=HANG)
    finally:
        stop(proc, scratch)
    assert proc.returncode == 130 and err.strip() == "pithtex: interrupted", err
    wait_until_gone(scratch)
    assert list(scratch.iterdir()) == []  # sandboxes and the private TeX trees removed


def stop(proc: subprocess.Popen, scratch: Path) -> None:
    """After a failed test: no check and no looping TeX run is left behind."""
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    for pid in tex_processes_in(scratch):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


# `pithtex check` run in the main thread of a Python process whose helper thread plays the
# user: once TeX runs and the main thread waits for the routes, it sends the Ctrl-C. Mode
# "thread": the signal goes to the helper thread itself (pthread_kill), as the kernel may hand
# a Ctrl-C to any thread (a worker that unblocks signals after starting TeX, while a loaded
# machine has not yet run the main thread); Python then runs the handler in the main thread,
# but only once that thread wakes up. Mode "every-line": the Ctrl-C goes to the process, and
# from then on another one lands on every line pithtex/arxiv runs in the main thread (a
# sys.settrace hook) until the check's folder is gone, so no clean-up step can be cut short
# without the test seeing it.
CTRL_C_DRIVER = r"""
import os, signal, sys, threading, time
from pathlib import Path

signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal (see WITH_CTRL_C)

mode, count_file, runs = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
scratch = os.environ["TMPDIR"]
sent = cut = 0  # Ctrl-Cs sent during the clean-up, and those that broke into it

def tex_runs():
    found = 0
    for cwd in Path("/proc").glob("[0-9]*/cwd"):
        try:
            link = os.readlink(cwd)
        except OSError:
            continue
        found += link.startswith(scratch) and "/pithtex-check-" in link
    return found

def main_waits():
    main = threading.main_thread()
    frame = sys._current_frames().get(main.ident)
    stat = Path(f"/proc/self/task/{main.native_id}/stat").read_text().rsplit(")", 1)[1].split()
    return frame is not None and "wait" in frame.f_code.co_name and stat[0] == "S"

def user():
    while tex_runs() < runs or not main_waits():
        time.sleep(0.01)
    if mode == "thread":
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)
    else:
        os.kill(os.getpid(), signal.SIGINT)

interrupted = False

def on_line(frame, event, arg):
    global interrupted, sent, cut
    if event == "exception" and arg[0] is KeyboardInterrupt:
        interrupted = True
    elif event == "line" and interrupted and any(Path(scratch).glob("pithtex-check-*")):  # until it is gone
        sent += 1
        try:
            os.kill(os.getpid(), signal.SIGINT)  # Python runs the handler before kill returns
        except KeyboardInterrupt:
            cut += 1
            raise
        finally:
            count_file.write_text(f"{sent} {cut}")
    return on_line

def on_call(frame, event, arg):
    return on_line if "/pithtex/arxiv/" in frame.f_code.co_filename else None

threading.Thread(target=user, daemon=True).start()
if mode == "every-line":
    sys.settrace(on_call)
from pithtex.cli import main
code = main(sys.argv[4:])
sys.settrace(None)
sys.exit(code)
"""


# TeX runs to wait for: with --engine all the shared first pass and xelatex (the other routes
# wait for the first pass); with one route its own run, watched by the main thread itself.
@pytest.mark.parametrize("mode, engine, runs", [("thread", "all", 2), ("every-line", "all", 2),
                                                ("every-line", "latex", 1)])
def test_ctrl_c_taken_by_any_thread_or_repeated_on_every_line_stops_everything(tmp_path: Path, mode: str,
                                                                              engine: str, runs: int):
    paper = copy_plain(tmp_path, "\\maketitle", "\\maketitle\n\\def\\loop{\\loop}\\loop")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    count = tmp_path / "sent"
    # A time limit far beyond the hang guard: a missed Ctrl-C shows as a hang, not as a slow pass.
    cmd = [sys.executable, "-c", CTRL_C_DRIVER, mode, str(count), str(runs),
           "check", str(paper), "--engine", engine, "--timeout", "600"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "TMPDIR": str(scratch)}, cwd=ROOT)
    try:
        _, err = proc.communicate(timeout=HANG)  # a hang guard only: an interrupted check ends in well under 1 s
    except subprocess.TimeoutExpired:
        err = None
    finally:
        stop(proc, scratch)  # a route that was never stopped would loop for 600 s
    assert err is not None, f"pithtex check still ran {HANG:g} s after the Ctrl-C"
    assert proc.returncode == 130 and err.strip() == "pithtex: interrupted", err
    wait_until_gone(scratch)
    assert list(scratch.iterdir()) == []
    if mode == "every-line":  # a Ctrl-C on each line of the clean-up, and none broke into it
        sent, cut = map(int, count.read_text().split())
        assert (cut, sent >= 20) == (0, True), (sent, cut)


def test_a_paper_that_writes_without_end_is_stopped_at_the_output_cap(tmp_path: Path):
    # The runaway paper of issue 11: TeX prints until the disk is full. A small cap keeps the
    # test quick; the default is 50 MB (sandbox.LOG_CAP).
    paper = copy_plain(tmp_path, "\\maketitle", "\\maketitle\n\\def\\a{\\message{" + "A" * 100 + "}\\a}\\a")
    p = pithtex_cli("check", str(paper), "--json", "--timeout", "60", env={"PITHTEX_LOG_CAP": str(2 * 2**20)},
                    timeout=120)
    j = json.loads(p.stdout)
    assert p.returncode == 1
    route = j["routes"][0]
    assert route["log_too_large"] is True and route["timed_out"] is False and route["pdf"] is False
    found = [d for d in j["diagnostics"] if d["severity"] == "error"]
    assert [d["rule"] for d in found] == ["log-too-large"] and "2 MB" in found[0]["message"]
    p = pithtex_cli("check", str(paper), env={"PITHTEX_LOG_CAP": "lots"})
    assert_clean_error(p, 2)


def test_every_step_is_capped_and_nothing_is_held_in_memory(tmp_path: Path):
    # Library level, to look at the sandbox afterwards: the .log stops near the cap (not at
    # the gigabytes a minute of looping writes), and dvips' and ps2pdf's output is held to
    # the same cap (a PostScript program that prints without end).
    from pithtex.arxiv import sandbox, texlive
    from pithtex.arxiv.upload import open_upload

    paper = copy_plain(tmp_path, "\\maketitle", "\\maketitle\n\\def\\a{\\message{" + "A" * 100 + "}\\a}\\a")
    cap = 2 * 2**20
    with open_upload(paper) as up, texlive.private_trees(tmp_path) as trees:
        (tmp_path / "w").mkdir()
        run = sandbox.compile_route(up, "latex", tmp_path / "w" / "latex", sandbox.Limits(trees, 60, cap))
        assert run.log_too_large and run.pdf is None and not run.timed_out
        assert (tmp_path / "w" / "latex" / "paper.log").stat().st_size < 16 * cap
    ps = tmp_path / "ps"
    shutil.copytree(PLAIN, ps)
    tex = ps / "paper.tex"
    tex.write_text(tex.read_text().replace("\\maketitle", "\\maketitle\n\\special{\" {(AAAAAAAAAAAAAAAA) "
                                           "print} loop}"))
    with open_upload(ps) as up, texlive.private_trees(tmp_path) as trees:
        (tmp_path / "v").mkdir()
        run = sandbox.compile_route(up, "latex", tmp_path / "v" / "latex", sandbox.Limits(trees, 60, cap))
        assert run.failed_step == "ps2pdf" and run.log_too_large and run.pdf is None
        assert len(run.step_output) <= sandbox.TAIL_CHARS


def test_texmfhome_is_fresh_private_and_removed(tmp_path: Path):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    # A package planted where every earlier check looked (a fixed folder in the shared TMPDIR).
    planted = scratch / "pithtex-empty-texmfhome" / "tex" / "latex" / "planted"
    planted.mkdir(parents=True)
    (planted / "planted.sty").write_text("\\ProvidesPackage{planted}\n")
    paper = copy_plain(tmp_path, "\\usepackage{hyperref}", "\\usepackage{hyperref}\n\\usepackage{planted}")
    p = pithtex_cli("check", str(paper), "--json", env={"TMPDIR": str(scratch)}, timeout=300)
    j = json.loads(p.stdout)
    assert p.returncode == 1
    assert [d["line"] for d in j["diagnostics"] if d["rule"] == "package-missing"] == [4]
    assert j["routes"][0]["ok"] is False  # TeX did not find it either
    # While a run goes on: TeX's TEXMFHOME is inside a folder only this user can enter,
    # made for this check; afterwards it is gone.
    # The run loops until the Ctrl-C below (its time limit is beyond the hang guard), so it is
    # there to be looked at however long a loaded machine takes to get to it.
    looping = copy_plain(tmp_path / "l", "\\maketitle", "\\maketitle\n\\def\\loop{\\loop}\\loop")
    proc = start_check(looping, scratch, "--timeout", "600")
    env: dict[str, str] = {}
    try:
        while "TEXMFHOME" not in env:  # until TeX itself runs (between fork and exec, the parent's environment)
            pid = wait_for_tex(scratch, proc=proc)[0]
            with contextlib.suppress(OSError):
                env = dict(i.split("=", 1) for i in Path(f"/proc/{pid}/environ").read_text().split("\0") if "=" in i)
    except BaseException:
        stop(proc, scratch)
        raise
    home = Path(env["TEXMFHOME"])
    trees = home.parent
    assert trees.parent.name.startswith("pithtex-check-") and trees.parent.parent == scratch
    assert trees.stat().st_mode & 0o777 == 0o700 and trees.stat().st_uid == os.getuid()
    assert Path(env["VARTEXFONTS"]).parent == trees and Path(env["TEXMFCONFIG"]).parent == trees
    proc.send_signal(signal.SIGINT)
    try:
        proc.communicate(timeout=HANG)
    finally:
        stop(proc, scratch)
    assert proc.returncode == 130
    wait_until_gone(scratch)
    assert not trees.exists()
    assert [p.name for p in scratch.iterdir()] == ["pithtex-empty-texmfhome"]  # only what was planted


def test_pdfoutput_in_the_first_five_lines_asks_arxiv_for_pdflatex(tmp_path: Path):
    from pithtex.arxiv.sandbox import asks_for_pdf

    cases = {"\\pdfoutput=1\n\\documentclass{article}": True, "%\n%\n%\n%\n \\pdfoutput = 1 % pdflatex": True,
             "% \\pdfoutput=1\n\\documentclass{article}": False, "\\pdfoutput=10": False,
             "1\n2\n3\n4\n5\n\\pdfoutput=1": False, "\\documentclass{article}": False}
    for i, (head, wanted) in enumerate(cases.items()):
        tex = tmp_path / f"p{i}.tex"
        tex.write_text(head + "\n\\begin{document}x\\end{document}\n")
        assert asks_for_pdf(tex) is wanted, head
    paper = tmp_path / "paper"
    paper.mkdir()
    (paper / "paper.tex").write_text("\\pdfoutput=1\n\\documentclass{article}\n"
                                     "\\begin{document}Hello.\\end{document}\n")
    p = pithtex_cli("check", str(paper), "--json", timeout=300)
    j = json.loads(p.stdout)
    assert p.returncode == 0 and [r["route"] for r in j["routes"]] == ["pdflatex"], p.stdout[-1500:]
