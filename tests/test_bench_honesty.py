"""The benches tell the truth: each bench/*.py opens its output with the date, the load average
and the cores (bench/measure.py's header), and compares two things by the one ratio of
bench/measure.py, the ratio of the medians of paired runs, never a median of per-round ratios."""

from __future__ import annotations

import ast
import io
import re

import pytest

from bench import measure

from .conftest import ROOT

BENCHES = sorted(p for p in (ROOT / "bench").glob("*.py") if p.name != "measure.py")


def _tree(path):
    return ast.parse(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", BENCHES, ids=lambda p: p.name)
def test_each_bench_opens_with_the_shared_header(path):
    tree = _tree(path)
    imports = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == "bench.measure"]
    assert imports and any(a.name == "header" for n in imports for a in n.names), path.name
    main = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main")
    calls = [n for n in ast.walk(main) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
             and n.func.id == "header"]
    assert len(calls) == 1, path.name
    # the header comes before anything the bench prints
    first_print = min((n.lineno for n in ast.walk(main) if isinstance(n, ast.Call)
                       and isinstance(n.func, ast.Name) and n.func.id == "print"), default=10**9)
    assert calls[0].lineno < first_print, path.name


@pytest.mark.parametrize("path", BENCHES, ids=lambda p: p.name)
def test_no_bench_takes_a_median_of_ratios(path):
    """`median(a / b for a, b in zip(...))` answers another question than the ratio of the medians
    (bench/latex.py once printed 1.096x where its medians gave 1.036x)."""
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "median":
            for arg in node.args:
                element = arg.elt if isinstance(arg, (ast.GeneratorExp, ast.ListComp)) else None
                assert not (isinstance(element, ast.BinOp) and isinstance(element.op, ast.Div)), (
                    f"{path.name}:{node.lineno}")


def test_the_ratio_is_of_the_medians_of_paired_runs():
    mine, theirs = [1.0, 2.0, 10.0], [1.0, 4.0, 5.0]
    assert measure.ratio(mine, theirs) == 2.0 / 4.0  # not the median of 1.0, 0.5, 2.0
    with pytest.raises(ValueError, match="paired"):
        measure.ratio([1.0, 2.0], [1.0])
    with pytest.raises(ValueError):
        measure.ratio([], [])


def test_the_header_names_the_date_the_load_and_the_cores():
    out = io.StringIO()
    line = measure.header("bench/example.py", file=out)
    assert out.getvalue() == line + "\n"
    assert re.fullmatch(r"bench/example\.py: \d{4}-\d\d-\d\d \d\d:\d\d UTC, load average [\d.]+ [\d.]+ [\d.]+, "
                        r"\d+ cores \(\d+ usable\)", line), line
