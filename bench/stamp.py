"""`pithtex stamp` against its anchors, whole process, measured side by side in one run.

Builds (in a temp dir) a ~780-page pdfTeX PDF and a ~70 MB image-heavy PDF, then times
`cp`, `exiftool -XMP-dc:Identifier=…`, a pikepdf open+save and `pithtex stamp` on each:
median wall time of several runs and peak memory (max RSS from /usr/bin/time). Then
`pithtex stamp --in-place` on the 70 MB file, and batch throughput over the corpus
against exiftool's batch mode.

Targets: <= 0.75x exiftool's wall time on both files, <= 0.35x on the ~780-page text PDF;
peak memory under 20 MiB whatever the file's size (the reader reads what it parses with
pread, the copy is the kernel's); --in-place on the 70 MB file within 1.3x of
`pithtex --version`'s whole-process time (the update is appended, O(update), so what
remains is interpreter start-up and the fsyncs) and reading (rchar) within 1.3x of what
`--version` reads; batch >= 3x exiftool's batch in wall time (bench/stamp_batch.py, which
takes any folder of PDFs).

Which pithtex: the dev venv's (`make venv`: an editable install, whose import finder every
Python process in that venv loads at start-up) and, unless --no-wheel, the wheel built from
this checkout and installed into a fresh venv, as a user gets it. Wall times on this shared
machine move with the load; so the ratios are also given in instructions executed, counted
by callgrind (deterministic; PYTHONHASHSEED=0), unless --no-count.
Run: .venv/bin/python bench/stamp.py [RUNS] [--no-wheel] [--no-count]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
import venv
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.measure import default_corpus, header, ratio
from pithtex.brand import SAMPLE_BODY

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
PITHTEX = str(BIN / "pithtex")
PYTHON = sys.executable
# The batch rate is measured over the shared corpus when there is one, else the tests' PDFs.
CORPUS = default_corpus()
NUMBER = f"pith:2021:{SAMPLE_BODY}"
PIKEPDF = ("import pikepdf, sys; p = pikepdf.open(sys.argv[1]); "
           f"p.docinfo['/PithNumber'] = '{SAMPLE_BODY}'; p.save(sys.argv[2])")


def instructions(cmd: list[str], before=None) -> int:
    """Instructions one whole process executes, counted by callgrind: the same on every run,
    so unlike wall time not disturbed by other work on a shared machine."""
    if before:
        before()
    proc = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
                          capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if proc.returncode != 0 or not found:
        raise SystemExit(f"callgrind failed: {' '.join(cmd)}\n{proc.stderr[-800:]}")
    return int(found.group(1))


def install_kind() -> str:
    """How the dev venv holds pithtex: "editable" (import finder at start-up) or "wheel"."""
    url = metadata.distribution("pithtex").read_text("direct_url.json")
    return "editable" if url and json.loads(url).get("dir_info", {}).get("editable") else "wheel"


def install_wheel(where: Path) -> str:
    """The `pithtex` script of a fresh venv holding the wheel built from this checkout (as in
    tests/test_install.py: built offline from a copy, dependencies from the dev venv)."""
    src = where / "src"
    shutil.copytree(ROOT / "pithtex", src / "pithtex", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "LICENSE", "latex/LICENSE"):
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, src / name)
    subprocess.run([PYTHON, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(where / "dist"), str(src)],
                   check=True, capture_output=True)
    venv.EnvBuilder(with_pip=True).create(where / "venv")
    python = str(where / "venv" / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "--no-deps", "--no-index", "-q",
                    str(next((where / "dist").glob("pithtex-*.whl")))], check=True, capture_output=True)
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    # zz: read after everything the fresh venv holds, so only dependencies come from here
    Path(site, "zz-dev-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return str(where / "venv" / "bin" / "pithtex")


def build_text_pdf(folder: Path, pages: int = 780) -> Path:
    """A long pdfTeX article (PDF 1.5, object streams, xref stream), like a thesis."""
    chunks = [r"\documentclass{article}\usepackage{lipsum}\usepackage{hyperref}\begin{document}"
              r"\title{A long paper}\author{Bench}\maketitle\tableofcontents"]
    for i in range(int(pages / 2.2)):  # 11 paragraphs of lipsum fill about 2.2 pages
        chunks.append(rf"\section{{Part {i}}}\lipsum[1-11]")
    chunks.append(r"\end{document}")
    (folder / "long.tex").write_text("\n".join(chunks))
    for _ in range(2):  # twice, for the table of contents
        subprocess.run(["pdflatex", "-interaction=batchmode", "long.tex"], cwd=folder, check=True,
                       capture_output=True, env={**os.environ, "SOURCE_DATE_EPOCH": "0"})
    return folder / "long.pdf"


def build_image_pdf(folder: Path, megabytes: int = 70) -> Path:
    """Pages of noise JPEGs (incompressible), written by pikepdf: a scan-like 70 MB file."""
    import pikepdf
    from PIL import Image

    pdf = pikepdf.new()
    size, total, i = 1400, 0, 0
    while total < megabytes * 1_000_000:
        buffer = io.BytesIO()
        Image.frombytes("RGB", (size, size), os.urandom(size * size * 3)).save(buffer, "JPEG", quality=92)
        data = buffer.getvalue()
        total += len(data)
        image = pikepdf.Stream(pdf, data, Type=pikepdf.Name.XObject, Subtype=pikepdf.Name.Image, Width=size,
                               Height=size, ColorSpace=pikepdf.Name.DeviceRGB, BitsPerComponent=8,
                               Filter=pikepdf.Name.DCTDecode)
        page = pdf.add_blank_page(page_size=(612, 792))
        page.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(Im0=image))
        page.Contents = pdf.make_stream(b"q 540 0 0 540 36 126 cm /Im0 Do Q")
        i += 1
    out = folder / "images.pdf"
    pdf.save(out)
    return out


def measure(cmd: list[str], runs: int, before=None) -> tuple[float, float]:
    """(median wall seconds, max peak RSS in MiB) of a whole process."""
    times, peaks = [], []
    for _ in range(runs):
        if before:
            before()
        start = time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if proc.returncode != 0:
            raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr[-800:]}")
        peaks.append(int(proc.stderr.strip().splitlines()[-1]) / 1024)
    return statistics.median(times), max(peaks)


def compare(label: str, pdf: Path, work: Path, runs: int, ours: dict[str, str], count: bool) -> None:
    out = work / "out.pdf"

    def fresh() -> None:
        out.unlink(missing_ok=True)

    tools = {
        "cp": ["cp", str(pdf), str(out)],
        "exiftool": ["exiftool", "-q", f"-XMP-dc:Identifier={NUMBER}", "-o", str(out), str(pdf)],
        "pikepdf save": [PYTHON, "-c", PIKEPDF, str(pdf), str(out)],
        **{name: [script, "stamp", str(pdf), "--number", NUMBER, "-o", str(out)] for name, script in ours.items()},
    }
    print(f"\n{label}: {pdf.stat().st_size / 1e6:.1f} MB, median of {runs} runs, whole process")
    # Round robin (one run of each tool in turn), so all see the same machine load.
    rounds = {name: [] for name in tools}
    for _ in range(runs):
        for name, cmd in tools.items():
            rounds[name].append(measure(cmd, 1, fresh))
    results = {name: (statistics.median(t for t, _m in got), max(m for _t, m in got)) for name, got in rounds.items()}
    for name, (secs, peak) in results.items():
        times = sorted(t * 1000 for t, _m in rounds[name])
        spread = f"({times[0]:.0f}-{times[-1]:.0f})"
        print(f"  {name:<28} {secs * 1000:5.0f} ms {spread:>11}  {peak:6.1f} MiB peak")
    budget = 20.0  # MiB, whatever the size: reads are bounded, the copy is the kernel's
    target = "0.35x" if "text" in label else "0.75x"
    walls = {name: [t for t, _m in got] for name, got in rounds.items()}
    for name in ours:
        print(f"  {name}/exiftool: {ratio(walls[name], walls['exiftool']):.2f}x wall, ratio of the medians "
              f"(target <= {target})  memory {results[name][1]:.1f} MiB (budget {budget:.1f} MiB)")
    if count:
        exif_n = instructions(tools["exiftool"], fresh)
        for name in ours:
            n = instructions(tools[name], fresh)
            print(f"  {name}/exiftool: {n / exif_n:.2f}x instructions ({n / 1e6:.0f} M vs {exif_n / 1e6:.0f} M)")


def in_place(pdf: Path, work: Path, runs: int, ours: dict[str, str], count: bool) -> None:
    target = work / "inplace.pdf"

    def fresh() -> None:
        shutil.copyfile(pdf, target)
        os.sync()  # flush the setup copy first, so its write-back is not billed to the stamp

    for name, script in ours.items():
        stamp_cmd = [script, "stamp", str(target), "--number", NUMBER, "--in-place"]
        # Side by side, alternating, so both see the same machine load.
        stamp, version, peaks = [], [], []
        for _ in range(runs):
            secs, peak = measure(stamp_cmd, 1, fresh)
            stamp.append(secs)
            peaks.append(peak)
            version.append(measure([script, "--version"], 1)[0])
        secs, base = statistics.median(stamp), statistics.median(version)
        print(f"\n{name} --in-place on {pdf.stat().st_size / 1e6:.0f} MB: {secs * 1000:.0f} ms median; "
              f"`--version` {base * 1000:.0f} ms; ratio {ratio(stamp, version):.2f}x wall, of the medians of "
              f"{runs} pairs (target <= 1.3x)")
        fresh()
        read, base_read = bytes_read(script, stamp_cmd[1:]), bytes_read(script, ["--version"])
        print(f"  peak {max(peaks):.1f} MiB (target < 20 MiB); read {read / 1e6:.2f} MB vs `--version` "
              f"{base_read / 1e6:.2f} MB: {read / base_read:.2f}x (target <= 1.3x; the file is "
              f"{pdf.stat().st_size / 1e6:.0f} MB)")
        if count:
            n, v = instructions(stamp_cmd, fresh), instructions([script, "--version"])
            print(f"  instructions: {n / 1e6:.0f} M vs {v / 1e6:.0f} M: {n / v:.2f}x")


READ_COUNT = ("import sys; from pithtex.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n"
              "    pass\nprint(open('/proc/self/io').read().split()[1], file=sys.stderr)")


def bytes_read(script: str, args: list[str]) -> int:
    """rchar (every byte read: imports, the PDF, the copy) of `pithtex ARGS` in that install's Python."""
    python = Path(script).parent / "python"
    proc = subprocess.run([str(python), "-c", READ_COUNT, *args], capture_output=True, text=True, cwd="/")
    return int(proc.stderr.strip().splitlines()[-1])


