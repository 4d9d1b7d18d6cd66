"""Calls made in a forked worker process, each under hard bounds: an address-space limit
(RLIMIT_AS, beyond what the worker has when the call comes), a CPU limit (RLIMIT_CPU, beyond
what it has used), a deadline the parent keeps, and a cap on the bytes it hands back
(pithtex/limits.py). The worker is a fork of this process, so it starts with everything
imported and costs a fork, not an interpreter; a run of many files reuses it (`reading`,
pool.py) for up to READS_PER_WORKER of them, one file alone forks one (`run`).

A worker that does not come back with an answer (killed by a signal, aborted, past a limit or
its deadline) raises `Stopped` here, naming the file and why in one line, exit 3: the file
is unchecked, and a caller with many files goes on to the next, in a new worker. An exception
the call raised in the worker is raised here as it was (a PithError crosses with its fields).

Forking copies only the calling thread: with other threads running (a library user's, a test's
HTTP server) or off Linux, the call runs in this process, unbounded, as it did before.
"""

from __future__ import annotations

import contextlib
import os
import threading

from ..errors import UNDECIDED, PithError
from ..value import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from pathlib import Path
    from typing import Any, NoReturn

    from ..pdf.view import PageView


class Limits(NamedTuple):
    """What one child may take: address space beyond its start (bytes), CPU seconds, wall
    seconds, and bytes of answer."""

    memory: int
    cpu: int
    wall: float
    answer: int


def read_limits(wall: float | None = None) -> Limits:
    """The limits of one PDF read (pithtex/limits.py); `wall` instead of its deadline."""
    from .. import limits

    return Limits(limits.READ_MEMORY, limits.READ_CPU_SECONDS,
                  limits.READ_WALL_SECONDS if wall is None else wall, limits.MAX_READ_ANSWER)


class Stopped(PithError):
    """Reading a file stopped before it gave an answer: its worker died or went past a limit.
    The file is unchecked (exit 3); nothing about it was decided."""

    exit_code = UNDECIDED


class Answer(NamedTuple):
    """A child's answer, and what it cost: its peak resident memory (ru_maxrss, KiB) and CPU."""

    value: Any
    peak_kib: int
    cpu_seconds: float


forks = 0  # children this process started: the count tests and bench/bounds.py read
alive: set[int] = set()  # the children started and not yet reaped (their process ids)
_held: set[int] = set()  # this process's ends of its workers' pipes: a later worker closes them
inside = False  # True in a child: it is bounded already, so what it reads is read in place

_MEMORY_EXIT = 99  # a child's exit status when Python ran out of the memory it may take


# Reads made in place, from threads (no fork is safe then): one at a time, as PDFium allows.
_IN_PLACE = threading.Lock()


def can_fork() -> bool:
    """A fork copies only the thread that makes it: safe while this process runs no other. On
    Linux only: macOS's system libraries (its proxy settings, which requests reads) may not be
    used in a forked child, and Windows has no fork."""
    import sys
    import threading

    return sys.platform.startswith("linux") and threading.active_count() == 1


def read_view(path: str | Path, password: bytes | None = None, pages: int | None = None,
              index: int = 0) -> PageView:
    """pdf/view.py's `read_view` in a bounded child (in place inside one, or where no fork is
    safe: `check` reads each route's PDF in that route's thread, one at a time, as PDFium is
    not thread-safe); Stopped when the child gave no answer. `index`: the page read (0: page 1)."""
    from ..pdf import view

    global _reader
    early = _take_early()
    if early is not None:
        asked, worker = early
        with ending([worker]):
            if asked == (_key(path), password, pages, index):
                answer_early: PageView = worker.wait().value
                return answer_early
    if inside or not can_fork():
        with _IN_PLACE:
            return view.read_view(path, password, pages, index)
    warm()
    if not _reading:
        answer: PageView = run(view.read_view, (path, password, pages, index), name=str(path)).value
        return answer
    _reader = fresh(_reader, view.read_view, read_limits())
    _reader.submit((path, password, pages, index), str(path))
    answer = _reader.wait().value
    return answer


