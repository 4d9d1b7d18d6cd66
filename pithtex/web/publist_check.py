"""Check every paper of a publication list: resolve and verify each, a few at a time.

Each paper is `pithtex verify`'s use-case (`app.verify_arxiv` / `app.verify_number`), whose
every fetch has the resolver's one wall-clock deadline; the pool bounds how many run at once,
so a list of 300 papers neither opens 300 connections nor waits for one paper at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any

from .. import brand, errors
from ..errors import PithError
from .publist import Checked, Wanted

JOBS = 6  # papers checked at once


def check_one(wanted: Wanted, keys: Any, base_url: str | None, offline: bool) -> Checked:
    """One paper's outcome; a failure to resolve or fetch is 'unchecked', a verifiable one 'invalid'."""
    from .. import app

    try:
        if wanted.arxiv is not None:
            checked = app.verify_arxiv(wanted.arxiv, keys, base_url=base_url, offline=offline)
            number = checked.resolved
        else:
            assert wanted.number is not None
            checked = app.verify_number(wanted.number, keys, base_url=base_url, offline=offline)
            number = checked.report.number
    except PithError as exc:  # resolver down, no such paper, an unreadable answer: said in one line
        word = brand.INVALID if exc.exit_code == errors.FAILED else brand.UNCHECKED
        return Checked(wanted, word, str(exc))
    report = checked.report
    word = brand.STATE_OF_EXIT[report.exit_code]
    if word != brand.VERIFIED:
        wanted_status = "fail" if word == brand.INVALID else "unknown"
        problems = [f"{name}: {c.detail}" for name, c in report.checks.items() if c.status == wanted_status]
        return Checked(wanted, word, problems[0] if problems else "the record did not verify", number)
    key = keys.get(report.key_id) if report.key_id else None
    return Checked(wanted, word, report.signer or "", number, checked.document, report.title, report.signer,
                   added_key=key is not None and not key.registry)


def check_all(papers: list[Wanted], keys: Any, *, base_url: str | None = None, offline: bool = False,
              jobs: int = JOBS, done: Callable[[Checked], None] | None = None) -> list[Checked]:
    """Every paper's outcome, in the list's order; `done` is called as each one ends."""
    results: dict[int, Checked] = {}
    with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(papers)))) as pool:
        futures = {pool.submit(check_one, paper, keys, base_url, offline): i for i, paper in enumerate(papers)}
        for future in as_completed(futures):
            results[futures[future]] = outcome = future.result()
            if done is not None:
                done(outcome)
    return [results[i] for i in range(len(papers))]


def exit_code(papers: list[Checked]) -> int:
    """The list's exit code: 1 when some verifiably failed, else 3 when some could not be decided."""
    words = {p.word for p in papers}
    if brand.INVALID in words:
        return errors.FAILED
    return errors.UNDECIDED if brand.UNCHECKED in words else errors.OK
