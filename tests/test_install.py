"""The release as a user gets it: the wheel, built from this checkout and installed into a
fresh venv in a folder outside it, does its job with no checkout in reach.

The wheel is built without network access (`--no-isolation`, the dev venv's setuptools).
Its dependencies come from the dev venv through a .pth line placed *after* the fresh
venv's own site-packages, so the package itself can only come from the wheel: the test
asserts where `pithtex` is imported from.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from pithtex import brand

from .conftest import BODY, ROOT, SEED_PATH, fixture_pdf

pytestmark = pytest.mark.slow


def run(cmd: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "PITH"))}
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    """(bin folder of a fresh venv holding only the wheel, an empty working folder)."""
    where = tmp_path_factory.mktemp("release")
    # Built from a copy of the sources, so that the build's own folders (build/, *.egg-info)
    # never land in the checkout, where parallel runs would share them.
    src = where / "src"
    shutil.copytree(ROOT / "pithtex", src / "pithtex", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "LICENSE", "latex/LICENSE"):
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, src / name)
    build = run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(where / "dist"),
                 str(src)], cwd=where)
    assert build.returncode == 0, build.stdout[-2000:] + build.stderr[-2000:]
    wheel = next((where / "dist").glob("pithtex-*.whl"))
    env_dir = where / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    bin_dir = env_dir / "bin"
    pip = run([str(bin_dir / "python"), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)],
              cwd=where)
    assert pip.returncode == 0, pip.stderr
    site = run([str(bin_dir / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
               cwd=where).stdout.strip()
    # zz: read after everything the fresh venv holds, so only dependencies come from here
    Path(site, "zz-dev-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    work = where / "work"
    work.mkdir()
    return bin_dir, work


def test_the_wheel_alone_verifies_writes_sty_checks_badges_stamps_and_inspects(installed):
    """One test, so the wheel is built once even when xdist spreads tests over workers."""
    bin_dir, work = installed
    proc = run([str(bin_dir / "python"), "-c", "import pithtex; print(pithtex.__file__, pithtex.__version__)"], work)
    assert proc.returncode == 0, proc.stderr
    path, version = proc.stdout.split()
    assert Path(path).is_relative_to(bin_dir.parent) and not Path(path).is_relative_to(ROOT)
    assert version == brand.VERSION

    pithtex = str(bin_dir / "pithtex")
    shutil.copyfile(SEED_PATH, work / "record.json")
    verify = run([pithtex, "verify", "record.json"], work)
    assert verify.returncode == 0 and "  verified  (" in verify.stdout, verify.stdout + verify.stderr

    paper = work / "paper"
    shutil.copytree(ROOT / "examples" / "article", paper, ignore=shutil.ignore_patterns("*.pdf", "*.aux", "*.log"))
    sty = run([pithtex, "sty"], paper)
    assert sty.returncode == 0 and sty.stdout.startswith("wrote pith.sty (pith.sty "), sty.stdout + sty.stderr
    assert (paper / "pith.sty").read_bytes() == (ROOT / "latex" / "pith.sty").read_bytes()
    check = run([pithtex, "check", "."], paper, timeout=600)
    assert check.returncode == 0 and check.stdout.startswith("OK "), check.stdout + check.stderr

    badge = run([pithtex, "badge", BODY, "--record", "../record.json", "-o", "badge.svg"], paper)
    assert badge.returncode == 0, badge.stderr
    assert (paper / "badge.svg").read_text().startswith("<svg")

    shutil.copyfile(fixture_pdf("004"), work / "in.pdf")
    # that PDF is not the record's paper: refused, stamped with --force (which says so)
    refused = run([pithtex, "stamp", "in.pdf", "--record", "record.json", "-o", "out.pdf"], work)
    assert refused.returncode == 1 and "not stamped with record.json" in refused.stderr, refused.stderr
    stamp = run([pithtex, "stamp", "in.pdf", "--record", "record.json", "-o", "out.pdf", "--force"], work)
    assert stamp.returncode == 0 and "stamped anyway (--force)" in stamp.stderr, stamp.stderr
    inspect = run([pithtex, "inspect", "out.pdf", "--json"], work)
    assert inspect.returncode == 0 and f'"number": "{BODY}"' in inspect.stdout, inspect.stdout + inspect.stderr

    render = run([pithtex, "render"], paper)  # a developer's, hidden, for a checkout
    assert render.returncode == 2 and "pithtex sty" in render.stderr
