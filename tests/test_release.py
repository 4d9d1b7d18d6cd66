"""The release from a clean tree: `make ctan` (which runs `make doc`) and `make dist` in a
folder holding only what git tracks, as a fresh clone does, with no network.

The folder is a copy of the tracked files as they are in the working tree (uncommitted
edits included, untracked and ignored files such as out/ left out). Its venv is made
offline: the package installed editable from the copy itself, its dependencies read from
this test's own venv through a .pth line (as tests/test_install.py does; pip and
setuptools too), so every
`make` step runs the copy's code.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sysconfig
import tarfile
import venv
import zipfile
from pathlib import Path

import pikepdf
import pytest

from pithtex import brand

from .conftest import BODY, ROOT, URL

pytestmark = pytest.mark.slow

CTAN_FILES = {"pith/", "pith/README.md", "pith/pith.sty", "pith/pith-doc.tex", "pith/LICENSE", "pith/pith-doc.pdf"}


def run(cmd: list[str], cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "PITH", "MAKE"))}
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, errors="replace",
                          timeout=timeout, stdin=subprocess.DEVNULL)


def tracked_copy(dest: Path) -> Path:
    """The files git tracks, copied with their modes (a tracked file deleted in the tree is left out)."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60)
    names = [os.fsdecode(name) for name in listed.stdout.split(b"\0") if name]
    assert "Makefile" in names and "pyproject.toml" in names, "the tests run from a git checkout"
    for name in names:
        src = ROOT / name
        if src.is_symlink() or src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name, follow_symlinks=False)
    return dest


def offline_venv(clone: Path) -> Path:
    """clone/.venv as `make venv` would leave it, without the network."""
    env_dir = clone / ".venv"
    # No pip of its own: ensurepip's setuptools (Python 3.11) would come before the dev venv's.
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], clone).stdout
    Path(site.strip(), "zz-dev-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    pip = run([str(python), "-m", "pip", "install", "-q", "--no-index", "--no-build-isolation", "--no-deps",
               "-e", "."], clone)
    assert pip.returncode == 0, pip.stdout[-2000:] + pip.stderr[-2000:]
    (env_dir / "bin" / "pithtex").touch()  # newer than pyproject.toml: make's venv target is done
    return env_dir / "bin"


def test_ctan_doc_and_dist_build_in_a_clean_clone(tmp_path: Path):
    """One test: the copy, its venv and the manual are made once."""
    clone = tracked_copy(tmp_path / "clone")
    bin_dir = offline_venv(clone)
    where = run([str(bin_dir / "python"), "-c", "import pithtex; print(pithtex.__file__)"], clone)
    assert Path(where.stdout.strip()).is_relative_to(clone), where.stdout + where.stderr

    ctan = run(["make", "--no-print-directory", "ctan"], clone)
    assert ctan.returncode == 0, ctan.stdout[-3000:] + ctan.stderr[-3000:]
    manual = clone / "out" / "doc" / "pith-doc.pdf"
    with pikepdf.open(manual) as pdf:
        assert len(pdf.pages) >= 4
        assert str(pdf.docinfo["/PithNumber"]) == BODY
        uris = {str(annot.A.URI) for page in pdf.pages for annot in page.get("/Annots") or []
                if "/A" in annot and "/URI" in annot.A}
        assert URL in uris
    with zipfile.ZipFile(clone / "out" / "pith.zip") as z:
        assert set(z.namelist()) == CTAN_FILES
        assert all(info.external_attr >> 16 & 0o111 == 0 for info in z.infolist() if not info.is_dir()), \
            "no executable bits"
        assert z.read("pith/pith.sty") == (clone / "latex" / "pith.sty").read_bytes()
        assert z.read("pith/pith-doc.pdf") == manual.read_bytes()

    dist = run(["make", "--no-print-directory", "dist"], clone)
    assert dist.returncode == 0, dist.stdout[-3000:] + dist.stderr[-3000:]
    version = brand.VERSION
    built = sorted(p.name for p in (clone / "dist").iterdir())
    assert built == sorted([f"pith-badge-{version}.tgz", f"pithtex-{version}-py3-none-any.whl",
                            f"pithtex-{version}.tar.gz"]), built
    with zipfile.ZipFile(clone / "dist" / f"pithtex-{version}-py3-none-any.whl") as z:
        names = set(z.namelist())
        # pith.sty.j2's includes, two folders down, ship too: `pithtex sty` renders from them.
        assert {"pithtex/__init__.py", "pithtex/templates/pith.sty.j2", "pithtex/templates/sty/placement.sty.j2",
                "pithtex/templates/sty/classes/revtex.sty.j2", "pithtex/pdf/xmp.py", "pithtex/py.typed"} <= names
        meta = z.read(f"pithtex-{version}.dist-info/METADATA").decode()
        assert f"Version: {version}" in meta and "License-Expression: MIT AND LPPL-1.3c" in meta
        assert "Requires-Dist: pypdfium2>=5" in meta.splitlines()
    with tarfile.open(clone / "dist" / f"pithtex-{version}.tar.gz") as tar:
        names = set(tar.getnames())
        top = f"pithtex-{version}"
        assert {f"{top}/pyproject.toml", f"{top}/README.md", f"{top}/pithtex/latex/options.py",
                f"{top}/latex/LICENSE"} <= names, sorted(names)[:20]
    with tarfile.open(clone / "dist" / f"pith-badge-{version}.tgz") as tar:
        names = set(tar.getnames())
        assert {"package/package.json", "package/dist/pith-badge.mjs", "package/dist/pith-badge.js"} <= names
        assert tar.extractfile("package/dist/pith-badge.mjs").read() == \
            (clone / "web" / "dist" / "pith-badge.mjs").read_bytes()
    # Building the release changed nothing git tracks (render --check passed; nothing rewritten).
    for name in ("latex/pith.sty", "latex/pith-doc.tex", "web/dist/pith-badge.js"):
        assert (clone / name).read_bytes() == (ROOT / name).read_bytes(), name