def read_early(path: str | Path, password: bytes | None = None) -> bool:
    """Start reading one PDF (page 1 and its facts, as `read_view` does) in a bounded child now,
    before this process imports what comes after the reading (the keys, the resolver, the
    checks): the child imports PDFium and reads while this process imports, instead of one
    after the other (issue 32, "fast for one file"). Nothing is imported for it here; the next
    `read_view` of this file takes the answer, `drop_early` ends a read nobody took. False
    (nothing started) where no fork is safe: the file is then read when asked."""
    global _early
    if inside or _early is not None or not can_fork():
        return False
    from ..pdf import view

    worker = Worker(view.read_view, read_limits(), warm)  # the child imports the reader, not this process
    _early = ((_key(path), password, None, 0), worker)
    worker.submit((path, password, None, 0), str(path))
    return True


def reading_early() -> bool:
    """A read `read_early` started is under way: this process has time to import meanwhile."""
    return _early is not None


def drop_early() -> None:
    """End the child of a read `read_early` started and nobody took (the command failed first)."""
    early = _take_early()
    if early is not None:
        end_all([early[1]])


def _key(path: str | Path) -> str:
    """A path as the early read and the read that takes it both name it ("./a.pdf" is "a.pdf")."""
    from pathlib import Path

    return str(Path(path))


def _take_early() -> tuple[tuple[object, ...], Worker] | None:
    global _early
    early, _early = _early, None
    return early


_early: tuple[tuple[object, ...], Worker] | None = None


def fresh(worker: Worker | None, call: Callable[..., Any], limits: Limits) -> Worker:
    """`worker` while it is alive and has served fewer than READS_PER_WORKER requests; else a
    new one (the old one ended): what one file leaves behind stays with a few others at most."""
    from ..limits import READS_PER_WORKER

    if worker is not None and not worker.dead and worker.served < READS_PER_WORKER:
        return worker
    if worker is not None:
        worker.close()
    return Worker(call, limits)


@contextlib.contextmanager
def reading() -> Iterator[None]:
    """Within it, `read_view` hands each PDF to one reader worker, reused (a run of many files
    pays one fork, not one a file) and replaced when it dies; ended on the way out."""
    global _reading, _reader
    _reading = True
    try:
        yield
    finally:
        _reading = False
        if _reader is not None:
            end_all([_reader])
        _reader = None


_reading = False
_reader: Worker | None = None


def warm() -> None:
    """Import what reading a PDF imports, here, before the forks: each worker then starts with
    it, instead of importing it again (a tenth of a second each, a third of a small read)."""
    global _warmed
    if _warmed:
        return
    import PIL.Image  # pdf/pdfium.py compares renderings with PIL
    import PIL.ImageChops  # noqa: F401

    from ..pdf import facts, glyphs, page, pdfium, shown, update, view  # noqa: F401

    pdfium.preload()
    _warmed = True


_warmed = False


def run(call: Callable[..., Any], args: tuple[Any, ...], *, name: str, limits: Limits | None = None) -> Answer:
    """`call(*args)` in a bounded child of its own; its answer, the exception it raised, or
    Stopped ("reading NAME stopped (why)"). Ctrl-C here ends the child before it is raised."""
    worker = Worker(call, limits or read_limits())
    with ending([worker]):
        worker.submit(args, name)
        return worker.wait()


