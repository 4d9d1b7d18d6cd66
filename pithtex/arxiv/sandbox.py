"""Compile an upload as arXiv would: a fresh folder per route, no shell escape, no user TeX tree.

Routes: `pdflatex`; `latex` -> dvips -> ps2pdf; `xelatex`. Each route copies the upload
(without build products) into its own temporary folder, so routes can run in parallel
without sharing .aux files. TeX runs repeat until references settle (at most MAX_RUNS).
Every run is bounded (`Limits`): a time limit, a cap on what it writes to the terminal
and to its .log (a looping \\message fills a disk otherwise), past either of which its process
group is killed, and a cap on its address space (MEMORY_CAP, set by prlimit as it starts).
Output goes to an unlinked temporary file, never into this process's memory, so pithtex
stays small whatever TeX prints. `check.analyse` runs the routes in
parallel threads (the work is in TeX processes).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import wait
from dataclasses import dataclass, field
from pathlib import Path

from ..limits import TEX_RUN_SECONDS
from ..value import TYPE_CHECKING
from .catalogue import FILES_TOO_LARGE, LOG_TOO_LARGE
from .logparse import LogFacts, parse_log
from .rules import PDF_ROUTE_EXT
from .texlive import tex_env
from .upload import Upload

if TYPE_CHECKING:
    from concurrent.futures import Future
    from typing import IO, TypeVar

    T = TypeVar("T")


# XeTeX loads OpenType fonts through fontconfig and is the slowest route on every example;
# when routes share cores, the others run at lower priority so it finishes first.
CRITICAL_ROUTE = "xelatex"
MAX_RUNS = 4
DEFAULT_TIMEOUT = TEX_RUN_SECONDS  # limits.py: the --timeout of check and bundle too
# What one run may write to the terminal, and to its .log, before it is stopped
# (`log-too-large`). Real papers write well under 5 MB; a macro loop writes this in seconds.
LOG_CAP = 50 * 1024 * 1024
# What one run may add to the files of its folder (\openout/\write, a PostScript file), as a
# multiple of LOG_CAP: a loop writing to a side file filled /tmp at ~45 MB/s until the time
# limit. Real papers add a PDF and its helpers, far below this (1 GB at the default cap).
FILES_CAP_FACTOR = 20
FILES_EVERY = 10  # the folder is summed every FILES_EVERY polls (once a second), not every poll
# Logs are read back for errors and warnings; past this size only the head and the tail
# are read, so reading a log never costs more memory than this.
LOG_READ_LIMIT = 8 * 1024 * 1024
# The address space each step may use: TeX's memory is fixed by texmf.cnf (a few hundred MB at
# most, xelatex with its fonts included), but Ghostscript grows as the PostScript asks, and a
# PostScript allocation loop grew it until the machine ran out. Past this, the step's next
# allocation fails (Ghostscript: /VMerror) and it ends.
MEMORY_CAP = 2 * 1024**3
POLL_SECONDS = 0.1  # how often a running step's output size and time are looked at
TAIL_CHARS = 2000
# The first run only writes the .aux (no PDF): most papers need a second run for their
# references anyway, and skipping the PDF writer once saves CPU when routes share cores.
DRAFT_FLAG = {"pdflatex": "-draftmode", "xelatex": "-no-pdf"}
# What a first pass leaves for the next run to read.
SEED_SUFFIXES = (".aux", ".toc", ".lof", ".lot", ".out", ".nav", ".snm", ".loa", ".thm")
TEX_FLAGS = ["-no-shell-escape", "-interaction=nonstopmode", "-file-line-error", "-recorder"]


@dataclass(frozen=True)
class Limits:
    """What bounds every step of one check: TeX's private per-user trees (texlive.private_trees),
    the time limit per step, the output cap per step, and the address space per step."""

    trees: Path
    timeout: float = DEFAULT_TIMEOUT
    log_cap: int = LOG_CAP
    memory: int = MEMORY_CAP


@dataclass
class Step:
    """How one program run ended: its exit code (None when it was stopped), why it was
    stopped ("timeout", "interrupted", or at a cap the id of the rule that reports it), and the
    tail of its output."""

    code: int | None
    tail: str
    stopped: str | None = None


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
    log_too_large: bool = False  # stopped at an output cap: the log's, or (files_too_large) the folder's
    files_too_large: bool = False
    out_of_memory: bool = False  # a step ended at MEMORY_CAP (memory-too-large)
    failed_step: str | None = None
    step_output: str = ""
    fls: Path | None = None
    nice: int = 0
    seeded: bool = False  # started from a shared first pass (see first_pass)


def choose_route(upload: Upload, figures: list[str]) -> str:
    """arXiv's choice: 00README.json compiler, else pdflatex when the main file says
    \\pdfoutput=1 in its first five lines or any figure is PDF/PNG/JPG, else latex."""
    if upload.compiler:
        return upload.compiler
    if asks_for_pdf(upload.root / upload.main) or any(f.lower().endswith(PDF_ROUTE_EXT) for f in figures):
        return "pdflatex"
    return "latex"


_PDFOUTPUT = re.compile(rb"^[^%]*\\pdfoutput\s*=\s*1(?![0-9])")


def asks_for_pdf(main: Path) -> bool:
    """`\\pdfoutput=1` (not commented out) within the first five lines: arXiv's documented way
    to ask for pdflatex. Only those lines are read, at most 64 KiB."""
    try:
        with main.open("rb") as fh:
            head = fh.read(65536).splitlines()[:5]
    except OSError:
        return False
    return any(_PDFOUTPUT.search(line) for line in head)


def compile_route(upload: Upload, route: str, workdir: Path, limits: Limits,
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
    _tex_runs(run, engine, upload, limits, seeded=run.seeded)
    if seed and (run.log.errors or run.timed_out or run.log_too_large) and not _STOPPING.is_set():
        shutil.rmtree(workdir)
        return compile_route(upload, route, workdir, limits, nice)
    if route == "latex" and not (run.timed_out or run.log_too_large):
        _dvips_ps2pdf(run, upload, limits)
    elif (workdir / f"{upload.jobname}.pdf").is_file():
        run.pdf = workdir / f"{upload.jobname}.pdf"
    fls = workdir / f"{upload.jobname}.fls"
    run.fls = fls if fls.is_file() else None
    run.seconds = time.monotonic() - start
    return run


def first_pass(upload: Upload, workdir: Path, limits: Limits) -> dict[str, bytes] | None:
    """One latex (DVI) run; the auxiliary files it wrote, or None after an error.

    Used when several routes compile the same paper: each starts from these files instead
    of paying its own first run.
    """
    copy_upload(upload, workdir)
    # DVI mode: the cheapest pass, and hyperref's DVI drivers write the page-label entries
    # that the dvips and xdvipdfmx routes would otherwise need a second run for.
    step = _call(["latex", *TEX_FLAGS, upload.main], workdir, limits, watch=workdir / f"{upload.jobname}.log")
    if step.code is None or parse_log(read_log(workdir, upload, step), upload.main, str(workdir)).errors:
        return None
    uploaded = set(upload.files)
    return {p.relative_to(workdir).as_posix(): p.read_bytes() for p in workdir.rglob("*")
            if p.is_file() and p.suffix in SEED_SUFFIXES and p.relative_to(workdir).as_posix() not in uploaded}


def copy_upload(upload: Upload, workdir: Path) -> None:
    """A fresh copy of the upload's files, without build products (stale .aux/.pdf).

    The folder above `workdir` must exist: a copy that starts after an interrupted check
    removed its scratch folder must not create that folder again.
    """
    if _STOPPING.is_set():
        raise KeyboardInterrupt
    workdir.mkdir(parents=False, exist_ok=True)
    skip = set(upload.build_products)
    for rel in upload.files:
        if rel in skip:
            continue
        if _STOPPING.is_set():
            raise KeyboardInterrupt
        dest = workdir / rel
        for folder in reversed(dest.relative_to(workdir).parents[:-1]):  # below workdir only
            (workdir / folder).mkdir(exist_ok=True)
        shutil.copyfile(upload.root / rel, dest)


def read_log(workdir: Path, upload: Upload, step: Step) -> str:
    """The run's .log (head and tail only past LOG_READ_LIMIT), else what it printed."""
    logfile = workdir / f"{upload.jobname}.log"
    if not logfile.is_file():
        return step.tail
    with logfile.open("rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size <= LOG_READ_LIMIT:
            data = f.read()
        else:
            half = LOG_READ_LIMIT // 2
            head = f.read(half)
            f.seek(size - half)
            data = head + b"\n[... log cut ...]\n" + f.read(half)
    return data.decode("utf-8", errors="replace")


def pith_marks(aux: Path) -> list[bytes]:
    """pith.sty's position marks in the .aux (`\\pith@pos`, `\\pith@origin`): where the title
    block and the page origin were on the last run, which the next run places the badge by."""
    if not aux.is_file():
        return []
    with aux.open("rb") as f:
        return sorted(line for line in f.read(LOG_READ_LIMIT).splitlines() if line.startswith(b"\\pith@"))


def reads_bibliography(run: RouteRun) -> bool | None:
    """Whether the compiled paper asks for a bibliography database, from what its last TeX run
    wrote: BibTeX's `\\bibdata` in an .aux (natbib, the kernel's \\bibliography, biblatex's
    bibtex backend) or a data source in biblatex's .bcf (Biber). None when the run did not end
    cleanly, so it cannot tell. An \\addbibresource in a branch the paper switches off, beside an
    inline thebibliography, asks for none (the source text alone said it did)."""
    if run.runs == 0 or run.timed_out or run.log_too_large or run.log.errors:
        return None
    for path in (*run.workdir.rglob("*.aux"), *run.workdir.rglob("*.bcf")):
        with path.open("rb") as f:
            text = f.read(LOG_READ_LIMIT)
        if b"\\bibdata{" in text or b"<bcf:datasource" in text:
            return True
    return False


def _tex_runs(run: RouteRun, engine: str, upload: Upload, limits: Limits, seeded: bool = False) -> None:
    aux = run.workdir / f"{upload.jobname}.aux"
    previous = hashlib.sha256(aux.read_bytes()).hexdigest() if seeded and aux.is_file() else None
    marks = pith_marks(aux)  # a shared first pass's, or none
    for i in range(MAX_RUNS):
        run.runs += 1
        draft = [DRAFT_FLAG[engine]] if i == 0 and engine in DRAFT_FLAG and not seeded else []
        step = _call([engine, *TEX_FLAGS, *draft, upload.main], run.workdir, limits, run.nice,
                     watch=run.workdir / f"{upload.jobname}.log")
        if step.code is None:
            run.timed_out = step.stopped not in _TOO_LARGE
            run.log_too_large = step.stopped in _TOO_LARGE
            run.files_too_large = step.stopped == FILES_TOO_LARGE.id
            run.step_output = step.tail
            break
        run.log = parse_log(read_log(run.workdir, upload, step), upload.main, str(run.workdir))
        digest = hashlib.sha256(aux.read_bytes()).hexdigest() if aux.is_file() else None
        unsettled = run.log.undefined_references or run.log.undefined_citations
        # pith.sty places the badge by where the last run saw the title: a first run that wrote
        # new marks gets a second (arXiv runs at least two; the first one's badge is
        # provisional). Only the first: a second run is what arXiv ships, settled or not.
        moved = i == 0 and pith_marks(aux) != marks
        if run.log.errors or not (draft or run.log.rerun or moved or (unsettled and digest != previous)):
            break
        previous = digest


def _dvips_ps2pdf(run: RouteRun, upload: Upload, limits: Limits) -> None:
    job = upload.jobname
    if not (run.workdir / f"{job}.dvi").is_file():
        return
    for name, cmd in (("dvips", ["dvips", "-R2", "-q", "-o", f"{job}.ps", f"{job}.dvi"]),
                      ("ps2pdf", ["ps2pdf", "-dSAFER", f"{job}.ps", f"{job}.pdf"])):
        step = _call(cmd, run.workdir, limits, run.nice)
        if step.code != 0 or (name == "ps2pdf" and not (run.workdir / f"{job}.pdf").is_file()):
            run.failed_step, run.step_output = name, step.tail
            run.out_of_memory = step.code is not None and out_of_memory(step.tail)
            run.timed_out = step.stopped == "timeout"
            run.log_too_large = step.stopped in _TOO_LARGE
            run.files_too_large = step.stopped == FILES_TOO_LARGE.id
            return
    run.pdf = run.workdir / f"{job}.pdf"


_TOO_LARGE = (LOG_TOO_LARGE.id, FILES_TOO_LARGE.id)


def page_layout(pdf: Path, first: int, last: int, limits: Limits) -> str | None:
    """Pages first..last of a compiled PDF as poppler's pdftotext sees them: every word with its
    box, inside the visible (crop) box only (XHTML; placement.parse_layout reads it). None when
    pdftotext is missing, fails or passes the limits: the placement is then not judged."""
    out = pdf.with_name(pdf.stem + "-layout.html")
    step = _call(["pdftotext", "-q", "-cropbox", "-bbox-layout", "-f", str(first), "-l", str(last), pdf.name,
                  out.name], pdf.parent, limits, watch=out)
    if step.code != 0 or not out.is_file():
        return None
    with out.open("rb") as f:
        return f.read(limits.log_cap).decode("utf-8", errors="replace")


# Every step runs in its own process group (so a limit can kill all of a run), which also
# keeps Ctrl-C from reaching it: `stop_all` does that job for an interrupted check.
_LIVE: set[subprocess.Popen[bytes]] = set()
_LIVE_LOCK = threading.Lock()
_STOPPING = threading.Event()


def stop_all() -> None:
    """Kill every running process group of this check and start no more (after Ctrl-C).

    Deferred: a second Ctrl-C that came while this waits for a step's start to finish
    cut it short before anything was stopped, and the routes ran on to their time limit."""
    with sigint_deferred(), _LIVE_LOCK:  # the same lock as the start of a step: none can start unseen
        _STOPPING.set()
        for proc in _LIVE:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)


