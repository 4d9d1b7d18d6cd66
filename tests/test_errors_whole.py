"""Errors are made whole where they are raised: an exception's details are fields its class
declares (keyword arguments of its constructor, as PithError's `remedy`), never attributes
patched onto it after it is made and read back with getattr(..., None)."""

from __future__ import annotations

import ast
import importlib
import inspect
import pickle
import pkgutil
from pathlib import Path

import pithtex

from .conftest import ROOT

# Code that makes or handles pithtex's exceptions: the package, its benches and its tools.
FOLDERS = ("pithtex", "bench", "tools")


def _exception_classes(trees: dict[Path, ast.Module]) -> set[str]:
    """The names of the exception classes: Python's own, and every class in `trees` one of
    whose bases (by name) is one of them, to a fixed point."""
    import builtins

    names = {name for name, value in vars(builtins).items()
             if isinstance(value, type) and issubclass(value, BaseException)}
    classes = [node for tree in trees.values() for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
    grown = True
    while grown:
        before = len(names)
        names |= {c.name for c in classes if any(_last_name(base) in names for base in c.bases)}
        grown = len(names) > before
    return names


def _last_name(node: ast.expr) -> str:
    """`Error` of `Error` and of `errors.Error`."""
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def _exception_names(scope: ast.AST, classes: set[str]) -> set[str]:
    """The local names in `scope` that hold an exception: `except … as NAME`, `NAME = Error(…)`,
    a parameter annotated with an exception class."""
    names = set()
    for node in _walk(scope):
        if isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and _last_name(
                node.value.func) in classes:
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.arg) and node.annotation is not None and any(
                _last_name(n) in classes or (isinstance(n, ast.Constant) and n.value in classes)
                for n in ast.walk(node.annotation) if isinstance(n, ast.expr)):
            names.add(node.arg)
    return names


def _patches(scope: ast.AST, held: set[str]) -> list[tuple[int, str]]:
    """Where `scope` sets an attribute on one of the `held` names, or reads one back with a default."""
    found = []
    for node in _walk(scope):
        targets = (node.targets if isinstance(node, ast.Assign)
                   else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
        targets = [e for t in targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]
        if any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id in held
               for t in targets):
            found.append((node.lineno, ast.unparse(node)))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args
                and isinstance(node.args[0], ast.Name) and node.args[0].id in held
                and (node.func.id == "setattr" or (node.func.id == "getattr" and len(node.args) == 3))):
            found.append((node.lineno, ast.unparse(node)))
    return found


FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _scopes(tree: ast.Module) -> list[ast.AST]:
    """Each function on its own (a name means one thing in one function), and the module."""
    return [tree, *(n for n in ast.walk(tree) if isinstance(n, FUNCTIONS))]


def _walk(scope: ast.AST) -> list[ast.AST]:
    """The nodes of `scope` (its parameters too), not those of the functions defined inside it."""
    nodes, todo = [], [scope]
    while todo:
        node = todo.pop()
        nodes.append(node)
        todo += [child for child in ast.iter_child_nodes(node) if not isinstance(child, FUNCTIONS)]
        if node is not scope and isinstance(node, ast.ClassDef):
            nodes.pop()
    return nodes


def _trees() -> dict[Path, ast.Module]:
    return {path: ast.parse(path.read_text(encoding="utf-8"))
            for folder in FOLDERS for path in sorted((ROOT / folder).rglob("*.py"))}


def test_no_exception_is_patched_after_it_is_made():
    trees = _trees()
    classes = _exception_classes(trees)
    assert {"PithError", "ResolverError", "NetError", "UnreadablePdf", "OSError"} <= classes
    patched = []
    for path, tree in trees.items():
        for scope in _scopes(tree):
            held = _exception_names(scope, classes)
            if scope is not tree and isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
                held.discard("self")  # a constructor sets its own declared fields
            patched += [f"{path.relative_to(ROOT)}:{line}: {text}" for line, text in _patches(scope, held)]
    assert sorted(set(patched)) == []


def test_the_scan_sees_a_patch():
    """The scan above finds each way of patching it looks for (so its silence means something)."""
    source = '''
class StepFailed(RuntimeError): ...
def a():
    try:
        run()
    except StepFailed as exc:
        exc.step = "fetch"
        raise
def b():
    err = StepFailed("no")
    setattr(err, "shows", 1)
def c(failure: StepFailed):
    return getattr(failure, "carried", None)
'''
    tree = ast.parse(source)
    classes = _exception_classes({Path("x.py"): tree})
    found = [text for scope in _scopes(tree) for _line, text in _patches(scope, _exception_names(scope, classes))]
    assert found == ["exc.step = 'fetch'", "setattr(err, 'shows', 1)", "getattr(failure, 'carried', None)"]


def _package_exceptions() -> list[type[BaseException]]:
    for module in pkgutil.walk_packages(pithtex.__path__, "pithtex."):
        if not module.name.endswith("__main__"):  # `python -m pithtex` runs the command line
            importlib.import_module(module.name)
    seen: list[type[BaseException]] = []
    todo = [BaseException]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("pithtex") and sub not in seen:
                seen.append(sub)
    return seen


def test_every_declared_field_is_kept_and_crosses_a_process():
    """Each pithtex exception's constructor arguments are its message or a field of the same
    name, and a pickled copy (a worker's error reaching the parent) has them all."""
    classes = _package_exceptions()
    assert len(classes) >= 20
    for cls in classes:
        params = [p for p in inspect.signature(cls.__init__).parameters.values()
                  if p.name != "self" and p.kind is not p.VAR_KEYWORD]
        named = [p for p in params if p.kind is not p.VAR_POSITIONAL]
        positional = [f"<{p.name}>" for p in named if p.kind is not p.KEYWORD_ONLY]
        keywords = {p.name: f"<{p.name}>" for p in named if p.kind is p.KEYWORD_ONLY}
        exc = cls(*positional, *["message"] * (len(named) < len(params)), **keywords)
        for copy in (exc, pickle.loads(pickle.dumps(exc))):
            assert type(copy) is cls
            for p in named:
                value = f"<{p.name}>"
                assert getattr(copy, p.name, None) == value or value in copy.args, (cls, p.name)
            assert copy.args == exc.args and vars(copy) == vars(exc), cls
