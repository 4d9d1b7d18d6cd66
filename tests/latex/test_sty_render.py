"""`make render` (`pithtex render`): latex/pith.sty, the one committed rendering, is
exactly a fresh render; the command is a developer's, not among a user's."""

from __future__ import annotations

import re
import shutil
import sys

from pithtex import brand
from pithtex.generate import CHECKOUT_MARK, check, render_all
from pithtex.latex.render import logo_path, render_sty

from ..conftest import ROOT, assert_clean_error, pithtex_cli, render_cli


def test_committed_file_equals_a_fresh_render():
    proc = render_cli("--check")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert check(ROOT) == []
    assert not list((ROOT / "examples").glob("*/pith.sty")), "examples hold only papers"


def _copy_project(tmp_path):
    shutil.copytree(ROOT / "latex", tmp_path / "latex")
    (tmp_path / CHECKOUT_MARK).parent.mkdir(parents=True)
    shutil.copyfile(ROOT / CHECKOUT_MARK, tmp_path / CHECKOUT_MARK)
    return tmp_path


def test_check_names_a_stale_file_and_render_fixes_it(tmp_path):
    root = _copy_project(tmp_path)
    (root / "latex" / "pith.sty").write_text(render_sty().replace("v" + brand.VERSION, "v9.9.9"))
    proc = render_cli("--check", "--root", str(root))
    assert proc.returncode == 1 and proc.stdout.strip() == "stale: latex/pith.sty (run `make render`)"
    assert render_all(root) == [root / "latex" / "pith.sty", root / "latex" / "pith-doc.tex"]
    assert check(root) == []


def test_render_outside_a_checkout_points_to_sty(tmp_path):
    """A paper's folder is not a checkout: render writes nothing there and names `pithtex sty`."""
    (tmp_path / "paper.tex").write_text("\\documentclass{article}")
    err = assert_clean_error(render_cli(cwd=tmp_path))
    assert "not a pithtex checkout" in err and "pithtex sty" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["paper.tex"]


def test_render_is_deterministic_and_says_it_is_generated():
    text = render_sty()
    assert text == render_sty()
    head = text[:1200]
    assert "GENERATED FILE" in head and "make render" in head
    date = brand.RELEASE_DATE
    assert re.search(rf"\\ProvidesPackage\{{pith\}}\[{re.escape(date)} v{re.escape(brand.VERSION)} ", text)
    assert "\\VAR{" not in text and "\\BLOCK{" not in text


def test_brand_values_reach_the_package():
    text = render_sty()
    assert f"{{ rgb }} {{ {brand.PRINT_COLOUR.latex_rgb} }}" in text
    assert brand.XMP_NAMESPACE in text and brand.BASE_URL in text
    ring, core = brand.LOGO
    # The ring is stroked at its width, the core filled, both from the brand geometry.
    pdf = logo_path("pdf").split("~")
    assert pdf[:2] == [f"{ring.stroke:g}", "w"] and pdf[2:5] == [f"{ring.cx + ring.r:g}", f"{ring.cy:g}", "m"]
    assert pdf[-1] == "f" and f"{core.cx + core.r:g}" in pdf
    assert logo_path("ps") in text and logo_path("pdf") in text


def test_render_is_a_developers_command_not_a_users(tmp_path):
    """`pithtex --help` lists what a user can run; render (a checkout's generated files) is
    accepted by name, hidden from the listing, the usage line and a mistyped command's choices;
    its errors are still one line, with --json a JSON error."""
    listed = pithtex_cli("--help").stdout
    assert "render" not in listed and "  sty " in listed
    assert "render" not in assert_clean_error(pithtex_cli("rendre"))  # the choices offered
    assert "render" not in pithtex_cli().stdout  # the bare command's usage and listing
    missing = render_cli("--root", str(tmp_path / "missing"), "--json")
    assert missing.returncode == 2 and '"exit_code": 2' in missing.stdout, missing.stdout + missing.stderr
    unknown = assert_clean_error(render_cli("--bogus"))
    assert unknown.endswith("(see pithtex render --help)"), unknown  # not the listing that omits it
    assert render_cli("--help").stdout.startswith("usage: pithtex render [-h] [--check]")


def test_the_module_entry_point_is_the_same_command():
    """`python -m pithtex.cli.render`, which the generated files' headers name, runs `pithtex render`."""
    proc = pithtex_cli("--check", program=[sys.executable, "-m", "pithtex.cli.render"])
    assert proc.returncode == 0 and proc.stdout.startswith("up to date"), proc.stdout + proc.stderr
