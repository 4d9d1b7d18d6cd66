"""Writing output files so that no reader, and no failure, ever leaves half a file."""

from __future__ import annotations

import os
from pathlib import Path


def write_atomic(path: Path | str, data: str | bytes) -> Path:
    """Write `data` (text as UTF-8, newlines untouched) through a temporary file beside
    `path`, then rename it into place; the temporary file never outlives the call."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


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
    inode, mode, owner and links. Refuses (PithError, exit 2) symlinks, anything but a
    regular file, and a file whose length changed since it was read.
    """
    import stat

    from .errors import PithError

    path = Path(path)
    try:
        seen = os.lstat(path)
        if stat.S_ISLNK(seen.st_mode):
            raise PithError(f"{path}: is a symbolic link: refusing to append through it")
        if not stat.S_ISREG(seen.st_mode):
            raise PithError(f"{path}: not a regular file: refusing to append to it")
        # O_NOFOLLOW/O_NONBLOCK: whatever was swapped in since lstat, never follow or block on it.
        fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise PithError(f"{path}: cannot open it to append ({exc.strerror})") from None
    try:
        info = os.fstat(fd)
        if (info.st_dev, info.st_ino) != (seen.st_dev, seen.st_ino) or not stat.S_ISREG(info.st_mode):
            raise PithError(f"{path}: was replaced while being stamped: refusing to append to it")
        if info.st_size != size:
            raise PithError(f"{path}: changed size while being stamped ({size} -> {info.st_size} bytes)")
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
                raise PithError(f"{path}: writing failed ({exc.strerror}); the file was left as it was") from None
            raise
    finally:
        os.close(fd)


def pwrite_all(fd: int, data: bytes, offset: int) -> None:
    """os.pwrite until all of `data` is written at `offset` (short writes happen)."""
    view = memoryview(data)
    while view:
        n = os.pwrite(fd, view, offset)
        view, offset = view[n:], offset + n