def _call(cmd: list[str], cwd: Path, limits: Limits, nice: int = 0, watch: Path | None = None) -> Step:
    """Run cmd in its own process group, output to an unlinked file, bounded by `limits`.

    `watch` is a file the program writes besides its output (TeX's .log), held to the same cap.
    """
    env = tex_env(cwd, limits.trees)
    Path(env["TMPDIR"]).mkdir(exist_ok=True)  # (made by private_trees; Limits made by hand may lack it)
    if nice > 0 and shutil.which("nice"):
        cmd = ["nice", "-n", str(nice), *cmd]
    cmd = memory_capped(cmd, limits.memory)
    before = _written(cwd)
    with tempfile.TemporaryFile(prefix="pithtex-out-") as out:
        proc = None
        try:
            # Started and listed with Ctrl-C deferred: one that landed between the two left a
            # run nobody would kill (its own group does not get Ctrl-C), looping until the end.
            with sigint_deferred(), _LIVE_LOCK:
                if _STOPPING.is_set():
                    return Step(None, "stopped", "interrupted")
                try:
                    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                            stderr=subprocess.STDOUT, start_new_session=True)
                except OSError as exc:
                    return Step(127, f"{cmd[0]}: {exc.strerror}")
                _LIVE.add(proc)
            stopped = _watch(proc, out, watch, limits, (cwd, before))
        except BaseException:  # Ctrl-C in this thread: the run is in its own group, so end it here
            if proc is not None:
                _kill(proc)
            raise
        finally:
            if proc is not None:
                with _LIVE_LOCK:
                    _LIVE.discard(proc)
        if stopped is None and _STOPPING.is_set():
            stopped = "interrupted"
        return Step(None if stopped else proc.returncode, _tail(out), stopped)