class Worker:
    """A forked child that makes `call` for one request after another, each under the limits
    afresh (its CPU limit and address space counted from where the request starts), so a run
    of many files pays one fork, not one a file. A request it does not answer (it died, passed
    a limit or its deadline) is Stopped, and the worker is gone: the caller starts another."""

    def __init__(self, call: Callable[..., Any], limits: Limits, ready: Callable[[], None] | None = None) -> None:
        global forks
        requests, asked = os.pipe2(os.O_CLOEXEC)
        answers, told = os.pipe2(os.O_CLOEXEC)
        pid = os.fork()
        if pid == 0:
            for fd in (asked, answers, *_held):  # this worker's parent ends, and other workers' pipes
                os.close(fd)
            _serve(requests, told, call, limits, ready)
        os.close(requests)
        os.close(told)
        _held.update((asked, answers))
        forks += 1
        alive.add(pid)
        self.pid, self.asked, self.fd, self.limits = pid, asked, answers, limits
        self.name = ""
        self.deadline = 0.0
        self.data = bytearray()
        self.problem: str | None = None  # why the parent stopped it, when it did
        self.busy = False  # a request is out
        self.done = False  # its answer is whole, or it is gone
        self.dead = False
        self.reaped = False
        self.served = 0

    def fileno(self) -> int:
        return self.fd

    def submit(self, args: tuple[Any, ...], name: str) -> None:
        import pickle
        import time

        payload = pickle.dumps(args)
        self.name, self.data, self.problem, self.busy, self.done = name, bytearray(), None, True, False
        self.deadline = time.monotonic() + self.limits.wall
        try:
            _write_all(self.asked, len(payload).to_bytes(8, "big") + payload)
        except BrokenPipeError:  # it died between requests: this one is lost with it
            self.dead = self.done = True

    def wait(self) -> Answer:
        """This request's answer (see `answer`), waiting for it until its deadline."""
        import select
        import time

        while not self.done:
            left = self.deadline - time.monotonic()
            if left <= 0:
                self.expire()
            elif select.select([self], [], [], left)[0]:
                self.pump()
        return self.answer()

    def pump(self) -> None:
        """Take what the child wrote; an answer over the cap stops it."""
        chunk = os.read(self.fd, 1 << 16)
        self.data += chunk
        if not chunk:
            self.dead = self.done = True
        elif len(self.data) >= 8:
            size = int.from_bytes(self.data[:8], "big")
            if size > self.limits.answer:
                self.stop(f"its answer was over {self.limits.answer:,} bytes")
            elif len(self.data) >= 8 + size:
                self.done = True

    def expire(self) -> None:
        self.stop(f"it took over {self.limits.wall:g} s")

    def stop(self, why: str) -> None:
        self.problem = self.problem or why
        self.kill()
        self.dead = self.done = True

    def kill(self) -> None:
        import signal

        os.kill(self.pid, signal.SIGKILL)  # unreaped, so it exists (a zombie at worst): never ESRCH

    def answer(self) -> Answer:
        """The request's answer, the exception it raised, or Stopped (the worker then reaped)."""
        import pickle

        self.busy = False
        if not self.dead:
            self.served += 1
            kind, value, peak, cpu = pickle.loads(bytes(self.data[8:]))  # our own child's answer
            if kind == "ok":
                return Answer(value, peak, cpu)
            raise value
        status, _usage = self.reap()
        raise Stopped(f"reading {self.name} stopped ({self.problem or _death(status, self.limits)})")

    def close(self) -> None:
        """No more requests: the worker is ended (it holds nothing to finish) and reaped."""
        if not self.reaped:
            self.kill()
            self.reap()

    def reap(self) -> tuple[int, Any]:
        """Wait for the child (it has ended, or been killed); its status and resource usage."""
        for fd in (self.asked, self.fd):
            os.close(fd)
            _held.discard(fd)
        self.reaped = self.dead = True
        _pid, status, usage = os.wait4(self.pid, 0)
        alive.discard(self.pid)
        return status, usage


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_exact(fd: int, size: int) -> bytes:
    """`size` bytes from `fd`; fewer only at its end."""
    out = bytearray()
    while len(out) < size:
        chunk = os.read(fd, size - len(out))
        if not chunk:
            break
        out += chunk
    return bytes(out)


