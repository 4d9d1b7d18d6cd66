"""`make bench` (bench/measure.py run as a script) runs every bench to the end into one log: a
bench that cannot run here is counted with its one-line reason, a failed one does not stop the
others, and the log opens with the commit, uname and the CPU."""

from __future__ import annotations

import re

from bench import measure

OK = "print('bench/a_ok.py: figures 1.5x')\n"
CANNOT = ("import sys\nprint('bench/b_cannot.py: cannot run here: no frobnicator on PATH')\n"
          f"sys.exit({measure.CANNOT_RUN})\n")
FAILS = "import sys\nprint('half a result')\nsys.exit(3)\n"
LAST = "print('bench/d_last.py: ran after the failure')\n"


def test_make_bench_runs_every_bench_to_the_end_into_one_log(tmp_path, capsys):
    folder, runs = tmp_path / "bench", tmp_path / "runs"
    folder.mkdir()
    for name, code in [("a_ok", OK), ("b_cannot", CANNOT), ("c_fails", FAILS), ("d_last", LAST),
                       ("measure", "raise SystemExit('measure.py is not a bench')\n")]:
        (folder / f"{name}.py").write_text(code)
    assert measure.run_all(folder=folder, runs=runs) == 1  # one failed
    [log] = runs.iterdir()
    assert re.fullmatch(r"\d{4}-\d\d-\d\d-[0-9a-f]{7,}(-dirty)?\.txt", log.name), log.name
    text = log.read_text()
    assert text == capsys.readouterr().out  # the terminal sees what the log keeps
    head = text.splitlines()
    assert re.fullmatch(r"make bench: commit [0-9a-f]{40}( with uncommitted changes)?", head[0])
    assert head[2].startswith("uname: Linux ") and head[3].startswith("CPU: ")
    assert "figures 1.5x" in text and "half a result" in text and "ran after the failure" in text
    assert "== make bench: 4 benches in " in text and "2 ran, 1 cannot run here, 1 failed" in text
    assert "bench/b_cannot.py: cannot run here: no frobnicator on PATH, " in text
    assert "bench/c_fails.py: failed: exit 3, " in text
    assert "measure.py is not a bench" not in text


def test_some_benches_by_name_make_a_partial_log(tmp_path, capsys):
    folder, runs = tmp_path / "bench", tmp_path / "runs"
    folder.mkdir()
    (folder / "a_ok.py").write_text(OK)
    (folder / "d_last.py").write_text(LAST)
    assert measure.run_all(["a_ok.py"], folder=folder, runs=runs) == 0
    [log] = runs.iterdir()
    assert log.name.endswith("-partial.txt")  # never the name of a whole run of the commit
    assert "1 bench in" in log.read_text() and "ran after the failure" not in log.read_text()
