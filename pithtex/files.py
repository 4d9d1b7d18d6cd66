"""Every file pithtex writes goes through here, so every command treats an output path alike.

The rules (stamp -o/--in-place, badge -o, bundle -o, render, web assets, the resolver cache):
- Only regular files are written. A folder, a device (/dev/full), a FIFO or a socket at the
  path is refused, and so is `-` (commands that print to stdout handle `-` before calling us).
- A symlink is followed, explicitly: the file it points to is written (its content replaced,
  the link left a link), and `output_path` returns that target so a command can name it.
- A missing parent folder is an error naming that folder; nothing is created on the side.
  (Folders a command owns, such as render's `latex/`, `badge --list`'s `-o DIR` or the cache,
  are made by that command, with `make_folder`.)
- The bytes go to a hidden temporary file beside the target (`.NAME.pithtex-PID-N.tmp`),
  fsynced and renamed over it only when complete, the folder fsynced after; where no file is
  at the target, the complete temporary file is linked into place instead, with no fsync
  (nothing there can be lost, and a batch into a new folder pays no disk waits); on any failure,
  Ctrl-C included, the temporary file is removed, and one left by a killed run is found by
  `stale_temporaries`.
- The new file keeps the owner, group, mode and extended attributes (ACLs) of the file it
  replaces, or the write is refused before anything is written; a new file gets 0666 minus
  the umask, as any other program's output would.
- Failures to write (read-only folder, no space, quota, I/O error, permission) are one
  `OutputError` naming the file (exit 2); short writes are written on, never counted as done.
- The exception to the temporary file: `stamp --in-place` and `--revert --in-place` change
  the file itself (same inode: links, owner, xattrs stay), under an exclusive lock held from
  reading to the last write (`locked`, `rewrite_tail`), cutting it back on any failure.

And every file pithtex reads from the command line (records, key files, PDFs) is opened by
`open_input`: only a regular file is read. Opening a FIFO would wait forever for a writer,
and /dev/zero or /dev/urandom never end, so those (and folders, sockets, devices) are refused
before a byte is read; `read_input` also stops at a size limit instead of filling memory.
"""

from __future__ import annotations

import errno
import os
import re
import signal
import stat
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from pathlib import Path

from .errors import Busy, InputError, OutputError
from .value import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from typing import Any, BinaryIO

    Handler = Any  # what signal.signal returns: a callable, SIG_DFL/SIG_IGN, or None