def memory_capped(cmd: list[str], cap: int) -> list[str]:
    """`cmd` started with its address space capped at `cap` bytes (inherited by what it starts:
    ps2pdf is a script that runs gs). util-linux's prlimit sets the limit and execs the command
    (same process); without it, the POSIX shell's ulimit does. Not preexec_fn: the routes start
    their steps from several threads, where preexec_fn may deadlock."""
    if shutil.which("prlimit"):
        return ["prlimit", f"--as={cap}", "--", *cmd]
    return ["sh", "-c", f'ulimit -v {cap // 1024} && exec "$@"', "sh", *cmd]


def out_of_memory(output: str) -> bool:
    """The step's output says an allocation failed: Ghostscript's /VMerror, or a C or C++ program's
    words for it (what a step at MEMORY_CAP prints before it ends)."""
    return any(sign in output for sign in ("/VMerror", "Cannot allocate memory", "out of memory",
                                            "std::bad_alloc", "memory exhausted"))


def _watch(proc: subprocess.Popen[bytes], out: IO[bytes], watch: Path | None, limits: Limits,
           folder: tuple[Path, int] | None = None) -> str | None:
    """Wait for proc; kill its group and say why when it passes the time limit or a cap:
    its output and `watch` (the log) at log_cap, what it adds to `folder` (the work folder
    and its size before the step) at FILES_CAP_FACTOR times that."""
    deadline = time.monotonic() + limits.timeout
    polls = 0
    while True:
        try:
            proc.wait(timeout=POLL_SECONDS)
            return None
        except subprocess.TimeoutExpired:
            pass
        if max(os.fstat(out.fileno()).st_size, _size(watch)) > limits.log_cap:
            _kill(proc)
            return LOG_TOO_LARGE.id
        polls += 1
        if folder and polls % FILES_EVERY == 0 and _written(folder[0]) - folder[1] > limits.log_cap * FILES_CAP_FACTOR:
            _kill(proc)
            return FILES_TOO_LARGE.id
        if time.monotonic() > deadline:
            _kill(proc)
            return "timeout"


