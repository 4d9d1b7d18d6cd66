"""Compile real papers with pith added and read back where the badge lands (issue #10).

    .venv/bin/python bench/realpapers.py [PAPERS] [--insert class|packages|both] [--dvips] [--check] [--sty FILE]

PAPERS holds one folder per paper (its sources, as its authors compile it); without it, the
checkout's examples/ papers (one a class; tests/ holds no folder of whole papers a class each)
as their authors wrote them before pith: copied with pith's lines taken out (strip_pith,
which bench/latexml.py uses too). Folders without a main file (examples/sites) are passed over. The main file
is the one named in the folder's `.pithmain`, else the only top-level .tex file with
\\documentclass and \\begin{document}; a `.pithengine` holding `xelatex` has the paper
compiled by XeLaTeX instead of pdflatex (a class that insists on it: Chinese journals on ctex).
Nothing in PAPERS is changed: every compile runs on a copy in a temporary folder.

Per paper: pdflatex twice without pith (the baseline: pages, errors), then twice with
`\\usepackage{pith}` + `\\pithnumber{...}` inserted right after \\documentclass (`class`) or
after the last \\usepackage of the preamble (`packages`), pith.sty beside it. With --dvips
also latex twice -> dvips -> ps2pdf where the paper compiles that way without pith and
without errors (arXiv takes pdflatex for papers with PDF/PNG figures).
The badge is read back from the PDF: its words (`pdftotext -bbox-layout`), the link's
rectangle (pypdf), the log line that says where it went, and the text block's place on
page 1 (a `\\typeout` of \\oddsidemargin and \\textwidth added with the two lines: the PDF
shows text, not the block). Printed as a Markdown table:

    paper | class | engine | insert | compiles | pages | placed | page | x, y | Δ block | Δ title | gap | verdict

`Δ block` is the badge's centre (its link: logo and text) minus the text block's centre
(pt); `Δ title` the same against the title's lines, and `gap` the space from the title's
last line down to the badge's top, the title found on the page as `pithtex check` finds it
(pithtex/arxiv/placement.py); `x, y` the badge's left edge and top from the page's
top left (pt). The verdict is `ok` when the badge is on page 1 (or on the page that pith's
log line says holds the title), x >= 40 pt, clear of every other word, and `pithtex check`'s
own judgement of the page finds nothing wrong: the badge's text and link on the visible page,
below the title, aligned with the title's lines (centred under them, flush with their left or
right edge, or just right of the 40 pt band when they start inside it), on the title's page;
in beamer inside the title frame's body (below the headline, above the footline),
the link is there, the paper compiles with no new errors and the page count grows by at
most one; `ok (review copy)` when pith's log says a review mode withheld the badge;
otherwise it names what failed.
"""

from __future__ import annotations

import argparse
import atexit
import html
import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pypdf import PdfReader

from pithtex.brand import ARXIV_BAND, SAMPLE_BODY  # pt from the page's left edge: arXiv stamps page 1 there

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.measure import header

ROOT = Path(__file__).resolve().parent.parent
PITHTEX = ROOT / ".venv" / "bin" / "pithtex"
NUMBER = SAMPLE_BODY
PITH_LINES = f"\\usepackage{{pith}}\n\\pithnumber{{{NUMBER}}}\n"
# Where the text block is on page 1, for the log only (the PDF shows text, not the block):
# its left edge from the page's left (TeX's 1in origin, as pdfTeX and dvips use) and width.
PROBE = ("\\AddToHook{begindocument/end}{\\typeout{realpapers: textblock "
         "\\the\\dimexpr 1in+\\hoffset+\\oddsidemargin\\relax\\space\\the\\textwidth}}\n"
         # beamer: the first frame's headline and footline heights (beamer sets them per
         # frame), so the verdict can see the badge clear of both bars (they are often
         # drawn without words, which the overlap test cannot see).
         # Beamer by its class, not by \footheight: sig-alternate declares \footheight too
         # (and leaves \paperheight at 0 pt, which made every badge `in footline').
         "\\makeatletter\\@ifclassloaded{beamer}{\\AddToHookNext{shipout/before}{\\typeout{realpapers: headfoot "
         "\\the\\headheight\\space\\the\\footheight\\space\\the\\paperheight}}}{}\\makeatother\n")