# -- signals held while a write cleans up -----------------------------------------------------
# The signals that stop pithtex (Ctrl-C's SIGINT, a `kill`'s or a CI timeout's SIGTERM),
# held while a write cleans up after itself, so that a second one cannot cut the clean-up short.
#
# A signal that comes while `held()` is in force is noted and delivered again when the block
# ends, to whatever handler was in force before: Ctrl-C still raises KeyboardInterrupt (exit
# 130) and SIGTERM still ends the command (exit 143), only after the temporary file is gone or
# the in-place update is cut back. Only the main thread can change signal handlers; elsewhere
# the block runs as it is (signals reach the main thread only anyway).
HELD = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def held() -> Iterator[None]:
    """SIGINT and SIGTERM noted during the block, delivered again (once each) when it ends."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    seen: list[int] = []

    def note(signum: int, frame: object) -> None:
        seen.append(signum)

    before: dict[signal.Signals, Handler] = {}
    try:
        for sig in HELD:
            before[sig] = signal.signal(sig, note)
        yield
    finally:
        for sig, handler in before.items():
            # None: a handler installed outside Python; the default is the nearest we can restore.
            signal.signal(sig, signal.SIG_DFL if handler is None else handler)
        for number in dict.fromkeys(seen):
            signal.raise_signal(number)  # its handler runs here, as if it had just come


_KINDS = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISSOCK, "a socket"))


def output_path(path: Path | str, *, follow: bool = True) -> Path:
    """The regular file that writing `path` will replace or create, checked before any work.

    A symlink is followed: the result is the file it points to (else `path` as given); raises OutputError for `-`,
    folders, devices, FIFOs, sockets, symlink loops and a missing parent folder. With
    `follow=False` (files pithtex owns, such as the cache) a symlink is replaced by the new
    file instead, so a link planted there cannot aim the write at another file."""
    text = os.fspath(path)
    if text == "-":
        raise OutputError("-: this command writes files only, not to stdout; give a file name")
    given = Path(text)
    if text.endswith(("/", os.sep)):  # Path() drops a trailing slash: `-o out/` must never write a file `out`
        raise OutputError(f"{text}: is a folder; give a file name" if given.is_dir() else
                          f"{text}: names a folder (it ends in {text[-1]}), and none is there; give a file name")
    if not follow and given.is_symlink():
        return given
    real = Path(os.path.realpath(given))
    try:
        info = os.stat(real)
    except FileNotFoundError:
        info = None
    except OSError as exc:  # a symlink loop, a name too long, a component that is a file
        raise OutputError(f"{given}: cannot be written ({exc.strerror or exc})") from None
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            raise OutputError(f"{text}: is a folder; give a file name")
        for test, kind in _KINDS:
            if test(info.st_mode):
                raise OutputError(f"{given}: is {kind}, not a regular file; pithtex writes regular files only")
    if not real.parent.is_dir():
        folder = real.parent if given.is_symlink() else given.parent
        raise OutputError(f"{given}: the folder {folder} does not exist (pithtex creates no folders for -o)")
    return real if given.is_symlink() else given


def make_folder(path: Path | str, what: str = "") -> Path:
    """`path` as a folder, made with its missing parents (a folder a command owns: `-o DIR` of
    `badge --list`, a site's `_data/`). OutputError (one line, naming the part at fault, with
    `what` said first when given) when a part of it is a file, or it cannot be made."""
    folder = Path(path)
    head = f"{what}: " if what else ""
    for part in (*reversed(folder.parents), folder):
        if part.exists() and not part.is_dir():
            raise OutputError(f"{head}{part} is not a folder, so {folder} cannot be made")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"{head}{folder}: cannot make it ({exc.strerror or exc})") from None
    return folder


def names_folder(path: Path | str) -> bool:
    """Whether an output name as typed names a folder: it ends in a slash (`stamped/`: Path()
    would drop it), or a folder is there. Commands that write into a folder ask this."""
    text = os.fspath(path)
    return text.endswith(("/", os.sep)) or (text != "-" and os.path.isdir(text))


def open_input(path: Path | str, *, follow: bool = True) -> BinaryIO:
    """`path` opened for reading when it is a regular file (a symlink to one is fine, unless
    `follow=False`: then a symlink is an OSError, for files pithtex owns such as the cache).

    O_NONBLOCK makes opening a FIFO return at once (instead of waiting for a writer), so the
    check on what was opened can refuse it; it means nothing for a regular file. Raises
    InputError for anything else, OSError (FileNotFoundError, ...) as open() would."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a folder" if stat.S_ISDIR(mode) else next(
                (kind for test, kind in _KINDS if test(mode)), "not a regular file")
            raise InputError(f"{path}: is {kind}, not a regular file; pithtex reads regular files only")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_input(path: Path | str, limit: int, what: str, *, follow: bool = True) -> bytes:
    """The bytes of the regular file `path`; InputError when it holds more than `limit`."""
    with open_input(path, follow=follow) as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise InputError(f"{path}: larger than {limit:,} bytes, more than {what} may be")
    return data


# -- writing a new file: a temporary file beside the target, renamed over it ----------------
@contextmanager
def atomic_output(path: Path | str, *, sync: bool = True, mode: int | None = None,
                  follow: bool = True) -> Iterator[_Output]:
    """A binary file to write `path`'s new content into; it replaces `path` only when the
    block ends without an exception.

    When it replaces a file, the new one is fsynced before the rename and the folder after
    it, so a crash leaves the old file or the new one, never an empty name. When nothing is
    there, it is linked into place (an atomic "create, but replace nothing") without an
    fsync: a crash can lose only the new output, which its input makes again, so a batch into
    a new folder pays no disk waits (`publish_new`). A replaced file's owner, group, mode and
    extended attributes (ACLs included) are given to the new one, or the write is refused
    before the target is touched; `mode` overrides the kept/umask mode; `follow` as in
    `output_path`."""
    target = output_path(path, follow=follow)
    with _guard(target):
        keep = _ownership(target, path)
        fd, tmp = _temp_beside(target)
        try:
            with _temporary(fd, path) as raw:
                # Only failures of the output itself become OutputError; an error from whatever
                # the block reads meanwhile (its input) passes on as what it is.
                yield _Output(raw, path)
                try:
                    raw.flush()
                    _give(raw.fileno(), keep, _mode_for(target) if mode is None else mode)
                    placed = keep is None and publish_new(tmp, target)
                    if not placed:
                        if sync:
                            os.fsync(raw.fileno())
                        os.replace(tmp, target)
                except OSError as exc:
                    raise _cannot_write(path, exc) from None
            if sync and not placed:
                try:
                    sync_folder(target.parent)
                except OSError as exc:  # renamed, but the folder's entry may not survive a crash
                    raise OutputError(f"{path}: written, but its folder could not be synced to disk "
                                      f"({exc.strerror or exc})") from None
        except BaseException:
            with held():  # a second Ctrl-C or SIGTERM must not leave the temporary file behind
                _unlink(tmp)
            raise


