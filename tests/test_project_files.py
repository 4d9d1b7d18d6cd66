"""The files a new maintainer reads first say what is true: the changelog names the current
version first, the contributing guide names make targets that exist, the top level of the
package stays in rooms."""

from __future__ import annotations

import re
from pathlib import Path

from pithtex.brand import VERSION

ROOT = Path(__file__).resolve().parent.parent


def test_changelog_is_keep_a_changelog_with_the_current_version_first():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", text, flags=re.M)
    assert versions, "no '## [VERSION] - YYYY-MM-DD' headings"
    released = [v for v, _ in versions if v != "Unreleased"]
    assert released[0] == VERSION
    assert all(date for v, date in versions if v != "Unreleased")
    sections = set(re.findall(r"^### (\w+)$", text, flags=re.M))
    assert sections <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def test_contributing_names_only_make_targets_that_exist():
    guide = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([a-z][\w-]*):", (ROOT / "Makefile").read_text(encoding="utf-8"), flags=re.M))
    named = set(re.findall(r"`make ([a-z][\w-]*)`|^make ([a-z][\w-]*)", guide, flags=re.M))
    named_targets = {a or b for a, b in named}
    assert {"demo", "test", "dist", "doc", "ctan"} <= named_targets
    assert named_targets <= targets, named_targets - targets


def test_the_package_top_level_keeps_at_most_nineteen_modules():
    """Sixteen, plus the rooms beside the client that issue 36 split out of it (stamping,
    reading a target, the worker pool): each one concern a newcomer looks for by name, where a
    subpackage would only hide them one level down. A new subject gets a room below, not here."""
    top = sorted(p.name for p in (ROOT / "pithtex").glob("*.py"))
    assert len(top) <= 19, top
    for room in ("latex", "web", "arxiv", "pdf", "cli"):
        assert (ROOT / "pithtex" / room / "__init__.py").is_file()


def test_the_command_line_only_parses_and_prints_in_short_modules():
    """pithtex/cli/ parses and prints; what a target is and how it is checked is the library's
    (pithtex/client.py): no module there grows past 120 lines."""
    long = {p.name: n for p in (ROOT / "pithtex" / "cli").glob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 120}
    assert long == {}


def test_no_exception_is_patched_after_it_is_made():
    """An error carries its details as fields it is made with (PithError's `remedy`,
    ResolverError's `step`, `number` and `arxiv`): no handler sets an attribute on the
    exception it caught, and none reads one back with getattr."""
    import ast

    patched = []
    for path in sorted((ROOT / "pithtex").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        caught = {handler.name for handler in ast.walk(tree) if isinstance(handler, ast.ExceptHandler)} - {None}
        for handler in ast.walk(tree):
            if not isinstance(handler, (ast.FunctionDef, ast.ExceptHandler)):
                continue
            # a handler's own name, and a helper's parameter named as handlers name what they catch
            names = {handler.name} if isinstance(handler, ast.ExceptHandler) else {
                a.arg for a in handler.args.args if a.arg in caught}
            for node in ast.walk(handler):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                    node, (ast.AugAssign, ast.AnnAssign)) else []
                set_on = [t for t in targets if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                          and t.value.id in names]
                read_back = (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                             and node.func.id in ("getattr", "setattr", "hasattr") and node.args
                             and isinstance(node.args[0], ast.Name) and node.args[0].id in names)
                if set_on or read_back:
                    patched.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert patched == []
