"""A publication list's I/O: read its file, then check every paper, a few at a time.

A .bib is split in a worker process under CPU, memory and time limits (`parse_bounded`).
Each paper is `pithtex verify`'s use-case (`Client.verify_arxiv` / `Client.verify_number`), whose
every fetch has the resolver's one wall-clock deadline; JOBS threads bound how many run at once,
so a list of 300 papers neither opens 300 connections nor waits for one paper at a time. When
the resolver cannot be reached, `Kept` stands in with what verified before.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

from .. import brand, errors
from ..errors import InputError, InvalidNumber, PithError
from ..number import PithNumber
from . import bibtex
from .badge import state_of_report
from .publist import INDEX, Checked, Skipped, Wanted, entry_mismatch, index_names, is_bib, read_list, record_path


class Client(Protocol):
    """What a list is checked with: a pithtex.client.Client, named by what is used of it (the
    web room stands below the client, which draws its badges)."""

    keys: Any

    @property
    def resolver(self) -> Any: ...  # its cached_verified_at(number): when the cache's copy verified

    def verify_arxiv(self, arxiv: Any) -> Any: ...

    def verify_number(self, number: Any) -> Any: ...

    def verify_record(self, path: Any, *, expect: Any = None) -> Any: ...

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
    return read_list(text, str(path), is_bib(path.name, text), parse=parse_bounded)


# A .bib is untrusted: it is split in a worker process under these limits, so a file that
# drives the parser into quadratic time or memory costs one clear line, not the machine.
BIB_CPU_SECONDS = 30
BIB_WALL_SECONDS = 120  # a busy machine shares its cores; CPU time is the real bound
BIB_MEMORY = 2 * 1024**3
MAX_BIB_ANSWER = 64 * 1024 * 1024  # entries of at most 8 MiB, @strings expanded within their budget


def parse_bounded(text: str, name: str) -> list[bibtex.Entry]:
    """bibtex.entries(text, name), run in a worker under CPU, memory and time limits;
    InputError (one line) when it is refused or exceeds them."""
    import subprocess
    import sys
    import tempfile

    def limit() -> None:  # in the worker, before it runs
        import resource

        resource.setrlimit(resource.RLIMIT_CPU, (BIB_CPU_SECONDS, BIB_CPU_SECONDS))
        resource.setrlimit(resource.RLIMIT_AS, (BIB_MEMORY, BIB_MEMORY))

    cmd = [sys.executable, "-m", "pithtex.web.bibtex", name]
    with tempfile.TemporaryFile() as answer:
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=answer, stderr=subprocess.DEVNULL,
                                preexec_fn=limit)
        try:
            proc.communicate(text.encode("utf-8"), timeout=BIB_WALL_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        finally:
            if proc.poll() is None:  # Ctrl-C while it ran: it goes too
                proc.kill()
                proc.wait()
        size = answer.seek(0, 2)
        answer.seek(0)
        data = answer.read(MAX_BIB_ANSWER) if proc.returncode == 0 and size <= MAX_BIB_ANSWER else b""
    if not data:
        raise InputError(f"{name}: reading it took more than the {BIB_CPU_SECONDS} s of CPU, "
                         f"{BIB_WALL_SECONDS} s or {BIB_MEMORY // 1024**3} GiB a .bib may take; not a BibTeX "
                         "file pithtex can read")
    found = json.loads(data)
    if "error" in found:
        raise InputError(str(found["error"]))
    return [bibtex.Entry(kind, key, line, fields) for kind, key, line, fields in found["entries"]]


def check_one(wanted: Wanted, client: Client, kept: Kept | None = None) -> list[Checked]:
    """One paper's outcome for its entry and each of its `twins` (BibTeX entries naming the same
    paper: fetched once, each compared with its own title); a failure to resolve or fetch is
    'unchecked', a verifiable one 'invalid'. When the resolver cannot be reached, `kept` stands
    in with a copy that verified before."""
    entries = (wanted, *wanted.twins)
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
        earlier = [kept.check(entry, str(exc), wanted) if word == brand.UNCHECKED and kept is not None else None
                   for entry in entries]
        return [found or Checked(entry, word, str(exc)) for entry, found in zip(entries, earlier, strict=True)]
    when = _now()
    return [outcome(entry, checked, number, client.keys, when) for entry in entries]


def outcome(wanted: Wanted, checked: Any, number: Any, keys: Any, verified_at: str | None,
            kept: str = "") -> Checked:
    """A verification (`Client.verify_*`'s answer) as the list's outcome for `wanted`: verified
    only when the record verified and is the paper the entry names (its title)."""
    report = checked.report
    state = state_of_report(report)  # the one reading of a report's word and first failed check
    if not state.verified:
        return Checked(wanted, str(state.word), state.reason, number)
    paper = (checked.document or {}).get("paper")
    authors = paper.get("authors_text") if isinstance(paper, dict) else None
    wrong = entry_mismatch(wanted, report.title, authors if isinstance(authors, str) else None)
    if wrong is not None:  # a verified record of another paper is no badge for this entry
        return Checked(wanted, brand.INVALID if report.title else brand.UNCHECKED, wrong, number)
    key = keys.get(report.key_id) if report.key_id else None
    return Checked(wanted, str(state.word), state.reason, number, checked.document, report.title, report.signer,
                   added_key=key is not None and not key.registry, verified_at=verified_at, kept=kept)


def _now(at: float | None = None) -> str:
    """A time (now, or the Unix time `at`) as pith.json writes it: UTC, ISO 8601, to the second."""
    moment = datetime.now(timezone.utc) if at is None else datetime.fromtimestamp(at, timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


class Kept:
    """Records that verified before, for when the resolver cannot be reached: the output folder's
    (its pith.json names each paper's number and when it verified; records/ holds the record),
    then the resolver's cache (an offline client). Each is verified again, offline, as a fresh
    one would be: hash, signature, the paper asked for, the entry's title. Records are content-
    addressed, so a copy that verifies is as good as a fresh one: only its age is said."""

    def __init__(self, folder: Path, offline: Client) -> None:
        self.folder, self.offline = folder, offline
        self.index = _read_index(folder / INDEX)

    def check(self, wanted: Wanted, failure: str, asked: Wanted | None = None) -> Checked | None:
        """`wanted` from a copy that verified before, verified again offline; None when none does.
        `asked`: the entry whose id was fetched for it (a twin's first entry; default: itself)."""
        asked = asked or wanted
        return self._from_folder(wanted, asked) or self._from_cache(wanted, asked)

    def _entry(self, wanted: Wanted, asked: Wanted) -> dict[str, Any] | None:
        """The earlier run's index entry of a verified record for `wanted`: under one of its
        names, else any that verified as the same paper (an entry that was invalid, its title
        another paper's, is compared again with the record its id names)."""
        for name in index_names(wanted):
            if name in self.index and self.index[name].get("state") == brand.VERIFIED:
                return self.index[name]
        same = ("arxiv", asked.arxiv.paper) if asked.arxiv else ("number", asked.number.body if asked.number else "")
        return next((e for e in self.index.values() if e.get("state") == brand.VERIFIED and e.get(same[0]) == same[1]),
                    None)

    def _from_folder(self, wanted: Wanted, asked: Wanted) -> Checked | None:
        from ..arxiv.ids import source_problem
        from ..record import canonical_of

        entry = self._entry(wanted, asked)
        number = _number_of(entry)
        if entry is None or number is None:
            return None
        path = self.folder / record_path(number)
        try:
            checked = self.offline.verify_record(path, expect=number)
            if (asked.arxiv is not None and checked.report.verified
                    and source_problem(canonical_of(checked.document), asked.arxiv)[0] != "pass"):
                return None
        except PithError:  # the copy is gone or unreadable: it cannot stand in
            return None
        when = entry.get("verified_at") if isinstance(entry.get("verified_at"), str) else None
        age = _age(when) if when else f"at an unknown time ({INDEX} gives no verified_at for it)"
        note = f"the resolver could not be reached; used {path}, which verified {age}"
        result = outcome(wanted, checked, number, self.offline.keys, when, note)
        return _kept(checked, result)

    def _from_cache(self, wanted: Wanted, asked: Wanted) -> Checked | None:
        try:
            if asked.arxiv is not None:
                checked = self.offline.verify_arxiv(asked.arxiv)
                number = checked.resolved
            else:
                assert asked.number is not None
                checked = self.offline.verify_number(asked.number)
                number = checked.report.number
        except PithError:  # not in the cache either
            return None
        since = self.offline.resolver.cached_verified_at(number) if number is not None else None
        when = _now(since) if since is not None else None
        age = (f"which verified {_age(when)}" if when else
               "which verified at an unknown time (its cache entry, written by an older pithtex, gives no "
               "verified_at)")
        note = f"the resolver could not be reached; used the copy in the resolver's cache, {age}"
        result = outcome(wanted, checked, number, self.offline.keys, when, note)
        return _kept(checked, result)


def _kept(checked: Any, result: Checked) -> Checked | None:
    """What a copy that verified before says for an entry: verified, or invalid when the record
    verified but is another paper than the entry names (an outage does not turn that into
    unchecked); None when the copy itself no longer verifies (it cannot stand in)."""
    if result.verified or (checked.report.verified and result.word == brand.INVALID):
        return result
    return None


def _read_index(path: Path) -> dict[str, dict[str, Any]]:
    """An earlier run's pith.json papers, or nothing (missing, or not one this tool wrote)."""
    from ..files import read_input

    try:
        document = json.loads(read_input(path, MAX_LIST_BYTES, "an index").decode("utf-8"))
    except (OSError, InputError, UnicodeDecodeError, ValueError, RecursionError):
        return {}
    papers = document.get("papers") if isinstance(document, dict) else None
    if not isinstance(papers, dict):
        return {}
    return {k: v for k, v in papers.items() if isinstance(k, str) and isinstance(v, dict)}


def _number_of(entry: dict[str, Any] | None) -> PithNumber | None:
    try:
        return PithNumber.parse(str(entry["number"])) if entry and entry.get("number") else None
    except InvalidNumber:
        return None


def _age(when: str) -> str:
    """How long ago an ISO 8601 UTC time was, in words ("3 days ago"); the time itself when unreadable."""
    try:
        then = datetime.strptime(when, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    except ValueError:
        return "at an unknown time"
    seconds = max(0, int((datetime.now(timezone.utc) - then).total_seconds()))
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            count = seconds // size
            return f"{count} {unit}{'s' if count != 1 else ''} ago ({when})"
    return f"moments ago ({when})"


def check_all(papers: list[Wanted], client: Client, *, jobs: int = JOBS,
              done: Callable[[Checked], None] | None = None, kept: Kept | None = None) -> list[Checked]:
    """Every entry's outcome (a paper's `twins` too), in the list's order, checked by one `client` (each fetch opens its
    own connection, so the threads share nothing mutable); `done` is called as each one ends.

    The checks run on daemon threads, not a ThreadPoolExecutor: its shutdown, and the
    interpreter's exit, join every worker, so Ctrl-C waited for the fetches in flight to reach
    their deadline (18 s by default, up to PITH_TIMEOUT). A daemon thread is abandoned at exit:
    what it was fetching is not needed, and nothing it writes is kept unless complete (the
    cache's writes are atomic)."""
    todo: queue.SimpleQueue[tuple[int, Wanted]] = queue.SimpleQueue()
    for item in enumerate(papers):
        todo.put(item)
    finished: queue.SimpleQueue[tuple[int, list[Checked] | BaseException]] = queue.SimpleQueue()
    stop = threading.Event()

    def work() -> None:
        while not stop.is_set():
            try:
                index, paper = todo.get_nowait()
            except queue.Empty:
                return
            try:
                finished.put((index, check_one(paper, client, kept)))
            except BaseException as exc:  # a bug in a check: handed to the main thread, which raises it
                finished.put((index, exc))

    for _ in range(max(1, min(jobs, len(papers)))):
        threading.Thread(target=work, name="pithtex-list-check", daemon=True).start()
    results: dict[int, list[Checked]] = {}
    try:
        while len(results) < len(papers):
            index, result = finished.get()  # Ctrl-C interrupts this wait at once
            if isinstance(result, BaseException):
                raise result
            results[index] = result
            if done is not None:
                done(result[0])
    finally:
        stop.set()  # Ctrl-C or a bug: start no more checks; those in flight are abandoned
    # each entry where the file names it: a twin after the entries between it and its first
    return sorted((c for i in range(len(papers)) for c in results[i]), key=lambda c: c.wanted.line)


def exit_code(papers: list[Checked]) -> int:
    """The list's exit code: 1 when some verifiably failed, else 3 when some could not be decided."""
    words = {p.word for p in papers}
    if brand.INVALID in words:
        return errors.FAILED
    return errors.UNDECIDED if brand.UNCHECKED in words else errors.OK