def batch(runs: int) -> None:
    """The batch against exiftool's batch: bench/stamp_batch.py over the corpus (one place)."""
    print(flush=True)
    subprocess.run([PYTHON, str(Path(__file__).with_name("stamp_batch.py")), str(CORPUS), "--runs", str(runs)],
                   check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="?", type=int, default=15, help="timed runs of each tool (median)")
    parser.add_argument("--no-wheel", action="store_true", help="measure the dev venv's pithtex only")
    parser.add_argument("--no-count", action="store_true", help="skip the callgrind instruction counts")
    args = parser.parse_args()
    header(__file__)
    runs, count = args.runs, not args.no_count and shutil.which("valgrind") is not None
    # An installed package has byte code; this checkout may run with PYTHONDONTWRITEBYTECODE.
    subprocess.run([PYTHON, "-m", "compileall", "-q", str(ROOT / "pithtex")], check=True, capture_output=True)
    with tempfile.TemporaryDirectory(prefix="pithtex-bench-") as tmp:
        work = Path(tmp)
        print("building the test PDFs ...", flush=True)
        text = build_text_pdf(work)
        images = build_image_pdf(work)
        ours = {f"pithtex stamp ({install_kind()})": PITHTEX}
        if not args.no_wheel:
            ours["pithtex stamp (wheel)"] = install_wheel(work / "release")
        from pypdf import PdfReader

        with text.open("rb") as fh:
            print(f"text PDF: {len(PdfReader(fh).pages)} pages")
        compare("pdfTeX text PDF", text, work, runs, ours, count)
        compare("image-heavy PDF", images, work, runs, ours, False)
        in_place(images, work, runs, ours, count)
        batch(max(3, runs // 2))


if __name__ == "__main__":
    main()
