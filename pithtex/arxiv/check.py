"""`check`: static rules, then the arXiv-like compile on the chosen routes, then the PDF.

`check_path` is the library entry point; it returns a `Result` whose `as_dict()` is the
`--json` output and whose `ok` decides the exit code. `analyse` is shared with bundle,
which needs the compiled sandbox (its .fls) while it is still on disk.
"""

from __future__ import annotations

import re
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import PithError
from . import pdfcheck, sandbox
from .diagnostic import ERROR, Diagnostic, error, warning
from .rules import GRAPHICS_EXT, Facts, static_check
from .scan import scan
from .upload import Upload, open_upload

ENGINES = ("auto", "pdflatex", "latex", "xelatex", "all")
MAX_LOG_ERRORS = 5


@dataclass
class Result:
    upload: Upload
    engine: str
    auto_route: str
    runs: list[sandbox.RouteRun]
    diagnostics: list[Diagnostic]
    facts: Facts
    route_facts: dict[str, dict] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not any(d.severity == ERROR for d in self.diagnostics)

    def as_dict(self) -> dict:
        from .report import as_dict

        return as_dict(self)


def check_path(path: str | Path, engine: str = "auto", timeout: float = sandbox.DEFAULT_TIMEOUT) -> Result:
    with open_upload(path) as upload, sandbox.scratch() as tmp:
        return analyse(upload, engine, Path(tmp), timeout)


def routes_for(engine: str, auto_route: str) -> list[str]:
    if engine not in ENGINES:
        raise PithError(f"unknown engine {engine!r} (use one of {', '.join(ENGINES)})")
    if engine == "all":
        return list(sandbox.ROUTES)
    return [auto_route if engine == "auto" else engine]


def analyse(upload: Upload, engine: str, tmp: Path, timeout: float = sandbox.DEFAULT_TIMEOUT) -> Result:
    src = scan(upload.root, upload.main, upload.files)
    diags, facts = static_check(upload, src)
    diags += _upload_notes(upload)
    auto_route = sandbox.choose_route(upload, facts.figures)
    routes = routes_for(engine, auto_route)
    number = facts.number if facts.uses_pith else None
    reported = {d.subject for d in diags if d.subject}

    def one(route: str, seed: Future | None) -> tuple[sandbox.RouteRun, dict | None, list[Diagnostic]]:
        # Compile and read the PDF back in the same worker, so one route's PDF reading
        # overlaps the other routes' TeX runs.
        critical = seed is None or route == sandbox.CRITICAL_ROUTE
        run = sandbox.compile_route(upload, route, tmp / route, timeout, nice=0 if critical else 5,
                                    seed=None if critical else seed.result())
        found = _route_diagnostics(run, upload, reported)
        if run.pdf is None or run.log.errors:  # after errors, fix those first
            return run, None, found
        pdf_facts, pdf_diags = pdfcheck.pith_checks(run.pdf, number, route, facts.badge, facts.metadata)
        return run, pdf_facts, found + pdf_diags

    if len(routes) == 1:
        outcomes = [one(routes[0], None)]
    else:
        # The critical route (xelatex) starts at once; the others wait for one shared latex
        # first pass and start from its .aux, so their first run already resolves references.
        with ThreadPoolExecutor(max_workers=len(routes) + 1) as pool:
            seed = pool.submit(sandbox.first_pass, upload, tmp / "seed", timeout)
            futures = [pool.submit(one, r, seed) for r in routes]
            try:
                outcomes = [f.result() for f in futures]
            except BaseException:  # Ctrl-C: stop the TeX runs, or the pool would wait for them
                for f in futures:
                    f.cancel()
                sandbox.stop_all()
                raise
    result = Result(upload, engine, auto_route, [o[0] for o in outcomes], diags, facts)
    for run, pdf_facts, found in outcomes:
        result.diagnostics += found
        if pdf_facts is not None:
            result.route_facts[run.route] = pdf_facts
    return result


def _upload_notes(upload: Upload) -> list[Diagnostic]:
    out = []
    if len(upload.mains) > 1:
        out.append(warning("several-main-files", f"several top-level files have \\documentclass "
                           f"({', '.join(upload.mains)}); arXiv processes each of them",
                           "keep one main file, or name it in 00README.json (usage: toplevel)", upload.main))
    if upload.build_products and upload.is_archive:
        shown = ", ".join(upload.build_products[:4]) + (" …" if len(upload.build_products) > 4 else "")
        out.append(warning("build-products", f"build products in the upload ({shown}); the check ignores them",
                           "leave them out of the upload (pithtex bundle does)", upload.build_products[0]))
    return out


