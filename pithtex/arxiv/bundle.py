"""`bundle`: the upload archive arXiv needs, made from what the compile actually read.

The paper is staged with our current pith.sty (when it uses pith), compiled on arXiv's
route with `-recorder`, and the .fls says which files TeX opened. The archive holds those
files that belong to the upload, the .bbl, every figure variant the sources name (other
routes read other formats), pith.sty and 00README.json: no build products, no unused
files, no absolute paths. It is written atomically and reproducibly (sorted, fixed
times and owners), then checked exactly as an upload would be.
"""

from __future__ import annotations

import gzip
import io
import os
import posixpath
import shutil
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import PithError, Refused
from ..files import atomic_output, output_path
from . import pithsty, sandbox
from .check import Result, analyse, check_path
from .scan import scan
from .upload import Upload, open_upload


@dataclass
class Bundle:
    out: Path
    files: list[str]
    route: str
    verdict: Result


def bundle(path: str | Path, out: str | Path, engine: str = "auto",
           timeout: float = sandbox.DEFAULT_TIMEOUT) -> Bundle:
    out = Path(out)
    if not out.name.endswith((".tar.gz", ".tgz")):
        raise PithError(f"{out}: the upload archive must be a .tar.gz (or .tgz)")
    output_path(out)  # refuse a folder, device, FIFO or missing folder before compiling
    with open_upload(path) as original, tempfile.TemporaryDirectory(prefix="pithtex-bundle-") as tmp:
        staged = stage(original, Path(tmp) / "stage")
        result = analyse(staged, engine, Path(tmp) / "build", timeout)
        _refuse_unless_ready(path, result)
        run = next(r for r in result.runs if r.pdf is not None and r.fls is not None)
        files = used_files(staged, result, run)
        write_archive(staged.root, files, out)
    verdict = check_path(out, engine=engine, timeout=timeout)
    return Bundle(out, files, run.route, verdict)


def _refuse_unless_ready(path: str | Path, result: Result) -> None:
    """No archive for a paper that would fail: say the first problem and where the rest are."""
    errors = [d for d in result.diagnostics if d.severity == "error"]
    if not errors and all(r.pdf is not None and r.fls is not None for r in result.runs):
        return
    first = errors[0] if errors else None
    what = f"{first.where + ' ' if first.where else ''}{first.rule}: {first.message}" if first else "no PDF"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    routes = ", ".join(r.route for r in result.runs)
    raise Refused(f"{path}: not ready for arXiv ({routes}): {what}{more}; nothing written "
                  f"(pithtex check {path} shows every problem)")


def stage(upload: Upload, dest: Path) -> Upload:
    """A copy of the upload with our current pith.sty at the top level when pith is used."""
    sandbox.copy_upload(upload, dest)
    uses_pith = any(r.name == "pith" for r in scan(upload.root, upload.main, upload.files).packages)
    ours = pithsty.ours()
    if uses_pith and ours is not None:
        shutil.copyfile(ours, dest / "pith.sty")
    staged = open_upload(dest / upload.main)
    staged.source = upload.source
    return staged


def read_fls(fls: Path, workdir: Path) -> tuple[set[str], set[str]]:
    """(inputs, outputs) of a -recorder file, as paths relative to the sandbox; others dropped."""
    inputs, outputs = set(), set()
    base = str(workdir.resolve())
    for line in fls.read_text("utf-8", errors="replace").splitlines():
        kind, _, name = line.partition(" ")
        if kind not in ("INPUT", "OUTPUT"):
            continue
        if os.path.isabs(name):
            real = os.path.realpath(name)
            if not real.startswith(base + os.sep):
                continue  # TeX Live's own files
            name = os.path.relpath(real, base)
        rel = posixpath.normpath(name.replace(os.sep, "/"))
        if rel.startswith("../"):
            continue
        (inputs if kind == "INPUT" else outputs).add(rel)
    return inputs, outputs


def used_files(upload: Upload, result: Result, run: sandbox.RouteRun) -> list[str]:
    inputs, outputs = read_fls(run.fls, run.workdir)
    present = set(upload.files) - set(upload.build_products)
    keep = (inputs - outputs) & present
    keep |= {upload.main} | (set(result.facts.figures) & present)
    for extra in (f"{upload.jobname}.bbl", "00README.json"):
        if extra in present:
            keep.add(extra)
    if result.facts.uses_pith and "pith.sty" in present:
        keep.add("pith.sty")
    return sorted(keep)


def write_archive(root: Path, files: list[str], out: Path) -> None:
    """A reproducible .tar.gz (sorted, mtime 0, root-owned, 0644 members), written through the
    one output helper (atomic; the file's own mode from the umask, like any new file)."""
    with atomic_output(out) as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz, \
            tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for rel in files:
            data = (root / rel).read_bytes()
            info = tarfile.TarInfo(rel)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
