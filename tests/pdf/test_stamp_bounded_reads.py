"""O(update): a stamp reads what it needs of a large PDF with positioned reads, never the whole
file, so bytes read and peak memory stay flat as the file grows (counts, not times)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import BODY
from ..pdfkit import qpdf_check

PAGES, IMAGE = 66, 1_000_000  # a ~59 MB file: 66 pages, each with a ~0.9 MB image

MEASURE = r'''
import json, sys
from pithtex.pdf import reader

counted = {"bytes": 0, "reads": 0}
real = reader.PdfFile.read

def read(self, start, end):
    data = real(self, start, end)
    counted["bytes"] += len(data)
    counted["reads"] += 1
    return data

reader.PdfFile.read = read
from pithtex.cli import main

try:
    code = main(sys.argv[1:])
except SystemExit as exc:  # --version
    code = exc.code
io = dict(line.split(": ") for line in open("/proc/self/io").read().splitlines())
# VmHWM, not ru_maxrss: the latter carries the forking parent's (pytest's) peak across exec.
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines())
print(json.dumps({"code": code, "read": counted["bytes"], "reads": counted["reads"], "rchar": int(io["rchar"]),
                  "peak": int(status["VmHWM"].split()[0]) * 1024}), file=sys.stderr)
'''


def large_pdf(path: Path) -> Path:
    """PAGES pages of incompressible-looking 1 MB images (no filter), written byte by byte with
    a classic xref table: the layout of a scanned paper, without an image library."""
    offsets: list[int] = []
    with path.open("wb") as out:
        def obj(body: bytes) -> None:
            offsets.append(out.tell())
            out.write(b"%d 0 obj\n" % (len(offsets)) + body + b"\nendobj\n")

        out.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
        kids = b" ".join(b"%d 0 R" % (3 + 3 * i) for i in range(PAGES))
        obj(b"<< /Type /Catalog /Pages 2 0 R >>")
        obj(b"<< /Type /Pages /Count %d /Kids [%s] >>" % (PAGES, kids))
        row = bytes(range(256)) * (IMAGE // 256 // 500)
        pixels = (row * 500)[:IMAGE - IMAGE % 3]
        for i in range(PAGES):
            me = 3 + 3 * i
            obj(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
                b"/Resources << /XObject << /Im0 %d 0 R >> >> >>" % (me + 1, me + 2))
            content = b"q 540 0 0 540 36 126 cm /Im0 Do Q"
            obj(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
            side = int((len(pixels) // 3) ** 0.5)
            data = pixels[:side * side * 3]
            obj(b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB "
                b"/BitsPerComponent 8 /Length %d >>\nstream\n" % (side, side, len(data)) + data + b"\nendstream")
        xref = out.tell()
        out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(offsets) + 1))
        out.write(b"".join(b"%010d 00000 n \n" % off for off in offsets))
        out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(offsets) + 1, xref))
    return path


def measured(*args: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", MEASURE, *args], capture_output=True, text=True, timeout=300)
    figures = json.loads(proc.stderr.strip().splitlines()[-1])
    assert figures["code"] == 0, proc.stderr
    return figures


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    return large_pdf(tmp_path_factory.mktemp("big") / "scan.pdf")


MIB = 2**20


def test_the_generated_file_is_large_and_sound(big: Path):
    assert big.stat().st_size > 55 * 10**6 and qpdf_check(big) == 0


def test_in_place_reads_a_few_kilobytes_of_a_59_mb_file(big: Path, tmp_path: Path):
    paper = tmp_path / "paper.pdf"
    shutil.copyfile(big, paper)
    baseline = measured("--version")
    got = measured("stamp", str(paper), "--number", BODY, "--in-place")
    assert got["read"] < 64 * 1024, got  # the tail, the xref table, a dozen objects
    assert got["rchar"] - baseline["rchar"] < 1 * MIB, (got, baseline)  # all reads, imports excluded
    assert got["peak"] < 20 * MIB, got
    assert qpdf_check(paper) == 0


def test_dash_o_copies_in_the_kernel_and_stays_small(big: Path, tmp_path: Path):
    got = measured("stamp", str(big), "--number", BODY, "-o", str(tmp_path / "out.pdf"))
    assert got["read"] < 64 * 1024, got  # what the reader parsed; the copy itself is copy_file_range
    assert got["peak"] < 20 * MIB, got
    assert qpdf_check(tmp_path / "out.pdf") == 0


def test_inspect_reads_the_page_tree_not_the_images(big: Path):
    got = measured("inspect", str(big))
    assert got["read"] < 1 * MIB, got  # 66 page dictionaries and their neighbours' windows
    assert got["peak"] < 20 * MIB, got
