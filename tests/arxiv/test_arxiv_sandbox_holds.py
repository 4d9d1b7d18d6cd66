"""The sandbox holds (issue 33): no step of a check writes outside the paper's copy, nothing of
the author's TEXMFVAR counts, and every step has a memory limit.

Each test runs the real TeX, dvips and Ghostscript. The canaries are files outside the copy
that a hostile paper's PostScript tries to truncate or create; strace watches every file a
`check --engine all` of an example paper writes, creates, renames or removes.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from ..conftest import ROOT, example_paper, pithtex_cli

PLAIN = ROOT / "tests" / "fixtures" / "arxiv" / "plain"


def paper_with(tmp_path: Path, after_maketitle: str) -> Path:
    dest = tmp_path / "paper"
    shutil.copytree(PLAIN, dest)
    tex = dest / "paper.tex"
    tex.write_text(tex.read_text().replace("\\maketitle", "\\maketitle\n" + after_maketitle, 1))
    return dest


def test_postscript_cannot_truncate_or_create_files_outside_the_copy(tmp_path: Path):
    # Ghostscript's -dSAFER lets PostScript write anywhere in its temporary folder: the check's
    # own TMPDIR (here `outside`) was that folder, so a paper truncated and created files there.
    outside = tmp_path / "outside"
    outside.mkdir()
    canary = outside / "canary"
    canary.write_text("keep me\n")
    created = outside / "created"
    paper = paper_with(tmp_path, f'\\special{{" ({canary}) (w) file closefile ({created}) (w) file dup (x) '
                                 "writestring closefile}")
    p = pithtex_cli("check", str(paper), "--json", env={"TMPDIR": str(outside)}, timeout=300)
    j = json.loads(p.stdout)
    assert canary.read_text() == "keep me\n" and not created.exists()
    assert p.returncode == 1 and j["ok"] is False
    assert j["verdict"] == "PostScript opens files outside the paper's folder (1 error)"
    said = [d["message"] for d in j["diagnostics"] if d["severity"] == "error"]
    assert [d["rule"] for d in j["diagnostics"] if d["severity"] == "error"] == ["postscript-file-access"]
    assert "opens a file outside the paper's folder" in said[0] and "/invalidfileaccess" in said[0], said
    assert sorted(x.name for x in outside.iterdir()) == ["canary"]  # and the check's own folders are gone
    # bundle refuses it as well (writes no archive) and touches nothing outside either
    out = tmp_path / "up.tar.gz"
    b = pithtex_cli("bundle", str(paper), "-o", str(out), env={"TMPDIR": str(outside)}, timeout=300)
    assert b.returncode == 1 and not out.exists() and "arXiv-safe" not in b.stdout + b.stderr
    assert canary.read_text() == "keep me\n" and not created.exists()


def test_a_package_only_in_the_users_texmfvar_is_not_found(tmp_path: Path):
    var = tmp_path / "texmf-var"
    (var / "tex" / "latex" / "varonly").mkdir(parents=True)
    (var / "tex" / "latex" / "varonly" / "varonly.sty").write_text("\\ProvidesPackage{varonly}\n")
    paper = paper_with(tmp_path, "")
    tex = paper / "paper.tex"
    tex.write_text(tex.read_text().replace("\\usepackage{hyperref}", "\\usepackage{hyperref}\n\\usepackage{varonly}"))
    # (the package is found where the author compiles: TeX searches TEXMFVAR)
    p = pithtex_cli("check", str(paper), "--json", env={"TEXMFVAR": str(var)}, timeout=300)
    j = json.loads(p.stdout)
    assert p.returncode == 1
    assert [d["line"] for d in j["diagnostics"] if d["rule"] == "package-missing"] == [4]
    assert j["routes"][0]["ok"] is False  # the compile did not find it either


def test_a_postscript_allocation_loop_ends_at_the_memory_limit(tmp_path: Path):
    # Library level, with a limit of 256 MB (the default is 2 GB): the machine is shared.
    from pithtex.arxiv import sandbox, texlive
    from pithtex.arxiv.check import analyse
    from pithtex.arxiv.report import as_dict, human
    from pithtex.arxiv.upload import open_upload

    paper = paper_with(tmp_path, '\\special{" /keep 10 dict def 0 {1 add dup keep exch 100000 string put} loop}')
    (tmp_path / "w").mkdir()
    with open_upload(paper) as up, texlive.private_trees(tmp_path) as trees:
        check = analyse(up, "latex", tmp_path / "w", sandbox.Limits(trees, 120, memory=256 * 2**20))
    run = check.papers[0].runs[0]
    assert run.failed_step == "ps2pdf" and run.out_of_memory and not run.timed_out and run.pdf is None
    j = as_dict(check)
    errors = [d for d in j["diagnostics"] if d["severity"] == "error"]
    assert [d["rule"] for d in errors] == ["memory-too-large"]
    assert "ps2pdf asked for more than its 256 MB of memory" in errors[0]["message"]
    shown = [ln for ln in human(check).splitlines() if "memory-too-large" in ln]
    assert len(shown) == 1


def test_every_step_runs_with_a_memory_limit():
    from pithtex.arxiv import sandbox

    capped = sandbox.memory_capped(["gs", "-q"], 3 * 2**20)
    assert capped[-2:] == ["gs", "-q"] and (f"--as={3 * 2**20}" in capped or "ulimit -v 3072" in " ".join(capped))


# -- strace: what the processes of a check write --------------------------------------------

WRITES = re.compile(r"^(\d+)\s+(openat|open|creat|unlink|unlinkat|rename|renameat|renameat2|mkdir|mkdirat|rmdir|"
                    r"link|linkat|symlink|symlinkat|truncate)\((.*)\)\s+= (\d+)")
FORKS = re.compile(r"^(\d+)\s+(?:clone3?|vfork|fork)\((.*)\)\s+= (\d+)")
CHDIR = re.compile(r'^(\d+)\s+chdir\("([^"]*)"\)\s+= 0')
# A path argument, after its folder's descriptor if any (-y shows a descriptor's path, AT_FDCWD's too)
ARG = re.compile(r'(?:(?:AT_FDCWD|\d+)(?:<([^>]*)>)?, )?"([^"]*)"')


def joined(log: str) -> list[str]:
    """strace's lines with each `<unfinished ...>` call joined to its `<... resumed>` rest."""
    pending: dict[str, str] = {}
    out = []
    for line in log.splitlines():
        m = re.match(r"^(\d+)\s+(.*) <unfinished \.\.\.>$", line)
        if m:
            pending[m[1]] = m[2]
            continue
        m = re.match(r"^(\d+)\s+<\.\.\. \w+ resumed>(.*)$", line)
        if m:
            line = f"{m[1]} {pending.pop(m[1], '')}{m[2]}"
        out.append(line)
    return out


