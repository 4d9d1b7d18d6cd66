"""Which files TeX Live provides, asked of kpsewhich once per batch and remembered.

Asked with the sandbox's environment (TEXMFHOME pointing at an empty folder), so a
package that only exists in the author's personal tree counts as missing, as on arXiv.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

_CACHE: dict[str, str | None] = {}
USER_TREES = ("TEXMF", "TEXMFHOME", "TEXMFLOCAL", "TEXMFAUXTREES", "TEXMFDOTDIR", "TFMFONTS", "ENCFONTS")
_EMPTY_HOME = Path(tempfile.gettempdir()) / "pithtex-empty-texmfhome"


def empty_texmfhome() -> Path:
    """A folder that stays empty: TEXMFHOME for every sandbox run and look-up."""
    _EMPTY_HOME.mkdir(exist_ok=True)
    return _EMPTY_HOME


def tex_env(workdir: Path) -> dict[str, str]:
    """The environment arXiv-like runs get: the user's TeX settings removed, ours set.

    openin_any=p refuses absolute and parent paths (they do not exist on arXiv), TEXINPUTS
    is the sandbox then the system trees, and max_print_line stops the log from wrapping.
    """
    # Search paths of the author's own set-up go; where TeX Live itself lives (TEXMFCNF) stays.
    env = {k: v for k, v in os.environ.items() if not (k.endswith("INPUTS") or k in USER_TREES)}
    env.update({
        "TEXMFHOME": str(empty_texmfhome()),
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
        env = tex_env(empty_texmfhome())
        try:
            out = subprocess.run(["kpsewhich", *wanted], capture_output=True, text=True,
                                 env=env, timeout=60, cwd=empty_texmfhome()).stdout
        except (OSError, subprocess.TimeoutExpired):
            out = ""
        by_base: dict[str, str] = {}
        for line in out.splitlines():
            by_base.setdefault(Path(line.strip()).name, line.strip())
        for n in wanted:
            _CACHE[n] = by_base.get(Path(n).name)
    return {n: _CACHE[n] for n in names}
