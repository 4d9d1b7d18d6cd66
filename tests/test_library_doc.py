"""docs/library.md's ```pycon examples run as doctests, offline, in a folder holding a copy of
examples/ (the format i18-docs' document test runs too): the library's page cannot drift."""

from __future__ import annotations

import doctest
import re
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "library.md"
BLOCK = re.compile(r"^```pycon\n(.*?)^```$", re.S | re.M)


def test_every_library_example_gives_the_output_shown(tmp_path, monkeypatch):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("PITH_BASE_URL", "http://127.0.0.1:9")  # never the internet
    blocks = BLOCK.findall(PAGE.read_text(encoding="utf-8"))
    assert len(blocks) >= 5
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {}, str(PAGE), str(PAGE), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    failed, tried = runner.summarize(verbose=False)
    assert tried >= 20 and failed == 0
