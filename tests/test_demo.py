"""`make demo` runs examples/demo.sh: the tour must run to the end on a fresh checkout.

Nothing else runs it, and a change of policy elsewhere (stamp --record refusing a PDF of
another paper) once broke it unnoticed; this test runs the whole tour and checks what it
says it made."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_demo_runs_to_the_end_and_makes_what_it_lists(tmp_path: Path) -> None:
    pithtex = Path(sys.executable).parent / "pithtex"
    out = tmp_path / "out"
    run = subprocess.run(["bash", "examples/demo.sh", str(pithtex), str(out)], cwd=ROOT,
                         capture_output=True, text=True, timeout=600,
                         env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    said = run.stdout
    # the example carries the seed's number but is another paper: never "verified"
    assert "paper.pdf with examples/seed-record.json" in said
    assert "(exit 3: not verified, as it should be)" in said or "(exit 1: not verified" in said
    # the stand-in for the seed's paper is stamped, verified and reverted byte for byte
    assert "verified  (" + str(out / "stamped.pdf") in said
    assert (out / "plain.pdf").read_bytes() == (out / "reverted.pdf").read_bytes()
    for made in ("stamped.pdf", "badges/pith-YBK5PTAK.svg", "badges/pith-YBK5PTAK@2x.png",
                 "badges/embed.html", "article-upload.tar.gz"):
        assert (out / made).stat().st_size > 0, made
    assert "Where everything is" in said