TEX_TIMEOUT = 300


@dataclass(frozen=True)
class Box:
    text: str
    x0: float
    top: float
    x1: float
    bottom: float  # pdftotext's y grows downwards

    def overlaps(self, other: Box, slack: float = 0.5) -> bool:
        return (self.x0 < other.x1 - slack and other.x0 < self.x1 - slack
                and self.top < other.bottom - slack and other.top < self.bottom - slack)


@dataclass(frozen=True)
class Build:
    ok: bool           # a PDF came out
    errors: int        # lines of the log that start with "!"
    pages: int
    log: str
    pdf: Path | None
    timed_out: bool = False
    engine: str = "pdflatex"


@dataclass(frozen=True)
class Row:
    paper: str
    cls: str
    engine: str
    insert: str
    compiles: str
    pages: str
    placed: str
    page: str
    xy: str
    delta: str
    delta_title: str
    gap: str
    verdict: str



def strip_pith(tex: str) -> str:
    """The same paper without pith: no package, no number, no pith commands."""
    tex = re.sub(r"^\\usepackage(\[[^]]*\])?\{pith\}.*$", "", tex, flags=re.M)
    tex = re.sub(r"^\\pithnumber\{[^}]*\}.*$", "", tex, flags=re.M)
    return re.sub(r"\\pith(long|short|badge)(\{\})?", "", tex)

def main_file(folder: Path) -> Path:
    named = folder / ".pithmain"
    if named.is_file():
        return folder / named.read_text().strip()
    found = [p for p in sorted(folder.glob("*.tex")) if _is_main(p)]
    if len(found) != 1:
        raise SystemExit(f"realpapers: {folder}: {len(found)} main files; name one in .pithmain")
    return found[0]


def tex_engine(folder: Path) -> str:
    """The engine its authors use: `xelatex` when the folder's `.pithengine` says so, else pdflatex."""
    named = folder / ".pithengine"
    return "xelatex" if named.is_file() and named.read_text().strip() == "xelatex" else "pdflatex"


def _is_main(tex: Path) -> bool:
    text = tex.read_text(errors="replace")
    return bool(re.search(r"^[^%\n]*\\documentclass", text, re.M)) and "\\begin{document}" in text


def document_class(text: str) -> str:
    m = re.search(r"^[^%\n]*\\documentclass\s*(\[[^\]]*\])?\s*\{([^}]*)\}", text, re.M)
    if not m:
        return "?"
    options = [o.strip() for o in (m[1] or "[]")[1:-1].split(",") if o.strip()]
    wanted = {"twocolumn", "conference", "journal", "reprint", "preprint", "5p", "3p", "1p", "sigconf",
              "acmsmall", "manuscript", "sigplan", "acmlarge", "acmtog", "review", "compsoc"}
    shown = [o for o in options if o in wanted]
    return m[2] + (f"[{','.join(shown)}]" if shown else "")


def insert_pith(text: str, where: str, probe: str = "") -> str:
    """The two lines right after \\documentclass[...]{...}, or after the preamble's last \\usepackage."""
    preamble_end = text.find("\\begin{document}")
    if where == "packages":
        uses = [m for m in re.finditer(r"^[^%\n]*\\usepackage\s*(\[[^\]]*\])?\s*\{[^}]*\}.*$", text, re.M)
                if m.start() < preamble_end]
        if uses:
            at = uses[-1].end()
            return text[:at] + "\n" + PITH_LINES + probe + text[at:]
    m = re.search(r"^[^%\n]*\\documentclass\s*(\[[^\]]*\])?\s*\{[^}]*\}(\[[^\]]*\])?.*$", text, re.M)
    if m is None:  # \documentclass comes from an \input file: the end of the preamble
        return text[:preamble_end] + PITH_LINES + probe + text[preamble_end:]
    at = m.end()
    # A \pdfoutput=1 right after \documentclass stays before the first \usepackage (quantumarticle
    # insists, as arXiv advises).
    then = re.match(r"(?:\s*(?:%[^\n]*)?\n)*\s*\\pdfoutput\s*=\s*1[^\n]*", text[at:])
    at += then.end() if then else 0
    return text[:at] + "\n" + PITH_LINES + probe + text[at:]


