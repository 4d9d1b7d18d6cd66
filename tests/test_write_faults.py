"""Never lose a byte: a kill at every write boundary, full disks, quotas, I/O errors and
short writes, injected into the real command line (tests/faultkit.py), not left to timing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .conftest import BODY, RENDER, ROOT, assert_clean_error, pithtex_cli
from .faultkit import inspect_json, leftovers, run
from .pdfkit import make_pdf, qpdf_check

OTHER = "A" * 26


def stamped_copy(tmp: Path, original: Path, name: str, *args: str) -> bytes:
    """The bytes a clean run gives (the one complete state a stamp may leave)."""
    out = tmp / name
    shutil.copyfile(original, out)
    proc = pithtex_cli("stamp", str(out), "--in-place", *args)
    assert proc.returncode == 0, proc.stderr
    return out.read_bytes()


def assert_recovers(tmp: Path, path: Path, original: bytes, complete: list[bytes], *restamp: str) -> str:
    """What a kill left is the original, a complete stamp, or a state inspect names; from any
    of them --revert gives the original bytes exactly and a new stamp a complete file."""
    data = path.read_bytes()
    if data == original:
        state = "original"
    elif data in complete:
        state = "complete"
    else:
        assert data.startswith(original), "the original bytes are always the file's prefix"
        facts = inspect_json(path)
        assert facts["unfinished_update"] == {"original_size": len(original)}, facts
        text = pithtex_cli("inspect", str(path))
        assert "interrupted stamp" in text.stdout, text.stdout
        state = "unfinished"
    assert qpdf_check(path) == 0, state
    if state != "original":
        reverted = tmp / "reverted.pdf"
        proc = pithtex_cli("stamp", str(path), "--revert", "-o", str(reverted))
        assert proc.returncode == 0, proc.stderr
        assert reverted.read_bytes() == original, state
        again = tmp / "again.pdf"
        shutil.copyfile(path, again)
        proc = pithtex_cli("stamp", str(again), "--number", BODY, "--in-place", "--force", *restamp)
        assert proc.returncode == 0, proc.stderr
        assert again.read_bytes() == complete[0], state
        if state == "unfinished":
            assert "interrupted pithtex stamp" in proc.stderr
    return state


SCENARIOS = {
    # name: (starting point, arguments, complete states besides the original)
    "stamp": ("original", ["--number", BODY, "--in-place"]),
    "replace": ("other", ["--number", BODY, "--in-place", "--force"]),
    "revert": ("stamped", ["--revert", "--in-place"]),
    "badge": ("original", ["--number", BODY, "--in-place", "--badge"]),
}


@pytest.mark.slow
@pytest.mark.parametrize("scenario", list(SCENARIOS))
@pytest.mark.parametrize("streams", [False, True])
def test_a_kill_at_every_write_boundary_in_place_recovers(tmp_path: Path, scenario: str, streams: bool):
    source = make_pdf(tmp_path / "source.pdf", streams=streams)
    original = source.read_bytes()
    ours = stamped_copy(tmp_path, source, "ours.pdf", "--number", BODY)
    other = stamped_copy(tmp_path, source, "other.pdf", "--number", OTHER)
    badge = stamped_copy(tmp_path, source, "badge.pdf", "--number", BODY, "--badge")
    start, args = SCENARIOS[scenario]
    begin = {"original": original, "other": other, "stamped": ours}[start]
    paper = tmp_path / "paper.pdf"
    paper.write_bytes(begin)
    counted = run(tmp_path, "stamp", str(paper), *args, path="paper.pdf")
    assert counted.returncode == 0, counted.stderr
    boundaries = counted.boundaries
    assert boundaries, "the hook saw the writes"
    states = set()
    for k in range(1, len(boundaries) + 1):
        paper.write_bytes(begin)
        proc = run(tmp_path, "stamp", str(paper), *args, fault="kill", at=k, path="paper.pdf")
        assert proc.returncode == 137, (k, proc.stderr)
        complete = [badge if scenario == "badge" else ours, other]
        restamp = ["--badge"] if scenario == "badge" else []
        states.add(assert_recovers(tmp_path, paper, original, complete, *restamp))
    if scenario in ("stamp", "replace", "badge"):
        assert "unfinished" in states, "the kill between the data and the final startxref was reached"


@pytest.mark.slow
def test_a_kill_at_every_write_boundary_of_dash_o_leaves_old_or_new(tmp_path: Path):
    source = make_pdf(tmp_path / "source.pdf")
    new = stamped_copy(tmp_path, source, "ours.pdf", "--number", BODY)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "out.pdf"
    out.write_bytes(b"old")  # a file replaced (a new one: tests/test_new_outputs.py)
    counted = run(tmp_path, "stamp", str(source), "--number", BODY, "-o", str(out), path="out.pdf")
    assert counted.returncode == 0 and out.read_bytes() == new
    assert {"copy_file_range", "fsync", "replace"} <= set(counted.boundaries), counted.boundaries
    for k in range(1, len(counted.boundaries) + 1):
        out.write_bytes(b"old")
        proc = run(tmp_path, "stamp", str(source), "--number", BODY, "-o", str(out), fault="kill", at=k,
                   path="out.pdf")
        assert proc.returncode == 137
        assert out.read_bytes() in (b"old", new), k
        stale = leftovers(out_dir)
        # The next run names what the killed one left, and removes it on request.
        proc = pithtex_cli("stamp", str(source), "--number", BODY, "-o", str(out))
        assert proc.returncode == 0 and out.read_bytes() == new
        for name in stale:
            assert f"{out_dir / name}: a temporary file left by a killed pithtex run" in proc.stderr
        proc = pithtex_cli("stamp", str(source), "--number", BODY, "-o", str(out), "--remove-stale")
        assert proc.returncode == 0 and leftovers(out_dir) == []


@pytest.mark.parametrize("fault", ["ENOSPC", "EDQUOT", "EIO"])
@pytest.mark.parametrize("mode", ["in-place", "-o"])
def test_a_failing_disk_is_one_line_exit_2_and_nothing_half_written(tmp_path: Path, fault: str, mode: str):
    source = make_pdf(tmp_path / "paper.pdf")
    original = source.read_bytes()
    where = ["--in-place"] if mode == "in-place" else ["-o", str(tmp_path / "out.pdf")]
    watched = "paper.pdf" if mode == "in-place" else "out.pdf"
    counted = run(tmp_path, "stamp", str(source), "--number", BODY, *where, path=watched)
    assert counted.returncode == 0
    for k in range(1, len(counted.boundaries) + 1):
        source.write_bytes(original)
        (tmp_path / "out.pdf").unlink(missing_ok=True)
        proc = run(tmp_path, "stamp", str(source), "--number", BODY, *where, fault=fault, at=k, path=watched)
        err = assert_clean_error(proc, 2)
        assert str(source if mode == "in-place" else tmp_path / "out.pdf") in err
        assert "bug" not in err
        assert source.read_bytes() == original
        assert not (tmp_path / "out.pdf").exists() and leftovers(tmp_path) == []


def test_a_folder_that_cannot_be_synced_is_named(tmp_path: Path):
    """After the rename, the folder's fsync: its failure (EIO) names the file, exit 2, not a bug."""
    source = make_pdf(tmp_path / "paper.pdf")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    for name in ("x.pdf", "y.pdf"):  # replaced, not new: a new output is linked in without syncs
        (out_dir / name).write_bytes(b"old")
    proc = run(tmp_path, "stamp", str(source), "--number", BODY, "-o", str(out_dir / "x.pdf"), fault="EIO",
               at=1, path=f"{out_dir}$")  # the folder itself: only its own fsync
    counted = run(tmp_path, "stamp", str(source), "--number", BODY, "-o", str(out_dir / "y.pdf"),
                  path=f"{out_dir}$")
    assert counted.boundaries == ["fsync"] and (out_dir / "y.pdf").exists()
    err = assert_clean_error(proc, 2)
    assert f"{out_dir / 'x.pdf'}: written, but its folder could not be synced to disk (Input/output error)" in err


