"""The check's two faces: a report a person reads in ten seconds, and JSON for tools.

The first line is the verdict. Then one line per route, one line of pith facts, and the
problems, errors first, each with where it is and how to fix it. A problem seen the same
way on several routes is shown once with the routes named. An upload with several
top-level files gets that block once per file, in arXiv's order, each with its verdict.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import safetext
from .catalogue import BY_ID, ERROR, WOULD_FAIL
from .diagnostic import Diagnostic

if TYPE_CHECKING:
    from .check import Check, Result
    from .sandbox import RouteRun

# Ten seconds of reading: errors come first, and the rest is one --json away.
MAX_SHOWN = 8


def route_ok(result: Result, route: str) -> bool:
    """The route made a PDF without TeX errors, and nothing route-specific failed."""
    run = next(r for r in result.runs if r.route == route)
    clean = run.pdf is not None and not run.log.errors and not run.timed_out and not run.log_too_large
    return clean and not any(d.severity == ERROR and d.route == route for d in result.diagnostics)


def as_dict(check: Check) -> dict[str, Any]:
    up, primary = check.upload, check.primary
    diagnostics = check.diagnostics
    errors = [d for d in diagnostics if d.severity == ERROR]
    several = len(check.papers) > 1
    return {
        "ok": check.ok,
        "verdict": verdict(check),
        "path": up.source,
        "main": primary.upload.main,
        "mains": up.mains,
        "mains_from": up.mains_from,
        "other_mains": up.other_mains,
        "files": [{"main": p.upload.main, "ok": p.ok, "verdict": _paper_verdict(p),
                   "uses_pith": p.facts.uses_pith} for p in check.papers],
        "engine": check.engine,
        "auto_route": primary.auto_route,
        "compiler_from_00README": up.compiler,
        "routes": [_route_dict(p, run, several) for p in check.papers for run in p.runs],
        "pith": {"uses_pith": primary.facts.uses_pith, "number": primary.facts.number, "sty": primary.facts.sty},
        "counts": {"errors": len(errors), "warnings": len(diagnostics) - len(errors)},
        "diagnostics": [d.as_dict() for d in diagnostics],
    }


def _route_dict(result: Result, run: RouteRun, several: bool) -> dict[str, Any]:
    log = run.log
    out: dict[str, Any] = {"main": result.upload.main} if several else {}
    out.update({
        "route": run.route, "ok": route_ok(result, run.route), "pdf": run.pdf is not None,
        "runs": run.runs, "shared_first_pass": run.seeded, "seconds": round(run.seconds, 2),
        "timed_out": run.timed_out, "log_too_large": run.log_too_large and not run.files_too_large,
        "files_too_large": run.files_too_large,
        "errors": len(log.errors), "undefined_references": log.undefined_references,
        "undefined_citations": log.undefined_citations, "missing_characters": len(log.missing_characters),
        "overfull_boxes": log.overfull_boxes, "underfull_boxes": log.underfull_boxes,
        "pith": result.route_facts.get(run.route),
    })
    return out


def verdict(check: Check) -> str:
    diagnostics = check.diagnostics
    if check.ok:
        routes = ", ".join(r.route for r in check.primary.runs)
        pith = [p for p in check.papers if p.facts.uses_pith]
        tail = ""
        if pith and all(_intact(p) for p in pith):
            tail = "; " + _intact_words(pith) + (f" in {', '.join(p.upload.main for p in pith)}"
                                                 if len(check.papers) > 1 else "")
        each = "each " if len(check.papers) > 1 else ""
        return f"{each}arXiv-safe on {routes}{tail}"
    return failure(diagnostics)


def _paper_verdict(result: Result) -> str:
    if result.ok:
        return f"arXiv-safe on {', '.join(r.route for r in result.runs)}" + (
            "; " + _intact_words([result]) if _intact(result) else "")
    return failure(result.diagnostics)


def _intact(result: Result) -> bool:
    f = result.facts
    withheld = any((facts.get("badge") or {}).get("how") == "withheld" for facts in result.route_facts.values())
    return bool(f.uses_pith and f.number and f.metadata and f.badge != "none" and not withheld)


def _intact_words(results: list[Result]) -> str:
    """What the verdict may claim of pith: the badge too only when the page was read and its
    place judged on every route (without pdftotext, or a page it cannot read, nothing is known
    of the badge's place, so nothing is claimed of it)."""
    routes = [facts for r in results for facts in r.route_facts.values()]
    if all(facts.get("placement") is not None for facts in routes):
        return "pith badge and metadata intact"
    # (the key is there, empty, when pdftotext could not read the page; missing without a link)
    why = ("pdftotext could not read the page" if any("placement" in facts and facts["placement"] is None
                                                      for facts in routes) else "no badge link on its page")
    return f"pith metadata intact, the badge's place not judged ({why})"


def failure(diagnostics: list[Diagnostic]) -> str:
    """The verdict when there are errors: "would fail on arXiv" when one of them stops arXiv's
    compile; otherwise the faults they are, in words ("badge misplaced" when Info and XMP are
    there and only the badge's place is wrong; "loses pith metadata" ...)."""
    errors = [BY_ID[d.rule] for d in diagnostics if d.severity == ERROR]
    words = list(dict.fromkeys(rule.verdict for rule in errors))
    what = WOULD_FAIL if WOULD_FAIL in words else " and ".join(words)
    return f"{what} ({len(errors)} error{'s' if len(errors) != 1 else ''})"


def human(check: Check) -> str:
    up = check.upload
    head = "OK  " if check.ok else "FAIL"
    several = len(check.papers) > 1
    which = f"{len(check.papers)} top-level files, in arXiv's order: {', '.join(up.mains)}" if several else up.mains[0]
    if up.other_mains:
        which += f"; not checked: {', '.join(up.other_mains)}"
    lines = [f"{head} {up.source} ({which}): {verdict(check)}"]
    indent = "    " if several else "  "
    for paper in check.papers:
        if several:
            mark = "ok  " if paper.ok else "FAIL"
            lines.append(f"  {paper.upload.main}: {mark} {_paper_verdict(paper)}")
        lines += [indent + line for line in _route_lines(check, paper)]
        lines.append(indent + _pith_line(paper, several))
    grouped = _grouped(check.diagnostics)
    for d, routes in grouped[:MAX_SHOWN]:
        where = f"{d.where}  " if d.where else ""
        on = f" [{', '.join(routes)}]" if routes and len(check.primary.runs) > 1 else ""
        compiling = f" (compiling {d.main})" if d.main and d.main != d.file else ""
        lines.append(f"  {d.severity:<7} {where}{d.rule}: {d.message}{on}{compiling}")
        lines.append(f"          fix: {d.fix}")
    if len(grouped) > MAX_SHOWN:
        lines.append(f"  … and {len(grouped) - MAX_SHOWN} more (--json lists every one)")
    return "\n".join(map(safetext.line, lines))  # file names and TeX's words stay on their line


def _route_lines(check: Check, result: Result) -> list[str]:
    lines = []
    for run in result.runs:
        mark = "ok  " if route_ok(result, run.route) else "FAIL"
        log = run.log
        notes = [f"{log.overfull_boxes} overfull"] if log.overfull_boxes else []
        if (log.undefined_references or log.undefined_citations) and not log.errors:
            notes.append(f"{len(log.undefined_references) + len(log.undefined_citations)} undefined refs/cites")
        auto = " (arXiv's choice)" if run.route == result.auto_route and check.engine in ("auto", "all") else ""
        runs = f"{run.runs}+1 run(s)" if run.seeded else f"{run.runs} run(s)"
        lines.append(f"{run.route:<9} {mark} {runs:<10} {run.seconds:5.1f}s{auto}"
                     + (f"  [{', '.join(notes)}]" if notes else ""))
    return lines


def _pith_line(result: Result, several: bool = False) -> str:
    f = result.facts
    if not f.uses_pith:
        return "pith: not used by this file" if several else "pith: not used by this paper"
    head = f"pith:{f.number[:8]}…" if f.number else "no valid \\pithnumber"
    sty = f.sty or {}
    state = "current" if sty.get("version") == sty.get("ours") else f"ours is {sty.get('ours')}"
    head += f"  pith.sty {sty.get('version') or 'missing'} ({state})" if sty.get("uploaded") else "  pith.sty missing"
    by_state: dict[str, list[str]] = {}
    for route, facts in result.route_facts.items():
        by_state.setdefault(_pith_state(facts), []).append(route)
    tails = [f"{k} on {', '.join(v)}" for k, v in by_state.items()]
    return "pith: " + head + ("  " + "; ".join(tails) if tails else "")


def _pith_state(facts: dict[str, Any]) -> str:
    """What one route's PDF shows of pith, and where the badge landed (pith.sty's log line)."""
    placed: dict[str, Any] = facts.get("badge") or {}
    if placed.get("how") == "withheld":
        return f"badge and metadata withheld ({placed.get('why')})"
    page = placed.get("page") or 1
    link = bool(placed["linked"]) if "linked" in placed else bool(facts.get("page1_links"))
    where = {"title": f"badge under the title on p.{page}", "fallback": f"badge placed by pith's fallback on p.{page} "
             "(no title block found)", "manual": f"badge (\\pithbadge) on p.{page}"}.get(placed.get("how", ""),
                                                                          f"link on p.{page}")
    checks = [("Info", bool(facts.get("info"))), ("XMP", bool(facts.get("xmp"))), (where, link),
              ("margin clear", facts.get("left_band_clear"))]
    missing = [k for k, v in checks if not v]
    judged = facts.get("placement") or {}
    if judged.get("faults"):  # the page shows it elsewhere than the log line says: the PDF decides
        missing.append(f"a visible badge under the title on p.{judged.get('page')} (pith-badge-off-page/"
                       "misplaced below)")
    return ", ".join(k for k, _ in checks) if not missing else "missing: " + ", ".join(missing)


def _grouped(diags: list[Diagnostic]) -> list[tuple[Diagnostic, list[str]]]:
    """Errors before warnings; the same finding on several routes shown once."""
    groups: dict[tuple[object, ...], tuple[Diagnostic, list[str]]] = {}
    for d in diags:
        msg = d.message.split(": ", 1)[1] if d.route and d.message.startswith(d.route + ": ") else d.message
        key = (d.severity, d.rule, d.file, d.line, d.main, msg.replace(d.route or "\0", "ROUTE"))
        if key in groups:
            if d.route:  # (the same finding without a route adds none: joining None would fail)
                groups[key][1].append(d.route)
        else:
            groups[key] = (d, [d.route] if d.route else [])
    return sorted(groups.values(), key=lambda g: (g[0].severity != ERROR, g[0].route is not None,
                                                  g[0].file or "", g[0].line or 0))
