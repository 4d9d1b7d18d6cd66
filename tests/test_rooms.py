"""The rooms of pithtex/ as docs/design.md draws them: every import (at the top of a module, in a
function, or for type checking only) runs from a room to one on a line below it, so there is no
circle and no import running back up, and every room is in the picture."""

from __future__ import annotations

import ast
import re
from collections import defaultdict

from .conftest import ROOT

PACKAGE = ROOT / "pithtex"
# The package's own doors: its namespace (pithtex/__init__.py) and `python -m pithtex`.
DOORS = {"__init__", "__main__.py"}


def _room(dotted: str) -> str | None:
    """The room of a module under pithtex: `pdf/` for pithtex.pdf.page, `files.py` for pithtex.files."""
    parts = dotted.split(".")
    if parts[0] != "pithtex":
        return None
    if len(parts) == 1:
        return "__init__"
    if (PACKAGE / parts[1]).is_dir():
        return parts[1] + "/"
    return parts[1] + ".py" if (PACKAGE / f"{parts[1]}.py").is_file() else None


def _imported(node: ast.AST, package: str) -> list[str]:
    """The modules an import statement names, made absolute against `package`."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    if not node.level:
        return [node.module] if node.module else []
    base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1])
    if node.module:
        return [f"{base}.{node.module}"]
    return [f"{base}.{alias.name}" for alias in node.names]


def arrows() -> dict[str, set[str]]:
    """room -> the rooms it imports (itself left out)."""
    out: dict[str, set[str]] = defaultdict(set)
    for path in sorted(PACKAGE.rglob("*.py")):
        dotted = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        package = dotted.removesuffix(".__init__") if path.name == "__init__.py" else dotted.rsplit(".", 1)[0]
        source = _room(dotted.removesuffix(".__init__"))
        if path == PACKAGE / "__main__.py":
            source = "__main__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            for name in _imported(node, package):
                target = _room(name)
                if target and target != source:
                    out[source].add(target)
    return out


def pictured() -> list[list[str]]:
    """docs/design.md's rooms, a list a line from the top: `serve/ · sphinx/   the badge server…`."""
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    block = text.split("## The rooms\n\n```\n", 1)[1].split("```", 1)[0]
    lines = []
    for line in block.splitlines():
        if line.strip() in ("", "▼"):
            continue
        names = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]
        lines.append([name.strip() for name in names.split("·")])
    return lines


def test_no_circle_among_the_rooms():
    graph = arrows()
    done: set[str] = set()

    def visit(room: str, path: list[str]) -> None:
        assert room not in path, " -> ".join([*path[path.index(room):], room])
        if room in done:
            return
        for target in sorted(graph.get(room, ())):
            visit(target, [*path, room])
        done.add(room)

    for room in sorted(graph):
        visit(room, [])


def test_every_import_runs_down_the_picture_in_design_md():
    floors = {room: depth for depth, line in enumerate(pictured()) for room in line}
    graph = arrows()
    rooms = (set(graph) | {t for targets in graph.values() for t in targets}) - DOORS
    assert sorted(rooms - set(floors)) == [], "rooms missing from docs/design.md's picture"
    assert sorted(set(floors) - rooms) == [], "rooms in the picture that are not in pithtex/"
    up = [f"{source} -> {target}" for source, targets in graph.items() if source not in DOORS
          for target in targets if floors[target] <= floors[source]]
    assert up == [], "imports that do not run down the picture"
