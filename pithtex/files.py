"""Every file pithtex writes goes through here, so every command treats an output path alike.

The rules (stamp -o/--in-place, badge -o, bundle -o, render, web assets, the resolver cache):
- Only regular files are written. A folder, a device (/dev/full), a FIFO or a socket at the
  path is refused, and so is `-` (commands that print to stdout handle `-` before calling us).
- A symlink is followed, explicitly: the file it points to is written (its content replaced,
  the link left a link), and `output_path` returns that target so a command can name it.
- A missing parent folder is an error naming that folder; nothing is created on the side.
  (Folders a command owns, such as render's `latex/` or the cache, are made by that command.)
- The bytes go to a hidden temporary file beside the target, which is renamed over it only
  when complete; on any failure, Ctrl-C included, the temporary file is removed.
- The new file keeps the mode of the file it replaces (so --in-place keeps the input's mode);
  a new file gets 0666 minus the umask, as any other program's output would.
- Failures to write (read-only folder, no space, permission) are one `OutputError` (exit 2).
- One exception to the temporary file: `append_in_place`, for `stamp --in-place`, appends an
  incremental update to the file itself (O(update)), cutting it back on any failure.

And every file pithtex reads from the command line (records, key files, PDFs) is opened by
`open_input`: only a regular file is read. Opening a FIFO would wait forever for a writer,
and /dev/zero or /dev/urandom never end, so those (and folders, sockets, devices) are refused
before a byte is read; `read_input` also stops at a size limit instead of filling memory.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from .errors import PithError

TYPE_CHECKING = False  # `typing` is for checkers only: importing it costs every stamp ~1.5 ms
if TYPE_CHECKING:
    from typing import BinaryIO


class OutputError(PithError):
    """An output path that cannot be written: what is there, or why writing failed (exit 2)."""


class InputError(PithError):
    """An input path that is not a regular file, or larger than its kind of file may be (exit 2)."""


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
            raise OutputError(f"{given}: is a folder; give a file name")
        for test, kind in _KINDS:
            if test(info.st_mode):
                raise OutputError(f"{given}: is {kind}, not a regular file; pithtex writes regular files only")
    if not real.parent.is_dir():
        folder = real.parent if given.is_symlink() else given.parent
        raise OutputError(f"{given}: the folder {folder} does not exist (pithtex creates no folders for -o)")
    return real if given.is_symlink() else given


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


@contextmanager
def atomic_output(path: Path | str, *, sync: bool = False, mode: int | None = None,
                  follow: bool = True) -> Iterator[BinaryIO]:
    """A binary file to write `path`'s new content into; it replaces `path` only when the
    block ends without an exception. `sync` fsyncs before the rename (for --in-place);
    `mode` overrides the kept/umask mode; `follow` as in `output_path`."""
    target = output_path(path, follow=follow)
    fd, tmp = _temp_beside(target)
    try:
        with os.fdopen(fd, "wb") as raw:
            # Only failures of the output itself become OutputError; an error from whatever
            # the block reads meanwhile (its input) passes on as what it is.
            yield _Output(raw, path)
            try:
                raw.flush()
                if sync:
                    os.fsync(raw.fileno())
                os.chmod(tmp, _mode_for(target) if mode is None else mode)
                os.replace(tmp, target)
            except OSError as exc:
                raise _cannot_write(path, exc) from None
    except BaseException:
        _unlink(tmp)
        raise


class _Output:
    """The temporary file as the block sees it: a failed write (a full disk, an I/O error) is
    an OutputError naming the output path; everything else is the file object's own."""

    def __init__(self, raw: BinaryIO, path: Path | str) -> None:
        self._raw, self._path = raw, path

    def write(self, data: bytes) -> int:
        try:
            return self._raw.write(data)
        except OSError as exc:
            raise _cannot_write(self._path, exc) from None

    def flush(self) -> None:
        try:
            self._raw.flush()
        except OSError as exc:
            raise _cannot_write(self._path, exc) from None

    def __getattr__(self, name: str) -> object:
        return getattr(self._raw, name)