# A file system without hard links says so with one of these; the rename then does the work.
_NO_LINKS = frozenset({errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS, errno.EMLINK, errno.EXDEV})


def publish_new(tmp: str, target: Path) -> bool:
    """Give the complete temporary file `tmp` the name `target` if no file has that name:
    True when done (tmp's own name removed), False when something is there (it appeared
    after we looked) or links are not supported, for the fsync-and-rename path. link()
    never replaces, so what is found at the name is never lost without an fsync."""
    try:
        os.link(tmp, target, follow_symlinks=False)
    except FileExistsError:
        return False
    except OSError as exc:
        if exc.errno in _NO_LINKS:
            return False
        raise
    _unlink(tmp)  # killed before this: the second name is a stale temporary, found and removed later
    return True


@contextmanager
def _temporary(fd: int, path: Path | str) -> Iterator[BinaryIO]:
    """The temporary file's object, closed after the block. When the block failed (a full
    disk, say), closing fails again on the bytes still buffered: the block's error, which
    names the file, is the one that stands, never a bare errno from close()."""
    raw = os.fdopen(fd, "wb")
    try:
        yield raw
    except BaseException:
        with suppress(OSError):
            raw.close()
        raise
    try:
        raw.close()
    except OSError as exc:
        raise _cannot_write(path, exc) from None


@contextmanager
def _guard(target: Path) -> Iterator[None]:
    """The lock of the regular file about to be replaced, held until it is: an in-place
    stamp of it waits, then stamps the new file, instead of appending to a file that is
    no longer there (a symlink, replaced with follow=False, and a new name need none)."""
    try:
        info = os.stat(target, follow_symlinks=False)
    except OSError:
        info = None
    if info is None or not stat.S_ISREG(info.st_mode):
        yield
        return
    with ExitStack() as stack:
        # No locks on this file system means no in-place writer either (each is refused):
        # the rename alone replaces the file whole, which is all a new file needs.
        with suppress(NoLocks):
            stack.enter_context(locked(target, write=False))
        yield


class _Output:
    """The temporary file as the block sees it: a failed write (a full disk, an I/O error) is
    an OutputError naming the output path; everything else is the file object's own."""

    def __init__(self, raw: BinaryIO, path: Path | str) -> None:
        self._raw, self._path = raw, path

    def write(self, data: bytes) -> int:
        try:
            return self._raw.write(data)  # a BufferedWriter: it loops over short writes itself
        except OSError as exc:
            raise _cannot_write(self._path, exc) from None

    def flush(self) -> None:
        try:
            self._raw.flush()
        except OSError as exc:
            raise _cannot_write(self._path, exc) from None

    def copy_from(self, fin: int, count: int, tail: bytes = b"") -> None:
        """The first `count` bytes of the open file `fin`, then `tail`, as the whole content
        (kernel-side copy where it can; every short write accounted for)."""
        self.flush()
        fout = self._raw.fileno()
        try:
            copy_range(fin, fout, count)
            pwrite_all(fout, tail, count)
        except InputChanged:
            raise  # the input's failure, not the output's
        except OSError as exc:
            raise _cannot_write(self._path, exc) from None
        self._raw.seek(count + len(tail))

    def __getattr__(self, name: str) -> object:
        return getattr(self._raw, name)


class InputChanged(OSError):
    """The file being copied ended before the bytes it had when it was read (truncated meanwhile)."""


