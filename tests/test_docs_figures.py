"""The figures docs/web.md states about the built files, measured on those files."""

from __future__ import annotations

import gzip
import re

from .conftest import ROOT

SCRIPT = ROOT / "web" / "dist" / "pith-badge.js"


def kilobytes(size: int) -> str:
    return f"{size / 1000:.1f}"


def test_the_script_size_in_docs_web_md_is_the_built_script_s():
    text = (ROOT / "docs" / "web.md").read_text(encoding="utf-8")
    stated = re.findall(r"our ([0-9.]+) kB script \(([0-9.]+) kB gzipped", " ".join(text.split()))
    assert stated, "docs/web.md no longer states the script's size in the form this test reads"
    data = SCRIPT.read_bytes()
    measured = (kilobytes(len(data)), kilobytes(len(gzip.compress(data, compresslevel=9, mtime=0))))
    assert all(pair == measured for pair in stated), (
        f"docs/web.md says {stated}, web/dist/pith-badge.js is {measured[0]} kB ({measured[1]} kB gzipped)")


# docs/performance.md: every figure a table row quotes is in the `make bench` log it names.
PERFORMANCE = ROOT / "docs" / "performance.md"
LOG_NAME = re.compile(r"bench/runs/[\w.-]+\.txt")
# A figure as a bench prints it: 72,304 or 1.024 or 13 (a number not inside a longer one).
NUMBER = re.compile(r"(?<![\w.,])\d[\d,]*(?:\.\d+)?(?![\d])")


def _rows(text):
    """(row, log named by the row or, failing that, by the section above it) for each table body row."""
    log = None
    for line in text.splitlines():
        named = LOG_NAME.findall(line)
        if not line.startswith("|"):
            log = named[0] if named else log
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if set("".join(cells)) <= set("-: ") or cells[1] == "measured":
            continue
        yield cells, (named[0] if named else log)


def _figures(cell):
    """The numbers a measured cell quotes, as written, without a log's own name."""
    return [n.rstrip(",.") for n in NUMBER.findall(LOG_NAME.sub("", cell))]


def _in_log(figure, log_text):
    return re.search(rf"(?<![\d.,]){re.escape(figure)}(?![\d]|[.,]\d)", log_text) is not None


def test_every_performance_row_names_a_whole_make_bench_log():
    rows = list(_rows(PERFORMANCE.read_text(encoding="utf-8")))
    assert len(rows) >= 10, "docs/performance.md lost its tables or this test its reading of them"
    for cells, log in rows:
        assert log, f"docs/performance.md: no bench/runs/ log named for the row {cells[0]!r}"
        path = ROOT / log
        assert path.is_file(), f"docs/performance.md names {log}, which is not in the repository"
        text = path.read_text(encoding="utf-8")
        assert text.startswith("make bench: commit ") and "\n== make bench: " in text, (
            f"{log} is not a whole `make bench` log (its commit at the top, its summary at the end)")


def _section(log_text, cell):
    """The part of a log a row's figures come from: the output of the bench its first cell names
    (from `== bench/NAME.py` to `== bench/NAME.py: ok, N s`), else the whole log."""
    named = re.search(r"bench/\w+\.py", cell)
    if not named:
        return log_text
    found = re.search(rf"^== {re.escape(named[0])}\n.*?^== {re.escape(named[0])}: [^\n]*$", log_text, re.M | re.S)
    assert found, f"the log holds no run of {named[0]}"
    return found[0]


def test_every_figure_in_docs_performance_md_is_in_the_log_it_names():
    missing = []
    for cells, log in _rows(PERFORMANCE.read_text(encoding="utf-8")):
        text = _section((ROOT / log).read_text(encoding="utf-8"), cells[0])
        missing += [f"{cells[0][:50]!r}: {figure}" for figure in _figures(cells[1]) if not _in_log(figure, text)]
    assert not missing, "docs/performance.md quotes figures its log does not hold:\n" + "\n".join(missing)


def test_the_figure_check_reads_figures_as_a_bench_prints_them():
    log = "hash only   72,304 records/s   x1.4\nratio 1.024x (1978.3 M vs 1931.6 M)\n"
    assert _figures("**72,304 records/s** (1.4×), 1.024×; `bench/runs/2026-12-05-abc1234.txt`") == [
        "72,304", "1.4", "1.024"]
    assert all(_in_log(f, log) for f in ["72,304", "1.4", "1.024", "1978.3"])
    assert not any(_in_log(f, log) for f in ["72", "304", "1.02", "978.3", "1.40"])
    run = "== bench/a.py\nbench/a.py: ...\n 1.5x\n== bench/a.py: ok, 3 s\n\n== bench/b.py\n 2.5x\n"
    assert _section(run, "`bench/a.py`: a thing") == "== bench/a.py\nbench/a.py: ...\n 1.5x\n== bench/a.py: ok, 3 s"
    assert _section(run, "the whole run") == run
