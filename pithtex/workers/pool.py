"""Many PDFs' verdicts (`verify A.pdf FOLDER/ --jobs N`), made in `jobs` bounded worker
processes (bounded.py: each file under the limits afresh, a worker reused for up to
READS_PER_WORKER files), given back in the files' order as they come.

Nothing is lost: a worker that dies, or goes past a limit, is that file's "unchecked: reading
X stopped (why)" and is replaced; a bug in one file is that file's "error" line (exit 70); a
folder that cannot be listed is a line of its own and the walk goes on. Ctrl-C (once or
twice) ends every worker before it is raised. At most 2 x jobs files are in flight, so memory stays bounded however
many there are.
"""

from __future__ import annotations

from typing import Any

from ..value import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from collections import deque
    from collections.abc import Callable, Iterable, Iterator
    from pathlib import Path

    from ..number import PithNumber
    from .bounded import Limits, Worker

# Fetches one file's verdict may wait for (its record; an arXiv id's answer first): the
# child's deadline is a read's plus this many network deadlines.
FETCHES_PER_FILE = 2


class FileVerdict(NamedTuple):
    """One file of many: its arXiv id and version, its Pith Number, its verdict."""

    file: str
    arxiv: str | None
    number: PithNumber | None
    state: str  # verified, invalid, unchecked, or "error" for a file that is no usable input
    exit_code: int
    detail: str  # the summary ("verified: record ..."), or the error ("error: ..."), state first

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "arxiv": self.arxiv, "number": self.number and self.number.body,
                "state": self.state, "exit_code": self.exit_code, "detail": self.detail}



def verdicts(verdict_of: VerdictOf, timeout: float | None, targets: Iterable[str | Path], password: bytes | None,
             progress: Callable[[int, str], None] | None, jobs: int) -> Iterator[FileVerdict]:
    """Each file's verdict, in order: made in `jobs` worker processes when a fork is safe (see
    bounded.can_fork); else made here one by one, each PDF read by one reused, bounded reader."""
    from ..target import pdf_entries
    from .bounded import can_fork, reading

    entries = pdf_entries(targets)
    if can_fork():
        _warm()  # once here, not in each worker
    if jobs > 1 and can_fork():
        yield from _in_workers(verdict_of, timeout, entries, password, progress, jobs)
        return
    with reading():
        for done, (path, unlisted) in enumerate(entries):
            if progress is not None:
                progress(done, str(path))
            yield unlisted_verdict(path, unlisted) if unlisted is not None else verdict_of(path, password)


def unlisted_verdict(folder: Path, problem: OSError) -> FileVerdict:
    """A folder that cannot be listed: its own unchecked line; the files beside it go on."""
    from ..brand import STATE_OF_EXIT
    from ..errors import UNDECIDED

    why = problem.strerror or str(problem)
    return FileVerdict(str(folder), None, None, STATE_OF_EXIT[UNDECIDED], UNDECIDED,
                       f"{STATE_OF_EXIT[UNDECIDED]}: the folder {folder} cannot be listed ({why}); its PDFs "
                       "were not checked")


if TYPE_CHECKING:  # one file's verdict, made by whoever asks for many (the Client's `verdict`)
    VerdictOf = Callable[[Path, bytes | None], FileVerdict]


class _Slot:
    """One entry in flight: its name, and the worker making its verdict, or its verdict."""

    def __init__(self, path: Path, verdict: FileVerdict | None = None) -> None:
        self.path, self.verdict = path, verdict
        self.worker: Worker | None = None


