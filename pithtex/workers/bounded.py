"""One call in a forked child process, under hard bounds: an address-space limit (RLIMIT_AS,
beyond what the child starts with), a CPU limit (RLIMIT_CPU), a deadline the parent keeps,
and a cap on the bytes it hands back (pithtex/limits.py). The child is a fork of this process,
so it starts with everything imported and costs a fork, not an interpreter.

A child that does not come back with an answer (killed by a signal, aborted, past a limit or
its deadline) raises `Stopped` here, naming the file and why in one line, exit 3: the file
is unchecked, and a caller with many files goes on to the next. An exception the call raised
in the child is raised here as it was (a PithError crosses with its fields).

Forking copies only the calling thread: with other threads running (a library user's, a test's
HTTP server) or off Linux, the call runs in this process, unbounded, as it did before.
"""

from __future__ import annotations

import os

from ..errors import UNDECIDED, PithError
from ..value import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
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
inside = False  # True in a child: it is bounded already, so what it reads is read in place

_MEMORY_EXIT = 99  # a child's exit status when Python ran out of the memory it may take


def can_fork() -> bool:
    """A fork copies only the thread that makes it: safe while this process runs no other. On
    Linux only: macOS's system libraries (its proxy settings, which requests reads) may not be
    used in a forked child, and Windows has no fork."""
    import sys
    import threading

    return sys.platform.startswith("linux") and threading.active_count() == 1


def read_view(path: str | Path, password: bytes | None = None, pages: int | None = None) -> PageView:
    """pdf/view.py's `read_view` in a bounded child (in place inside one, or where no fork is
    safe); Stopped when the child gave no answer."""
    from ..pdf import view

    if inside or not can_fork():
        return view.read_view(path, password, pages)
    warm()
    answer: PageView = run(view.read_view, (path, password, pages), name=str(path)).value
    return answer


def warm(read: bool = False) -> None:
    """Import what reading a PDF imports, here, before the forks: each child then starts with
    it, instead of importing it again (a tenth of a second each, a third of a small read).
    `read`, for a run of many files: also read a PDF of our own once here, so PDFium's fonts
    and caches are made once, not in each child (a third of a child's CPU on a small paper)."""
    global _warmed
    if _warmed >= (2 if read else 1):
        return
    import PIL.Image  # pdf/pdfium.py compares renderings with PIL
    import PIL.ImageChops  # noqa: F401

    from ..pdf import facts, glyphs, page, pdfium, shown, update, view  # noqa: F401

    pdfium.preload()
    _warmed = max(_warmed, 1)
    if read:
        import tempfile

        with tempfile.NamedTemporaryFile(suffix=".pdf") as tiny:
            tiny.write(_tiny_pdf())
            tiny.flush()
            view.read_view(tiny.name)
        _warmed = 2


_warmed = 0  # 1: imported; 2: a PDF read here too


