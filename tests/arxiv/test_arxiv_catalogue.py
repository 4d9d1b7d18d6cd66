"""The catalogue of `pithtex check`'s rule ids: stable, complete, the one place ids are written,
and the source of docs/arxiv-rules.md."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pithtex.arxiv import catalogue
from pithtex.arxiv.catalogue import BY_ID, RULES, Rule
from pithtex.arxiv.catalogue import rules_page as render_rules
from pithtex.arxiv.diagnostic import error, warning
from pithtex.generate import RULES_PATH

from ..conftest import ROOT

PACKAGE = ROOT / "pithtex"

# The promise: these ids with these severities. Renaming or dropping one breaks every script
# that matches on it, so a change here is a change of the public interface.
EXPECTED = [
    ("unsafe-path", "error"), ("wrong-case", "error"), ("missing-file", "error"), ("bbl-missing", "error"),
    ("package-missing", "error"), ("shell-escape", "error"), ("hyperxmp-order", "error"),
    ("pdfa-outputintents", "warning"), ("unsafe-filename", "error or warning"), ("pith-sty-missing", "error"),
    ("pith-sty-old", "warning"), ("pith-option-unknown", "error"), ("pith-hidden", "warning"),
    ("pith-number-missing", "error"), ("pith-number-macro", "warning"), ("pith-number-invalid", "error"),
    ("several-main-files", "warning"), ("pith-file-unchecked", "error"), ("build-products", "warning"),
    ("log-too-large", "error"), ("files-too-large", "error"), ("memory-too-large", "error"),
    ("compile-timeout", "error"), ("postscript-file-access", "error"),
    ("compile-error", "error"), ("follow-on-errors", "warning"), ("figure-format", "error"),
    ("undefined-reference", "warning"), ("undefined-citation", "warning"), ("missing-character", "warning"),
    ("pdf-no-info", "error"), ("pdf-no-xmp", "error"), ("pdf-number-mismatch", "error"),
    ("pdf-no-badge-link", "error or warning"), ("pdf-left-band", "error"), ("pith-badge-fallback", "warning"),
    ("pith-badge-page", "warning"), ("pith-badge-off-page", "error"), ("pith-badge-misplaced", "error or warning"),
]
# The errors that lose pith's metadata while arXiv still compiles ("loses pith metadata").
METADATA = {"pith-number-missing", "pith-number-macro", "pith-number-invalid", "pdf-no-info", "pdf-no-xmp",
            "pdf-number-mismatch", "pdf-no-badge-link", "pdf-left-band", "pith-badge-off-page",
            "pith-badge-misplaced"}


def test_the_ids_and_severities_are_the_promised_ones():
    assert [(rule.id, rule.severity) for rule in RULES] == EXPECTED
    assert {rule.id for rule in RULES if rule.metadata} == METADATA
    assert len(BY_ID) == len(RULES)
    for rule in RULES:
        assert rule.meaning.strip() and rule.fix.strip(), rule.id


def _modules() -> dict[Path, ast.Module]:
    return {p: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(PACKAGE.rglob("*.py"))
            if p.name != "catalogue.py"}


def _rule_names_used(tree: ast.Module) -> set[str]:
    """Names of catalogue entries a module takes: `from .catalogue import X` or `catalogue.X`."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("catalogue"):
            names |= {a.name for a in node.names if isinstance(getattr(catalogue, a.name, None), Rule)}
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "catalogue"
              and isinstance(getattr(catalogue, node.attr, None), Rule)):
            names.add(node.attr)
    return names


def test_every_rule_the_code_emits_is_in_the_catalogue_and_every_entry_is_emitted():
    by_name = {name: value for name, value in vars(catalogue).items() if isinstance(value, Rule)}
    used = set().union(*(_rule_names_used(tree) for tree in _modules().values()))
    assert used == set(by_name), (sorted(set(by_name) - used), sorted(used - set(by_name)))
    # No id written a second time as a string outside the catalogue, and every finding made
    # from a catalogue entry by name (an id built by an f-string would escape the first check).
    for path, tree in _modules().items():
        for node in ast.walk(tree):
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert node.value not in BY_ID, f"{where}: {node.value!r}"
            if _finding(node) and path.parent.name == "arxiv":
                first = node.args[0]
                assert isinstance(first, ast.Name), where
                assert isinstance(getattr(catalogue, first.id, None), Rule) or first.id in _rule_variables(tree), where


def _finding(node: ast.AST) -> bool:
    """A call of diagnostic.error or .warning (or `report`, pdfcheck's choice of the two)."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and bool(node.args)
            and node.func.id in ("error", "warning", "report"))


def _rule_variables(tree: ast.Module) -> set[str]:
    """Loop variables bound to catalogue entries: `for …, rule in ((…, PDF_NO_INFO), …)`."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.For) and isinstance(node.target, ast.Tuple) and isinstance(node.iter, ast.Tuple):
            for i, target in enumerate(node.target.elts):
                if isinstance(target, ast.Name) and all(
                        isinstance(row, ast.Tuple) and isinstance(row.elts[i], ast.Name)
                        and isinstance(getattr(catalogue, row.elts[i].id, None), Rule) for row in node.iter.elts):
                    out.add(target.id)
    return out


def test_each_call_gives_a_rule_a_severity_the_catalogue_allows():
    """error(RULE, …) and warning(RULE, …) as written, and the check they make when they run."""
    for path, tree in _modules().items():
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("error", "warning") and node.args and isinstance(node.args[0], ast.Name)):
                rule = getattr(catalogue, node.args[0].id, None)
                if isinstance(rule, Rule):
                    assert node.func.id in rule.severities, f"{path.relative_to(ROOT)}:{node.lineno}: {rule.id}"
    assert error(catalogue.UNSAFE_FILENAME, "m", "f").rule == "unsafe-filename"
    assert warning(catalogue.UNSAFE_FILENAME, "m", "f").severity == "warning"
    with pytest.raises(ValueError, match="build-products is never a error"):
        error(catalogue.BUILD_PRODUCTS, "m", "f")


def test_docs_page_is_the_rendered_catalogue():
    text = (ROOT / RULES_PATH).read_text(encoding="utf-8")
    assert text == render_rules()
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert [row.split(" | ")[0].strip("| `") for row in rows] == [rule.id for rule in RULES]
    assert "`\\pithnumber{...}`" in text and "| \\" not in text