def run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=TEX_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(cmd, 124, b"", b"timeout")


def build(folder: Path, tex: Path, engine: str) -> Build:
    """Two TeX passes (no BibTeX, as on arXiv), then dvips and ps2pdf on the DVI route."""
    program = "latex" if engine == "dvips" else engine
    for suffix in (".pdf", ".dvi", ".ps", ".aux", ".log"):  # sources often ship a built PDF
        tex.with_suffix(suffix).unlink(missing_ok=True)
    for _ in range(2):
        if run([program, "-interaction=nonstopmode", tex.name], folder).returncode == 124:
            # A run that never ends (pith's title capture looped on TeX Live 2022): no PDF.
            return Build(False, 0, 0, f"realpapers: TeX stopped after {TEX_TIMEOUT} s", None, timed_out=True)
    stem = tex.with_suffix("")
    log = Path(f"{stem}.log").read_text(errors="replace") if Path(f"{stem}.log").exists() else ""
    if engine == "dvips" and not Path(f"{stem}.dvi").exists():  # \pdfoutput=1: PDF straight away
        return Build(False, 0, 0, log, None)
    if engine == "dvips" and Path(f"{stem}.dvi").exists():
        run(["dvips", "-q", "-o", f"{stem.name}.ps", f"{stem.name}.dvi"], folder)
        run(["ps2pdf", f"{stem.name}.ps", f"{stem.name}.pdf"], folder)
    pdf = Path(f"{stem}.pdf")
    pages = len(PdfReader(pdf).pages) if pdf.exists() and pdf.stat().st_size else 0
    errors = sum(1 for line in log.splitlines() if line.startswith("!"))
    return Build(pages > 0, errors, pages, log, pdf if pages else None, engine=program)


def layout(pdf: Path) -> list[list[list[Box]]]:
    """Every line's words with their boxes, per page, from pdftotext -bbox-layout (XHTML)."""
    out = subprocess.run(["pdftotext", "-bbox-layout", str(pdf), "-"], capture_output=True,
                         text=True, timeout=120, check=False).stdout
    word = r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>'
    return [[[Box(html.unescape(m[4]), float(m[0]), float(m[1]), float(m[2]), float(m[3]))
              for m in re.findall(word, line)]
             for line in re.split(r"<line ", page)[1:]]
            for page in re.split(r"<page ", out)[1:]]


def block_centre(log: str) -> float | None:
    """The text block's centre on page 1 (pt from the page's left), from the probe's log line."""
    m = re.search(r"realpapers: textblock (-?[\d.]+)pt (-?[\d.]+)pt", log)
    return float(m[1]) + float(m[2]) / 2 if m else None


def head_foot(log: str) -> tuple[float, float, float] | None:
    """beamer's headline and footline heights on page 1 and the page's height (pt)."""
    m = re.search(r"realpapers: headfoot (-?[\d.]+)pt (-?[\d.]+)pt (-?[\d.]+)pt", log)
    return (float(m[1]), float(m[2]), float(m[3])) if m else None


def landed(log: str) -> str:
    """pith.sty's own line: `page N, title|fallback|manual` or `withheld, MODE` (or '')."""
    m = re.search(r"^pith badge: (.*)$", log, re.M)
    return m[1] if m else ""


