"""A publication list's I/O: read its file, then check every paper, a few at a time.

Each paper is `pithtex verify`'s use-case (`Client.verify_arxiv` / `Client.verify_number`), whose
every fetch has the resolver's one wall-clock deadline; the pool bounds how many run at once,
so a list of 300 papers neither opens 300 connections nor waits for one paper at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any, Protocol

from .. import brand, errors
from ..errors import InputError, PithError
from .badge import state_of_report
from .publist import Checked, Skipped, Wanted, entry_mismatch, is_bib, read_list


class Client(Protocol):
    """What a list is checked with: a pithtex.client.Client, named by what is used of it (the
    web room stands below the client, which draws its badges)."""

    keys: Any

    def verify_arxiv(self, arxiv: Any) -> Any: ...

    def verify_number(self, number: Any) -> Any: ...

JOBS = 6  # papers checked at once
MAX_LIST_BYTES = 8 * 1024 * 1024  # a BibTeX file of thousands of entries; /dev/zero is not one


def load_list(path: Path) -> tuple[list[Wanted], list[Skipped]]:
    """The papers a list or .bib file names (see publist.read_list); InputError for an unreadable one."""
    from ..files import read_input

    try:
        data = read_input(path, MAX_LIST_BYTES, "a list of papers")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file (a publication list is a list of papers or a .bib file)") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start:,}); a publication list is a text "
                         "or .bib file") from None
    return read_list(text, str(path), is_bib(path.name, text))


def check_one(wanted: Wanted, client: Client) -> Checked:
    """One paper's outcome; a failure to resolve or fetch is 'unchecked', a verifiable one 'invalid'."""
    try:
        if wanted.arxiv is not None:
            checked = client.verify_arxiv(wanted.arxiv)
            number = checked.resolved
        else:
            assert wanted.number is not None
            checked = client.verify_number(wanted.number)
            number = checked.report.number
    except PithError as exc:  # resolver down, no such paper, an unreadable answer: said in one line
        word = brand.INVALID if exc.exit_code == errors.FAILED else brand.UNCHECKED
        return Checked(wanted, word, str(exc))
    report = checked.report
    state = state_of_report(report)  # the one reading of a report's word and first failed check
    if not state.verified:
        return Checked(wanted, str(state.word), state.reason, number)
    wrong = entry_mismatch(wanted, report.title)
    if wrong is not None:  # a verified record of another paper is no badge for this entry
        return Checked(wanted, brand.INVALID if report.title else brand.UNCHECKED, wrong, number)
    key = client.keys.get(report.key_id) if report.key_id else None
    return Checked(wanted, str(state.word), state.reason, number, checked.document, report.title, report.signer,
                   added_key=key is not None and not key.registry)


def check_all(papers: list[Wanted], client: Client, *, jobs: int = JOBS,
              done: Callable[[Checked], None] | None = None) -> list[Checked]:
    """Every paper's outcome, in the list's order, checked by one `client` (each fetch opens its
    own connection, so the threads share nothing mutable); `done` is called as each one ends."""
    results: dict[int, Checked] = {}
    with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(papers)))) as pool:
        futures = {pool.submit(check_one, paper, client): i for i, paper in enumerate(papers)}
        try:
            for future in as_completed(futures):
                results[futures[future]] = outcome = future.result()
                if done is not None:
                    done(outcome)
        except BaseException:  # Ctrl-C, or a bug in one check: start no more (those running end by their deadline)
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    return [results[i] for i in range(len(papers))]


def exit_code(papers: list[Checked]) -> int:
    """The list's exit code: 1 when some verifiably failed, else 3 when some could not be decided."""
    words = {p.word for p in papers}
    if brand.INVALID in words:
        return errors.FAILED
    return errors.UNDECIDED if brand.UNCHECKED in words else errors.OK