def written_paths(log: str, root: str, cwd: Path) -> list[tuple[bool, str, Path]]:
    """(by pithtex's own process, call, absolute path) of every successful call that writes,
    creates, renames or removes a file. Relative paths are resolved against each process's
    working folder (inherited at fork, changed by chdir); a thread (CLONE_THREAD) belongs to
    its parent's process."""
    cwds, process = {root: cwd}, {root: root}
    found = []
    for line in joined(log):
        if (m := FORKS.match(line)) and m[3] != "0":
            # (the child's first calls may be logged before its parent's clone returns)
            cwds.setdefault(m[3], cwds.get(m[1], cwd))
            process[m[3]] = process.get(m[1], m[1]) if "CLONE_THREAD" in m[2] else m[3]
        elif m := CHDIR.match(line):
            cwds[m[1]] = cwds.get(m[1], cwd) / m[2]
        elif m := WRITES.match(line):
            pid, call, args = m[1], m[2], m[3]
            if call in ("openat", "open") and not re.search(r"O_WRONLY|O_RDWR|O_CREAT|O_TRUNC", args):
                continue
            for a in ARG.finditer(args):
                base = Path(a[1]) if a[1] else cwds.get(pid, cwd)
                found.append((process.get(pid) == root, call, base / a[2]))
    return found


def test_no_step_writes_outside_the_check_folder_under_strace(tmp_path: Path):
    assert shutil.which("strace"), "strace is in the Makefile's APT_PACKAGES (make system-packages)"
    paper = example_paper("article", tmp_path / "article")
    before = {p: p.read_bytes() for p in paper.rglob("*") if p.is_file()}
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    log = tmp_path / "strace.log"
    exe = shutil.which("pithtex", path=str(Path(sys.executable).parent)) or "pithtex"
    p = subprocess.run(["strace", "-f", "-qq", "-y", "-o", str(log), "-e", "trace=%file,%process,chdir",
                        exe, "check", str(paper), "--engine", "all"], capture_output=True, text=True,
                       timeout=900, cwd=tmp_path,
                       env={**os.environ, "TMPDIR": str(tmp), "PYTHONDONTWRITEBYTECODE": "1"})
    assert p.returncode == 0, p.stdout + p.stderr
    text = log.read_text()
    seen = written_paths(text, text.split(maxsplit=1)[0], tmp_path)
    execs = set(re.findall(r'execve\("[^"]*/([\w-]+)"', text))
    assert {"pdflatex", "latex", "xelatex", "dvips", "gs", "prlimit"} <= execs, execs
    assert "pdftotext" not in execs  # the badge's place is read by the page view, in process
    outside = [(call, str(path)) for _, call, path in seen
               if not (path == Path("/dev/null") or path.is_relative_to(tmp))]
    assert outside == []
    # pithtex itself writes in TMPDIR (its unlinked output files, its scratch folder); every step
    # it runs writes inside the check's own scratch folder only.
    scratch = {path.relative_to(tmp).parts[0] for _, _, path in seen if path.is_relative_to(tmp) and path != tmp}
    checks = [name for name in scratch if name.startswith("pithtex-check-")]
    assert len(checks) == 1, scratch
    steps = [(call, str(path)) for own, call, path in seen
             if not own and path != Path("/dev/null") and not path.is_relative_to(tmp / checks[0])]
    assert steps == []
    assert any(not own for own, _, _ in seen)  # the steps' own writes were seen (in the scratch folder)
    assert {p: p.read_bytes() for p in paper.rglob("*") if p.is_file()} == before
    assert list(tmp.iterdir()) == []
