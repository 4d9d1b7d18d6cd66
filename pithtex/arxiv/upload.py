"""An upload as arXiv receives it: a folder, one .tex file, or a .tar.gz/.zip archive.

`open_upload` turns any of these into an `Upload`: a folder on disk, the list of files in
it, and the main file chosen the way arXiv chooses it (`00README.json` `toplevel`, else
the top-level .tex files that carry `\\documentclass`). Archives are unpacked into a
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
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ..errors import PithError

# arXiv's own submission limit is 50 MB compressed; uncompressed we allow some more.
MAX_TOTAL_BYTES = 200 * 1024 * 1024
MAX_MEMBERS = 5000
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".zip", ".tar.bz2", ".tar.xz")
# Build products and editor litter: never part of what is compiled, even when present.
BUILD_SUFFIXES = (".aux", ".log", ".out", ".toc", ".lof", ".lot", ".fls", ".fdb_latexmk",
                  ".synctex.gz", ".synctex", ".dvi", ".blg", ".bcf", ".run.xml", ".nav", ".snm", ".xdv")
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
    readme: dict | None = None
    mains: list[str] = field(default_factory=list)
    build_products: list[str] = field(default_factory=list)
    _tmp: tempfile.TemporaryDirectory | None = field(default=None, repr=False)

    @property
    def is_archive(self) -> bool:
        """An archive is the upload as decided; a folder is a working folder (litter expected)."""
        return self._tmp is not None

    @property
    def jobname(self) -> str:
        return PurePosixPath(self.main).stem

    def close(self) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> Upload:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_upload(path: str | Path) -> Upload:
    """Read PATH (folder, .tex, or archive) as an upload; PithError (exit 2) when unusable."""
    p = Path(path)
    if not p.exists():
        raise PithError(f"{path}: no such file or folder")
    if p.is_dir():
        return _from_folder(p, str(path), main=None)
    name = p.name.lower()
    if name.endswith(".tex"):
        return _from_folder(p.parent, str(path), main=p.name)
    if name.endswith(ARCHIVE_SUFFIXES):
        tmp = tempfile.TemporaryDirectory(prefix="pithtex-upload-")
        try:
            unpack(p, Path(tmp.name))
            upload = _from_folder(Path(tmp.name), str(path), main=None)
        except BaseException:
            tmp.cleanup()
            raise
        upload._tmp = tmp
        return upload
    raise PithError(f"{path}: not a paper (give a .tex file, a folder, or a .tar.gz/.zip upload)")


# -- archives -----------------------------------------------------------------------------
def unpack(archive: Path, dest: Path) -> None:
    """Unpack a .tar(.gz) or .zip into dest, refusing anything unsafe (exit 2)."""
    try:
        if zipfile.is_zipfile(archive):
            _unpack_zip(archive, dest)
        else:
            _unpack_tar(archive, dest)
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


def _unpack_tar(archive: Path, dest: Path) -> None:
    total = 0
    with tarfile.open(archive, "r:*") as tar:
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


def _unpack_zip(archive: Path, dest: Path) -> None:
    total = 0
    with zipfile.ZipFile(archive) as z:
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


def _from_folder(root: Path, source: str, main: str | None) -> Upload:
    files = list_files(root)
    readme = _read_readme(root, source)
    compiler = _readme_compiler(readme, source)
    mains = _main_candidates(root, files, readme)
    if main is not None:
        if not _DOCCLASS.search(_read_text(root / main)):
            raise PithError(f"{source}: not a LaTeX main file (no \\documentclass)")
        mains = [main]  # the user named it: no guessing, no "several main files"
    elif not mains:
        nested = [f for f in files
                  if "/" in f and f.lower().endswith(".tex") and _DOCCLASS.search(_read_text(root / f))]
        if nested:
            raise PithError(f"{source}: the main file {nested[0]} is in a subfolder; arXiv looks for it at the "
                            "top level of the upload (archive the folder's contents, not the folder)")
        raise PithError(f"{source}: not a paper (no top-level .tex file with \\documentclass)")
    else:
        main = _pick_main(mains)
    jobname = PurePosixPath(main).stem
    build = [f for f in files if _is_build_product(f, jobname)]
    return Upload(root=root, main=main, files=files, source=source, compiler=compiler,
                  readme=readme, mains=mains, build_products=build)


def _is_build_product(rel: str, jobname: str) -> bool:
    low = rel.lower()
    return low.endswith(BUILD_SUFFIXES) or rel == f"{jobname}.pdf" or rel == f"{jobname}.ps"


def _read_text(path: Path) -> str:
    try:
        return path.read_text("utf-8", errors="replace")
    except OSError as exc:
        raise PithError(f"{path}: cannot read ({exc.strerror})") from exc


def _read_readme(root: Path, source: str) -> dict | None:
    f = root / "00README.json"
    if not f.is_file():
        return None
    try:
        data = json.loads(f.read_text("utf-8"))
    except (ValueError, OSError) as exc:
        raise PithError(f"{source}: 00README.json is not valid JSON ({_why(exc)})") from exc
    if not isinstance(data, dict):
        raise PithError(f"{source}: 00README.json is not a JSON object")
    return data


def _readme_compiler(readme: dict | None, source: str) -> str | None:
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


def _main_candidates(root: Path, files: list[str], readme: dict | None) -> list[str]:
    """Top-level sources as arXiv picks them: 00README.json toplevel first, else \\documentclass."""
    listed = [s.get("filename") for s in (readme or {}).get("sources", []) or []
              if isinstance(s, dict) and s.get("usage") == "toplevel"]
    listed = [f for f in listed if isinstance(f, str) and f in files]
    if listed:
        return listed
    tops = [f for f in files if "/" not in f and f.lower().endswith(".tex")]
    return [f for f in tops if _DOCCLASS.search(_read_text(root / f))]


def _pick_main(mains: list[str]) -> str:
    for name in PREFERRED_MAIN:
        if name in mains:
            return name
    return mains[0]
