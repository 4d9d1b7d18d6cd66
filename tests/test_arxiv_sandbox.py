"""The sandbox is arXiv-like: nothing of the author's TeX set-up leaks in, and runs are bounded."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from .conftest import ROOT, pithtex_cli

PLAIN = ROOT / "tests" / "fixtures" / "arxiv" / "plain"


def copy_plain(tmp_path: Path, old: str, new: str) -> Path:
    dest = tmp_path / "paper"
    shutil.copytree(PLAIN, dest)
    tex = dest / "paper.tex"
    tex.write_text(tex.read_text().replace(old, new, 1))
    return dest


def test_personal_texmf_tree_and_texinputs_do_not_count(tmp_path: Path):
    home = tmp_path / "texmf" / "tex" / "latex"
    home.mkdir(parents=True)
    (home / "mypersonalmacros.sty").write_text("\\ProvidesPackage{mypersonalmacros}\n")
    paper = copy_plain(tmp_path, "\\usepackage{hyperref}", "\\usepackage{hyperref}\n\\usepackage{mypersonalmacros}")
    env = {"TEXMFHOME": str(tmp_path / "texmf"), "TEXINPUTS": f"{home}:"}
    p = pithtex_cli("check", str(paper), "--json", env=env, timeout=300)
    j = json.loads(p.stdout)
    assert p.returncode == 1
    assert [d["line"] for d in j["diagnostics"] if d["rule"] == "package-missing"] == [4]
    assert j["routes"][0]["ok"] is False  # and the compile itself did not find it either


def test_absolute_input_is_refused_by_the_compile_too(tmp_path: Path):
    outside = tmp_path / "outside.tex"
    outside.write_text("Text from outside the upload.\n")
    paper = copy_plain(tmp_path, "\\input{sections/body}", f"\\input{{{outside}}}")
    p = pithtex_cli("check", str(paper), "--json", timeout=300)
    j = json.loads(p.stdout)
    assert p.returncode == 1
    rules = {d["rule"] for d in j["diagnostics"]}
    assert "unsafe-path" in rules and j["routes"][0]["ok"] is False


def test_a_looping_paper_is_stopped_by_the_time_limit(tmp_path: Path):
    paper = copy_plain(tmp_path, "\\maketitle", "\\maketitle\n\\def\\loop{\\loop}\\loop")
    p = pithtex_cli("check", str(paper), "--json", "--timeout", "2", timeout=120)
    j = json.loads(p.stdout)
    assert p.returncode == 1
    assert j["routes"][0]["timed_out"] is True
    assert [d["rule"] for d in j["diagnostics"] if d["severity"] == "error"] == ["compile-timeout"]


def test_routes_share_a_first_pass_but_not_its_verdict(tmp_path: Path):
    # An error only pdflatex meets: the shared latex first pass succeeds, the seeded pdflatex
    # route fails and is compiled again from scratch (a shared .aux never decides a verdict).
    dest = tmp_path / "paper"
    shutil.copytree(PLAIN, dest)
    (dest / "figs" / "box.eps").unlink()
    tex = dest / "paper.tex"
    pdf_only = "\\ifdefined\\pdfoutput\\ifnum\\pdfoutput>0 \\nosuchmacro\\fi\\fi"
    tex.write_text(tex.read_text().replace("\\includegraphics[width=2cm]{figs/box}", "\\fbox{box}")
                   .replace("\\maketitle", "\\maketitle\n" + pdf_only))
    p = pithtex_cli("check", str(dest), "--json", "--engine", "all", timeout=300)
    code, j = p.returncode, json.loads(p.stdout)
    routes = {r["route"]: r for r in j["routes"]}
    assert code == 1
    assert not routes["pdflatex"]["ok"] and routes["latex"]["ok"] and routes["xelatex"]["ok"]
    assert routes["latex"]["shared_first_pass"] and routes["latex"]["runs"] == 1
    assert not routes["pdflatex"]["shared_first_pass"] and not routes["xelatex"]["shared_first_pass"]
    errors = [d for d in j["diagnostics"] if d["severity"] == "error"]
    assert {(d["rule"], d["route"], d["line"]) for d in errors} == {("compile-error", "pdflatex", 8)}
    assert "Undefined control sequence" in errors[0]["message"]


@pytest.mark.parametrize("engine", ["all", "latex"])
def test_ctrl_c_stops_every_route_at_once(tmp_path: Path, engine: str):
    import os
    import signal
    import subprocess
    import sys
    import time

    paper = copy_plain(tmp_path, "\\maketitle", "\\maketitle\n\\def\\loop{\\loop}\\loop")
    scratch = tmp_path / "tmp"  # the check's sandboxes go here, so we can see what is left
    scratch.mkdir()
    exe = str(Path(sys.executable).parent / "pithtex")
    proc = subprocess.Popen([exe, "check", str(paper), "--engine", engine, "--timeout", "60"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "TMPDIR": str(scratch)})
    time.sleep(2)
    start = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and err.strip() == "pithtex: interrupted"
    assert time.monotonic() - start < 10  # not the 60 s time limit of the looping runs
    time.sleep(0.2)
    inside = []
    for cwd in Path("/proc").glob("[0-9]*/cwd"):
        try:
            if str(scratch) in os.readlink(cwd):
                inside.append(cwd)
        except OSError:
            continue
    assert inside == []
    assert list(scratch.iterdir()) == []  # sandboxes and the private TeX trees removed