def copy_range(fin: int, fout: int, count: int) -> None:
    """Bytes [0, count) of `fin` to the same offsets of `fout`: copy_file_range (reflinks on
    file systems that can), else positioned reads and writes; short writes are retried, a
    full disk or an I/O error raises OSError, an input cut short InputChanged."""
    done = 0
    try:
        while done < count:
            n = os.copy_file_range(fin, fout, min(_CHUNK, count - done), done, done)
            if n == 0:
                break  # the input ended early: the loop below says so
            done += n
    except OSError as exc:
        if exc.errno not in _NO_COPY_RANGE:
            raise  # ENOSPC, EDQUOT, EIO: the disk's answer, not a reason to try another way
    while done < count:
        chunk = os.pread(fin, min(1 << 20, count - done), done)
        if not chunk:
            raise InputChanged(errno.EIO, f"the input ended at byte {done:,} of {count:,} (cut short meanwhile?)")
        pwrite_all(fout, chunk, done)
        done += len(chunk)


_CHUNK = 1 << 24
# copy_file_range unsupported for this pair of files (old kernels, some file systems, across mounts).
_NO_COPY_RANGE = {errno.EXDEV, errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EBADF, errno.ETXTBSY}


def pwrite_all(fd: int, data: bytes, offset: int) -> None:
    """os.pwrite until all of `data` is written at `offset` (short writes happen on full
    disks, quotas and signals); a write of nothing is a full disk."""
    view = memoryview(data)
    while view:
        n = os.pwrite(fd, view, offset)
        if n <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view, offset = view[n:], offset + n


def _cannot_write(path: Path | str, exc: OSError) -> OutputError:
    return OutputError(f"{path}: cannot write it ({exc.strerror or exc})")


def write_atomic(path: Path | str, data: str | bytes, *, mode: int | None = None, follow: bool = True,
                 sync: bool = True) -> Path:
    """Write `data` (text as UTF-8, newlines untouched) to `path` by the rules above; the path
    written (a symlink's target) is returned. `sync=False` (a cache entry, which a crash may
    lose but never leave half-written: the rename is still atomic) skips the fsyncs."""
    with atomic_output(path, sync=sync, mode=mode, follow=follow) as out:
        out.write(data.encode("utf-8") if isinstance(data, str) else data)
    return output_path(path, follow=follow)


def sync_folder(folder: Path) -> None:
    """fsync a folder, so a rename into it survives a crash (some file systems cannot: fine)."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return  # a folder we may write into but not open (no read permission): the rename stands
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.EROFS, errno.EBADF):  # folders that cannot be synced
            raise
    finally:
        os.close(fd)


def new_file_mode() -> int:
    """0666 minus the process umask: the mode any program's new output file gets."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def _mode_for(target: Path) -> int:
    try:
        return stat.S_IMODE(os.stat(target).st_mode) & 0o777  # never carry setuid/setgid over
    except FileNotFoundError:
        return new_file_mode()


# -- who owns a replaced file -------------------------------------------------------------------
class _Keep(NamedTuple):
    """What a replaced file had that its successor must have too."""

    uid: int
    gid: int
    xattrs: tuple[tuple[str, bytes], ...]


def _ownership(target: Path, shown: Path | str) -> _Keep | None:
    """The owner, group and extended attributes of the file `target` (None when there is none),
    refused (OutputError) before anything is written when this process cannot give them to a
    new file: another user's file as non-root, a group we are not in.

    Hard links: the new file is a new inode, so other names of the old one keep the old
    content; that is refused too (say where instead) rather than left to be found out."""
    try:
        info = os.stat(target, follow_symlinks=False)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise OutputError(f"{shown}: cannot be written ({exc.strerror or exc})") from None
    if stat.S_ISLNK(info.st_mode):
        return None  # a link replaced itself (follow=False): whatever it points at is not what is kept
    if info.st_nlink > 1:
        raise OutputError(f"{shown}: has {info.st_nlink - 1} other hard link(s); a new file there would "
                          "leave them on the old content: write elsewhere, or remove the other links")
    euid = os.geteuid()
    if euid != 0:
        if info.st_uid != euid:
            raise OutputError(f"{shown}: belongs to user {info.st_uid}; pithtex cannot give a new file "
                              "that owner (run it as that user, or write elsewhere)")
        if info.st_gid != os.getegid() and info.st_gid not in os.getgroups():
            raise OutputError(f"{shown}: has group {info.st_gid}, which this user is not in; "
                              "pithtex cannot give a new file that group (write elsewhere)")
    return _Keep(info.st_uid, info.st_gid, _xattrs(target, shown))