def _written(folder: Path) -> int:
    """The bytes of every regular file under `folder` (links not followed)."""
    total, stack = 0, [folder]
    while stack:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(Path(entry.path))
                        elif entry.is_file(follow_symlinks=False):
                            total += entry.stat(follow_symlinks=False).st_size
                    except OSError:  # removed while summed: TeX deletes its temporary files
                        continue
        except OSError:
            continue
    return total


def _size(path: Path | None) -> int:
    try:
        return path.stat().st_size if path else 0
    except OSError:  # not written yet
        return 0


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _tail(out: IO[bytes]) -> str:
    """The last TAIL_CHARS characters of the output file (read from its end, never all of it)."""
    size = os.fstat(out.fileno()).st_size
    out.seek(max(0, size - 4 * TAIL_CHARS))
    return out.read().decode("utf-8", "replace")[-TAIL_CHARS:]


def wait_each(futures: list[Future[T]]) -> list[T]:
    """Each future's result, in order (the first failure raised as soon as it is reached), waited
    for in slices of POLL_SECONDS.

    The kernel may hand Ctrl-C to any thread of the process, e.g. a worker that has just
    started a TeX run (it unblocks signals after the fork): Python then runs the handler in
    the main thread only, and only once that thread wakes up. An unbounded wait held it until
    the slowest route ended, a looping paper's whole time limit."""
    out = []
    for f in futures:
        while not f.done():
            wait([f], timeout=POLL_SECONDS)
        out.append(f.result())
    return out


