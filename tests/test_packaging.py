"""What the wheel declares matches what the package imports, and it ships its types (PEP 561)."""

from __future__ import annotations

import ast
import re
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "pithtex"
# Distribution name -> the top-level module the package imports it by.
IMPORT_NAME = {"pillow": "PIL", "pypdfium2": "pypdfium2_raw"}  # its raw bindings, in its wheel


def _imported_top_levels() -> dict[str, set[str]]:
    """{top-level module: the package files importing it}, lazy imports inside functions included."""
    found: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                found.setdefault(name.split(".")[0], set()).add(path.relative_to(ROOT).as_posix())
    return found


def _runtime_requirements() -> set[str]:
    """The distributions `pip install pithtex` brings (no extras), as installed from pyproject.toml."""
    names = set()
    for req in metadata.requires("pithtex") or []:
        if "extra ==" not in req:
            names.add(re.match(r"[A-Za-z0-9_.-]+", req).group(0).lower())
    return names


# Subpackages only an extra's users import (`extensions = ["pithtex.sphinx"]` runs inside Sphinx):
# their third-party imports are that extra's, not `pip install pithtex`'s.
EXTRA_PACKAGES = {"pithtex/sphinx/": "sphinx", "pithtex/serve/": "serve"}


def _third_party(imported: dict[str, set[str]], inside: bool, folder: str) -> set[str]:
    return {name for name, files in imported.items() if name not in sys.stdlib_module_names and name != "pithtex"
            and any(f.startswith(folder) == inside for f in files)}


def _extra_requirements(extra: str) -> set[str]:
    return {re.match(r"[A-Za-z0-9_.-]+", req).group(0).lower() for req in metadata.requires("pithtex") or []
            if re.search(rf"extra == ['\"]{extra}['\"]", req)}


def test_every_runtime_dependency_is_imported_and_every_third_party_import_declared():
    imported = _imported_top_levels()
    third_party = {name for name in imported if name not in sys.stdlib_module_names and name != "pithtex"
                   and not all(f.startswith(tuple(EXTRA_PACKAGES)) for f in imported[name])}
    declared = {IMPORT_NAME.get(dist, dist) for dist in _runtime_requirements()}
    assert declared == third_party, {"declared, never imported": declared - third_party,
                                     "imported, not declared": third_party - declared}


def test_an_extra_s_subpackage_imports_what_the_extra_declares():
    imported = _imported_top_levels()
    for folder, extra in EXTRA_PACKAGES.items():
        declared = {IMPORT_NAME.get(dist, dist) for dist in _extra_requirements(extra)} | _runtime_requirements()
        assert _third_party(imported, True, folder) - declared == set(), (folder, extra)
        assert _extra_requirements(extra) <= _third_party(imported, True, folder), (folder, extra)


def test_pdfium_is_imported_only_by_the_page_one_reader():
    assert _imported_top_levels()["pypdfium2_raw"] == {"pithtex/pdf/pdfium.py"}
    assert "pypdfium2" not in _imported_top_levels()  # its raw bindings only: the helper layer costs its import again
    assert "pypdf" not in _imported_top_levels()  # one reader of page 1's text (issue 24)


def test_the_package_marks_itself_typed_and_ships_the_marker():
    assert (PACKAGE / "py.typed").is_file()
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    data = re.search(r"^\[tool\.setuptools\.package-data\]\n(?:#.*\n)*pithtex = \[([^\]]*)\]", text, re.M)
    assert data is not None and '"py.typed"' in data.group(1)


def test_one_type_checking_flag_for_the_whole_package():
    """`typing` stays off stamp's start-up path through one flag, value.TYPE_CHECKING, that
    every module imports; a module assigning its own would copy the idiom (and its comment)."""
    assigning = sorted(path.relative_to(ROOT).as_posix() for path in PACKAGE.rglob("*.py")
                       if re.search(r"^TYPE_CHECKING\s*=", path.read_text(encoding="utf-8"), re.M))
    assert assigning == ["pithtex/value.py"]
