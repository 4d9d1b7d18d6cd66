"""Which files TeX Live provides (kpsewhich, asked once per batch), and the sandbox environment.

TEXMFHOME and TEXMFCONFIG (the author's own packages and settings) and VARTEXFONTS (by
default the world-writable /tmp/texfonts) point into a fresh private folder (mkdtemp,
mode 0700) that lives as long as one check and is removed afterwards: a package that only
exists in the author's personal tree counts as missing, as on arXiv, and no shared
writable folder is searched that another local user could plant a file in. TEXMFVAR,
TeX Live's per-user cache of generated fonts (writable by this user only), stays: a
private one would make mktexpk draw every bitmap font again on every run (seconds each).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_CACHE: dict[str, str | None] = {}
USER_TREES = ("TEXMF", "TEXMFHOME", "TEXMFLOCAL", "TEXMFAUXTREES", "TEXMFDOTDIR", "TFMFONTS", "ENCFONTS",
              "TEXMFCONFIG", "VARTEXFONTS")
# kpsewhich prints one line per name found; names come from the paper, so bound the answer.
MAX_KPSEWHICH_OUTPUT = 1024 * 1024


@contextmanager
def private_trees(parent: Path | str | None = None) -> Iterator[Path]:
    """A fresh, empty folder only this user can enter, for TeX's per-user trees; removed on exit
    (after an error or Ctrl-C too)."""
    root = Path(tempfile.mkdtemp(prefix="pithtex-texmf-", dir=parent))  # mkdtemp: mode 0700, new name
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def tex_env(workdir: Path, trees: Path) -> dict[str, str]:
    """The environment arXiv-like runs get: the user's TeX settings removed, ours set.

    `trees` comes from `private_trees`. openin_any=p refuses absolute and parent paths
    (they do not exist on arXiv), TEXINPUTS is the sandbox then the system trees, and
    max_print_line stops the log from wrapping.
    """
    # Search paths of the author's own set-up go; where TeX Live itself lives (TEXMFCNF) stays.
    env = {k: v for k, v in os.environ.items() if not (k.endswith("INPUTS") or k in USER_TREES)}
    env.update({
        "TEXMFHOME": str(trees / "home"),
        "TEXMFCONFIG": str(trees / "config"),
        "VARTEXFONTS": str(trees / "fonts"),
        "TEXINPUTS": f"{workdir}:",
        "openout_any": "p",
        "openin_any": "p",
        "shell_escape": "f",
        "max_print_line": "10000",
        "error_line": "254",
        "half_error_line": "238",
        "LC_ALL": "C.UTF-8",
    })
    return env


def find(names: list[str]) -> dict[str, str | None]:
    """Map each file name to its TeX Live path, or None when TeX Live does not have it."""
    wanted = [n for n in dict.fromkeys(names) if n not in _CACHE]
    if wanted:
        with private_trees() as trees:
            out = _kpsewhich(wanted, tex_env(trees, trees), trees)
        by_base: dict[str, str] = {}
        for line in out.splitlines():
            by_base.setdefault(Path(line.strip()).name, line.strip())
        for n in wanted:
            _CACHE[n] = by_base.get(Path(n).name)
    return {n: _CACHE[n] for n in names}


def _kpsewhich(names: list[str], env: dict[str, str], cwd: Path) -> str:
    """kpsewhich's answer (at most MAX_KPSEWHICH_OUTPUT bytes read); '' when it cannot run."""
    try:
        with tempfile.TemporaryFile() as out:
            subprocess.run(["kpsewhich", *names], stdout=out, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                           env=env, timeout=60, cwd=cwd, check=False)
            out.seek(0)
            return out.read(MAX_KPSEWHICH_OUTPUT).decode("utf-8", "replace")
    except (OSError, subprocess.TimeoutExpired):
        return ""
