"""`pithtex check`'s placement step, old against new, paired on the same PDFs (issue 33, item 2).

Old (the judge before this change, loaded from git at --old-rev): `pdftotext -q -cropbox
-bbox-layout -f 1 -l PAGE` as a process, its XHTML parsed, the page judged. New: the badge's
page and those before it read by verify's page view (placement.read_page: pithtex's reader
and PDFium, in process), then judged. Both on the same PDFs: the example papers of
examples/ (one a supported class) compiled with pdflatex (twice) and pith.sty, the badge's page as pith.sty's log
line names it. Each round times old and new on each PDF back to back, in alternating order;
the figure is the ratio of the medians of the per-round totals (wall time). pdftotext runs
here without check's prlimit wrapper, so the old step's cost is understated a little.

PDFium's import (pypdfium2) is paid once a `check` process: measured apart, in a fresh
interpreter, against one without it.

Run: .venv/bin/python bench/check_reading.py [--rounds 15] [--old-rev 47a1e87]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.measure import header, ratio  # noqa: E402
from pithtex.arxiv import placement  # noqa: E402
from pithtex.brand import SAMPLE_BODY as NUMBER  # noqa: E402  (the examples' number)
from pithtex.latex.options import CLASS_NAMES  # noqa: E402  (one example paper a supported class)
from pithtex.pdf.facts import facts_of  # noqa: E402


def old_placement(rev: str, folder: Path) -> ModuleType:
    """pithtex/arxiv/placement.py as it was at `rev`, imported beside the new one."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:pithtex/arxiv/placement.py"],
                            capture_output=True, text=True, check=True).stdout
    path = folder / "old_placement.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("pithtex.arxiv.old_placement", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compiled(work: Path) -> list[tuple[str, Path, int]]:
    """(class, PDF, the badge's page) for each example that compiles."""
    out = []
    for cls in CLASS_NAMES:
        folder = work / cls
        shutil.copytree(ROOT / "examples" / cls, folder)
        shutil.copy(ROOT / "latex" / "pith.sty", folder / "pith.sty")
        for _ in range(2):
            subprocess.run(["pdflatex", "-interaction=nonstopmode", "-no-shell-escape", "paper.tex"], cwd=folder,
                           capture_output=True, timeout=240, env=dict(os.environ, SOURCE_DATE_EPOCH="1700000000"))
        pdf, log = folder / "paper.pdf", folder / "paper.log"
        landed = re.search(r"pith badge: page (\d+)", log.read_text(errors="replace")) if log.exists() else None
        if pdf.exists() and landed:
            out.append((cls, pdf, int(landed[1])))
    return out


def old_step(old: ModuleType, pdf: Path, page: int, rect, visible, off: bool, title: str | None) -> tuple:
    text = subprocess.run(["pdftotext", "-q", "-cropbox", "-bbox-layout", "-f", "1", "-l", str(page), str(pdf), "-"],
                          capture_output=True, text=True).stdout
    pages = old.parse_layout(text)
    box = old.link_box(rect, visible) if rect else None
    return old.judge(pages[-1], NUMBER, box, off, title).faults


def new_step(pdf: Path, page: int, rect, off: bool, title: str | None) -> tuple:
    pages = [placement.read_page(pdf, i) for i in range(page)]
    box = placement.link_box(rect, pages[-1].box) if rect else None
    return placement.judge(pages, NUMBER, box, off, title).faults


def import_cost(rounds: int) -> tuple[float, float]:
    """Median wall time of a fresh interpreter importing pithtex.arxiv.check, without and with pypdfium2."""
    def once(code: str) -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
        return time.perf_counter() - start

    base, with_pdfium = [], []
    for _ in range(rounds):
        base.append(once("import pithtex.arxiv.check"))
        with_pdfium.append(once("import pithtex.arxiv.check, pypdfium2"))
    return statistics.median(base), statistics.median(with_pdfium)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--old-rev", default="47a1e87")
    args = parser.parse_args()
    header(__file__)
    with tempfile.TemporaryDirectory(prefix="check-reading-") as tmp:
        work = Path(tmp)
        old = old_placement(args.old_rev, work)
        papers = compiled(work)
        cases = []
        for cls, pdf, page in papers:
            facts = facts_of(pdf, pages=page)
            link = next((lk for lk in facts.links if lk.page == page - 1 and lk.number.body == NUMBER), None)
            if link is None or link.visible is None:
                continue
            title = facts.info.get("PithTitle") or facts.titles.get("Title")
            cases.append((cls, pdf, page, link, title))
        new_step(cases[0][1], 1, None, False, None)  # PDFium imported and warmed once, as in a check
        olds, news = [], []
        verdicts: dict[str, tuple[tuple, tuple]] = {}
        for r in range(args.rounds):
            t_old = t_new = 0.0
            for cls, pdf, page, link, title in cases:
                for which in (("old", "new") if r % 2 == 0 else ("new", "old")):
                    start = time.perf_counter()
                    if which == "old":
                        a = old_step(old, pdf, page, link.rect, link.visible, link.off_page, title)
                        t_old += time.perf_counter() - start
                    else:
                        b = new_step(pdf, page, link.rect, link.off_page, title)
                        t_new += time.perf_counter() - start
                verdicts[cls] = (a, b)
            olds.append(t_old)
            news.append(t_new)
        base, with_pdfium = import_cost(min(args.rounds, 7))
    print(f"{len(cases)} PDFs ({', '.join(c[0] for c in cases)}), {args.rounds} rounds, old at {args.old_rev}")
    m_old, m_new = statistics.median(olds), statistics.median(news)
    print(f"old (pdftotext + parse + judge): median {m_old * 1000 / len(cases):.1f} ms a PDF")
    print(f"new (page view + judge):         median {m_new * 1000 / len(cases):.1f} ms a PDF")
    print(f"ratio of the medians of paired rounds, new/old: {ratio(news, olds):.2f}")
    print(f"import of pypdfium2, once a check process: {(with_pdfium - base) * 1000:.0f} ms "
          f"(fresh interpreter importing pithtex.arxiv.check: {base * 1000:.0f} ms, with pypdfium2 "
          f"{with_pdfium * 1000:.0f} ms)")
    for cls, (a, b) in verdicts.items():
        print(f"  {cls:<11} old: {'; '.join(a) or 'ok'}\n  {'':<11} new: {'; '.join(b) or 'ok'}")


if __name__ == "__main__":
    main()