def _tiny_pdf() -> bytes:
    """A one-page PDF with a line of Helvetica: what every paper makes PDFium load first."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
               b"/Resources << /Font << /F1 5 0 R >> >> >>",
               b"<< /Length 44 >>\nstream\nBT /F1 24 Tf 72 700 Td (Warm Up Title) Tj ET\nendstream",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def run(call: Callable[..., Any], args: tuple[Any, ...], *, name: str, limits: Limits | None = None) -> Answer:
    """`call(*args)` in a bounded child; its answer, the exception it raised, or Stopped
    ("reading NAME stopped (why)"). Ctrl-C here ends the child before it is raised."""
    import select
    import time

    child = Child(call, args, limits or read_limits(), name)
    with ending([child]):
        while not child.done:
            left = child.deadline - time.monotonic()
            if left <= 0:
                child.expire()
                break
            if select.select([child], [], [], left)[0]:
                child.pump()
        return child.finish()


class Child:
    """A forked child running one call; its answer comes back pickled through a pipe."""

    def __init__(self, call: Callable[..., Any], args: tuple[Any, ...], limits: Limits, name: str) -> None:
        import time

        global forks
        read, write = os.pipe2(os.O_CLOEXEC)
        pid = os.fork()
        if pid == 0:
            os.close(read)
            _in_child(write, call, args, limits)
        os.close(write)
        forks += 1
        alive.add(pid)
        self.pid, self.fd, self.limits, self.name = pid, read, limits, name
        self.deadline = time.monotonic() + limits.wall
        self.data = bytearray()
        self.problem: str | None = None  # why the parent stopped it, when it did
        self.done = False  # its end of the pipe closed: it is gone or going
        self.reaped = False

    def fileno(self) -> int:
        return self.fd

    def pump(self) -> None:
        """Take what the child wrote; at the cap, the child is stopped."""
        chunk = os.read(self.fd, 1 << 16)
        self.data += chunk
        if not chunk:
            self.done = True
        elif len(self.data) > self.limits.answer:
            self.stop(f"its answer was over {self.limits.answer:,} bytes")

    def expire(self) -> None:
        self.stop(f"it took over {self.limits.wall:g} s")

    def stop(self, why: str) -> None:
        self.problem = self.problem or why
        self.kill()
        self.done = True

    def kill(self) -> None:
        import signal

        os.kill(self.pid, signal.SIGKILL)  # unreaped, so it exists (a zombie at worst): never ESRCH

    def reap(self) -> tuple[int, Any]:
        """Wait for the child (it has ended, or been killed); its status and resource usage."""
        os.close(self.fd)
        self.reaped = True
        _pid, status, usage = os.wait4(self.pid, 0)
        alive.discard(self.pid)
        return status, usage

    def finish(self) -> Answer:
        """The child reaped: its answer, the exception it raised, or Stopped."""
        import pickle

        status, usage = self.reap()
        cost = (usage.ru_maxrss, usage.ru_utime + usage.ru_stime)
        if self.problem is None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and self.data:
            kind, value = pickle.loads(bytes(self.data))  # our own child's answer
            if kind == "ok":
                return Answer(value, *cost)
            if not isinstance(value, MemoryError):
                raise value
            status = _MEMORY_EXIT << 8
        raise Stopped(f"reading {self.name} stopped ({self.problem or _death(status, self.limits)})")


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


def _in_child(write: int, call: Callable[..., Any], args: tuple[Any, ...], limits: Limits) -> NoReturn:
    """The child's whole life: its limits set, the call made, its answer written; it ends by
    os._exit, never by returning into the parent's code (nor running its exit handlers)."""
    code = 1
    try:
        _bound(limits)
        try:
            answer: tuple[str, Any] = ("ok", call(*args))
        except MemoryError:
            os._exit(_MEMORY_EXIT)
        except BaseException as exc:  # whatever it raised is the parent's to raise
            answer = ("raise", exc)
        with os.fdopen(write, "wb") as out:
            out.write(_pickled(answer))
        code = 0
    except MemoryError:
        code = _MEMORY_EXIT
    finally:
        os._exit(code)


def _bound(limits: Limits) -> None:
    """Ctrl-C and SIGTERM are the parent's to handle (it ends its children); then the limits."""
    import resource
    import signal

    global inside
    inside = True
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu, limits.cpu + 1))  # SIGXCPU, then SIGKILL
    with open("/proc/self/statm", "rb") as statm:  # the address space the child starts with
        space = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    most = space + limits.memory
    most = most if hard == resource.RLIM_INFINITY else min(most, hard)
    resource.setrlimit(resource.RLIMIT_AS, (most, most if hard == resource.RLIM_INFINITY else hard))


def _pickled(answer: tuple[str, Any]) -> bytes:
    """The answer as bytes; an exception that does not pickle crosses as a RuntimeError of its words."""
    import pickle

    try:
        return pickle.dumps(answer)
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
        value = answer[1] if answer[0] == "raise" else exc
        return pickle.dumps(("raise", RuntimeError(f"{type(value).__name__}: {value}")))


class ending:  # a context manager named for what it does at the end
    """On the way out (an answer, Ctrl-C, an error), each child not yet reaped is killed and
    reaped, with Ctrl-C and SIGTERM held back meanwhile: a second Ctrl-C cannot leave one alive."""

    def __init__(self, children: Iterable[Child]) -> None:
        self.children = children

    def __enter__(self) -> ending:
        return self

    def __exit__(self, *exc: object) -> None:
        end_all(self.children)


def end_all(children: Iterable[Child]) -> None:
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
