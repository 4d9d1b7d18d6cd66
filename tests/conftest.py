"""Shared fixtures: the test PDFs, the optional corpus, and the seed's known values."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from .resolverkit import FakeResolver, serving

ROOT = Path(__file__).resolve().parent.parent
SEED_PATH = ROOT / "examples" / "seed-record.json"
# The seed record's title: a PDF stamped with --record must show it on page 1 (or in Info /Title).
SEED_TITLE = "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM"
FIXTURE_PDFS = ROOT / "tests" / "fixtures" / "pdf"

# A suite started in the background by a script (`make test &`, a CI step's `&`) inherits Ctrl-C
# ignored, and exec keeps SIGINT ignored in every command a test starts: the tests that press
# Ctrl-C would wait out a 30 s deadline, or forever. A handler, unlike SIG_IGN, is not inherited
# across exec, so each command a test starts gets Ctrl-C as a terminal's user does.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
BODY = "YBK5PTAKOSCXY2WMLIIB7DMYH6"
SEED_SHA256 = "c055d7cc0a74857c6acc5a101f8d983fa34422542eeacc6a32799b3cc6c9e5cf"
URL = f"https://pith.science/pith/{BODY}"


def _corpus_folder() -> Path | None:
    """The optional sweep corpus: $PITH_CORPUS when set (it must then exist: the sweep was
    asked for), else ../shared/corpus/pdf beside the checkout when that is there."""
    named = os.environ.get("PITH_CORPUS")
    if named:
        return Path(named)
    beside = ROOT.parent / "shared" / "corpus" / "pdf"
    return beside if beside.is_dir() else None


CORPUS = _corpus_folder()


def fixture_pdf(prefix: str) -> Path:
    """One of the test PDFs in tests/fixtures/pdf, by its numeric prefix ("004")."""
    found = sorted(FIXTURE_PDFS.glob(f"{prefix}-*.pdf"))
    assert len(found) == 1, (prefix, found)
    return found[0]


def pdf_sources(select: Callable[[Path], bool] = lambda _path: True) -> list:
    """The test PDFs that `select` keeps, then each such corpus PDF not already among them,
    marked `corpus` (so `-m "not corpus"` leaves the sweep out)."""
    own = [p for p in sorted(FIXTURE_PDFS.glob("*.pdf")) if select(p)]
    names = {p.name for p in own}
    extra = [p for p in sorted(CORPUS.glob("*.pdf")) if p.name not in names and select(p)] if CORPUS else []
    return own + [pytest.param(p, marks=pytest.mark.corpus, id=f"corpus-{p.name[:20]}") for p in extra]


def seed_doc() -> dict:
    """A fresh copy of the seed record (safe to mutate)."""
    return json.loads(SEED_PATH.read_text("utf-8"))


@pytest.fixture
def fake() -> Iterator[FakeResolver]:
    """A fixture resolver on 127.0.0.1 (tests/resolverkit.py), stopped after the test."""
    with serving() as server:
        yield server


@pytest.fixture
def seed() -> dict:
    """A fresh copy of the seed record (safe to mutate)."""
    return json.loads(SEED_PATH.read_text("utf-8"))


def pithtex_cli(*args: str, env: dict | None = None, timeout: float = 120, cwd: Path | None = None,
                input: str | None = None, program: list[str] | None = None) -> subprocess.CompletedProcess:
    """Run the real command line in a subprocess, as a user would (`program`: another entry
    point, e.g. RENDER, the developer's)."""
    exe = shutil.which("pithtex", path=str(Path(sys.executable).parent)) or "pithtex"
    return subprocess.run(
        [*(program or [exe]), *args], capture_output=True, text=True, timeout=timeout,
        env={**os.environ, **(env or {})}, cwd=cwd or ROOT, input=input,
    )


# `pithtex render` (`make render`): a pithtex developer's command, which `pithtex --help` does not list.
RENDER = [shutil.which("pithtex", path=str(Path(sys.executable).parent)) or "pithtex", "render"]


def render_cli(*args: str, **kw) -> subprocess.CompletedProcess:
    return pithtex_cli(*args, program=RENDER, **kw)


def example_paper(cls: str, dest: Path) -> Path:
    """A copy of examples/<cls> with the current pith.sty beside it, as `pithtex sty` makes it
    (the examples themselves hold only the paper)."""
    from pithtex.latex.sty import write_beside

    shutil.copytree(ROOT / "examples" / cls, dest, ignore=shutil.ignore_patterns("*.pdf", "*.aux", "*.log"))
    write_beside(dest)
    return dest


def assert_clean_error(proc: subprocess.CompletedProcess, code: int = 2) -> str:
    """A refusal: the exit code, one line on stderr starting 'pithtex:', no traceback."""
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    err = proc.stderr.strip()
    assert "Traceback" not in err, err
    assert err.startswith("pithtex: "), err
    assert len(err.splitlines()) == 1, err
    return err
