"""An upload as arXiv receives it: a folder, one .tex file, or a .tar.gz/.zip archive.

`open_upload` turns any of these into an `Upload`: a folder on disk, the list of files in
it, and its top-level files, found the way arXiv finds them:

- `00README.json` `sources` that are `usage: toplevel` (or carry nothing but a
  `filename`), in the order listed; arXiv compiles each with the one compiler and joins
  the PDFs in that order. Sources marked `usage: ignore` are removed, as arXiv does.
- otherwise every top-level `.tex` file with `\\documentclass` (or `\\documentstyle`), in
  alphanumeric order, which is the order arXiv assembles their PDFs in.
- a main file named by the user (a `.tex` path, or `--main`) replaces both; the other
  top-level files arXiv would also compile are remembered in `other_mains`.

Archives are unpacked into a
temporary folder with the checks arXiv's own unpacker would make necessary here: no
absolute or `..` member names, no links or devices, and limits on size and count so a
hostile archive cannot fill the disk.
"""

from __future__ import annotations

import json
import re
import shutil
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO

from ..errors import PithError
from ..files import open_input, read_input
from .scan import files_read, scan

# arXiv's own submission limit is 50 MB compressed; uncompressed we allow some more.
MAX_TOTAL_BYTES = 200 * 1024 * 1024
MAX_MEMBERS = 5000
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".zip", ".tar.bz2", ".tar.xz")
# Build products and editor litter: never part of what is compiled, even when present.
BUILD_SUFFIXES = (".aux", ".log", ".out", ".toc", ".lof", ".lot", ".fls", ".fdb_latexmk",
                  ".synctex.gz", ".synctex", ".dvi", ".blg", ".bcf", ".run.xml", ".nav", ".snm", ".xdv")
# arXiv's folder of ancillary files (data, code): served beside the paper, never compiled.
ANCILLARY = "anc"
SKIP_DIRS = {".git", ".svn", ".hg", "__MACOSX", ".idea", ".vscode"}
COMPILERS = {"pdflatex": "pdflatex", "latex": "latex", "etex": "latex", "xelatex": "xelatex"}
PREFERRED_MAIN = ("ms.tex", "main.tex", "paper.tex")
_DOCCLASS = re.compile(r"^[^%]*\\document(?:class|style)\b", re.MULTILINE)


@dataclass
class Upload:
    """A paper as arXiv would see it. `files` are POSIX paths relative to `root`."""

    root: Path
    main: str
    files: list[str]
    source: str
    compiler: str | None = None
    readme: dict[str, Any] | None = None
    mains: list[str] = field(default_factory=list)  # every top-level file, in arXiv's order
    mains_from: str = "documentclass"  # or "00README.json", "command line"
    other_mains: list[str] = field(default_factory=list)  # top-level files arXiv compiles besides those named
    build_products: list[str] = field(default_factory=list)
    archive: bool = False
    _tmp: tempfile.TemporaryDirectory[str] | None = field(default=None, repr=False)

    @property
    def is_archive(self) -> bool:
        """An archive is the upload as decided; a folder is a working folder (litter expected)."""
        return self.archive

    def for_main(self, main: str) -> Upload:
        """The same upload seen from one of its top-level files (never owns the temporary folder)."""
        return replace(self, main=main, _tmp=None)

    @property
    def jobname(self) -> str:
        return PurePosixPath(self.main).stem

    def close(self) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> Upload:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_upload(path: str | Path, mains: list[str] | None = None) -> Upload:
    """Read PATH (folder, .tex, or archive) as an upload; PithError (exit 2) when unusable.

    `mains` names the top-level files to use (relative to the upload), as `--main` does.
    """
    p = Path(path)
    if not p.exists():
        raise PithError(f"{path}: no such file or folder")
    if p.is_dir():
        return _from_folder(p, str(path), chosen=mains)
    name = p.name.lower()
    if name.endswith(".tex"):
        if mains:
            raise PithError(f"{path}: give either a .tex file or the main files, not both")
        return _from_folder(p.parent, str(path), chosen=[p.name])
    if name.endswith(ARCHIVE_SUFFIXES):
        tmp = tempfile.TemporaryDirectory(prefix="pithtex-upload-")
        try:
            unpack(p, Path(tmp.name))
            upload = _from_folder(Path(tmp.name), str(path), chosen=mains)
        except BaseException:
            tmp.cleanup()
            raise
        upload._tmp, upload.archive = tmp, True
        return upload
    raise PithError(f"{path}: not a paper (give a .tex file, a folder, or a .tar.gz/.zip upload)")


