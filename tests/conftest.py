"""Shared fixtures: where the shared material is, and the seed's known values."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("PITH_SHARED", ROOT.parent / "shared"))
SEED_PATH = ROOT / "examples" / "seed-record.json"
CORPUS = SHARED / "corpus" / "pdf"
BODY = "YBK5PTAKOSCXY2WMLIIB7DMYH6"
SEED_SHA256 = "c055d7cc0a74857c6acc5a101f8d983fa34422542eeacc6a32799b3cc6c9e5cf"
URL = f"https://pith.science/pith/{BODY}"


@pytest.fixture
def seed() -> dict:
    """A fresh copy of the seed record (safe to mutate)."""
    return json.loads(SEED_PATH.read_text("utf-8"))


def pithtex_cli(*args: str, env: dict | None = None, timeout: float = 120, cwd: Path | None = None,
                input: str | None = None) -> subprocess.CompletedProcess:
    """Run the real command line in a subprocess, as a user would."""
    exe = shutil.which("pithtex", path=str(Path(sys.executable).parent)) or "pithtex"
    return subprocess.run(
        [exe, *args], capture_output=True, text=True, timeout=timeout,
        env={**os.environ, **(env or {})}, cwd=cwd or ROOT, input=input,
    )


def assert_clean_error(proc: subprocess.CompletedProcess, code: int = 2) -> str:
    """A refusal: the exit code, one line on stderr starting 'pithtex:', no traceback."""
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    err = proc.stderr.strip()
    assert "Traceback" not in err, err
    assert err.startswith("pithtex: "), err
    assert len(err.splitlines()) == 1, err
    return err
