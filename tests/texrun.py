"""Run real TeX routes and read the PDF back: the helpers behind the pith.sty tests.

A route is how arXiv (or an author) turns .tex into .pdf: pdflatex, latex -> dvips ->
ps2pdf ("dvips"), latex -> dvipdfmx ("dvipdfmx"), xelatex, lualatex.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

ROUTES = ("pdflatex", "dvips", "dvipdfmx", "xelatex", "lualatex")
ROOT = Path(__file__).resolve().parent.parent
STY = ROOT / "latex" / "pith.sty"
# `make texlive-matrix` points this at a Debian chroot holding another TeX Live generation
# (tools/texlive-matrix.sh); TeX and its drivers then run in there, on the same folder
# (bind-mounted at the same path), and the PDFs are read back out here.
TEXLIVE_ROOT = os.environ.get("PITH_TEXLIVE_ROOT", "")


def in_texlive(folder: Path, *cmd: str) -> list[str]:
    """`cmd` run in `folder`, inside PITH_TEXLIVE_ROOT's chroot when one is named."""
    if not TEXLIVE_ROOT:
        return list(cmd)
    return ["chroot", TEXLIVE_ROOT, "/usr/bin/env", "-C", str(folder), *cmd]


@dataclass
class Run:
    """What one compile left behind."""

    pdf: Path | None
    log: str
    driver_output: str = ""  # stdout and stderr of dvips + ps2pdf, or of dvipdfmx


def _engine(route: str) -> str:
    return route if route in ("pdflatex", "xelatex", "lualatex") else "latex"


def compile_tex(folder: Path, route: str, name: str = "paper", passes: int = 1, tell_driver: str = "class") -> Run:
    """Compile folder/name.tex by one route, as a user would, with no shell escape.

    tell_driver (latex -> dvipdfmx only): how the author names the driver: "class" (a class
    option, which every package sees), "package" (pith's own option) or "" (not at all).
    """
    env = dict(os.environ, TEXINPUTS=f"{folder}{os.pathsep}", SOURCE_DATE_EPOCH="1700000000")

    def sh(*cmd: str) -> subprocess.CompletedProcess:
        return subprocess.run(in_texlive(folder, *cmd), cwd=folder, env=env, capture_output=True, text=True,
                              errors="replace", timeout=240, stdin=subprocess.DEVNULL)

    source = f"{name}.tex"
    if route == "dvipdfmx" and tell_driver == "class":
        source = _with_class_option(folder / source, "dvipdfmx")
    elif route == "dvipdfmx" and tell_driver == "package":  # as \usepackage[dvipdfmx]{pith}
        source = f"\\PassOptionsToPackage{{dvipdfmx}}{{pith}}\\input{{{source}}}"
    out = None
    for _ in range(passes):
        out = sh(_engine(route), "-interaction=nonstopmode", "-no-shell-escape",
                 f"-jobname={name}", source)
    # The drivers' whole output, as the author (or arXiv's log) sees it: no -q.
    said = []
    if route == "dvips" and (folder / f"{name}.dvi").exists():
        said += [sh("dvips", f"{name}.dvi", "-o", f"{name}.ps"), sh("ps2pdf", f"{name}.ps", f"{name}.pdf")]
    elif route == "dvipdfmx" and (folder / f"{name}.dvi").exists():
        said.append(sh("dvipdfmx", f"{name}.dvi"))
    driver_output = "".join(proc.stdout + proc.stderr for proc in said)
    log_path = folder / f"{name}.log"
    log = log_path.read_text(errors="replace") if log_path.exists() else (out.stdout if out else "")
    pdf = folder / f"{name}.pdf"
    return Run(pdf if pdf.exists() and pdf.stat().st_size > 0 else None, log, driver_output)


def _with_class_option(tex: Path, option: str) -> str:
    """A copy of tex with one more class option; returns the copy's file name.

    On latex -> dvipdfmx the author names the driver as a class option, so that every
    package (graphicx, hyperref, hyperxmp, pith) writes that driver's specials; the
    examples are arXiv uploads for dvips, so the test adds it to a copy, keeping the job name.
    """
    import re

    text = re.sub(r"\\documentclass\s*(?:\[([^\]]*)\])?",
                  lambda m: f"\\documentclass[{option},{m.group(1) or ''}]", tex.read_text("utf-8"), count=1)
    copy = tex.with_name(f"{tex.stem}-{option}.tex")
    copy.write_text(text, encoding="utf-8")
    return copy.name


def write_doc(folder: Path, text: str, name: str = "paper", sty: Path = STY) -> Path:
    """A one-file document next to a copy of pith.sty."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(sty, folder / "pith.sty")
    path = folder / f"{name}.tex"
    path.write_text(text, encoding="utf-8")
    return path


@dataclass
class Facts:
    """What a reader of the PDF can see of pith, page 1 unless said otherwise."""

    info_number: str
    info_url: str
    xmp: str
    metadata_streams: int
    link_uris: list[str]
    link_rects: list[list[float]]
    text: str
    text_xs: list[float] = field(default_factory=list)
    pages: int = 0
    page_box: list[float] = field(default_factory=list)

    @property
    def compact_text(self) -> str:
        return self.text.replace(" ", "").replace("\n", "")


def read_facts(pdf: Path) -> Facts:
    import pikepdf
    from pypdf import PdfReader

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    reader = PdfReader(str(pdf))
    info = reader.metadata or {}
    xmp_ref = reader.trailer["/Root"].get("/Metadata")
    xmp = xmp_ref.get_object().get_data().decode("utf-8", "replace") if xmp_ref is not None else ""
    page = reader.pages[0]
    uris, rects = [], []
    for annot in page.get("/Annots") or []:
        annot = annot.get_object()
        action = annot.get("/A")
        if annot.get("/Subtype") == "/Link" and action is not None and action.get_object().get("/URI"):
            uris.append(str(action.get_object()["/URI"]))
            rects.append([float(v) for v in annot["/Rect"]])
    xs: list[float] = []

    def visit(text, cm, tm, font, size):  # x of every shown string, in page space
        if text.strip():
            xs.append(tm[4] * cm[0] + tm[5] * cm[2] + cm[4])

    text = page.extract_text(visitor_text=visit) or ""
    with pikepdf.open(pdf) as doc:
        # One catalog holds one /Metadata; a second writer leaves an orphan stream.
        streams = sum(1 for obj in doc.objects
                      if isinstance(obj, pikepdf.Stream) and obj.get("/Type") == "/Metadata")
    return Facts(str(info.get("/PithNumber", "")), str(info.get("/PithURL", "")), xmp, streams,
                 uris, rects, text, xs, len(reader.pages), [float(v) for v in page.mediabox])


def flat_log(log: str) -> str:
    """The log with TeX's and LaTeX's line wrapping undone, for matching whole messages."""
    import re

    text = re.sub(r"\n\((?:pith)\)\s+", " ", log)
    return re.sub(r"\s+", " ", text.replace("\n", ""))