def _in_workers(verdict_of: VerdictOf, timeout: float | None, entries: Iterator[tuple[Path, OSError | None]],
                password: bytes | None, progress: Callable[[int, str], None] | None,
                jobs: int) -> Iterator[FileVerdict]:
    from collections import deque

    from .bounded import end_all

    slots: deque[_Slot] = deque()
    workers: list[Worker] = []
    limits = _limits(timeout)
    done = 0
    try:
        while True:
            _fill(slots, entries, 2 * jobs)
            _start(slots, workers, verdict_of, jobs, limits, password)
            if not slots:
                return
            head = slots[0]
            if head.verdict is None:
                _wait(slots)
                continue
            if progress is not None:
                progress(done, str(head.path))
            slots.popleft()
            done += 1
            yield head.verdict
    finally:  # the end, Ctrl-C, a consumer that stops, an error: no worker outlives the run
        end_all(workers)


def _fill(slots: deque[_Slot], entries: Iterator[tuple[Path, OSError | None]], most: int) -> None:
    while len(slots) < most:
        entry = next(entries, None)
        if entry is None:
            return
        path, unlisted = entry
        slots.append(_Slot(path, unlisted_verdict(path, unlisted) if unlisted is not None else None))


def _start(slots: Iterable[_Slot], workers: list[Worker], verdict_of: VerdictOf, jobs: int, limits: Limits,
           password: bytes | None) -> None:
    """Hand the oldest waiting files to idle workers, starting (or replacing) up to `jobs`."""
    from .bounded import fresh

    for slot in slots:
        if slot.worker is not None or slot.verdict is not None:
            continue
        idle = next((i for i, worker in enumerate(workers) if not worker.busy), None)
        if idle is None and len(workers) >= jobs:
            return
        worker = fresh(workers[idle] if idle is not None else None, verdict_of, limits)
        if idle is None:
            workers.append(worker)
        else:
            workers[idle] = worker
        worker.submit((slot.path, password), str(slot.path))
        slot.worker = worker


def _wait(slots: Iterable[_Slot]) -> None:
    """Wait for the next worker to answer (or to pass its deadline), and take its verdict."""
    import select
    import time

    running = [(slot, slot.worker) for slot in slots if slot.worker is not None and slot.verdict is None]
    soonest = min(worker.deadline for _slot, worker in running)
    ready = select.select([worker for _slot, worker in running], [], [], max(0.0, soonest - time.monotonic()))[0]
    now = time.monotonic()
    for slot, worker in running:
        if worker in ready:
            worker.pump()
        elif now >= worker.deadline:
            worker.expire()
        if worker.done:
            slot.verdict = _verdict_of(slot.path, worker)


def _verdict_of(path: Path, worker: Worker) -> FileVerdict:
    """A worker's answer as the file's verdict; one that stopped, or raised (a bug), is that
    file's line, and the run goes on."""
    from .. import errors
    from ..errors import PithError, bug_message
    from .bounded import Stopped

    try:
        verdict: FileVerdict = worker.answer().value
    except Stopped as exc:
        word = "unchecked"
        return FileVerdict(str(path), None, None, word, exc.exit_code, f"{word}: {exc}")
    except PithError as exc:  # the verdict catches these; one that crossed anyway is still this file's
        return FileVerdict(str(path), None, None, "error", exc.exit_code, f"error: {exc}")
    except Exception as exc:  # a bug in one file's verdict: said as one, the run goes on
        return FileVerdict(str(path), None, None, "error", errors.BUG, f"error: {path}: {bug_message(exc)}")
    return verdict


def _limits(timeout: float | None) -> Limits:
    """A read's limits, the deadline stretched by the network deadlines a verdict may wait for."""
    from ..limits import NETWORK_SECONDS, READ_WALL_SECONDS
    from .bounded import read_limits

    return read_limits(READ_WALL_SECONDS + FETCHES_PER_FILE * (timeout or NETWORK_SECONDS))


def _warm() -> None:
    """Import what reading a file needs before the forks, so the children share one import (a
    tenth of a second) instead of each making its own."""
    import http.client  # noqa: F401  # (and ssl) net.get imports it at its first fetch: once here, not per worker

    from .. import resolver, verify  # noqa: F401
    from ..arxiv import identify  # noqa: F401
    from ..pdf import titles  # noqa: F401
    from .bounded import warm

    warm()
