"""SIGTERM (a `kill`, a CI timeout) is taken the way Ctrl-C is: deferred wherever Ctrl-C is
(a check starting and stopping its TeX runs and removing its folders), so one that lands on
any line of the clean-up cuts nothing short; the command ends with 143, "terminated".

The check is driven as in test_arxiv_sandbox's Ctrl-C test, by the same driver with SIGTERM
for SIGINT: a helper thread sends the first signal once TeX runs and the main thread waits
for it, and a trace hook sends another on every line pithtex/arxiv runs until the check's
folder is gone. Everything waits on events (TeX processes seen, the main thread asleep)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from .arxiv.test_arxiv_sandbox import CTRL_C_DRIVER, copy_plain, tex_processes_in
from .conftest import ROOT

# The same driver, sending SIGTERM; the clean-up begins at the exception the first one raises
# (KeyboardInterrupt now; SystemExit when SIGTERM was not taken as Ctrl-C is).
REPLACEMENTS = (("signal.SIGINT", "signal.SIGTERM"),
                ("arg[0] is KeyboardInterrupt", "arg[0] in (KeyboardInterrupt, SystemExit)"),
                ("except KeyboardInterrupt:", "except (KeyboardInterrupt, SystemExit):"))


# The driver first gives Ctrl-C its terminal default (a suite run in the background inherits
# SIGINT ignored): that line stays about SIGINT, since pithtex hands SIGTERM to Ctrl-C's handler.
AS_IN_A_TERMINAL = "signal.signal(signal.SIGINT, signal.default_int_handler)"


def sigterm_driver() -> str:
    text = CTRL_C_DRIVER
    assert AS_IN_A_TERMINAL in text, "the Ctrl-C driver no longer restores Ctrl-C's default"
    text = text.replace(AS_IN_A_TERMINAL, "@@AS_IN_A_TERMINAL@@")
    for old, new in REPLACEMENTS:
        assert old in text, f"the Ctrl-C driver changed: {old!r} is gone"
        text = text.replace(old, new)
    return text.replace("@@AS_IN_A_TERMINAL@@", AS_IN_A_TERMINAL)


def test_sigterm_on_every_line_of_a_checks_clean_up_cuts_nothing_short(tmp_path: Path):
    paper = copy_plain(tmp_path, "\\maketitle", "\\maketitle\n\\def\\loop{\\loop}\\loop")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    count = tmp_path / "sent"
    cmd = [sys.executable, "-c", sigterm_driver(), "every-line", str(count), "2",
           "check", str(paper), "--engine", "all", "--timeout", "600"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "TMPDIR": str(scratch)}, cwd=ROOT)
    try:
        _, err = proc.communicate(timeout=300)  # a hang guard only: a terminated check ends at once
    except subprocess.TimeoutExpired:
        err = None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in tex_processes_in(scratch):  # a route never stopped would loop for 600 s
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    assert err is not None, "pithtex check still ran 300 s after the SIGTERM"
    assert proc.returncode == 143 and err.strip() == "pithtex: terminated", (proc.returncode, err)
    sent, cut = map(int, count.read_text().split())
    assert cut == 0 and sent >= 20, (sent, cut)  # a SIGTERM on each line of the clean-up, none broke in
    assert gone(scratch), "a TeX run was left running"
    assert list(scratch.iterdir()) == []


def gone(scratch: Path) -> bool:
    """The stopped TeX runs have left the process table (SIGKILLed: a moment; never stopped:
    they would loop for 600 s, far past this wait)."""
    end = time.monotonic() + 60
    while tex_processes_in(scratch):
        if time.monotonic() > end:
            return False
        time.sleep(0.02)
    return True