@pytest.mark.parametrize("mode", ["in-place", "-o"])
def test_short_writes_are_written_on(tmp_path: Path, mode: str):
    source = make_pdf(tmp_path / "paper.pdf")
    original = source.read_bytes()
    expected = stamped_copy(tmp_path, source, "ours.pdf", "--number", BODY, "--badge")
    where = ["--in-place"] if mode == "in-place" else ["-o", str(tmp_path / "out.pdf")]
    watched = "paper.pdf" if mode == "in-place" else "out.pdf"
    counted = run(tmp_path, "stamp", str(source), "--number", BODY, "--badge", *where, path=watched)
    assert counted.returncode == 0
    writes = [k for k, name in enumerate(counted.boundaries, 1) if name in ("pwrite", "write")]
    assert writes
    for k in writes:
        source.write_bytes(original)
        proc = run(tmp_path, "stamp", str(source), "--number", BODY, "--badge", *where, fault="short", at=k,
                   path=watched)
        assert proc.returncode == 0, proc.stderr
        result = source if mode == "in-place" else tmp_path / "out.pdf"
        assert result.read_bytes() == expected, k


@pytest.mark.parametrize("mode", ["in-place", "-o"])
def test_a_full_disk_in_a_batch_names_the_file_and_the_batch_goes_on(tmp_path: Path, mode: str):
    for name in ("a", "b", "c"):
        make_pdf(tmp_path / f"{name}.pdf", title=name)
    originals = {name: (tmp_path / f"{name}.pdf").read_bytes() for name in "abc"}
    (tmp_path / "out").mkdir()
    where = ["--in-place"] if mode == "in-place" else ["-o", "out"]
    watched = "/b.pdf" if mode == "in-place" else ".b.pdf.pithtex-"
    proc = run(tmp_path, "stamp", "a.pdf", "b.pdf", "c.pdf", "--number", BODY, *where, fault="ENOSPC", at=1,
               path=watched, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "bug" not in proc.stderr
    summary = proc.stderr.strip().splitlines()[-1]
    assert summary.startswith("pithtex: 2 stamped, 1 failed (b.pdf: ") and "No space left on device" in summary
    written = tmp_path if mode == "in-place" else tmp_path / "out"
    assert inspect_json(written / "a.pdf")["number"] == BODY and inspect_json(written / "c.pdf")["number"] == BODY
    if mode == "in-place":
        assert (tmp_path / "b.pdf").read_bytes() == originals["b"]
    else:
        assert not (written / "b.pdf").exists() and leftovers(written) == []


@pytest.mark.parametrize("force", [False, True])
def test_in_place_syncs_after_its_final_startxref(tmp_path: Path, force: bool):
    """The last write (the final startxref/%%EOF, which makes the stamp visible) is fsynced
    before the command reports 'stamped': a power cut after exit 0 cannot take it back."""
    source = make_pdf(tmp_path / "paper.pdf")
    if force:  # replacing our own update: cut back first, then the same two steps
        assert run(tmp_path, "stamp", str(source), "--number", "A" * 26, "--in-place").returncode == 0
    args = ["--number", BODY, "--in-place"] + (["--force"] if force else [])
    counted = run(tmp_path, "stamp", str(source), *args, path="paper.pdf")
    assert counted.returncode == 0, counted.stderr
    assert counted.boundaries[-3:] == ["fsync", "pwrite", "fsync"], counted.boundaries


STALE_CASES = {
    "badge": (lambda tmp: ["badge", BODY, "-o", str(tmp / "out" / "b.svg")], "b.svg"),
    "badge-embed": (lambda tmp: ["badge", BODY, "--format", "embed", "-o", str(tmp / "out" / "b.html")],
                    "pith-badge.js"),
    "sty": (lambda tmp: ["sty", str(tmp / "out")], "pith.sty"),
    "render": (lambda tmp: ["--root", str(tmp / "checkout"), "--web", str(tmp / "out")], "pith-badge"),
    "bundle": (lambda tmp: ["bundle", str(ROOT / "examples" / "article"), "-o", str(tmp / "out" / "up.tar.gz")],
               "up.tar.gz"),
}


@pytest.mark.parametrize("command", list(STALE_CASES))
def test_every_writing_command_names_and_removes_a_killed_runs_temporary(tmp_path: Path, command: str):
    """Not only stamp: each command that writes looks in the folders it writes into for the
    temporary file a kill -9 left there, names it, and with --remove-stale removes it."""
    (tmp_path / "out").mkdir()
    (tmp_path / "checkout" / "pithtex" / "templates").mkdir(parents=True)
    (tmp_path / "checkout" / "pithtex" / "templates" / "pith.sty.j2").write_text("")  # the checkout's mark
    args, watched = STALE_CASES[command]
    program = RENDER if command == "render" else None  # the developer's entry point
    killed = run(tmp_path, *args(tmp_path), fault="kill", at=1, path=watched, program=program)
    assert killed.returncode == 137
    [stale] = leftovers(tmp_path / "out")
    again = pithtex_cli(*args(tmp_path), timeout=300, program=program)
    assert again.returncode == 0, again.stderr
    assert f"{tmp_path / 'out' / stale}: a temporary file left by a killed pithtex run" in again.stderr
    removed = pithtex_cli(*args(tmp_path), "--remove-stale", timeout=300, program=program)
    assert removed.returncode == 0, removed.stderr
    assert f"removed {tmp_path / 'out' / stale}" in removed.stderr and leftovers(tmp_path / "out") == []
