"""Every example in README.md and docs/*.md runs, and prints what the document shows.

```console blocks: lines starting with `$ ` are commands (run by bash), the lines after one
are its expected output, stdout and stderr together. A line that is only `...` matches any
lines (none included); `…` inside a line matches any text on that line (volatile values:
times, sizes, the local resolver's port). ```pycon blocks are doctests (ELLIPSIS on).
```sh and ```bash blocks are shown, never run (apt-get, pip install from PyPI, make demo).

Each document runs in its own folder, its blocks in order (a later example may use what an
earlier one wrote), prepared as a reader's would be: `examples/` copied in, `paper.pdf` (a
one-page PDF showing the seed record's title on page 1, and in Info /Title), the installed
`pithtex` on PATH, a fresh HOME and cache, and no internet: PITH_BASE_URL names a local resolver on 127.0.0.1
that serves the seed record and answers arXiv look-ups for it, and proxies point at a closed
port so any other request fails at once.
"""

from __future__ import annotations

import doctest
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from .conftest import BODY, ROOT, SEED_PATH, SEED_TITLE
from .pdfkit import body_text, page_pdf, wrapped
from .resolverkit import FakeResolver, Reply, closed_port_url, serving

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
COMMAND_TIMEOUT = 180


@dataclass(frozen=True)
class Example:
    line: int  # where the command is, 1-based, in its document
    command: str
    expected: list[str]


def blocks(text: str, kind: str) -> Iterator[tuple[int, str]]:
    """(line of the block's first content line, content) for each fenced block of `kind`."""
    for m in FENCE.finditer(text):
        if m.group(1) == kind:
            yield text.count("\n", 0, m.start(2)) + 1, m.group(2)


def console_examples(text: str) -> list[Example]:
    found: list[Example] = []
    for first, body in blocks(text, "console"):
        for offset, line in enumerate(body.splitlines()):
            if line.startswith("$ "):
                found.append(Example(first + offset, line[2:], []))
            elif found and found[-1].line >= first:
                found[-1].expected.append(line)
            else:
                raise AssertionError(f"line {first + offset}: output before any `$ ` command")
    return found


def pattern(expected: list[str]) -> re.Pattern[str]:
    """`...` alone matches any lines; `…` matches any text within one line; a run of two or
    more spaces (a column gap) matches any run of spaces, as columns widen with their values."""
    parts = []
    for line in expected:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
            continue
        pieces = [" +".join(re.escape(cell) for cell in re.split(" {2,}", piece)) for piece in line.rstrip().split("…")]
        parts.append("[^\n]*?".join(pieces) + r"\n")
    return re.compile("".join(parts))


def normalise(output: str) -> str:
    lines = [line.rstrip() for line in output.splitlines()]
    return "".join(line + "\n" for line in lines)


def matches(expected: list[str], output: str) -> bool:
    return pattern(expected).fullmatch(normalise(output)) is not None


@pytest.fixture(scope="module")
def resolver() -> Iterator[FakeResolver]:
    with serving() as server:
        record = SEED_PATH.read_bytes()
        server.record(BODY, Reply(body=record, headers={"Content-Type": "application/json"}))
        server.route("/api/pith-number/resolve", Reply.json({"pith_number": f"pith:2021:{BODY}"}))
        yield server


def workspace(tmp: Path) -> Path:
    shutil.copytree(ROOT / "examples", tmp / "examples")
    # a paper as a reader has one: its title set large at the top of page 1, and in Info /Title
    page_pdf(tmp / "paper.pdf", wrapped(SEED_TITLE, 20, 720) + body_text(), info_title=SEED_TITLE)
    (tmp / "home").mkdir()
    return tmp


def texmfvar() -> dict[str, str]:
    """TeX Live's per-user cache of generated bitmap fonts, kept (as `pithtex check` keeps it):
    with a fresh HOME every example compiling T1 text would run METAFONT again."""
    if "TEXMFVAR" in os.environ or shutil.which("kpsewhich") is None:
        return {}
    found = subprocess.run(["kpsewhich", "-var-value", "TEXMFVAR"], capture_output=True, text=True).stdout.strip()
    return {"TEXMFVAR": found} if found else {}


