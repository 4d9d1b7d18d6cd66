"""Build the manual: latex/pith-doc.tex (rendered by `make render`) -> pith-doc.pdf.

`make doc` runs `python -m pithtex.latex.manual`. The manual loads the package it documents,
so it is compiled next to a fresh latex/pith.sty and shows its own badge. TeX runs in a
scratch folder (two pdflatex passes for the long tables); only the PDF is copied out.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ..files import write_atomic
from .options import CLASS_NAMES
from .render import DOC_PATH, STY_PATH, render_doc, render_sty

PDF_NAME = "pith-doc.pdf"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"  # in a source checkout only
TEX_TIMEOUT = 180  # seconds per pass; the manual takes about one


class ManualError(Exception):
    """pdflatex is missing or the manual did not compile (the message says where to look)."""


def build(out_dir: Path, examples: Path | None = EXAMPLES) -> Path:
    """Compile the manual into out_dir/pith-doc.pdf and return that path.

    With `examples` (the project's examples/ folder, present in a source checkout), page 1
    of each example paper is built first, with the same fresh pith.sty, for the pictures.
    """
    if shutil.which("pdflatex") is None:
        raise ManualError("pdflatex is not installed (make system-packages)")
    with tempfile.TemporaryDirectory(prefix="pith-doc-") as tmp:
        work = Path(tmp)
        sty = render_sty()
        found = [examples / cls for cls in CLASS_NAMES] if examples is not None and examples.is_dir() else []
        for example in found:
            paper = work / f"ex-{example.name}"
            shutil.copytree(example, paper)
            (paper / STY_PATH.name).write_text(sty, encoding="utf-8")
            for _ in range(2):  # the second pass resolves the references on page 1
                _pdflatex(paper, "paper.tex", halt=False)
        (work / STY_PATH.name).write_text(sty, encoding="utf-8")
        (work / DOC_PATH.name).write_text(render_doc(), encoding="utf-8")
        for _ in range(2):
            if _pdflatex(work, DOC_PATH.name, halt=True) != 0:
                log = work / DOC_PATH.with_suffix(".log").name
                raise ManualError("pdflatex failed on the manual:\n" + _log_tail(log))
        pdf = out_dir / PDF_NAME
        write_atomic(pdf, (work / PDF_NAME).read_bytes())
    return pdf


def _pdflatex(folder: Path, tex: str, halt: bool) -> int:
    """One pdflatex pass in folder. TeX's own output stays out (the log file has it all),
    so nothing unbounded is read; an example that fails just has no picture."""
    cmd = ["pdflatex", "-interaction=nonstopmode", "-no-shell-escape", tex]
    if halt:
        cmd.insert(2, "-halt-on-error")
    return subprocess.run(cmd, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          timeout=TEX_TIMEOUT, stdin=subprocess.DEVNULL,
                          env={**os.environ, "SOURCE_DATE_EPOCH": "1700000000", "TEXINPUTS": f"{folder}:"}
                          ).returncode


def _log_tail(log: Path, lines: int = 12) -> str:
    """The last lines of TeX's log, where the error is."""
    if not log.is_file():
        return "(no log)"
    with log.open("rb") as f:
        f.seek(max(0, log.stat().st_size - 4000))
        return "\n".join(f.read().decode("utf-8", "replace").splitlines()[-lines:])


def main(argv: list[str]) -> int:
    out_dir = Path(argv[0]) if argv else Path("out") / "doc"
    try:
        # `make doc` in a fresh clone: out/ is not in git, and this build tool (unlike -o) makes it.
        out_dir.mkdir(parents=True, exist_ok=True)
        pdf = build(out_dir)
    except (ManualError, subprocess.TimeoutExpired, OSError) as exc:
        print(f"pithtex: manual: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {pdf}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
