#!/usr/bin/env python3
"""What pith.sty costs a paper: paired pdflatex runs of one generated 12-page article.

Variants of the same paper are compiled in interleaved rounds (so drift on a shared
machine hits all of them alike) and compared by CPU time of the pdflatex child
(the ratio of the two variants' medians over those rounds) and, when valgrind is installed, by the number of
instructions executed (callgrind), which other load on the machine cannot disturb.
Printed: each variant's ratio to its baseline, measured side by side in this one run.
Targets: pith <= 1.03x with hyperref, <= 1.05x without it.

    .venv/bin/python bench/latex.py [--rounds 15] [--no-count] [--sty OLD/pith.sty]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.measure import header, ratio
from pithtex.brand import SAMPLE_BODY

ROOT = Path(__file__).resolve().parent.parent
STY = ROOT / "latex" / "pith.sty"
BODY = SAMPLE_BODY
PDFLATEX = ["pdflatex", "-interaction=batchmode", "-no-shell-escape"]
TEXT = ("number record paper hash canonical signature registry version identifier content "
         "address reader metadata badge link route engine driver stream packet namespace "
         "value proof check trust key field author title abstract figure table result method "
         "the of and to in is that for with as on by this we are be from at an which")
WORDS = TEXT.split()

# name -> (preamble before \begin{document}, author line extra)
VARIANTS = {
    "hyperref": (r"\usepackage{hyperref}", ""),
    "hyperref+pith": (r"\usepackage{hyperref}" "\n" r"\usepackage{pith}" "\n" rf"\pithnumber{{{BODY}}}", ""),
    "hyperref+orcidlink": (r"\usepackage{hyperref}" "\n" r"\usepackage{orcidlink}",
                           r"\,\orcidlink{0000-0002-1825-0097}"),
    "hyperref+hyperxmp": (r"\usepackage{hyperref}" "\n" r"\usepackage{hyperxmp}", ""),
    "plain": ("", ""),
    "plain+pith": (r"\usepackage{pith}" "\n" rf"\pithnumber{{{BODY}}}", ""),
}
RATIOS = [  # (label, variant, baseline, target or None)
    ("pith, with hyperref", "hyperref+pith", "hyperref", 1.03),
    ("orcidlink, with hyperref", "hyperref+orcidlink", "hyperref", None),
    ("hyperxmp, with hyperref", "hyperref+hyperxmp", "hyperref", None),
    ("pith, without hyperref", "plain+pith", "plain", 1.05),
    ("loading hyperref itself", "hyperref", "plain", None),
]


def sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(8, 22))]
    return " ".join(words).capitalize() + "."


def paragraph(rng: random.Random) -> str:
    return " ".join(sentence(rng) for _ in range(rng.randint(4, 8)))


def article(preamble: str, author_extra: str) -> str:
    """A realistic 12-page paper: sections, maths, lists, a table, a figure, citations."""
    rng = random.Random(20261130)  # the same text for every variant
    parts = [r"\documentclass[11pt]{article}", r"\usepackage[T1]{fontenc}", r"\usepackage{amsmath,amssymb}",
             r"\usepackage{graphicx}", preamble,
             r"\title{Content-Addressed Identifiers for Preprints}",
             rf"\author{{A. Author{author_extra} \and B. Author}}", r"\begin{document}", r"\maketitle",
             r"\begin{abstract}" + paragraph(rng) + r"\end{abstract}", r"\tableofcontents"]
    for s in range(1, 6):
        parts.append(rf"\section{{Section {s}}}\label{{sec:{s}}}")
        for sub in range(1, 3):
            parts.append(rf"\subsection{{Part {s}.{sub}}}")
            parts += [paragraph(rng) + rf" See Section~\ref{{sec:{max(1, s - 1)}}} and~\cite{{ref{s}}}."
                      for _ in range(3)]
            parts.append(r"\begin{equation} H(x) = \sum_{i=1}^{n} \frac{x_i^2}{2^{i}} + \int_0^1 f(t)\,dt"
                         rf"\label{{eq:{s}{sub}}}\end{{equation}}")
        parts.append(r"\begin{itemize}" + "".join(r"\item " + sentence(rng) for _ in range(4)) + r"\end{itemize}")
        parts.append(r"\begin{table}[t]\centering\begin{tabular}{lrr}\hline route & runs & ratio\\\hline"
                     + "".join(f" r{i} & {i * 7} & {1 + i / 100:.2f}\\\\" for i in range(6))
                     + rf"\hline\end{{tabular}}\caption{{Table {s}.}}\end{{table}}")
        parts.append(r"\begin{figure}[t]\centering\setlength{\unitlength}{1mm}\begin{picture}(60,20)"
                     r"\put(0,5){\framebox(20,10){a}}\put(20,10){\vector(1,0){20}}\put(40,5){\framebox(20,10){b}}"
                     rf"\end{{picture}}\caption{{Figure {s}.}}\end{{figure}}")
    parts.append(r"\begin{thebibliography}{9}" + "".join(
        rf"\bibitem{{ref{i}}} A. Writer. \emph{{Title {i}}}. Journal, {2000 + i}." for i in range(1, 6))
        + r"\end{thebibliography}")
    parts.append(r"\end{document}")
    return "\n".join(parts) + "\n"


def cpu_of_run(folder: Path, name: str) -> float:
    """CPU seconds (user + system) of one pdflatex child."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([*PDFLATEX, f"{name}.tex"], cwd=folder, capture_output=True,
                          env=dict(os.environ, TEXINPUTS=f"{folder}:"))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"bench: pdflatex failed on {name}.tex (see {folder}/{name}.log)")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def instructions_of_run(folder: Path, name: str) -> int:
    """Instructions executed by one pdflatex run, counted by callgrind: the same on every
    run, so unlike CPU time it is not disturbed by other work on a shared machine."""
    proc = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *PDFLATEX,
                           f"{name}.tex"], cwd=folder, capture_output=True, text=True,
                          env=dict(os.environ, TEXINPUTS=f"{folder}:"))
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if not found:
        sys.exit(f"bench: callgrind gave no count for {name}.tex")
    return int(found.group(1))