def environment(tmp: Path, base_url: str) -> dict[str, str]:
    dead = closed_port_url()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PITH", "XDG_"))}
    env.update(texmfvar())
    env.update(PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}",
               HOME=str(tmp / "home"), XDG_CACHE_HOME=str(tmp / "cache"), PITH_BASE_URL=base_url,
               http_proxy=dead, https_proxy=dead, HTTP_PROXY=dead, HTTPS_PROXY=dead,
               no_proxy="127.0.0.1", NO_PROXY="127.0.0.1", COLUMNS="100", LC_ALL="C.UTF-8")
    return env


def run(example: Example, cwd: Path, env: dict[str, str]) -> str:
    proc = subprocess.run(["bash", "-c", example.command], cwd=cwd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=COMMAND_TIMEOUT)
    return proc.stdout


CONSOLE = [d for d in DOCUMENTS if any(blocks(d.read_text(encoding="utf-8"), "console"))]


@pytest.mark.parametrize("document", CONSOLE, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_console_examples(document: Path, resolver: FakeResolver, tmp_path: Path) -> None:
    examples = console_examples(document.read_text(encoding="utf-8"))
    assert examples, f"{document.name} has console blocks but no `$ ` command"
    cwd, env = workspace(tmp_path), environment(tmp_path, resolver.base)
    wrong = []
    for example in examples:
        output = run(example, cwd, env)
        if not matches(example.expected, output):
            shown = "\n".join(example.expected)
            wrong.append(f"{document.name}:{example.line}: $ {example.command}\n--- shown\n{shown}\n"
                         f"--- printed\n{output}")
    assert not wrong, "\n\n".join(wrong)


def pycon_text(document: Path) -> str:
    """All pycon blocks of a document, each keeping its line numbers (for doctest's report)."""
    text = document.read_text(encoding="utf-8")
    lines = [""] * text.count("\n")
    for first, body in blocks(text, "pycon"):
        for offset, line in enumerate(body.splitlines()):
            lines[first - 1 + offset] = line
    return "\n".join(lines) + "\n"


PYCON = [d for d in DOCUMENTS if any(blocks(d.read_text(encoding="utf-8"), "pycon"))]


@pytest.mark.parametrize("document", PYCON, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_pycon_examples(document: Path, resolver: FakeResolver, tmp_path: Path,
                        monkeypatch: pytest.MonkeyPatch) -> None:
    cwd = workspace(tmp_path)
    for key in [k for k in os.environ if k.startswith("PITH")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("PITH_BASE_URL", resolver.base)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(cwd)
    test = doctest.DocTestParser().get_doctest(pycon_text(document), {"__name__": "docs"},
                                               document.name, str(document), 0)
    assert test.examples, f"{document.name} has pycon blocks but no >>> example"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report: list[str] = []
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


# -- the runner's own rules, on examples of its format ---------------------------------------

def test_format_rules() -> None:
    assert matches(["a", "...", "z"], "a\nb\nc\nz\n")
    assert matches(["a", "...", "z"], "a\nz\n")
    assert not matches(["a", "z"], "a\nb\nz\n")
    assert matches(["took …s"], "took 0.4s\n")
    assert not matches(["took …s"], "took 0.4s\nmore\n")
    assert matches(["ok  2 run(s)  …s"], "ok   2 run(s)    11.0s\n")
    assert not matches(["a … z"], "a\nz\n")
    assert matches([], "")
    assert not matches([], "something\n")
    text = "x\n```console\n$ echo hi\nhi\n$ true\n```\n```sh\n$ make demo\n```\n"
    assert console_examples(text) == [Example(3, "echo hi", ["hi"]), Example(5, "true", [])]


def test_readme_fits_on_a_screen() -> None:
    """At most 250 lines, opening with the two commands that do all set-up (.ci/run relies on them)."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250
    opening = "\n".join(lines[:20])
    assert "make demo" in opening and "make test" in opening
    assert console_examples("\n".join(lines)), "the README shows no command example that runs"


def test_library_page_runs_its_use_cases() -> None:
    """(Was tests/test_library_doc.py.) docs/library.md shows the library by example: at
    least 5 pycon blocks holding 20 examples or more, which test_pycon_examples runs."""
    page = ROOT / "docs" / "library.md"
    found = list(blocks(page.read_text(encoding="utf-8"), "pycon"))
    assert len(found) >= 5
    assert page in PYCON
    assert len(doctest.DocTestParser().get_examples(pycon_text(page))) >= 20