def link_rect(pdf: Path, page_index: int) -> tuple[float, float, float, float] | None:
    """The badge link's rectangle on that page, from the page's top left: x0, top, x1, bottom."""
    page = PdfReader(pdf).pages[page_index]
    left, _bottom, _right, top = (float(v) for v in page.mediabox)
    for annot in page.get("/Annots") or []:
        annot = annot.get_object()
        uri = str((annot.get("/A") or {}).get("/URI", ""))
        if NUMBER in uri:
            x0, y0, x1, y1 = (float(v) for v in annot["/Rect"])
            return min(x0, x1) - left, top - max(y0, y1), max(x0, x1) - left, top - min(y0, y1)
    return None


def flat_log(log: str) -> str:
    """TeX wraps the log at 79 characters: join those lines back."""
    return re.sub(r"(?m)^(.{79})\n", r"\1", log)


def placed(log: str) -> str:
    """What the log says about where the badge went (its continuation lines joined)."""
    m = re.search(r"Package pith Info: Badge placed (.*(?:\n\(pith\).*)*)", flat_log(log))
    if m:
        return re.sub(r"\s*\n\(pith\)\s*", " ", m[1]).strip()
    said = landed(log)
    if said.startswith("withheld, "):
        return "withheld: " + said.removeprefix("withheld, ")
    return "by the fallback (no title block found)" if said.endswith("fallback") else "-"


def judge(paper: str, cls: str, engine: str, insert: str, base: Build, withpith: Build) -> Row:
    compiles = "yes" if withpith.ok else "no"
    new_errors = withpith.errors - base.errors
    if new_errors > 0:
        compiles += f" (+{new_errors} errors)"
    pages = f"{base.pages}→{withpith.pages}"
    where = placed(withpith.log)
    if withpith.timed_out:
        return Row(paper, cls, engine, insert, f"no: TeX stopped after {TEX_TIMEOUT} s", pages, "-", "-", "-",
                   "-", "-", "-", "hangs")
    if not withpith.pdf:
        return Row(paper, cls, engine, insert, compiles, pages, where, "-", "-", "-", "-", "-", "does not compile")
    pages_lines = layout(withpith.pdf)
    found = [(i, line, w) for i, page in enumerate(pages_lines) for line in page for w in line
             if NUMBER in w.text]
    if not found and landed(withpith.log).startswith("withheld, "):
        # A review copy: no badge, as asked (pith's warning names the mode).
        verdict = "ok (review copy)" if new_errors <= 0 and withpith.pages <= base.pages + 1 else "new errors"
        return Row(paper, cls, engine, insert, compiles, pages, where, "-", "-", "-", "-", "-", verdict)
    if not found:
        judged = check_placement(withpith)
        why = "off page" if judged and "off page" in compact(judged["faults"]) else "no badge"
        return Row(paper, cls, engine, insert, compiles, pages, where, "-", "-", "-", "-", "-", why)
    index, badge_line, badge = found[0]
    others = [w for line in pages_lines[index] if line is not badge_line for w in line]
    rect = link_rect(withpith.pdf, index)
    # The link spans the logo and the text; the word box only the text.
    left, right = (min(badge.x0, rect[0]), max(badge.x1, rect[2])) if rect else (badge.x0, badge.x1)
    middle = (left + right) / 2
    centre = block_centre(withpith.log)
    delta = middle - centre if centre is not None else float("nan")
    # The title as `pithtex check` finds it on the page (pithtex/arxiv/placement.py): its
    # centre against the badge's, and the gap from its last line down to the badge.
    judged = check_placement(withpith) or {}
    title = judged.get("title")
    delta_title = middle - (title[0] + title[2]) / 2 if title else float("nan")
    gap = badge.top - title[3] if title else float("nan")
    faults = compact(judged.get("faults", [])) if judged else ["not judged"]
    # Page 1, or the page pith.sty says holds the title block (cas-dc puts a graphical
    # abstract and highlights first).
    if index != 0 and landed(withpith.log) != f"page {index + 1}, title":
        faults.append(f"page {index + 1}")
    if left < ARXIV_BAND:
        faults.append("x<40")
    if any(badge.overlaps(w) for w in others) and "overlaps text" not in faults:
        faults.append("overlaps text")
    # Aligned: judged against the title's lines, with the rest of the placement, by the check.
    bars = head_foot(withpith.log)
    if bars and rect:  # beamer: inside the frame's body, below the headline, above the footline
        head, foot, height = bars
        if min(badge.top, rect[1]) < head:
            faults.append("in headline")
        if max(badge.bottom, rect[3]) > height - foot:
            faults.append("in footline")
    if new_errors > 0:
        faults.append("new errors")
    if withpith.pages > base.pages + 1:
        faults.append("pages")
    if rect is None:
        faults.append("no link")
    return Row(paper, cls, engine, insert, compiles, pages, where, str(index + 1),
               f"{left:.0f}, {badge.top:.0f}", f"{delta:+.1f}", f"{delta_title:+.1f}",
               f"{gap:.0f}", ", ".join(faults) or "ok")


