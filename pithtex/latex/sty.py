"""The current pith.sty, from the installed package: its text, its version, and writing it
next to a paper.

The package renders it from its template (`render.render_sty`), the same function that
writes the project's committed `latex/pith.sty`, so a wheel and a checkout give the same
bytes (`make render`'s `--check` guards the committed copy).

    >>> from pithtex.latex.sty import current
    >>> current().version
    '0.1.0'
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..errors import PithError, Refused
from ..files import read_input, write_atomic

MAX_STY_BYTES = 4 * 1024 * 1024  # ours is ~60 kB; a larger pith.sty is not one to compare line by line
_PROVIDES = re.compile(r"\\ProvidesPackage\s*\{pith\}\s*\[\s*(\d{4})[/-](\d{2})[/-](\d{2})\s*(?:v?([0-9][0-9.]*))?")


@dataclass(frozen=True, order=True)
class StyVersion:
    """What `\\ProvidesPackage{pith}[YYYY/MM/DD vX.Y.Z ...]` declares; orders by date, then version."""

    date: tuple[int, int, int]
    parts: tuple[int, ...]

    @property
    def version(self) -> str:
        return ".".join(map(str, self.parts))

    def __str__(self) -> str:
        y, m, d = self.date
        return f"{y:04d}/{m:02d}/{d:02d} v{self.version}"


def declared(text: str) -> StyVersion | None:
    """The date and version a pith.sty's text declares, or None when it declares none."""
    m = _PROVIDES.search(text)
    if not m:
        return None
    date = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
    parts = tuple(int(x) for x in (m.group(4) or "0").strip(".").split(".") if x.isdigit())
    return StyVersion(date, parts)


@lru_cache(maxsize=1)
def text() -> str:
    """The current pith.sty, rendered from the installed package's template."""
    from .render import render_sty

    return render_sty()


def current() -> StyVersion:
    found = declared(text())
    assert found is not None, "the template always declares \\ProvidesPackage"
    return found


@dataclass(frozen=True)
class Written:
    path: Path
    version: StyVersion
    status: str  # "written", "replaced" or "unchanged"


def write_beside(folder: Path | str = ".", force: bool = False) -> Written:
    """Put the current pith.sty into `folder` (a paper's folder). An identical file is left
    alone; a different one is replaced only with `force`, since it may be an author's edit."""
    folder = Path(folder)
    if not folder.is_dir():
        raise PithError(f"{folder}: no such folder (give the folder that holds your paper's .tex file)")
    path = folder / "pith.sty"
    ours = text()
    status = "written"
    if path.is_symlink():
        # A paper folder (a cloned repository, an unpacked upload) may hold a link named
        # pith.sty to any file; --force replaces the link itself, never the file it names.
        if not force:
            raise Refused(f"{path} is a symbolic link (to {os.readlink(path)})",
                          remedy=("force", "replace the link with the current pith.sty (the file it points to is "
                                           "left alone)"))
        status = "replaced"
    elif path.exists():
        if not path.is_file():
            raise PithError(f"{path}: exists and is not a regular file; nothing written")
        theirs = read_input(path, MAX_STY_BYTES, "a pith.sty").decode("utf-8", errors="replace")
        if theirs == ours:
            return Written(path, current(), "unchanged")
        if not force:
            raise Refused(f"{path} exists and differs from the current pith.sty ({declared(theirs) or 'no version'}"
                          f" there, {current()} here)", remedy=("force", "replace it"))
        status = "replaced"
    write_atomic(path, ours, follow=False)
    return Written(path, current(), status)