def _death(status: int, limits: Limits) -> str:
    """Why a child ended without an answer, in words."""
    import signal

    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        name = signal.Signals(number).name if number in signal.valid_signals() else f"signal {number}"
        if number == signal.SIGXCPU:
            return f"it used over {limits.cpu} s of CPU"
        if number == signal.SIGABRT:
            return "the reader aborted (SIGABRT), as PDFium does when it cannot go on"
        if number == signal.SIGSEGV:
            return "the reader crashed (SIGSEGV)"
        return f"its worker was killed ({name})"
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else status
    if code == _MEMORY_EXIT:
        return f"it needed over {limits.memory // 2**20} MiB of memory"
    return f"its worker ended with status {code} and no answer"


def _serve(requests: int, answers: int, call: Callable[..., Any], limits: Limits,
           ready: Callable[[], None] | None = None) -> NoReturn:
    """The child's whole life: a request read, its limits set afresh, the call made, the answer
    written, until its requests end; it ends by os._exit, never by returning into the parent's
    code (nor running its exit handlers)."""
    import pickle
    import resource

    code = 1
    try:
        _take_signals()
        if ready is not None:  # its imports, made while its parent writes the first request
            ready()
        while True:
            head = _read_exact(requests, 8)
            if len(head) < 8:
                code = 0
                break
            args = pickle.loads(_read_exact(requests, int.from_bytes(head, "big")))  # our parent's request
            _bound(limits)
            used = _cpu_used()
            try:
                answer: tuple[str, Any] = ("ok", call(*args))
            except MemoryError:
                os._exit(_MEMORY_EXIT)
            except BaseException as exc:  # whatever it raised is the parent's to raise
                answer = ("raise", exc)
            data = _pickled((*answer, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, _cpu_used() - used))
            _write_all(answers, len(data).to_bytes(8, "big") + data)
    except MemoryError:
        code = _MEMORY_EXIT
    finally:
        os._exit(code)


def _take_signals() -> None:
    """Ctrl-C and SIGTERM are the parent's to handle (it ends its children)."""
    import signal

    global inside
    inside = True
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _cpu_used() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _bound(limits: Limits) -> None:
    """The limits of one request, counted from here: `limits.cpu` seconds of CPU more than used
    so far (SIGXCPU ends the child), `limits.memory` bytes of address space more than it has.
    Soft limits only: the hard ones stay, so each request can move them again."""
    import math
    import resource

    cpu_hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    cpu = math.ceil(_cpu_used()) + limits.cpu
    resource.setrlimit(resource.RLIMIT_CPU, (_within(cpu, cpu_hard), cpu_hard))
    with open("/proc/self/statm", "rb") as statm:  # the address space it has now
        space = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    as_hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    resource.setrlimit(resource.RLIMIT_AS, (_within(space + limits.memory, as_hard), as_hard))


def _within(value: int, hard: int) -> int:
    import resource

    return value if hard == resource.RLIM_INFINITY else min(value, hard)


def _pickled(answer: tuple[Any, ...]) -> bytes:
    """(kind, value, peak, cpu) as bytes; a value that does not pickle crosses as a
    RuntimeError of its words."""
    import pickle

    try:
        return pickle.dumps(answer)
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
        value = answer[1] if answer[0] == "raise" else exc
        return pickle.dumps(("raise", RuntimeError(f"{type(value).__name__}: {value}"), *answer[2:]))


class ending:  # a context manager named for what it does at the end
    """On the way out (an answer, Ctrl-C, an error), each child not yet reaped is killed and
    reaped, with Ctrl-C and SIGTERM held back meanwhile: a second Ctrl-C cannot leave one alive."""

    def __init__(self, children: Iterable[Worker]) -> None:
        self.children = children

    def __enter__(self) -> ending:
        return self

    def __exit__(self, *exc: object) -> None:
        end_all(self.children)


def end_all(children: Iterable[Worker]) -> None:
    """Kill and reap each child not reaped yet, Ctrl-C and SIGTERM held back meanwhile."""
    import signal

    held = {signal.SIGINT, signal.SIGTERM}
    old = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        unreaped = [child for child in children if not child.reaped]
        for child in unreaped:
            child.kill()
        for child in unreaped:
            child.reap()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