def _xattrs(target: Path, shown: Path | str) -> tuple[tuple[str, bytes], ...]:
    try:
        names = os.listxattr(target)
        return tuple((name, os.getxattr(target, name)) for name in names)
    except OSError as exc:
        if exc.errno in (errno.ENOTSUP, errno.EOPNOTSUPP):
            return ()  # a file system without extended attributes: nothing to keep
        raise OutputError(f"{shown}: cannot read its extended attributes ({exc.strerror or exc})") from None


def _give(fd: int, keep: _Keep | None, mode: int) -> None:
    """The new file gets the replaced one's owner, group, xattrs (ACLs are xattrs) and mode.

    chown first: it clears setuid bits and, for some file systems, ACLs; the mode last, as
    an ACL's mask and the mode are one thing."""
    if keep is not None:
        info = os.fstat(fd)
        if (info.st_uid, info.st_gid) != (keep.uid, keep.gid):
            os.fchown(fd, keep.uid, keep.gid)
        for name, value in keep.xattrs:
            os.setxattr(fd, name, value)
    os.fchmod(fd, mode)
    if keep is not None:
        for name, value in keep.xattrs:
            if name == "system.posix_acl_access":
                os.setxattr(fd, name, value)  # fchmod rewrote the ACL's mask: the original again


# -- temporary files: ours by name, so a killed run's are found again -------------------------
# compiled on first use (re keeps it): only a sweep for stale temporaries needs it
_TEMP = r"\.(?P<name>.+)\.(?:pithtex-)?(?P<pid>\d+)[-.](?P<n>\d+)\.tmp"


def _temp_beside(target: Path) -> tuple[int, str]:
    """A new hidden file in the target's folder (same file system, so the rename is atomic),
    named `.NAME.pithtex-PID-N.tmp`: `stale_temporaries` knows it again after a kill.

    Our own loop instead of tempfile.mkstemp: importing tempfile costs more than a stamp."""
    for attempt in range(100):
        name = str(target.parent / f".{target.name}.pithtex-{os.getpid()}-{attempt}.tmp")
        try:
            return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600), name
        except FileExistsError:
            continue
        except OSError as exc:
            raise OutputError(f"{target}: cannot write into {target.parent} ({exc.strerror or exc})") from None
    raise OutputError(f"{target}: cannot create a temporary file in {target.parent}")


def stale_temporaries(folder: Path) -> list[Path]:
    """pithtex's temporary files in `folder` whose process is gone (a run killed with -9 or
    by a crash): safe to remove, since no running pithtex will rename them."""
    out = []
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    for name in names:
        m = re.fullmatch(_TEMP, name)
        if m and not _alive(int(m["pid"])):
            out.append(folder / name)
    return sorted(out)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's live process
    return True


def _unlink(name: str) -> None:
    with suppress(FileNotFoundError):
        os.unlink(name)


# -- changing a file in place: one writer at a time -------------------------------------------
LOCK_WAIT = 10.0  # seconds a second writer waits for the first (PITHTEX_LOCK_WAIT overrides)


@contextmanager
def locked(path: Path, *, write: bool = True) -> Iterator[int]:
    """`path` (a regular file, not a symlink: give `output_path`'s answer) open and locked
    exclusively with flock, as a file descriptor (read-write when `write`).

    Every pithtex writer of an existing file takes this lock before it reads what it will
    change, so the second of two writers reads the first one's result. flock, not lockf:
    a POSIX lock is dropped when the process closes *any* descriptor of the file, which the
    reader does. Waits up to LOCK_WAIT seconds, then Busy. When the path was renamed over
    while we waited, the new file is locked instead (its writer finished)."""
    import fcntl
    import time

    deadline = time.monotonic() + _lock_wait()
    flags = (os.O_RDWR if write else os.O_RDONLY) | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    while True:
        try:
            fd = os.open(path, flags)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise OutputError(f"{path}: is a symbolic link: refusing to write through it") from None
            raise OutputError(f"{path}: cannot open it to write ({exc.strerror or exc})") from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OutputError(f"{path}: not a regular file: refusing to write it")
            delay = 0.002
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise Busy(f"{path}: another program is writing it (waited {_lock_wait():g} s); "
                                   "try again when it is done") from None
                    time.sleep(delay)
                    delay = min(delay * 2, 0.05)
                except OSError as exc:
                    if exc.errno in _NO_LOCKS:  # never change a file unlocked in silence
                        raise NoLocks(f"{path}: this file system cannot lock files (flock: "
                                      f"{exc.strerror or exc}), and pithtex changes a file in place only "
                                      "under a lock: write a new file with -o instead") from None
                    raise OutputError(f"{path}: cannot lock it ({exc.strerror or exc})") from None
            if _same_inode(fd, path):
                yield fd
                return
        finally:
            os.close(fd)  # closing drops the lock