def _cannot_write(path: Path | str, exc: OSError) -> OutputError:
    return OutputError(f"{path}: cannot write it ({exc.strerror or exc})")


def write_atomic(path: Path | str, data: str | bytes, *, mode: int | None = None, follow: bool = True) -> Path:
    """Write `data` (text as UTF-8, newlines untouched) to `path` by the rules above; the path
    written (a symlink's target) is returned."""
    with atomic_output(path, mode=mode, follow=follow) as out:
        out.write(data.encode("utf-8") if isinstance(data, str) else data)
    return output_path(path, follow=follow)


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


def _temp_beside(target: Path) -> tuple[int, str]:
    """A new hidden file in the target's folder (same file system, so the rename is atomic).

    Our own loop instead of tempfile.mkstemp: importing tempfile costs more than a stamp."""
    for attempt in range(100):
        name = str(target.parent / f".{target.name}.{os.getpid()}.{attempt}.tmp")
        try:
            return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600), name
        except FileExistsError:
            continue
        except OSError as exc:
            raise OutputError(f"{target}: cannot write into {target.parent} ({exc.strerror or exc})") from None
    raise OutputError(f"{target}: cannot create a temporary file in {target.parent}")


def _unlink(name: str) -> None:
    with suppress(FileNotFoundError):
        os.unlink(name)


def append_in_place(path: Path | str, size: int, tail: bytes, commit: int, interim: bytes) -> None:
    """Append `tail` to the regular file `path`, which must still be `size` bytes long.

    O(len(tail)) instead of a copy of the whole file, in two steps:
    1. `tail[:commit]` followed by `interim` (the *original* `startxref` line, padded to the
       same length as the final one), then fsync: the data is on disk, and the file still
       reads as the original (readers follow the last `startxref`; what precedes it is
       unreferenced);
    2. `tail[commit:]` (the final `startxref`/`%%EOF`) written over `interim`: one small
       write inside one block, which makes readers see the update.
    A crash at any point leaves the original or the stamped file, both readable; any
    failure we see (also Ctrl-C) truncates the file back to `size`. The file keeps its
    inode, mode, owner and links. Refuses (OutputError, exit 2) symlinks, anything but a
    regular file, and a file whose length changed since it was read.
    """
    path = Path(path)
    try:
        seen = os.lstat(path)
        if stat.S_ISLNK(seen.st_mode):
            raise OutputError(f"{path}: is a symbolic link: refusing to append through it")
        if not stat.S_ISREG(seen.st_mode):
            raise OutputError(f"{path}: not a regular file: refusing to append to it")
        # O_NOFOLLOW/O_NONBLOCK: whatever was swapped in since lstat, never follow or block on it.
        fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise OutputError(f"{path}: cannot open it to append ({exc.strerror})") from None
    try:
        info = os.fstat(fd)
        if (info.st_dev, info.st_ino) != (seen.st_dev, seen.st_ino) or not stat.S_ISREG(info.st_mode):
            raise OutputError(f"{path}: was replaced while being stamped: refusing to append to it")
        if info.st_size != size:
            raise OutputError(f"{path}: changed size while being stamped ({size} -> {info.st_size} bytes)")
        if len(interim) != len(tail) - commit:
            raise ValueError("the interim startxref line must be as long as the final one")
        try:
            pwrite_all(fd, tail[:commit] + interim, size)
            os.fsync(fd)
            pwrite_all(fd, tail[commit:], size + commit)
        except BaseException as exc:
            os.ftruncate(fd, size)
            os.fsync(fd)
            if isinstance(exc, OSError):
                raise OutputError(f"{path}: writing failed ({exc.strerror}); the file was left as it was") from None
            raise
    finally:
        os.close(fd)


def pwrite_all(fd: int, data: bytes, offset: int) -> None:
    """os.pwrite until all of `data` is written at `offset` (short writes happen)."""
    view = memoryview(data)
    while view:
        n = os.pwrite(fd, view, offset)
        view, offset = view[n:], offset + n
