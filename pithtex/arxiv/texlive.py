"""Which files TeX Live provides (kpsewhich, asked once per batch), and the sandbox environment.

TeX's per-user trees (TEXMFHOME, TEXMFCONFIG, TEXMFVAR: the author's own packages, settings
and caches), VARTEXFONTS (by default the world-writable /tmp/texfonts) and the temporary folder
(TMPDIR, TEMP, TMP) point into a fresh private folder (mkdtemp, mode 0700) that lives as long
as one check and is removed afterwards: a package that only exists in the author's personal
trees counts as missing, as on arXiv; no shared writable folder is searched that another local
user could plant a file in; and nothing a step writes lands outside the check's folder
(Ghostscript's -dSAFER lets PostScript write anywhere in its temporary folder, which was /tmp:
a paper's \\special created and truncated files there). One part of the author's TEXMFVAR is
still read, never written: its bitmap fonts (fonts/pk), which mktexpk drew on earlier runs
(drawing them again on every check made a paper in T1-encoded Computer Modern several times
slower to check). Only fonts are searched there (PKFONTS), so no package of that tree counts.
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
USER_TREES = ("PKFONTS", "TEXMF", "TEXMFHOME", "TEXMFLOCAL", "TEXMFAUXTREES", "TEXMFDOTDIR", "TFMFONTS", "ENCFONTS",
              "TEXMFCONFIG", "TEXMFVAR", "VARTEXFONTS", "TMPDIR", "TEMP", "TMP")
# The folders of `private_trees` that steps write into: each made with it.
PRIVATE_FOLDERS = ("home", "config", "var", "fonts", "tmp")
# kpsewhich prints one line per name found; names come from the paper, so bound the answer.
MAX_KPSEWHICH_OUTPUT = 1024 * 1024


@contextmanager
def private_trees(parent: Path | str | None = None) -> Iterator[Path]:
    """A fresh, empty folder only this user can enter, for TeX's per-user trees; removed on exit
    (after an error or Ctrl-C too)."""
    root = Path(tempfile.mkdtemp(prefix="pithtex-texmf-", dir=parent))  # mkdtemp: mode 0700, new name
    try:
        for name in PRIVATE_FOLDERS:
            (root / name).mkdir(mode=0o700)
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _user_fonts() -> str | None:
    """The author's own cache of bitmap fonts (TEXMFVAR/fonts/pk), asked of kpsewhich once."""
    if "pk" not in _USER_FONTS:
        var = os.environ.get("TEXMFVAR") or _kpsewhich(["-var-value", "TEXMFVAR"], dict(os.environ),
                                                       Path.cwd()).strip()
        pk = Path(var) / "fonts" / "pk" if var else None
        _USER_FONTS["pk"] = str(pk) if pk and pk.is_absolute() and pk.is_dir() else None
    return _USER_FONTS["pk"]


_USER_FONTS: dict[str, str | None] = {}


def tex_env(workdir: Path, trees: Path) -> dict[str, str]:
    """The environment arXiv-like runs get: the user's TeX settings removed, ours set.

    `trees` comes from `private_trees`. openin_any=p refuses absolute and parent paths
    (they do not exist on arXiv), TEXINPUTS is the sandbox then the system trees, and
    max_print_line stops the log from wrapping.
    """
    # Search paths of the author's own set-up go; where TeX Live itself lives (TEXMFCNF) stays.
    fonts = _user_fonts()
    env = {k: v for k, v in os.environ.items() if not (k.endswith("INPUTS") or k in USER_TREES)}
    if fonts:  # searched before TeX Live's own path (the trailing colon); read only, as a font path
        env["PKFONTS"] = f"{fonts}/{{$MAKETEX_MODE,modeless}}//:"
    env.update({
        "TEXMFHOME": str(trees / "home"),
        "TEXMFCONFIG": str(trees / "config"),
        "TEXMFVAR": str(trees / "var"),
        "VARTEXFONTS": str(trees / "fonts"),
        "TMPDIR": str(trees / "tmp"),
        "TEMP": str(trees / "tmp"),
        "TMP": str(trees / "tmp"),
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
