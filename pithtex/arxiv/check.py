"""`check`: static rules, then the arXiv-like compile on the chosen routes, then the PDF.

An upload can have several top-level files (a paper, a rebuttal, a supplement): arXiv
compiles every one of them (see upload.py for how it finds them and in which order), so
the check compiles each and gives each its own verdict (`Result`); the whole `Check` is
OK only when every one is. pith is followed in each file that loads it.

`check_path` is the library entry point; `report.as_dict(check)` is the `--json` output and
`ok` decides the exit code. `analyse` is shared with bundle, which needs the compiled
sandboxes (their .fls) while they are still on disk.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..errors import PithError
from ..value import TYPE_CHECKING
from . import ENGINES, ROUTES, pdfcheck, placement, sandbox, texlive
from .catalogue import (
    BBL_MISSING,
    BUILD_PRODUCTS,
    COMPILE_ERROR,
    COMPILE_TIMEOUT,
    ERROR,
    FIGURE_FORMAT,
    FILES_TOO_LARGE,
    FOLLOW_ON_ERRORS,
    LOG_TOO_LARGE,
    MEMORY_TOO_LARGE,
    MISSING_CHARACTER,
    PACKAGE_MISSING,
    PITH_FILE_UNCHECKED,
    POSTSCRIPT_FILE_ACCESS,
    SEVERAL_MAIN_FILES,
    UNDEFINED_CITATION,
    UNDEFINED_REFERENCE,
)
from .diagnostic import Diagnostic, error, warning
from .logparse import missing_file
from .rules import Facts, static_check
from .scan import GRAPHICS_EXT, scan
from .upload import Upload, open_upload

if TYPE_CHECKING:
    from typing import Any

    from .logparse import LogError
    from .pdfcheck import Reader


MAX_LOG_ERRORS = 5


@dataclass
class Result:
    """The verdict on one top-level file."""

    upload: Upload  # seen from this file: upload.main is the file
    engine: str
    auto_route: str
    runs: list[sandbox.RouteRun]
    diagnostics: list[Diagnostic]
    facts: Facts
    route_facts: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not any(d.severity == ERROR for d in self.diagnostics)


@dataclass
class Check:
    """The verdict on an upload: one `Result` per top-level file, in arXiv's order, and the
    findings about the upload as a whole (`notes`)."""

    upload: Upload
    engine: str
    papers: list[Result]
    notes: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(d.severity == ERROR for d in self.diagnostics)

    @property
    def primary(self) -> Result:
        """The file pith is followed in: the first that loads pith, else the first compiled."""
        return next((p for p in self.papers if p.facts.uses_pith), self.papers[0])

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """Every finding once: a compile's findings tagged with its top-level file; a static
        finding about a file two top-level files share is shown once."""
        out, seen = list(self.notes), set()
        for paper in self.papers:
            for d in paper.diagnostics:
                d = replace(d, main=paper.upload.main) if len(self.papers) > 1 else d
                key = (d.rule, d.severity, d.file, d.line, d.message, d.route, d.main if d.route else None)
                if key not in seen:
                    seen.add(key)
                    out.append(d)
        return out


def check_path(path: str | Path, engine: str = "auto", timeout: float = sandbox.DEFAULT_TIMEOUT,
               mains: list[str] | None = None, log_cap: int = sandbox.LOG_CAP,
               read: Reader = placement.read_page) -> Check:
    with (sandbox.ctrl_c_once(), open_upload(path, mains) as upload, sandbox.scratch() as tmp,
          texlive.private_trees(tmp) as trees):
        return analyse(upload, engine, tmp, sandbox.Limits(trees, timeout, log_cap), read)


def routes_for(engine: str, auto_route: str) -> list[str]:
    if engine not in ENGINES:
        raise PithError(f"unknown engine {engine!r} (use one of {', '.join(ENGINES)})")
    if engine == "all":
        return list(ROUTES)
    return [auto_route if engine == "auto" else engine]


def analyse(upload: Upload, engine: str, tmp: Path, limits: sandbox.Limits,
            read: Reader = placement.read_page) -> Check:
    """Every top-level file of the upload: static rules for all first (arXiv compiles them all
    with one compiler, chosen from all their figures), then each compiled in its own folder."""
    views = [upload.for_main(m) for m in upload.mains]
    statics = [static_check(v, scan(v.root, v.main, v.files)) for v in views]
    auto_route = sandbox.choose_route(upload, [f for _, facts in statics for f in facts.figures])
    routes = routes_for(engine, auto_route)
    check = Check(upload, engine, [], _upload_notes(upload))
    for i, (view, (diags, facts)) in enumerate(zip(views, statics, strict=True)):
        folder = tmp / f"main{i}"
        folder.mkdir()
        check.papers.append(_analyse_one(view, engine, auto_route, routes, diags, facts, folder, limits, read))
    return check


def _analyse_one(upload: Upload, engine: str, auto_route: str, routes: list[str], diags: list[Diagnostic],
                 facts: Facts, tmp: Path, limits: sandbox.Limits, read: Reader) -> Result:
    number = facts.number if facts.uses_pith else None
    reported = {d.subject for d in diags if d.subject}

    def one(route: str, seed: Future[dict[str, bytes] | None] | None,
            ) -> tuple[sandbox.RouteRun, dict[str, Any] | None, list[Diagnostic]]:
        # Compile and read the PDF back in the same worker, so one route's PDF reading
        # overlaps the other routes' TeX runs.
        critical = seed is None or route == sandbox.CRITICAL_ROUTE
        run = sandbox.compile_route(upload, route, tmp / route, limits, nice=0 if critical else 5,
                                    seed=None if critical or seed is None else seed.result())
        found = _route_diagnostics(run, upload, reported, limits)
        if run.pdf is None or run.log.errors:  # after errors, fix those first
            return run, None, found
        pdf = run.pdf
        pdf_facts, pdf_diags = pdfcheck.pith_checks(pdf, number, route, facts.badge, facts.metadata,
                                                    run.log.badge_notes, read)
        return run, pdf_facts, found + pdf_diags

    if len(routes) == 1:
        outcomes = [one(routes[0], None)]
    else:
        # The critical route (xelatex) starts at once; the others wait for one shared latex
        # first pass and start from its .aux, so their first run already resolves references.
        pool = ThreadPoolExecutor(max_workers=len(routes) + 1)
        try:
            with sandbox.sigint_deferred():  # a worker started mid-submit would be one shutdown never joins
                seed = pool.submit(sandbox.first_pass, upload, tmp / "seed", limits)
                futures = [pool.submit(one, r, seed) for r in routes]
            outcomes = sandbox.wait_each(futures)  # never an unbounded wait: see wait_each
        except BaseException:  # Ctrl-C: stop the TeX runs first, or the pool would wait for them
            sandbox.stop_all()
            raise
        finally:
            with sandbox.sigint_deferred():  # a second Ctrl-C waits for the stopped workers
                pool.shutdown(wait=True, cancel_futures=True)
    result = Result(upload, engine, auto_route, [o[0] for o in outcomes], _read_by_the_compile(diags, outcomes),
                    facts)
    for run, pdf_facts, found in outcomes:
        result.diagnostics += found
        if pdf_facts is not None:
            result.route_facts[run.route] = pdf_facts
    return result


def _read_by_the_compile(diags: list[Diagnostic], outcomes: list[tuple[sandbox.RouteRun, Any, Any]],
                         ) -> list[Diagnostic]:
    """The static findings, less those the compiles show false. The source text is read without
    its conditionals, so a paper with an inline thebibliography and an \\addbibresource in a
    biblatex branch it switches off was told `bbl-missing`: that goes when every compile that
    ended cleanly read no bibliography database (and one did). A `package-missing` goes when
    every route compiled without an error: TeX stops at a package it cannot find, so the paper
    never loads it (it sits in a branch the paper switches off, or behind \\IfFileExists)."""
    runs = [run for run, _, _ in outcomes]
    said = [sandbox.reads_bibliography(run) for run in runs]
    drop = set()
    if not any(said) and any(s is False for s in said):
        drop.add(BBL_MISSING.id)
    if runs and all(run.pdf is not None and not run.failed_step and reads is not None
                    for run, reads in zip(runs, said, strict=True)):
        drop.add(PACKAGE_MISSING.id)
    return [d for d in diags if d.rule not in drop]


def _upload_notes(upload: Upload) -> list[Diagnostic]:
    out = []
    if len(upload.mains) > 1 and upload.mains_from == "documentclass":
        pith = [m for m in upload.mains if _loads_pith(upload, m)]
        keep = pith[0] if pith else upload.main
        out.append(warning(SEVERAL_MAIN_FILES, f"{len(upload.mains)} top-level files have \\documentclass "
                           f"({', '.join(upload.mains)}): arXiv compiles each of them and joins their PDFs in "
                           "this order; each is checked below",
                           f"if only {keep} is the paper, list it in 00README.json (sources, usage: toplevel) or "
                           f"leave the others out of the upload (pithtex bundle --main {keep} does)", upload.mains[0]))
    unchecked = [m for m in upload.other_mains if _loads_pith(upload, m)]
    if unchecked:
        where = str(Path(upload.source).parent) if upload.source.lower().endswith(".tex") else upload.source
        out.append(error(PITH_FILE_UNCHECKED, f"{unchecked[0]} loads pith and arXiv compiles it too, but only "
                         f"{', '.join(upload.mains)} was checked", f"check every top-level file: pithtex check "
                         f"{where} (or name {unchecked[0]} in 00README.json's toplevel sources, or leave the "
                         "others out of the upload)", unchecked[0]))
    if upload.build_products and upload.is_archive:
        shown = ", ".join(upload.build_products[:4]) + (" …" if len(upload.build_products) > 4 else "")
        out.append(warning(BUILD_PRODUCTS, f"build products in the upload ({shown}); the check ignores them",
                           BUILD_PRODUCTS.fix, upload.build_products[0]))
    return out


def _loads_pith(upload: Upload, main: str) -> bool:
    return any(r.name == "pith" for r in scan(upload.root, main, upload.files).packages)


def _route_diagnostics(run: sandbox.RouteRun, upload: Upload, reported: set[str],
                       limits: sandbox.Limits) -> list[Diagnostic]:
    r = run.route
    out: list[Diagnostic] = []
    if run.files_too_large:
        what = run.failed_step or "TeX"
        out.append(error(FILES_TOO_LARGE, f"{r}: {what} wrote more than "
                         f"{_mb(limits.log_cap * sandbox.FILES_CAP_FACTOR)} into its files and was stopped "
                         f"(run {run.runs})", FILES_TOO_LARGE.fix, upload.main, route=r))
    elif run.log_too_large:
        what = run.failed_step or "TeX"
        out.append(error(LOG_TOO_LARGE, f"{r}: {what} wrote more than {_mb(limits.log_cap)} of output and was "
                         f"stopped (run {run.runs})", LOG_TOO_LARGE.fix, upload.main, route=r))
    if run.timed_out:
        out.append(error(COMPILE_TIMEOUT, f"{r}: stopped after the time limit (run {run.runs})",
                         COMPILE_TIMEOUT.fix, upload.main, route=r))
    if run.out_of_memory:
        out.append(error(MEMORY_TOO_LARGE, f"{r}: {run.failed_step} asked for more than its "
                         f"{_mb(limits.memory)} of memory and ended", MEMORY_TOO_LARGE.fix,
                         upload.main, route=r))
    elif run.failed_step and not run.log_too_large:
        out.append(_step_failed(run, upload))
    formats = _figure_format(run, upload)
    out += formats
    errors, follow_on = _new_errors(run, reported | {d.subject for d in formats if d.subject})
    for e in errors[:MAX_LOG_ERRORS]:
        out.append(error(COMPILE_ERROR, f"{r}: {e.message}", COMPILE_ERROR.fix, e.file, e.line, route=r))
    if len(errors) > MAX_LOG_ERRORS:
        out.append(error(COMPILE_ERROR, f"{r}: {len(errors) - MAX_LOG_ERRORS} more errors in the log",
                         "fix the first ones and check again", upload.main, route=r))
    if follow_on:
        out.append(warning(FOLLOW_ON_ERRORS, f"{r}: {follow_on} more errors in the log after the missing "
                           "file(s) above, most likely caused by them", FOLLOW_ON_ERRORS.fix,
                           upload.main, route=r))
    if run.pdf is None and not (out or run.log.errors):
        out.append(error(COMPILE_ERROR, f"{r}: no PDF was produced", "run the engine yourself and read the log",
                         upload.main, route=r))
    facts = run.log
    if run.log.errors or run.pdf is None:
        return out  # references after a failed run say nothing
    if facts.undefined_references:
        out.append(warning(UNDEFINED_REFERENCE, f"{r}: undefined references: {_few(facts.undefined_references)}",
                           UNDEFINED_REFERENCE.fix, upload.main, route=r))
    if facts.undefined_citations:
        out.append(warning(UNDEFINED_CITATION, f"{r}: undefined citations: {_few(facts.undefined_citations)}",
                           UNDEFINED_CITATION.fix, upload.main, route=r))
    if facts.missing_characters:
        out.append(warning(MISSING_CHARACTER, f"{r}: {len(facts.missing_characters)} characters missing from "
                           f"fonts, e.g. {facts.missing_characters[0]}", MISSING_CHARACTER.fix, upload.main, route=r))
    return out


def _step_failed(run: sandbox.RouteRun, upload: Upload) -> Diagnostic:
    """dvips or ps2pdf failed: what its output says, in one line."""
    lines = run.step_output.strip().splitlines()
    # Ghostscript names the PostScript error on an "Error:" line; else the last line says most.
    said = next((ln for ln in lines if ln.startswith("Error:")), lines[-1] if lines else "")
    fix = ("run that step yourself and read its output; often an EPS figure or a PostScript \\special "
           "that is not valid PostScript")
    if "/invalidfileaccess" in said:
        # -dSAFER lets PostScript open files in the check's own folders only: what it would do on
        # arXiv's machine is not known here, so no "would fail on arXiv" either.
        return error(POSTSCRIPT_FILE_ACCESS, f"{run.route}: {run.failed_step} stopped: the PostScript (a "
                     f"\\special or an EPS figure) opens a file outside the paper's folder, which the sandbox "
                     f"refuses ({said})", POSTSCRIPT_FILE_ACCESS.fix, upload.main, route=run.route)
    return error(COMPILE_ERROR, f"{run.route}: {run.failed_step} failed: {said}", fix, upload.main,
                 route=run.route)


def _new_errors(run: sandbox.RouteRun, reported: set[str]) -> tuple[list[LogError], int]:
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
        name = missing_file(e.message)
        have = [f for f in upload.files if name and f.startswith(name + ".")]
        if name and have and not any(f.endswith(GRAPHICS_EXT[run.route]) for f in have):
            usable = "/".join(x for x in (".pdf", ".png", ".jpg", ".eps") if x in GRAPHICS_EXT[run.route])
            out.append(error(FIGURE_FORMAT, f"{run.route}: {name} is uploaded only as {', '.join(have)}, "
                             f"which {run.route} cannot read", f"also upload {name} as {usable}, or use one "
                             "format for all figures so arXiv picks a route that reads it", e.file, e.line,
                             route=run.route, subject=name))
    return out


def _mb(n: int) -> str:
    return f"{n / 2**20:.3g} MB" if n >= 2**20 else f"{n} bytes"


def _few(items: list[str], n: int = 5) -> str:
    return ", ".join(items[:n]) + (f" and {len(items) - n} more" if len(items) > n else "")
