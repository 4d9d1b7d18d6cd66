"""Compile an upload as arXiv would: a fresh folder per route, no shell escape, no user TeX tree.

Routes: `pdflatex`; `latex` -> dvips -> ps2pdf; `xelatex`. Each route copies the upload
(without build products) into its own temporary folder, so routes can run in parallel
without sharing .aux files. TeX runs repeat until references settle (at most MAX_RUNS),
each under a time limit; the process group is killed when the limit passes.
`check.analyse` runs the routes in parallel threads (the work is in TeX processes).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from .logparse import LogFacts, parse_log
from .rules import PDF_ROUTE_EXT
from .texlive import tex_env
from .upload import Upload

ROUTES = ("pdflatex", "latex", "xelatex")
# XeTeX loads OpenType fonts through fontconfig and is the slowest route on every example;
# when routes share cores, the others run at lower priority so it finishes first.
CRITICAL_ROUTE = "xelatex"
MAX_RUNS = 4
DEFAULT_TIMEOUT = 120.0
# The first run only writes the .aux (no PDF): most papers need a second run for their
# references anyway, and skipping the PDF writer once saves CPU when routes share cores.
DRAFT_FLAG = {"pdflatex": "-draftmode", "xelatex": "-no-pdf"}
# What a first pass leaves for the next run to read.
SEED_SUFFIXES = (".aux", ".toc", ".lof", ".lot", ".out", ".nav", ".snm", ".loa", ".thm")
TEX_FLAGS = ["-no-shell-escape", "-interaction=nonstopmode", "-file-line-error", "-recorder"]


@dataclass
class RouteRun:
    """What one route produced: the PDF (None on failure), the parsed log, the .fls."""

    route: str
    workdir: Path
    pdf: Path | None = None
    log: LogFacts = field(default_factory=LogFacts)
    runs: int = 0
    seconds: float = 0.0
    timed_out: bool = False
    failed_step: str | None = None
    step_output: str = ""
    fls: Path | None = None
    nice: int = 0
    seeded: bool = False  # started from a shared first pass (see first_pass)


def choose_route(upload: Upload, figures: list[str]) -> str:
    """arXiv's choice: 00README.json compiler, else pdflatex when any figure is PDF/PNG/JPG."""
    if upload.compiler:
        return upload.compiler
    if any(f.lower().endswith(PDF_ROUTE_EXT) for f in figures):
        return "pdflatex"
    return "latex"


def compile_route(upload: Upload, route: str, workdir: Path, timeout: float = DEFAULT_TIMEOUT,
                  nice: int = 0, seed: dict[str, bytes] | None = None) -> RouteRun:
    """One route in its own folder.

    `nice` > 0 lets a parallel route on the critical path go first. `seed` holds the
    .aux (and .toc, ...) of a first pass, so references resolve in the route's first run;
    the usual rerun rules still apply, and a seeded route that meets an error is compiled
    again from scratch, so a seed can save work but never change the verdict.
    """
    start = time.monotonic()
    copy_upload(upload, workdir)
    for rel, data in (seed or {}).items():
        (workdir / rel).parent.mkdir(parents=True, exist_ok=True)
        (workdir / rel).write_bytes(data)
    run = RouteRun(route=route, workdir=workdir, nice=nice)
    engine = "pdflatex" if route == "pdflatex" else route
    run.seeded = bool(seed)
    _tex_runs(run, engine, upload, timeout, seeded=run.seeded)
    if seed and (run.log.errors or run.timed_out):
        shutil.rmtree(workdir)
        return compile_route(upload, route, workdir, timeout, nice)
    if route == "latex" and not run.timed_out:
        _dvips_ps2pdf(run, upload, timeout)
    elif (workdir / f"{upload.jobname}.pdf").is_file():
        run.pdf = workdir / f"{upload.jobname}.pdf"
    fls = workdir / f"{upload.jobname}.fls"
    run.fls = fls if fls.is_file() else None
    run.seconds = time.monotonic() - start
    return run


