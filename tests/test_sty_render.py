"""`pithtex render`: latex/pith.sty and its example copies are exactly a fresh render."""

from __future__ import annotations

import re
import shutil
import sys

from pithtex import brand
from pithtex.render import EXAMPLE_CLASSES, check, logo_path, render_all, render_sty

from .conftest import ROOT, pithtex_cli


def test_committed_files_equal_a_fresh_render():
    proc = pithtex_cli("render", "--check")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert check(ROOT) == []
    for cls in EXAMPLE_CLASSES:  # every example folder is an upload that carries pith.sty
        assert (ROOT / "examples" / cls / "pith.sty").read_text() == render_sty()


def _copy_project(tmp_path):
    shutil.copytree(ROOT / "latex", tmp_path / "latex")
    for cls in EXAMPLE_CLASSES:
        shutil.copytree(ROOT / "examples" / cls, tmp_path / "examples" / cls)
    return tmp_path


def test_check_names_stale_and_missing_files_and_render_fixes_them(tmp_path):
    root = _copy_project(tmp_path)
    (root / "latex" / "pith.sty").write_text(render_sty().replace("v" + brand.VERSION, "v9.9.9"))
    (root / "examples" / "llncs" / "pith.sty").unlink()
    proc = pithtex_cli("render", "--check", "--root", str(root))
    assert proc.returncode == 1
    assert "stale: latex/pith.sty" in proc.stdout and "stale: examples/llncs/pith.sty" in proc.stdout
    assert "examples/article/pith.sty" not in proc.stdout
    written = render_all(root)
    assert len(written) == 1 + len(EXAMPLE_CLASSES)
    assert check(root) == []


def test_render_is_deterministic_and_says_it_is_generated():
    text = render_sty()
    assert text == render_sty()
    head = text[:1200]
    assert "GENERATED FILE" in head and "pithtex render" in head
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


def test_web_assets_hook_without_the_module(monkeypatch, capsys):
    from pithtex.cli.render import _render_web

    monkeypatch.setitem(sys.modules, "pithtex.webassets", None)  # as if not installed
    assert _render_web(ROOT / "out" / "never-written") == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("pithtex: --web:") and len(err.splitlines()) == 1
