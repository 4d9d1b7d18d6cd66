"""Real file-system situations for output-path tests: read-only and tiny folders, made with
a tmpfs mount (tests run as root in CI, where chmod alone would not stop a write)."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from pypdf import PdfWriter


@contextlib.contextmanager
def tmpfs(folder: Path, options: str) -> Iterator[Path]:
    """`folder` with a fresh tmpfs mounted on it (e.g. "ro" or "size=64k"), unmounted after."""
    folder.mkdir(parents=True, exist_ok=True)
    mount = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)],
                           capture_output=True, text=True)
    if mount.returncode != 0:
        if os.geteuid() != 0 and options == "ro":
            folder.chmod(0o555)  # not root: the permission bits are real read-only-ness
            try:
                yield folder
            finally:
                folder.chmod(0o755)
            return
        pytest.fail(f"these tests need a tmpfs mount (root with CAP_SYS_ADMIN): {mount.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True)


def assert_read_only(folder: Path) -> None:
    """The folder really refuses writes, for this process too (root included)."""
    with pytest.raises(OSError):
        (folder / "probe").write_bytes(b"x")


def small_pdf(path: Path, padding: int = 0) -> Path:
    """A valid one-page PDF; `padding` bytes of Info text make it as large as a test needs."""
    writer = PdfWriter()
    writer.add_blank_page(200, 200)
    if padding:
        writer.add_metadata({"/Padding": "x" * padding})
    with path.open("wb") as handle:
        writer.write(handle)
    return path


def leftovers(folder: Path) -> list[str]:
    """Hidden temporary files an interrupted or failed write would leave behind."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".") and p.name.endswith(".tmp"))
