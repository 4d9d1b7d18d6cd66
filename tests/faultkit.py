"""Faults injected into a real `pithtex` process at its write boundaries, not left to timing.

A `sitecustomize.py` on the subprocess's PYTHONPATH wraps the os calls that change files
(pwrite, write, copy_file_range, ftruncate, fsync, fchown, fchmod, setxattr, replace, link).
Calls on a path containing PITHTEX_FAULT_PATH (exactly that path when it ends in `$`) are
counted; the PITHTEX_FAULT_AT-th one gets PITHTEX_FAULT: `kill` (os._exit before it happens: kill -9 at that boundary),
`ENOSPC`/`EDQUOT`/`EIO` (the call fails as a full disk, a quota or a dying disk would),
or `short` (a write that writes half of what it was given, as full disks and signals do).
With no fault, the count of boundaries is written to PITHTEX_FAULT_LOG at exit.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from .conftest import pithtex_cli

HOOK = r'''
import atexit, errno, os

_kind = os.environ.get("PITHTEX_FAULT", "")
_at = int(os.environ.get("PITHTEX_FAULT_AT", "0"))
_path = os.environ.get("PITHTEX_FAULT_PATH", "")
_exact = _path.endswith("$")  # "NAME$": that name only, not every path containing it
_path = _path.removesuffix("$")
_log = os.environ.get("PITHTEX_FAULT_LOG")
_seen = []

def _name(x):
    if isinstance(x, int):
        try:
            return os.readlink(f"/proc/self/fd/{x}")
        except OSError:
            return ""
    return os.fspath(x) if isinstance(x, (str, bytes, os.PathLike)) else ""

def _wrap(name, where):
    real = getattr(os, name)
    def hooked(*args, **kw):
        name_seen = str(_name(args[where]))
        if (name_seen == _path) if _exact else (_path in name_seen):
            _seen.append(name)
            if len(_seen) == _at:
                if _kind == "kill":
                    os._exit(137)
                if _kind in ("ENOSPC", "EDQUOT", "EIO"):
                    code = getattr(errno, _kind)
                    raise OSError(code, os.strerror(code))
                if _kind == "short" and name in ("pwrite", "write") and len(args[1]) > 1:
                    args = (args[0], memoryview(args[1])[:len(args[1]) // 2], *args[2:])
        return real(*args, **kw)
    setattr(os, name, hooked)

for _n, _w in (("pwrite", 0), ("write", 0), ("copy_file_range", 1), ("ftruncate", 0), ("fsync", 0),
               ("fchown", 0), ("fchmod", 0), ("setxattr", 0), ("replace", 1), ("link", 1)):
    _wrap(_n, _w)

if _log:
    atexit.register(lambda: open(_log, "w").write(",".join(_seen)))
'''


def hook_dir(tmp: Path) -> Path:
    folder = tmp / "faulthook"
    folder.mkdir(exist_ok=True)
    (folder / "sitecustomize.py").write_text(HOOK)
    return folder


def run(tmp: Path, *args: str, fault: str = "", at: int = 0, path: str = "", cwd: Path | None = None,
        env: dict | None = None, program: list[str] | None = None):
    """`pithtex ARGS` with one fault at the `at`-th boundary on `path` (none when `at` is 0)."""
    log = tmp / "faultlog"
    log.unlink(missing_ok=True)
    path_var = os.pathsep.join(filter(None, [str(hook_dir(tmp)), os.environ.get("PYTHONPATH")]))
    proc = pithtex_cli(*args, cwd=cwd, env={"PYTHONPATH": path_var, "PITHTEX_FAULT": fault,
                                            "PITHTEX_FAULT_AT": str(at), "PITHTEX_FAULT_PATH": path,
                                            "PITHTEX_FAULT_LOG": str(log), **(env or {})}, program=program)
    proc.boundaries = log.read_text().split(",") if log.exists() and log.read_text() else []
    return proc


def inspect_json(path: Path) -> dict:
    proc = pithtex_cli("inspect", str(path), "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def leftovers(folder: Path) -> list[str]:
    return sorted(p for p in os.listdir(folder) if p.endswith(".tmp"))
