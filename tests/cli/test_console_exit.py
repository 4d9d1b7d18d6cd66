"""The `pithtex` command ends without the interpreter's last collections (cli.console: gc.freeze,
issue 32), and loses nothing by it: what it writes and prints is whole."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

from pithtex.latex import sty
from tests.conftest import ROOT, pithtex_cli


def test_the_installed_command_is_console() -> None:
    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "pithtex"]
    assert script.value == "pithtex.cli:console"
    assert (ROOT / "pithtex" / "__main__.py").read_text("utf-8").count("console()") == 1


def _frozen_after(call: str) -> list[str]:
    """`call` (console() or main()) in a fresh interpreter, verifying a file that is not there:
    its exit code and whether it left the heap frozen."""
    code = ("import gc, sys; from pithtex.cli import console, main; sys.argv = ['pithtex', 'verify', 'no-such.pdf']; "
            f"code = {call}; print(code, gc.get_freeze_count() > 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split()[-2:]


def test_console_freezes_the_heap_and_main_does_not() -> None:
    assert _frozen_after("console()") == ["2", "True"]  # its code is main's: no such file
    assert _frozen_after("main()") == ["2", "False"]  # main inside another program leaves it alone


def test_what_the_command_writes_and_prints_is_whole(tmp_path: Path) -> None:
    written = pithtex_cli("sty", str(tmp_path))
    assert written.returncode == 0, written.stderr
    assert (tmp_path / "pith.sty").read_text("utf-8") == sty.text()
    module = subprocess.run([sys.executable, "-m", "pithtex", "sty", "--help"], capture_output=True, text=True,
                            timeout=60, cwd=ROOT)
    assert module.returncode == 0 and "exit codes: 0 written or already current" in module.stdout
