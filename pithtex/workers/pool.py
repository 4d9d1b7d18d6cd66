"""Many PDFs' verdicts (`verify A.pdf FOLDER/ --jobs N`), each file's made in its own bounded
child (bounded.py), at most `jobs` at a time, given back in the files' order as they come.

Nothing is lost: a child that dies, or goes past a limit, is that file's "unchecked: reading X
stopped (why)"; a bug in one is that file's "error" line (exit 70); a folder that cannot be
listed is a line of its own and the walk goes on. Ctrl-C (once or twice) ends every child
before it is raised. At most 2 x jobs files are in flight, so memory stays bounded however
many there are.
"""

from __future__ import annotations

from ..value import TYPE_CHECKING

if TYPE_CHECKING:
    from collections import deque
    from collections.abc import Callable, Iterable, Iterator
    from pathlib import Path

    from ..client import Client, FileVerdict
    from .bounded import Child, Limits

# Fetches one file's verdict may wait for (its record; an arXiv id's answer first): the
# child's deadline is a read's plus this many network deadlines.
FETCHES_PER_FILE = 2


def verdicts(client: Client, targets: Iterable[str | Path], password: bytes | None,
             progress: Callable[[int, str], None] | None, jobs: int) -> Iterator[FileVerdict]:
    """Each file's verdict, in order: read in forked children when a fork is safe (see
    bounded.can_fork), else one by one here, each read still bounded where it can be."""
    from ..target import pdf_entries
    from .bounded import can_fork

    entries = pdf_entries(targets)
    if can_fork():
        _warm()  # once here, not in each file's child
    if jobs > 1 and can_fork():
        yield from _in_children(client, entries, password, progress, jobs)
        return
    for done, (path, unlisted) in enumerate(entries):
        if progress is not None:
            progress(done, str(path))
        yield unlisted_verdict(path, unlisted) if unlisted is not None else client.verdict(path, password)


def unlisted_verdict(folder: Path, problem: OSError) -> FileVerdict:
    """A folder that cannot be listed: its own unchecked line; the files beside it go on."""
    from ..brand import STATE_OF_EXIT
    from ..client import FileVerdict
    from ..errors import UNDECIDED

    why = problem.strerror or str(problem)
    return FileVerdict(str(folder), None, None, STATE_OF_EXIT[UNDECIDED], UNDECIDED,
                       f"{STATE_OF_EXIT[UNDECIDED]}: the folder {folder} cannot be listed ({why}); its PDFs "
                       "were not checked")


class _Slot:
    """One entry in flight: its name, and its child (running) or its verdict (known)."""

    def __init__(self, path: Path, verdict: FileVerdict | None = None) -> None:
        self.path, self.verdict = path, verdict
        self.child: Child | None = None


def _in_children(client: Client, entries: Iterator[tuple[Path, OSError | None]], password: bytes | None,
                 progress: Callable[[int, str], None] | None, jobs: int) -> Iterator[FileVerdict]:
    from collections import deque

    from .bounded import end_all

    slots: deque[_Slot] = deque()
    limits = _limits(client)
    done = 0
    try:
        while True:
            _fill(slots, entries, 2 * jobs)
            _start(slots, client, password, jobs, limits)
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
    finally:  # Ctrl-C, a consumer that stops, an error: no child outlives the run
        end_all(slot.child for slot in slots if slot.child is not None)


def _fill(slots: deque[_Slot], entries: Iterator[tuple[Path, OSError | None]], most: int) -> None:
    while len(slots) < most:
        entry = next(entries, None)
        if entry is None:
            return
        path, unlisted = entry
        slots.append(_Slot(path, unlisted_verdict(path, unlisted) if unlisted is not None else None))


def _start(slots: Iterable[_Slot], client: Client, password: bytes | None, jobs: int, limits: Limits) -> None:
    """Start the oldest waiting files, up to `jobs` children at a time."""
    from .bounded import Child

    running = sum(1 for slot in slots if slot.child is not None and slot.verdict is None)
    for slot in slots:
        if running >= jobs:
            return
        if slot.child is None and slot.verdict is None:
            slot.child = Child(client.verdict, (slot.path, password), limits, str(slot.path))
            running += 1


def _wait(slots: Iterable[_Slot]) -> None:
    """Wait for the next child to answer (or to pass its deadline), and take its verdict."""
    import select
    import time

    running = [(slot, slot.child) for slot in slots if slot.child is not None and slot.verdict is None]
    soonest = min(child.deadline for _slot, child in running)
    ready = select.select([child for _slot, child in running], [], [], max(0.0, soonest - time.monotonic()))[0]
    now = time.monotonic()
    for slot, child in running:
        if child in ready:
            child.pump()
        elif now >= child.deadline:
            child.expire()
        if child.done:
            slot.verdict = _verdict_of(slot.path, child)


def _verdict_of(path: Path, child: Child) -> FileVerdict:
    """A finished child's verdict; one that stopped, or raised (a bug), is that file's line."""
    from .. import errors
    from ..client import FileVerdict
    from ..errors import PithError, bug_message
    from .bounded import Stopped

    try:
        verdict: FileVerdict = child.finish().value
    except Stopped as exc:
        word = "unchecked"
        return FileVerdict(str(path), None, None, word, exc.exit_code, f"{word}: {exc}")
    except PithError as exc:  # the verdict catches these; one that crossed anyway is still this file's
        return FileVerdict(str(path), None, None, "error", exc.exit_code, f"error: {exc}")
    except Exception as exc:  # a bug in one file's verdict: said as one, the run goes on
        return FileVerdict(str(path), None, None, "error", errors.BUG, f"error: {path}: {bug_message(exc)}")
    return verdict


def _limits(client: Client) -> Limits:
    """A read's limits, the deadline stretched by the network deadlines a verdict may wait for."""
    from ..limits import NETWORK_SECONDS, READ_WALL_SECONDS
    from .bounded import read_limits

    return read_limits(READ_WALL_SECONDS + FETCHES_PER_FILE * (client.timeout or NETWORK_SECONDS))


def _warm() -> None:
    """Import what reading a file needs before the forks, so the children share one import (a
    tenth of a second) instead of each making its own."""
    import requests  # noqa: F401  # net.get imports it on the first fetch

    from .. import resolver, verify  # noqa: F401
    from ..arxiv import identify  # noqa: F401
    from ..pdf import titles  # noqa: F401
    from .bounded import warm

    warm(read=True)