def check_placement(build: Build) -> dict | None:
    """`pithtex check`'s own placement judgement on the PDF (pdfcheck.pith_checks, the pages
    read by the page view): the title it found, the badge, the faults (None: not judged)."""
    from pithtex.arxiv import logparse, pdfcheck

    pdf = build.pdf
    if pdf is None:
        return None
    shown, _ = pdfcheck.pith_checks(pdf, NUMBER, build.engine, notes=logparse.parse_log(build.log).badge_notes)
    return shown.get("placement")


def compact(faults: list[str]) -> list[str]:
    """The check's sentences as the table's words."""
    words = {"its text is not": "off page", "its link lies": "link off page", "it lies over": "overlaps text",
             "it is above": "above the title", "it is not aligned": "not aligned with the title",
             "the title is on page": "not on the title's page"}
    return list(dict.fromkeys(next((w for k, w in words.items() if f.startswith(k)), f) for f in faults))


def put_sty(work: Path, sty: Path | None) -> None:
    """This checkout's pith.sty (`pithtex sty`) beside the paper, or the one named by --sty."""
    if sty is None:
        subprocess.run([str(PITHTEX), "sty", "--force", str(work)], capture_output=True, check=False)
    else:
        shutil.copyfile(sty, work / "pith.sty")


def paper_rows(folder: Path, inserts: list[str], engines: list[str], scratch: Path,
               sty: Path | None = None) -> list[Row]:
    tex = main_file(folder)
    text = tex.read_text(errors="replace")
    cls = document_class(text)
    for name in re.findall(r"^[^%\n]*\\input\{([^}]+)\}", text, re.M) if cls == "?" else []:
        inputs = [folder / name, folder / f"{name}.tex"]   # \documentclass in an \input file
        found = next((p for p in inputs if p.is_file()), None)
        if found and (cls := document_class(found.read_text(errors="replace"))) != "?":
            break
    rows = []
    for engine in [tex_engine(folder) if e == "pdflatex" else e for e in engines]:
        base_dir = scratch / f"{folder.name}-{engine}-base"
        shutil.copytree(folder, base_dir)
        base = build(base_dir, base_dir / tex.name, engine)
        if not base.ok or (engine == "dvips" and base.errors):
            if engine != "dvips":
                rows.append(Row(folder.name, cls, engine, "-", "no (without pith too)", "-", "-", "-", "-", "-",
                                "-", "-", "baseline fails"))
            continue  # the DVI route only where the paper compiles that way without errors
        for insert in inserts:
            work = scratch / f"{folder.name}-{engine}-{insert}"
            shutil.copytree(folder, work)
            (work / tex.name).write_text(insert_pith(text, insert, PROBE))
            put_sty(work, sty)
            rows.append(judge(folder.name, cls, engine, insert, base, build(work, work / tex.name, engine)))
    return rows


