"""`bundle`: the upload archive arXiv needs, made from what the compile actually read.

The paper is staged with our current pith.sty (when it uses pith), compiled on arXiv's
route with `-recorder`, and the .fls says which files TeX opened. The chosen top-level
files are the upload's (see upload.py), or those named with `--main`; the archive holds
the files their compiles read that belong to the upload, their .bbl, every figure
variant the sources name (other routes read other formats), pith.sty, 00README.json and
arXiv's ancillary folder `anc/` whole (arXiv serves its files beside the paper; TeX never
reads them): no build products, no unused files, no absolute paths. What it leaves out is
listed, and so is what it kept of `anc/`.
It is written atomically and reproducibly (sorted, fixed times and owners), then
checked exactly as an upload would be.
"""

from __future__ import annotations

import gzip
import io
import os
import posixpath
import tarfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import PithError, Refused
from ..files import atomic_output, output_path
from ..latex import sty
from ..value import TYPE_CHECKING
from . import placement, sandbox, texlive
from .check import Check, Result, analyse, check_path
from .scan import scan
from .upload import ANCILLARY, Upload, open_upload

if TYPE_CHECKING:
    from .pdfcheck import Reader


@dataclass
class Bundle:
    out: Path
    files: list[str]
    route: str
    verdict: Check
    mains: list[str]
    left_out: list[str]  # files of the upload the archive does not hold
    ancillary: list[str]  # the files of anc/ it holds (never read by TeX, kept all the same)


def bundle(path: str | Path, out: str | Path, engine: str = "auto", timeout: float = sandbox.DEFAULT_TIMEOUT,
           mains: list[str] | None = None, log_cap: int = sandbox.LOG_CAP,
           read: Reader = placement.read_page) -> Bundle:
    output_path(out)  # refuse a folder (`up/` as typed), device, FIFO or missing folder before compiling
    out = Path(out)
    if not out.name.endswith((".tar.gz", ".tgz")):
        raise PithError(f"{out}: the upload archive must be a .tar.gz (or .tgz)")
    with (sandbox.ctrl_c_once(), open_upload(path, mains) as original, sandbox.scratch() as tmp,
          texlive.private_trees(tmp) as trees):
        staged = stage(original, tmp / "stage")
        (tmp / "build").mkdir()
        result = analyse(staged, engine, tmp / "build", sandbox.Limits(trees, timeout, log_cap), read)
        _refuse_unless_ready(path, result)
        files: set[str] = set()
        for paper in result.papers:
            run = next(r for r in paper.runs if r.pdf is not None and r.fls is not None)
            files |= set(used_files(paper.upload, paper, run))
        if original.mains_from == "command line" and _readme_names_toplevel(staged):
            files.discard("00README.json")  # it names other top-level files than the ones chosen
        names = sorted(files)
        write_archive(staged.root, names, out)
        left_out = sorted(set(original.files) - files)
        route = result.primary.runs[0].route
    verdict = check_path(out, engine=engine, timeout=timeout, log_cap=log_cap, read=read)
    ancillary = [f for f in names if f.startswith(ANCILLARY + "/")]
    return Bundle(out, names, route, verdict, staged.mains, left_out, ancillary)


def _readme_names_toplevel(upload: Upload) -> bool:
    sources = (upload.readme or {}).get("sources") or []
    return any(isinstance(s, dict) and s.get("usage") == "toplevel" for s in sources)


def _refuse_unless_ready(path: str | Path, result: Check) -> None:
    """No archive for a paper that would fail: say the first problem and where the rest are."""
    errors = [d for d in result.diagnostics if d.severity == "error"]
    runs = [r for p in result.papers for r in p.runs]
    if not errors and all(r.pdf is not None and r.fls is not None for r in runs):
        return
    first = errors[0] if errors else None
    what = f"{first.where + ' ' if first.where else ''}{first.rule}: {first.message}" if first else "no PDF"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    routes = ", ".join(dict.fromkeys(r.route for r in runs))
    raise Refused(f"{path}: not ready for arXiv ({routes}): {what}{more}; nothing written "
                  f"(pithtex check {path} shows every problem)")


def stage(upload: Upload, dest: Path) -> Upload:
    """A copy of the upload with our current pith.sty at the top level when pith is used,
    seen from the same top-level files as the upload."""
    sandbox.copy_upload(upload, dest)
    uses_pith = any(r.name == "pith" for m in upload.mains for r in scan(upload.root, m, upload.files).packages)
    if uses_pith:
        (dest / "pith.sty").write_text(sty.text(), "utf-8")
    staged = open_upload(dest, upload.mains if upload.mains_from == "command line" else None)
    staged.source = upload.source
    staged.other_mains = []  # the top-level files not chosen stay out of the archive
    return staged


def read_fls(fls: Path, workdir: Path) -> tuple[set[str], set[str]]:
    """(inputs, outputs) of a -recorder file, as paths relative to the sandbox; others dropped."""
    inputs: set[str] = set()
    outputs: set[str] = set()
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
    assert run.fls is not None  # callers pass a route that recorded its files
    inputs, outputs = read_fls(run.fls, run.workdir)
    present = set(upload.files) - set(upload.build_products)
    keep = (inputs - outputs) & present
    keep |= {upload.main} | (set(result.facts.figures) & present)
    for extra in (f"{upload.jobname}.bbl", "00README.json"):
        if extra in present:
            keep.add(extra)
    if result.facts.uses_pith and "pith.sty" in present:
        keep.add("pith.sty")
    keep |= {f for f in present if f.startswith(ANCILLARY + "/")}
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