# -- archives -----------------------------------------------------------------------------
def unpack(archive: Path, dest: Path) -> None:
    """Unpack a .tar(.gz) or .zip into dest, refusing anything unsafe (exit 2)."""
    try:
        # A regular file only: a FIFO named x.tar.gz waited forever for a writer, and a link
        # to /dev/zero named x.tar.gz was read until memory ran out.
        with open_input(archive) as handle:
            if zipfile.is_zipfile(handle):
                handle.seek(0)
                _unpack_zip(archive, handle, dest)
            else:
                handle.seek(0)
                _unpack_tar(archive, handle, dest)
    except PithError:
        raise
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError, ValueError) as exc:
        raise PithError(f"{archive}: not a readable archive ({_why(exc)})") from exc


def _why(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _safe_member(archive: Path, name: str) -> PurePosixPath | None:
    """The member's relative path, None for folders; PithError when it would escape."""
    clean = name.replace("\\", "/")
    rel = PurePosixPath(clean)
    if clean.startswith("/") or re.match(r"^[A-Za-z]:", clean) or ".." in rel.parts:
        raise PithError(f"{archive}: unsafe member path {name!r} (absolute or '..'); refusing the archive")
    parts = [q for q in rel.parts if q not in (".", "")]
    return PurePosixPath(*parts) if parts else None


def _budget(archive: Path, count: int, total: int) -> None:
    if count > MAX_MEMBERS:
        raise PithError(f"{archive}: more than {MAX_MEMBERS} files; refusing the archive")
    if total > MAX_TOTAL_BYTES:
        raise PithError(f"{archive}: unpacks to more than {MAX_TOTAL_BYTES // 2**20} MB; refusing the archive")


def _unpack_tar(archive: Path, handle: BinaryIO, dest: Path) -> None:
    total = 0
    with tarfile.open(fileobj=handle, mode="r:*") as tar:
        for count, member in enumerate(tar, start=1):
            rel = _safe_member(archive, member.name)
            if member.issym() or member.islnk() or member.isdev() or member.isfifo():
                raise PithError(f"{archive}: member {member.name!r} is a link or device; refusing the archive")
            total += max(member.size, 0)
            _budget(archive, count, total)
            if rel is None or member.isdir():
                continue
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            src = tar.extractfile(member)
            if src is None:
                continue
            with src, open(target, "wb") as out:
                shutil.copyfileobj(src, out)


def _unpack_zip(archive: Path, handle: BinaryIO, dest: Path) -> None:
    total = 0
    with zipfile.ZipFile(handle) as z:
        for count, info in enumerate(z.infolist(), start=1):
            rel = _safe_member(archive, info.filename)
            if (info.external_attr >> 16) & 0o170000 == 0o120000:
                raise PithError(f"{archive}: member {info.filename!r} is a link; refusing the archive")
            total += info.file_size
            _budget(archive, count, total)
            if rel is None or info.is_dir():
                continue
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            # Copy at most the declared size (+1 byte to notice a lying header).
            with z.open(info) as src, open(target, "wb") as out:
                data = src.read(info.file_size + 1)
                if len(data) > info.file_size:
                    raise PithError(f"{archive}: member {info.filename!r} is larger than declared")
                out.write(data)


# -- folders and the main file --------------------------------------------------------------
def list_files(root: Path) -> list[str]:
    """Every regular file under root, as sorted relative POSIX paths (VCS folders skipped)."""
    found = []
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if any(part in SKIP_DIRS for part in rel.parts[:-1]) or p.is_symlink() or not p.is_file():
            continue
        found.append(rel.as_posix())
    if len(found) > MAX_FILES_IN_FOLDER:
        raise PithError(f"{root}: more than {MAX_FILES_IN_FOLDER} files; is this really a paper folder?")
    return found


MAX_FILES_IN_FOLDER = 20000


def _from_folder(root: Path, source: str, chosen: list[str] | None) -> Upload:
    readme = _read_readme(root, source)
    ignored = _readme_sources(readme, "ignore")
    files = [f for f in list_files(root) if f not in ignored]
    compiler = _readme_compiler(readme, source)
    listed = _readme_sources(readme, "toplevel")
    mains, mains_from, others = listed, "00README.json", []
    missing = [f for f in listed if f not in files]
    if missing:
        raise PithError(f"{source}: 00README.json names {missing[0]} as a top-level file, but the upload "
                        "has no such file")
    if not mains:
        mains, mains_from = _documentclass_files(root, files), "documentclass"
    if chosen:
        for name in chosen:
            if name not in files:
                raise PithError(f"{source}: no file {name} in the upload")
            if not _DOCCLASS.search(_read_text(root / name)):
                raise PithError(f"{source}: {name} is not a LaTeX main file (no \\documentclass)")
        others = [m for m in mains if m not in chosen]
        mains, mains_from = list(dict.fromkeys(chosen)), "command line"
    if not mains:
        nested = [f for f in files
                  if "/" in f and f.lower().endswith(".tex") and _DOCCLASS.search(_read_text(root / f))]
        if nested:
            raise PithError(f"{source}: the main file {nested[0]} is in a subfolder; arXiv looks for it at the "
                            "top level of the upload (archive the folder's contents, not the folder)")
        raise PithError(f"{source}: not a paper (no top-level .tex file with \\documentclass)")
    jobnames = {PurePosixPath(m).stem for m in mains}
    build = [f for f in files if _is_build_product(f, jobnames)]
    if build:  # a build product's name, but the paper reads it (a listing run.out): a source
        read = set().union(*(files_read(scan(root, m, files), set(files)) for m in mains))
        build = [f for f in build if f not in read]
    return Upload(root=root, main=_pick_main(mains), files=files, source=source, compiler=compiler,
                  readme=readme, mains=mains, mains_from=mains_from, other_mains=others, build_products=build)


def _is_build_product(rel: str, jobnames: set[str]) -> bool:
    """Named as TeX names what it writes; never a file of arXiv's ancillary folder, whose
    files arXiv serves as they are (data, code output, whatever their names)."""
    low = rel.lower()
    if rel.startswith(ANCILLARY + "/"):
        return False
    return low.endswith(BUILD_SUFFIXES) or any(rel in (f"{j}.pdf", f"{j}.ps") for j in jobnames)


def _read_text(path: Path) -> str:
    try:
        return path.read_text("utf-8", errors="replace")
    except OSError as exc:
        raise PithError(f"{path}: cannot read ({exc.strerror})") from exc


MAX_README_BYTES = 1024 * 1024  # arXiv's 00README.json lists a few files and settings


def _read_readme(root: Path, source: str) -> dict[str, Any] | None:
    f = root / "00README.json"
    if f.is_symlink() or not f.is_file():  # as for every file of an upload: links are not part of it
        return None
    try:
        data = json.loads(read_input(f, MAX_README_BYTES, "00README.json").decode("utf-8"))
    except (ValueError, OSError) as exc:
        raise PithError(f"{source}: 00README.json is not valid JSON ({_why(exc)})") from exc
    except RecursionError:  # "[[[[...": json's decoder recurses once per level
        raise PithError(f"{source}: 00README.json is nested too deeply to be arXiv's format") from None
    if not isinstance(data, dict):
        raise PithError(f"{source}: 00README.json is not a JSON object")
    # The shapes the readers below rely on, checked once here.
    for key, kind, name in (("sources", list, "a list"), ("process", dict, "an object")):
        if data.get(key) is not None and not isinstance(data[key], kind):
            raise PithError(f"{source}: 00README.json's {key!r} must be {name}")
    return data


def _readme_compiler(readme: dict[str, Any] | None, source: str) -> str | None:
    if not readme:
        return None
    value = readme.get("compiler") or (readme.get("process") or {}).get("compiler")
    if value is None:
        return None
    route = COMPILERS.get(str(value).strip().lower())
    if route is None:
        raise PithError(f"{source}: 00README.json asks for compiler {value!r}, which arXiv does not run "
                        f"(use one of {', '.join(sorted(COMPILERS))})")
    return route


def _readme_sources(readme: dict[str, Any] | None, usage: str) -> list[str]:
    """00README.json `sources` of one usage, in the order listed. An entry with nothing but a
    `filename` is a top-level file (arXiv's format allows leaving `usage: toplevel` out)."""
    sources = (readme or {}).get("sources") or []
    found = []
    for s in sources if isinstance(sources, list) else []:
        if not isinstance(s, dict) or not isinstance(s.get("filename"), str):
            continue
        given = s.get("usage", "toplevel" if set(s) == {"filename"} else None)
        if given == usage:
            found.append(PurePosixPath(s["filename"]).as_posix())
    return list(dict.fromkeys(found))


def _documentclass_files(root: Path, files: list[str]) -> list[str]:
    """Top-level .tex files with \\documentclass, in alphanumeric (byte) order, as arXiv orders them."""
    tops = sorted(f for f in files if "/" not in f and f.lower().endswith(".tex"))
    return [f for f in tops if _DOCCLASS.search(_read_text(root / f))]


def _pick_main(mains: list[str]) -> str:
    for name in PREFERRED_MAIN:
        if name in mains:
            return name
    return mains[0]
