"""Concurrent writers on one file, many rounds: no corruption, no number silently lost.

Each round starts from the same original and launches, at the same moment, `stamp --in-place`
with number A, `stamp --in-place` with number B and `stamp --revert --in-place` on one file.
The lock makes them run one after another in some order, so the file must end as one of the
states a serial order gives (the original, stamped A, stamped B: byte for byte what a clean
run writes) and qpdf must find it sound ("corruptions" counts any other ending). A writer
that said "stamped" (exit 0) must have its number in the file, unless a revert succeeded
in the same round ("lost numbers"); two different numbers both "stamped" without a revert
between them is a lost number too (the second must have been refused).

Run: .venv/bin/python bench/concurrency.py [ROUNDS] [--pithtex PATH]  (default 1,000 rounds:
about 1.5 minutes on 2 shared cores, 200 took 19 s at load 3)
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.measure import header
from pithtex.brand import SAMPLE_BODY

A, B = SAMPLE_BODY, "A" * 26


def make_original(path: Path) -> None:
    import pikepdf

    pdf = pikepdf.new()
    pdf.add_blank_page(page_size=(612, 792))
    pdf.docinfo["/Title"] = "concurrency"
    pdf.save(path, deterministic_id=True)


def clean_stamp(exe: str, original: Path, number: str, work: Path) -> bytes:
    out = work / f"clean-{number[:4]}.pdf"
    shutil.copyfile(original, out)
    subprocess.run([exe, "stamp", str(out), "--number", number, "--in-place"], check=True, capture_output=True)
    return out.read_bytes()


def one_round(exe: str, paper: Path) -> tuple[dict[str, int], str]:
    commands = {"A": ["--number", A], "B": ["--number", B], "revert": ["--revert"]}
    procs = {name: subprocess.Popen([exe, "stamp", str(paper), *args, "--in-place"], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True) for name, args in commands.items()}
    codes, errors = {}, []
    for name, proc in procs.items():
        _out, err = proc.communicate(timeout=120)
        codes[name] = proc.returncode
        if proc.returncode not in (0, 1):
            errors.append(f"{name}: exit {proc.returncode}: {err.strip()[-200:]}")
    return codes, "; ".join(errors)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rounds", nargs="?", type=int, default=1000)
    parser.add_argument("--pithtex", default=str(Path(sys.executable).parent / "pithtex"))
    args = parser.parse_args()
    header(__file__)
    with tempfile.TemporaryDirectory(prefix="pithtex-concurrency-") as tmp:
        work = Path(tmp)
        original = work / "original.pdf"
        make_original(original)
        base = original.read_bytes()
        states = {"original": base, "A": clean_stamp(args.pithtex, original, A, work),
                  "B": clean_stamp(args.pithtex, original, B, work)}
        paper = work / "paper.pdf"
        corruptions = lost = bad_exits = 0
        endings: dict[str, int] = {}
        start = time.perf_counter()
        for i in range(args.rounds):
            shutil.copyfile(original, paper)
            codes, errors = one_round(args.pithtex, paper)
            data = paper.read_bytes()
            ending = next((name for name, state in states.items() if state == data), None)
            sound = subprocess.run(["qpdf", "--check", str(paper)], capture_output=True).returncode == 0
            if ending is None or not sound:
                corruptions += 1
                ending = "corrupt"
                print(f"round {i}: corrupt ({len(data)} bytes; qpdf {'ok' if sound else 'fails'}); exits {codes}")
            endings[ending] = endings.get(ending, 0) + 1
            reverted = codes["revert"] == 0
            for name in ("A", "B"):
                if codes[name] == 0 and ending != name and not reverted:
                    lost += 1
                    print(f"round {i}: {name} said stamped, the file ends {ending}; exits {codes}")
            if codes["A"] == 0 and codes["B"] == 0 and not reverted:
                lost += 1
                print(f"round {i}: both numbers 'stamped' with no revert between them; exits {codes}")
            if errors:
                bad_exits += 1
                print(f"round {i}: {errors}")
        secs = time.perf_counter() - start
    print(f"{args.rounds} rounds of 3 concurrent writers in {secs:.0f} s: corruptions={corruptions} "
          f"lost numbers={lost} unexpected exits={bad_exits}; endings {dict(sorted(endings.items()))}")
    sys.exit(1 if corruptions or lost or bad_exits else 0)


if __name__ == "__main__":
    main()