def pages(pdf: Path) -> int:
    from pypdf import PdfReader

    return len(PdfReader(str(pdf)).pages)


def report(title: str, value: dict[str, list[float]]) -> bool:
    """Print the ratios (of the medians of each variant's runs, taken in the same rounds); True
    when a target is missed."""
    print(title)
    missed = False
    for label, variant, base, target in RATIOS:
        times = ratio(value[variant], value[base])
        verdict = "" if target is None else f"  (target <= {target:.2f}: {'ok' if times <= target else 'MISSED'})"
        missed |= target is not None and times > target
        print(f"  {label:<28} {times:5.3f}x{verdict}")
    return missed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15, help="timed runs per variant (default 15)")
    parser.add_argument("--no-count", action="store_true", help="skip the callgrind instruction counts")
    parser.add_argument("--sty", type=Path, default=STY, help="the pith.sty to measure (default latex/pith.sty),"
                        " e.g. an older rendering for a before/after comparison")
    args = parser.parse_args()
    header(__file__)
    times: dict[str, list[float]] = {name: [] for name in VARIANTS}
    with tempfile.TemporaryDirectory(prefix="pith-bench-") as tmp:
        folder = Path(tmp)
        shutil.copy(args.sty, folder / "pith.sty")
        for name, (preamble, extra) in VARIANTS.items():
            (folder / f"{name}.tex").write_text(article(preamble, extra))
            cpu_of_run(folder, name)  # warm-up: aux and toc files, font caches
        print(f"paper: {pages(folder / 'hyperref+pith.pdf')} pages, the same text in every variant")
        for _ in range(args.rounds):
            for name in VARIANTS:
                times[name].append(cpu_of_run(folder, name))
        counts = {}
        if not args.no_count and shutil.which("valgrind"):
            with ThreadPoolExecutor(max_workers=2) as pool:
                counts = dict(zip(VARIANTS, pool.map(lambda n: instructions_of_run(folder, n), VARIANTS), strict=True))
    # The rounds interleave the variants, so drift hits all alike; each variant's median is
    # robust to a round disturbed by other work, and the ratio is of those medians (measure.py).
    cpu = {name: statistics.median(t) for name, t in times.items()}
    for name in VARIANTS:
        extra = f"  {counts[name] / 1e6:8.1f} M instructions" if counts else ""
        print(f"  {name:<22} median {cpu[name] * 1000:5.0f} ms CPU{extra}")
    missed = report(f"CPU time, ratio of the medians of {args.rounds} interleaved rounds (noisy on a shared "
                    "machine):", times)
    if counts:  # one count a variant: deterministic, so one run is its median
        missed = report("instructions executed (callgrind; deterministic, the figure to trust):",
                        {name: [n] for name, n in counts.items()})
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
