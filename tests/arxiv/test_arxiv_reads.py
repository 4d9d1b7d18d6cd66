"""A file the paper reads is a source whatever its name ends with, and arXiv's `anc/` stays.

Real `check` and `bundle` runs on a paper that reads a program's output `run.out` with
\\lstinputlisting and a log with \\verbatiminput (names TeX itself gives its build products),
beside real litter (paper.aux, paper.log), and on one with an ancillary folder.
"""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

from ..conftest import pithtex_cli

READS = ("\\documentclass{article}\n\\usepackage{listings}\n\\usepackage{verbatim}\n"
         "\\begin{document}\nThe program printed:\n\\lstinputlisting{run.out}\n"
         "and its trace:\n\\verbatiminput{logs/trace.log}\n\\input{numbers.aux}\n\\end{document}\n")


def paper_folder(tmp_path: Path, tex: str, files: dict[str, str]) -> Path:
    folder = tmp_path / "paper"
    folder.mkdir()
    (folder / "paper.tex").write_text(tex)
    for name, body in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(body)
    return folder


def bundled(tmp_path: Path, folder: Path) -> tuple[int, dict, str]:
    out = tmp_path / "upload.tar.gz"
    p = pithtex_cli("bundle", str(folder), "-o", str(out), "--json", timeout=300)
    assert "Traceback" not in p.stderr, p.stderr
    human = pithtex_cli("bundle", str(folder), "-o", str(tmp_path / "again.tar.gz"), timeout=300)
    return p.returncode, json.loads(p.stdout) if p.returncode == 0 else {"stderr": p.stderr}, human.stdout


def test_files_the_paper_reads_are_sources_whatever_their_names(tmp_path: Path):
    folder = paper_folder(tmp_path, READS, {
        "run.out": "x = 42 after 3 steps\n", "logs/trace.log": "step 1 ok\n",
        "numbers.aux": "Forty-two is the answer.\n",  # \input{numbers.aux}: read as TeX
        "paper.aux": "\\relax\n", "paper.log": "old log\n",  # the paper's own build products
    })
    p = pithtex_cli("check", str(folder), "--json", timeout=300)
    j = json.loads(p.stdout)
    assert p.returncode == 0 and j["ok"], j["diagnostics"]
    assert [d["rule"] for d in j["diagnostics"] if d["severity"] == "error"] == []
    code, made, _ = bundled(tmp_path, folder)
    assert code == 0, made
    assert made["files"] == ["logs/trace.log", "numbers.aux", "paper.tex", "run.out"]
    assert made["check"]["ok"]
    with tarfile.open(tmp_path / "upload.tar.gz") as t:
        assert t.extractfile("run.out").read() == b"x = 42 after 3 steps\n"


def test_bundle_keeps_arxivs_ancillary_folder_and_says_so(tmp_path: Path):
    folder = paper_folder(tmp_path, "\\documentclass{article}\n\\begin{document}\nData in anc/.\n\\end{document}\n",
                          {"anc/data.csv": "a,b\n1,2\n", "anc/fit.log": "chi2 = 1.02\n",
                           "anc/model/weights.out": "0.1 0.2\n", "notes.txt": "not for arXiv\n"})
    code, made, human = bundled(tmp_path, folder)
    assert code == 0, made
    assert made["files"] == ["anc/data.csv", "anc/fit.log", "anc/model/weights.out", "paper.tex"]
    assert made["ancillary"] == ["anc/data.csv", "anc/fit.log", "anc/model/weights.out"]
    assert made["left_out"] == ["notes.txt"]
    assert "kept arXiv's ancillary folder anc/ (3 files, not read by TeX)" in human.splitlines()[0]