def first_pass(upload: Upload, workdir: Path, timeout: float = DEFAULT_TIMEOUT) -> dict[str, bytes] | None:
    """One latex (DVI) run; the auxiliary files it wrote, or None after an error.

    Used when several routes compile the same paper: each starts from these files instead
    of paying its own first run.
    """
    copy_upload(upload, workdir)
    run = RouteRun(route="seed", workdir=workdir)
    # DVI mode: the cheapest pass, and hyperref's DVI drivers write the page-label entries
    # that the dvips and xdvipdfmx routes would otherwise need a second run for.
    code, output = _call(["latex", *TEX_FLAGS, upload.main], workdir, timeout)
    logfile = workdir / f"{upload.jobname}.log"
    text = logfile.read_text("utf-8", errors="replace") if logfile.is_file() else output
    run.log = parse_log(text, upload.main, str(workdir))
    if code is None or run.log.errors:
        return None
    uploaded = set(upload.files)
    return {p.relative_to(workdir).as_posix(): p.read_bytes() for p in workdir.rglob("*")
            if p.is_file() and p.suffix in SEED_SUFFIXES and p.relative_to(workdir).as_posix() not in uploaded}


def copy_upload(upload: Upload, workdir: Path) -> None:
    """A fresh copy of the upload's files, without build products (stale .aux/.pdf)."""
    skip = set(upload.build_products)
    for rel in upload.files:
        if rel in skip:
            continue
        dest = workdir / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(upload.root / rel, dest)
    workdir.mkdir(parents=True, exist_ok=True)


def _tex_runs(run: RouteRun, engine: str, upload: Upload, timeout: float, seeded: bool = False) -> None:
    aux = run.workdir / f"{upload.jobname}.aux"
    logfile = run.workdir / f"{upload.jobname}.log"
    previous = hashlib.sha256(aux.read_bytes()).hexdigest() if seeded and aux.is_file() else None
    for i in range(MAX_RUNS):
        run.runs += 1
        draft = [DRAFT_FLAG[engine]] if i == 0 and engine in DRAFT_FLAG and not seeded else []
        code, output = _call([engine, *TEX_FLAGS, *draft, upload.main], run.workdir, timeout, run.nice)
        if code is None:
            run.timed_out = True
            run.step_output = output
            break
        text = logfile.read_text("utf-8", errors="replace") if logfile.is_file() else output
        run.log = parse_log(text, upload.main, str(run.workdir))
        digest = hashlib.sha256(aux.read_bytes()).hexdigest() if aux.is_file() else None
        unsettled = run.log.undefined_references or run.log.undefined_citations
        if run.log.errors or not (draft or run.log.rerun or (unsettled and digest != previous)):
            break
        previous = digest


def _dvips_ps2pdf(run: RouteRun, upload: Upload, timeout: float) -> None:
    job = upload.jobname
    if not (run.workdir / f"{job}.dvi").is_file():
        return
    code, out = _call(["dvips", "-R2", "-q", "-o", f"{job}.ps", f"{job}.dvi"], run.workdir, timeout, run.nice)
    if code != 0:
        run.failed_step, run.step_output, run.timed_out = "dvips", out, code is None
        return
    code, out = _call(["ps2pdf", "-dSAFER", f"{job}.ps", f"{job}.pdf"], run.workdir, timeout, run.nice)
    if code != 0 or not (run.workdir / f"{job}.pdf").is_file():
        run.failed_step, run.step_output, run.timed_out = "ps2pdf", out, code is None
        return
    run.pdf = run.workdir / f"{job}.pdf"


# TeX runs in their own process groups (so a time limit can kill all of a run), which
# also keeps Ctrl-C from reaching them: `stop_all` does that job for an interrupted check.
_LIVE: set[subprocess.Popen] = set()
_LIVE_LOCK = threading.Lock()
_STOPPING = threading.Event()


def stop_all() -> None:
    """Kill every running TeX process group of this process and start no more (after Ctrl-C)."""
    _STOPPING.set()
    with _LIVE_LOCK:
        for proc in _LIVE:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)


def _call(cmd: list[str], cwd: Path, timeout: float, nice: int = 0) -> tuple[int | None, str]:
    """Run cmd in its own process group; (None, output) when the time limit passed."""
    if _STOPPING.is_set():
        return None, "stopped"
    env = tex_env(cwd)
    if nice > 0 and shutil.which("nice"):
        cmd = ["nice", "-n", str(nice), *cmd]
    try:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
    except OSError as exc:
        return 127, f"{cmd[0]}: {exc.strerror}"
    with _LIVE_LOCK:
        _LIVE.add(proc)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return None, out.decode("utf-8", "replace")[-2000:]
    except BaseException:  # Ctrl-C in this thread: the run is in its own group, so end it here
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        raise
    finally:
        with _LIVE_LOCK:
            _LIVE.discard(proc)
    return proc.returncode, out.decode("utf-8", "replace")[-2000:]


def scratch() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="pithtex-check-")