# flock unsupported here (NFS without a lock daemon, some FUSE and CIFS mounts).
_NO_LOCKS = {errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL}
MAX_LOCK_WAIT = 3600.0  # a longer PITHTEX_LOCK_WAIT is cut to this: a wait must end


class NoLocks(OutputError):
    """The file system refuses locks (ENOLCK and kin): an in-place change is refused, since a
    second writer could not be kept out; `-o` (a new file renamed over) still works."""


def _lock_wait() -> float:
    """PITHTEX_LOCK_WAIT in seconds (0: do not wait), read by the one parser of such settings."""
    from .limits import env_seconds

    wait = env_seconds("PITHTEX_LOCK_WAIT", most=MAX_LOCK_WAIT, zero=True)
    return LOCK_WAIT if wait is None else wait


def _same_inode(fd: int, path: Path) -> bool:
    try:
        now = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        raise OutputError(f"{path}: was removed while waiting to write it") from None
    mine = os.fstat(fd)
    return (now.st_dev, now.st_ino) == (mine.st_dev, mine.st_ino)


def rewrite_tail(fd: int, path: Path | str, size: int, keep: int, tail: bytes = b"",
                 commit: int = 0, interim: bytes = b"") -> None:
    """The locked file `fd` (read as `size` bytes) becomes its first `keep` bytes + `tail`,
    in the same inode (owner, mode, xattrs and hard links stay), O(len(tail)).

    1. when `keep` < `size`: cut back to `keep` (pithtex's own update, or an unfinished one,
       removed: the original), fsync;
    2. `tail[:commit]` followed by `interim` (the *original* `startxref` line, padded to the
       length of the final one), fsync: on disk, and the file still reads as the original,
       with an unreferenced pithtex update after it, which `facts.unfinished_update` names;
    3. `tail[commit:]` (the final `startxref`/`%%EOF`) over `interim`: one small write
       inside one block, which makes readers see the update, fsync.
    A kill between any two of these leaves the original, the stamped file or the state of
    step 2, which inspect, stamp and --revert recognise. Any failure seen here (a full disk,
    Ctrl-C) cuts the file back to `keep`. A length that changed since it was read (a writer
    that takes no lock) is refused before anything is written.
    """
    if len(interim) != len(tail) - commit:
        raise ValueError("the interim startxref line must be as long as the final one")
    now = os.fstat(fd).st_size
    if now != size:
        raise OutputError(f"{path}: changed size while being stamped ({size} -> {now} bytes); "
                          "another program is writing it")
    try:
        if keep < size:
            os.ftruncate(fd, keep)
            os.fsync(fd)
        if tail:
            pwrite_all(fd, tail[:commit] + interim, keep)
            os.fsync(fd)
            pwrite_all(fd, tail[commit:], keep + commit)
            # On disk before we say "stamped": without it a power cut could take back a stamp
            # reported done (leaving step 2's state, recognised, but not what was reported).
            os.fsync(fd)
    except BaseException as exc:
        with held():  # a second Ctrl-C or SIGTERM must not stop the cut back half way
            _cut_back(fd, keep)
        if isinstance(exc, OSError):
            left = "as it was" if keep == size else f"as the original ({keep:,} bytes, without the earlier update)"
            raise OutputError(f"{path}: writing failed ({exc.strerror or exc}); the file was left {left}") from None
        raise


def _cut_back(fd: int, keep: int) -> None:
    """Undo a partial append; if even that fails (the disk is gone), what is left is the
    recognisable unfinished state, so the first error is the one reported."""
    try:
        os.ftruncate(fd, keep)
        os.fsync(fd)
    except OSError:
        pass