class _CtrlC:
    """The SIGINT handler while a check runs: the first Ctrl-C raises KeyboardInterrupt and from
    then on Ctrl-C is only counted, so the interrupted check's clean-up (stop every run, wait for
    the workers, remove the folders) is never cut short, wherever the next one lands."""

    def __init__(self) -> None:
        self.deferring = False
        self.seen = 0

    def __call__(self, signum: int, frame: object) -> None:
        if self.deferring:
            self.seen += 1
            return
        self.deferring = True
        raise KeyboardInterrupt


@contextlib.contextmanager
def ctrl_c_once() -> Iterator[None]:
    """Ctrl-C handled by `_CtrlC` for the block (main thread, Python's own handler only: a caller
    with a handler of its own, or an outer check, keeps it). A Ctrl-C counted after an interrupt
    that was swallowed inside the block is raised when the block ends."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.getsignal(signal.SIGINT)
    if old is not signal.default_int_handler:
        yield
        return
    guard = _CtrlC()
    signal.signal(signal.SIGINT, guard)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
    if guard.seen:  # only reached when the block ended without an exception
        raise KeyboardInterrupt


@contextlib.contextmanager
def scratch() -> Iterator[Path]:
    """The check's private scratch folder (mode 0700), removed on every way out.

    After Ctrl-C the TeX runs are stopped first, so nothing writes into the folder while it
    goes; a second Ctrl-C during the removal takes effect once the folder is gone.
    """
    _STOPPING.clear()  # a new check in this process (a library caller after an interrupt)
    with ctrl_c_once():
        tmp: Path | None = None
        try:
            with sigint_deferred():  # made and named together, so the finally always removes it
                tmp = Path(tempfile.mkdtemp(prefix="pithtex-check-"))
            yield tmp
        except BaseException:
            stop_all()
            raise
        finally:
            if tmp is not None:
                with sigint_deferred():
                    shutil.rmtree(tmp, ignore_errors=True)


@contextlib.contextmanager
def sigint_deferred() -> Iterator[None]:
    """Ctrl-C during the block is remembered and acted on when the block ends (main thread only:
    only there can Python change signal handlers). Under a check's `ctrl_c_once` handler this
    only sets its flag; after an interrupt it was already set, so nothing more is raised."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    guard = signal.getsignal(signal.SIGINT)
    if isinstance(guard, _CtrlC):  # a check's handler: no swap, which a Ctrl-C could land before
        was, before = guard.deferring, guard.seen
        guard.deferring = True
        try:
            yield
        finally:
            guard.deferring = was
            if not was and guard.seen > before:
                guard.deferring = True  # as if it came now: what follows is the interrupt's clean-up
                raise KeyboardInterrupt
        return
    seen: list[int] = []
    old = signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
        if seen and callable(old):
            old(signal.SIGINT, None)