def _route_diagnostics(run: sandbox.RouteRun, upload: Upload, reported: set[str]) -> list[Diagnostic]:
    r = run.route
    out: list[Diagnostic] = []
    if run.timed_out:
        out.append(error("compile-timeout", f"{r}: stopped after the time limit (run {run.runs})",
                         "look for a loop in the macros, or raise --timeout", upload.main, route=r))
    if run.failed_step:
        lines = run.step_output.strip().splitlines()
        # Ghostscript names the PostScript error on an "Error:" line; else the last line says most.
        said = next((ln for ln in lines if ln.startswith("Error:")), lines[-1] if lines else "")
        out.append(error("compile-error", f"{r}: {run.failed_step} failed: {said}",
                         "run that step yourself and read its output; often an EPS figure or a "
                         "PostScript \\special that is not valid PostScript",
                         upload.main, route=r))
    formats = _figure_format(run, upload)
    out += formats
    errors, follow_on = _new_errors(run, reported | {d.subject for d in formats})
    for e in errors[:MAX_LOG_ERRORS]:
        out.append(error("compile-error", f"{r}: {e.message}", "fix the first error first; the others often follow "
                         "from it", e.file, e.line, route=r))
    if len(errors) > MAX_LOG_ERRORS:
        out.append(error("compile-error", f"{r}: {len(errors) - MAX_LOG_ERRORS} more errors in the log",
                         "fix the first ones and check again", upload.main, route=r))
    if follow_on:
        out.append(warning("follow-on-errors", f"{r}: {follow_on} more errors in the log after the missing "
                           "file(s) above, most likely caused by them", "fix the missing files and check again",
                           upload.main, route=r))
    if run.pdf is None and not (out or run.log.errors):
        out.append(error("compile-error", f"{r}: no PDF was produced", "run the engine yourself and read the log",
                         upload.main, route=r))
    facts = run.log
    if run.log.errors or run.pdf is None:
        return out  # references after a failed run say nothing
    if facts.undefined_references:
        out.append(warning("undefined-reference", f"{r}: undefined references: {_few(facts.undefined_references)}",
                           "check the \\label and \\ref names", upload.main, route=r))
    if facts.undefined_citations:
        out.append(warning("undefined-citation", f"{r}: undefined citations: {_few(facts.undefined_citations)}",
                           "rerun BibTeX locally and upload the new .bbl", upload.main, route=r))
    if facts.missing_characters:
        out.append(warning("missing-character", f"{r}: {len(facts.missing_characters)} characters missing from "
                           f"fonts, e.g. {facts.missing_characters[0]}", "use a font that has them, or the "
                           "LaTeX command for the symbol", upload.main, route=r))
    return out


def _new_errors(run: sandbox.RouteRun, reported: set[str]) -> tuple[list, int]:
    """Log errors not already reported, and how many came after an already reported one.

    A missing file the static rules named shows up in the log too, followed by errors it
    causes (an undefined \\pithnumber after a missing pith.sty): say it once, count the rest.
    """
    new, follow_on, after = [], 0, False
    for e in run.log.errors:
        if any(f"`{name}" in e.message for name in reported):
            after = True
        elif after:
            follow_on += 1
        else:
            new.append(e)
    return new, follow_on


def _figure_format(run: sandbox.RouteRun, upload: Upload) -> list[Diagnostic]:
    """A figure the route cannot read although another format of it is uploaded."""
    out = []
    for e in run.log.errors:
        m = re.search(r"File `([^']+)' not found", e.message)
        have = [f for f in upload.files if m and f.startswith(m.group(1) + ".")]
        if have and not any(f.endswith(GRAPHICS_EXT[run.route]) for f in have):
            name = m.group(1)
            usable = "/".join(x for x in (".pdf", ".png", ".jpg", ".eps") if x in GRAPHICS_EXT[run.route])
            out.append(error("figure-format", f"{run.route}: {name} is uploaded only as {', '.join(have)}, "
                             f"which {run.route} cannot read", f"also upload {name} as {usable}, or use one "
                             "format for all figures so arXiv picks a route that reads it", e.file, e.line,
                             route=run.route, subject=name))
    return out


def _few(items: list[str], n: int = 5) -> str:
    return ", ".join(items[:n]) + (f" and {len(items) - n} more" if len(items) > n else "")