def check_verdict(folder: Path, sty: Path | None = None) -> str:
    """`pithtex check --json` on the paper with pith added after \\documentclass: its verdict,
    what it read back from the PDF (Info, XMP, page-1 link) and its diagnostics' rules."""
    tex = main_file(folder)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / folder.name
        shutil.copytree(folder, work)
        (work / tex.name).write_text(insert_pith(tex.read_text(errors="replace"), "class"))
        put_sty(work, sty)
        done = subprocess.run([str(PITHTEX), "check", str(work), "--main", tex.name, "--json"],
                              capture_output=True, text=True, timeout=900, check=False)
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        return f"exit {done.returncode}, no JSON: {done.stderr.strip()[:80]}"
    read = [f"{r['route']}: " + ("Info, XMP, link" if r.get("pith") and r["pith"].get("info") == NUMBER
                                  and r["pith"].get("xmp") == NUMBER and r["pith"].get("page1_links")
                                  else "no PDF" if not r.get("pdf") else "pith incomplete")
            for r in report.get("routes", [])]
    rules = sorted({d["rule"] for d in report.get("diagnostics", []) if d.get("severity") == "error"})
    return f"exit {done.returncode}, {report.get('verdict')}; {'; '.join(read)}; errors: {', '.join(rules) or '-'}"


def table(rows: list[Row]) -> str:
    head = ["paper", "class", "engine", "insert", "compiles", "pages", "placed", "page", "x, y",
            "Δ block", "Δ title", "gap", "verdict"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [r.paper, f"`{r.cls}`", r.engine, r.insert, r.compiles, r.pages, r.placed, r.page, r.xy,
                 r.delta, r.delta_title, r.gap, r.verdict]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def pithless_examples(into: Path) -> Path:
    """examples/<class>/ copied into `into` without pith (package, number, commands): the
    papers as their authors had them, which is what this bench adds pith to. Removed at exit."""

    atexit.register(shutil.rmtree, into, True)
    for folder in sorted((ROOT / "examples").iterdir()):
        if (folder / "paper.tex").is_file():
            shutil.copytree(folder, into / folder.name)
            tex = into / folder.name / "paper.tex"
            tex.write_text(strip_pith(tex.read_text()))
    return into


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("papers", nargs="?", type=Path, default=None,
                        help="a folder with one folder per paper (default: examples/ without pith)")
    parser.add_argument("--insert", choices=["class", "packages", "both"], default="both")
    parser.add_argument("--dvips", action="store_true", help="also latex -> dvips -> ps2pdf")
    parser.add_argument("--check", action="store_true", help="also `pithtex check` each paper")
    parser.add_argument("--only", action="append", default=[], help="only this paper (repeat)")
    parser.add_argument("--keep", type=Path, help="build in this (new) folder and keep it, to look at")
    parser.add_argument("--sty", type=Path, help="this pith.sty instead of the checkout's (another branch's, say)")
    args = parser.parse_args(argv)
    header(__file__)
    inserts = ["class", "packages"] if args.insert == "both" else [args.insert]
    engines = ["pdflatex"] + (["dvips"] if args.dvips else [])
    papers = args.papers or pithless_examples(Path(tempfile.mkdtemp(prefix="realpapers-examples-")))
    folders = [p for p in sorted(papers.iterdir()) if p.is_dir() and (not args.only or p.name in args.only)
               and ((p / ".pithmain").is_file() or any(_is_main(tex) for tex in p.glob("*.tex")))]
    rows: list[Row] = []
    checks = []
    with tempfile.TemporaryDirectory(prefix="realpapers-") as tmp:
        scratch = args.keep or Path(tmp)
        scratch.mkdir(parents=True, exist_ok=True)
        for folder in folders:
            new = paper_rows(folder, inserts, engines, scratch, args.sty)
            for r in new:
                print(f"{r.paper} {r.engine} {r.insert}: {r.verdict} ({r.placed})", file=sys.stderr, flush=True)
            rows += new
            if args.check:
                checks.append(f"- {folder.name}: `pithtex check` {check_verdict(folder, args.sty)}")
    print(table(rows))
    if checks:
        print("\n" + "\n".join(checks))
    bad = sum(1 for r in rows if not r.verdict.startswith("ok"))
    print(f"\n{len(rows) - bad} of {len(rows)} ok")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
