"""The Client: what the command line does, as methods a Python user calls the same way, with
what every verification shares (keys, resolver, offline, time-out, cache) held once.

Beside it, one subject a room: target.py (what an argument names), stamping.py (plans and
runs stamps, given a verify function), workers/ (each PDF read in a bounded worker process,
many files' verdicts). Each returns a typed
result (a NamedTuple of pithtex.value: cheap to define, which `stamp`'s start-up needs;
`dataclasses` would import `inspect` and friends) and raises one of `pithtex.errors`'
classes, each with its exit code; `pithtex.cli` only parses arguments, calls one of these
and prints. docs/library.md shows them by example.
"""

from __future__ import annotations

from pathlib import Path

from . import errors
from .errors import PithError, Refused, Undecidable
from .number import as_number, as_number_or_none
from .target import is_pdf, kind_of
from .value import TYPE_CHECKING, NamedTuple
from .workers.pool import FileVerdict

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence
    from typing import Any, Literal

    from . import verify as verifying
    from .arxiv.bundle import Bundle
    from .arxiv.check import Check
    from .arxiv.identify import Identity
    from .arxiv.ids import ArxivId
    from .arxiv.placement import Page
    from .number import PithNumber
    from .pdf.facts import Facts
    from .pdf.seen import PageOne
    from .pdf.view import PageView
    from .resolver import Fetched, Resolver
    from .stamping import Stamped, StampPlan
    from .trust import KeyRing
    from .verify import Report
    from .web.badge import BadgeState


# -- keys and the resolver ----------------------------------------------------------------
def keyring(keys_file: str | Path | None = None) -> KeyRing:
    """The pinned registry keys, plus a key file's (e.g. a mirror's); keys it may not add
    (a registry key's id) are in the ring's `refused`, for the caller to show."""
    from .trust import load_keys, pinned_keys

    keys = pinned_keys()
    if keys_file is None:
        return keys
    return keys.extended(load_keys(keys_file), source=str(keys_file))


# -- the client -----------------------------------------------------------------------------
class Verification(NamedTuple):
    """A verified (or not) record: the report, the record checked, and what it came from."""

    report: Report
    document: dict[str, Any] | None
    source: str  # what was verified, in words: a file, a URL, "PDF via URL"
    arxiv: ArxivId | None = None  # the arXiv id asked for, or the one the PDF shows
    resolved: PithNumber | None = None  # the number the resolver named for `arxiv`
    shows: Identity | None = None  # for a PDF: where it says which arXiv paper it is (its stamp, ...)
    file: str | None = None  # for a PDF: the file

    @property
    def verified(self) -> bool:
        return self.report.verified

    @property
    def exit_code(self) -> int:
        return self.report.exit_code

    @property
    def summary(self) -> str:
        """What holds, in one sentence: "verified: record pith:2017:... signed by KEY, a pinned
        Pith registry key; this PDF shows its title and arXiv's stamp 1706.03762v5"."""
        from .brand import STATE_OF_EXIT

        report = self.report
        if not report.verified:
            reasons = [c.detail for c in report.checks.values() if c.status == "fail"] or [
                c.detail for c in report.checks.values() if c.status == "unknown"]
            return f"{STATE_OF_EXIT[report.exit_code]}: {reasons[0] if reasons else 'nothing verified'}"
        said = f"verified: record {report.number.long} {report.signer}"
        shown = [what for what, name in (("its title", "paper"), (self.shows and self.shows.describe(), "arxiv"))
                 if what and report.checks.get(name) is not None and report.checks[name].status == "pass"]
        return said + (f"; this PDF shows {' and '.join(shown)}" if shown else "")

    def save(self, path: str | Path) -> bool:
        """Write the record, as verified, for a web page to serve (<pith-badge src=...>);
        nothing unless it verified. True when written."""
        import json

        from .files import write_atomic

        if not self.verified:
            return False
        write_atomic(path, json.dumps(self.document, ensure_ascii=False, indent=1) + "\n")
        return True

    def as_dict(self) -> dict[str, Any]:
        """The `pithtex verify --json` report."""
        out = self.report.as_dict()
        if self.arxiv is not None and self.resolved is not None:
            out = {**out, "arxiv": str(self.arxiv), "resolved_number": self.resolved.body}
        if self.file is not None:
            shows = self.shows and {"arxiv": str(self.shows.arxiv), "where": self.shows.where,
                                    "stamp": self.shows.stamp}
            out = {**out, "file": self.file, "shows": shows}
        return {**out, "summary": self.summary}


class _Once:
    """Each record verified once in a command: the resolver's cache asks whether a record holds
    (before reading or keeping it), the command then reports on the same record."""

    def __init__(self, keys: KeyRing, title: str | None) -> None:
        self.keys, self.title = keys, title
        self.seen: list[tuple[dict[str, Any], str, Report]] = []

    def report(self, number: PithNumber | None, document: dict[str, Any]) -> Report:
        from . import verify as verifying

        body = number.body if number else ""
        for held, held_body, report in self.seen:
            if held_body == body and (held is document or held == document):  # the same record, cached or fetched
                return report
        report = verifying.verify_document(document, self.keys, title=self.title, expect=number)
        self.seen.append((document, body, report))
        return report

    def holds(self, number: PithNumber, document: dict[str, Any]) -> bool:
        try:
            return self.report(number, document).verified
        except PithError:
            return False


class Client:
    """What every verification shares: the keys trusted, the resolver (its base URL, whether to
    work offline, its time-out) and its cache. `verify(target)` takes whatever a user names:
    a Pith Number, an arXiv id, a record file, a PDF or a folder of PDFs (as requests' Session
    holds what every request shares)."""

    def __init__(self, keys: KeyRing | str | Path | None = None, *, base_url: str | None = None,
                 offline: bool = False, timeout: float | None = None, cache: str | Path | None = None) -> None:
        self.keys = keyring(keys) if keys is None or isinstance(keys, (str, Path)) else keys
        self.base_url, self.offline, self.timeout = base_url, offline, timeout
        self.cache = None if cache is None else Path(cache)
        self._resolver: Resolver | None = None

    @property
    def resolver(self) -> Resolver:
        if self._resolver is None:
            from .resolver import Resolver

            self._resolver = Resolver(self.base_url, offline=self.offline, keys=self.keys, timeout=self.timeout,
                                      cache=self.cache)
        return self._resolver

    # -- one target ----------------------------------------------------------------------------
    def verify(self, target: str | Path | PithNumber | ArxivId, *, expect: PithNumber | str | None = None,
               title: str | None = None, record: str | Path | None = None,
               password: bytes | None = None) -> Verification:
        """Verify what `target` names (see `kind_of`); a folder is `verify_files`' to walk."""
        from .arxiv.ids import ArxivId
        from .number import PithNumber

        kind = target if isinstance(target, (PithNumber, ArxivId)) else kind_of(target)
        if record is not None and kind != "pdf":
            raise PithError(f"a record to check against is for a PDF; {target} is not a PDF")
        if isinstance(kind, ArxivId) or kind == "arxiv":
            return self.verify_arxiv(kind if isinstance(kind, ArxivId) else str(target), title=title, expect=expect)
        if isinstance(kind, PithNumber) or kind == "number":
            return self.verify_number(kind if isinstance(kind, PithNumber) else str(target), title=title,
                                      expect=expect, source=str(target))
        if kind == "pdf":
            return self.verify_pdf(Path(str(target)), record=record, title=title, expect=expect, password=password)
        if kind == "folder":
            raise PithError(f"{target} is a folder: verify its PDFs one by one (verify_files)")
        return self.verify_record(Path(str(target)), title=title, expect=expect)

    def verify_record(self, path: str | Path, *, title: str | None = None,
                      expect: PithNumber | str | None = None) -> Verification:
        """A record file, verified from its own contents (hash, number, the receipt's signature)."""
        from . import verify as verifying
        from .record import load_document

        document = load_document(path)
        report = verifying.verify_document(document, self.keys, title=title, expect=as_number_or_none(expect))
        return Verification(report, document, str(path))

    def verify_number(self, number: PithNumber | str, *, title: str | None = None,
                      expect: PithNumber | str | None = None, source: str | None = None) -> Verification:
        """A Pith Number's record, fetched from the resolver (or its cache) and checked like a file."""
        from . import verify as verifying

        number, once = as_number(number), _Once(self.keys, title)
        wanted = as_number_or_none(expect)
        if wanted is not None and wanted.body != number.body:
            raise PithError(f"{source or number.body} is {number.body}, but the number expected is {wanted.body}")
        fetched = self.resolver.fetch_record(number, once.holds)
        report = once.report(number, fetched.document)
        report.checks = {"fetch": verifying.Check("pass", fetched.detail), **report.checks}
        return Verification(report, fetched.document, fetched.url)

    def verify_arxiv(self, arxiv: ArxivId | str, *, title: str | None = None,
                     expect: PithNumber | str | None = None) -> Verification:
        """An arXiv id resolved to its Pith Number, whose record must hash to it and be of that paper."""
        from . import verify as verifying
        from .arxiv.ids import ArxivId

        asked = ArxivId.parse(arxiv) if isinstance(arxiv, str) else arxiv
        once = _Once(self.keys, title)
        number, fetched, report = self._resolve(asked, once)
        wanted = as_number_or_none(expect)
        resolve = verifying.Check("pass", f"the resolver names {number.body} for {asked.prefixed}")
        if wanted and wanted.body != number.body:
            resolve = verifying.Check("fail", f"the resolver names {number.body} for {asked.prefixed}, "
                                              f"not {wanted.body}")
        report.checks = {"resolve": resolve, **report.checks}
        return Verification(report, fetched.document, f"{asked.prefixed} via {fetched.url}", asked, number)

    def verify_pdf(self, path: str | Path, *, record: str | Path | None = None, title: str | None = None,
                   expect: PithNumber | str | None = None, password: bytes | None = None,
                   view: PageView | None = None) -> Verification:
        """A PDF: the record of the number it carries, or (none carried) of the arXiv paper it
        shows (arXiv's stamp, its own link or DOI), or `record`; verified, and the PDF shown to
        be that paper (its visible title; the stamp's id and version are the record's). `view`:
        the PDF as already read (pdf/view.py), not read again."""
        from . import verify as verifying

        path = Path(path)
        if view is None:
            view = _read_pdf(path, password)
        facts, shown = view.facts, view.shown
        shows = identify_page(facts, view.page)
        carried, wanted, once = _carried(facts, path), as_number_or_none(expect), _Once(self.keys, title)
        if wanted is not None and carried is not None and wanted.body != carried.body:
            raise PithError(f"{path} is {carried.body}, but the number expected is {wanted.body}")
        resolved = None
        if record is not None:
            from .record import load_document

            document = load_document(record)
            report, source = once.report(carried or wanted, document), f"{path} with {record}"
        elif carried is not None or shows is None:
            if carried is None:
                raise Undecidable(f"{path}: cannot tell which record this PDF is: it carries no Pith Number "
                                  "(no /PithNumber, XMP or pith link) and shows no arXiv stamp, arXiv link or "
                                  "arXiv DOI of its own (a journal's or conference's copy has none)")
            fetched = self.resolver.fetch_record(carried, once.holds)
            document, source = fetched.document, f"{path} via {fetched.url}"
            report = once.report(carried, document)
            report.checks = {"fetch": verifying.Check("pass", fetched.detail), **report.checks}
        else:
            resolved, fetched, report = self._resolve(shows.arxiv, once, wanted)
            document, source = fetched.document, f"{path} via {fetched.url}"
        if shows is not None:
            _after_expected(report, "arxiv", shows_check(canonical_of_or_empty(document), shows))
        report.checks["paper"] = verifying.check_paper(document, shown, title)
        return Verification(report, document, source, shows and shows.arxiv, resolved, shows, str(path))

    # -- many files ----------------------------------------------------------------------------
    def verify_files(self, targets: Iterable[str | Path], *, password: bytes | None = None,
                     progress: Callable[[int, str], None] | None = None, jobs: int = 1) -> Iterator[FileVerdict]:
        """Each PDF named, and each PDF in each folder named (its tree, in name order), one
        verdict each, in that order, as they come: nothing of one file is kept for the next.
        `jobs` > 1: that many worker processes at a time, each a copy of this client forked for
        one file (on Linux, with no other thread running: else the files are read here, one by
        one). A file whose worker dies is "unchecked", a folder that cannot be listed is a line
        of its own: the walk goes on (pithtex/workers/pool.py)."""
        from .workers.pool import verdicts

        yield from verdicts(self.verdict, self.timeout, targets, password, progress, jobs)

    def verdict(self, path: Path, password: bytes | None = None) -> FileVerdict:
        """One PDF's verdict line; what goes wrong with it (a PithError) is its line too."""
        from .brand import STATE_OF_EXIT

        try:
            checked = self.verify_pdf(path, password=password)
        except PithError as exc:
            from .resolver import ResolverError

            word = STATE_OF_EXIT.get(exc.exit_code, "error") if exc.exit_code != errors.BAD_INPUT else "error"
            failed = exc if isinstance(exc, ResolverError) else None  # it names the paper it was fetching
            return FileVerdict(str(path), str(failed.arxiv) if failed and failed.arxiv else None,
                               failed.number if failed else None, word, exc.exit_code, f"{word}: {exc}")
        arxiv = checked.arxiv or _source_id(checked.document)
        return FileVerdict(str(path), arxiv and str(arxiv), checked.report.number,
                           STATE_OF_EXIT[checked.exit_code], checked.exit_code, checked.summary)

    # -- stamp and badge --------------------------------------------------------------------------
    def plan_stamp(self, pdfs: Sequence[str | Path], **options: Any) -> StampPlan:
        """`stamping.plan_stamp` (its keywords), a PDF stamped by name only identified by what it
        shows and its record verified by this client: stamped only when it verified."""
        from .stamping import plan_stamp

        return plan_stamp(pdfs, verify=self._verify_shown, **options)

    def stamp(self, plan: StampPlan, progress: bool = False) -> Stamped:
        """Run a plan: one file here (its failure raised), several on `plan.jobs` workers."""
        from .stamping import stamp

        return stamp(plan, progress)

    def _verify_shown(self, path: Path, password: bytes | None, view: PageView | None = None) -> Verification | None:
        """A PDF verified by the arXiv paper it shows; None when it shows none of its own.
        `view`: the PDF as already read (pdf/view.py), not read again."""
        if view is None:
            view = _read_pdf(path, password)
        if identify_page(view.facts, view.page) is None:
            return None
        return self.verify_pdf(path, password=password, view=view)

    def badge(self, target: str | Path | PithNumber | ArxivId, *, record: str | Path | None = None) -> Badge:
        """The badge of what `target` names, its state from one verification: a PDF's (its
        number or arXiv identity, and the PDF shown to be that paper), an arXiv id's (its
        resolved number), or a number's (its record from `record`, else the resolver; a
        record that cannot be had makes it 'unchecked', a missing record file is an error)."""
        from . import brand
        from .arxiv.ids import ArxivId
        from .number import PithNumber
        from .web.badge import BadgeState

        if isinstance(target, ArxivId) or (not isinstance(target, PithNumber) and kind_of(target) in ("pdf", "arxiv")):
            checked = self.verify(target)
            number = checked.resolved or checked.report.number
            return Badge(number, state_of(checked.report, number))
        number = as_number(str(target) if isinstance(target, Path) else target)
        try:
            checked = self.verify_record(record, expect=number) if record is not None else self.verify_number(number)
        except PithError as exc:
            if record is not None and not Path(record).exists():
                raise
            return Badge(number, BadgeState(brand.UNCHECKED, str(exc)))
        return Badge(number, state_of(checked.report, number))

    def inspect(self, path: str | Path, password: bytes | None = None, *, locked_ok: bool = False) -> Facts:
        """Everything pith in a PDF: see `inspect` (nothing of it needs the keys or the resolver)."""
        return inspect(path, password, locked_ok=locked_ok)

    # -- the resolver ----------------------------------------------------------------------------
    def _resolve(self, asked: ArxivId, once: _Once, wanted: PithNumber | None = None
                 ) -> tuple[PithNumber, Fetched, Report]:
        """The number the resolver names for `asked` and its record, verified once; the answer is
        kept for working offline only when the record verified and is of that paper."""
        from . import verify as verifying
        from .arxiv.ids import source_problem

        number, fetched = self.resolver.fetch_arxiv(asked, once.holds)
        report = once.report(number, fetched.document)
        report.checks = {"fetch": verifying.Check("pass", fetched.detail), **report.checks}
        record = canonical_of_or_empty(fetched.document)
        _after_expected(report, "arxiv", verifying.Check(*source_problem(record, asked)))
        if wanted is not None:
            report.checks["expected"] = verifying.Check(*_same(wanted, number, asked))
        if report.verified:
            self.resolver.remember_arxiv(asked, number, fetched)
        return number, fetched, report


def _read_pdf(path: Path, password: bytes | None) -> PageView:
    """A PDF read once (pdf/view.py: its pith facts, what it shows as its title, page 1 as a
    reader sees it), refused when it is locked; a web page saved as .pdf is refused in one sentence."""
    from .pdf.facts import refuse_locked
    from .workers.bounded import read_view

    is_pdf(path)
    view = read_view(path, password)  # in a bounded worker: Stopped (exit 3) when it dies
    refuse_locked(view.facts, path)
    return view


def identify_page(facts: Facts, page: PageOne) -> Identity | None:
    """Which arXiv paper the PDF says it is: its stamp, page-1 link or DOI (arxiv/identify.py)."""
    from .arxiv.identify import identify

    xmp = facts.xmp_packet.decode("utf-8", "replace") if facts.xmp_packet else None
    return identify(page.stamp, page.uris, facts.titles.values(), xmp, None if page.problem else page.text)


def shows_check(record: dict[str, Any], shows: Identity) -> verifying.Check:
    """The id the PDF shows (arXiv's stamp, ...) must be the record's source id, and its version
    too whenever both name one."""
    from . import verify as verifying
    from .arxiv.ids import record_source

    paper, version = record_source(record)
    shown = shows.describe()
    if paper is None:
        return verifying.Check("fail", f"the PDF shows {shown}, but the record names no arXiv paper")
    named = f"arXiv:{paper}" + (f"v{version}" if version else "")
    if paper != shows.arxiv.paper:
        return verifying.Check("fail", f"the PDF shows {shown}, but the record is of {named}")
    if shows.arxiv.version is not None and version is not None and version != shows.arxiv.version:
        return verifying.Check("fail", f"the PDF shows {shown} (version {shows.arxiv.version}), but the record "
                                       f"is of version {version} ({named}): another version of the paper")
    return verifying.Check("pass", f"the PDF shows {shown}, the record's paper ({named})")


def canonical_of_or_empty(document: dict[str, Any]) -> dict[str, Any]:
    from .record import canonical_of

    try:
        return canonical_of(document)
    except PithError:
        return {}


def _source_id(document: dict[str, Any] | None) -> str | None:
    from .arxiv.ids import record_source

    paper, version = record_source(canonical_of_or_empty(document or {}))
    return paper and paper + (f"v{version}" if version else "")


def _carried(facts: Facts, path: Path) -> PithNumber | None:
    """The one Pith Number the PDF carries, None when it carries none; Refused when its
    sources disagree."""
    if facts.number is None:
        return None
    return _number_of(facts, path)


def _same(wanted: PithNumber, number: PithNumber, asked: ArxivId) -> tuple[Literal["pass", "fail"], str]:
    if wanted.body != number.body:
        return "fail", f"the resolver names {number.body} for {asked.prefixed}, not {wanted.body}"
    return "pass", f"the resolver names {number.body} for {asked.prefixed}, the number expected"


def _after_expected(report: Report, name: str, check: verifying.Check) -> None:
    """Put (or replace) a check right after the record's own checks on its number, where a
    reader looks for what the record is of."""
    checks = {key: value for key, value in report.checks.items() if key != name}
    keys = list(checks)
    at = keys.index("expected") + 1 if "expected" in keys else len(keys)
    report.checks = {**dict(list(checks.items())[:at]), name: check, **dict(list(checks.items())[at:])}


def pdf_number(path: str | Path, password: bytes | None = None) -> PithNumber:
    """The one Pith Number a PDF carries; Refused when it is locked or its sources disagree,
    Undecidable when it carries none."""
    return _number_of(inspect(path, password), path)


def _number_of(facts: Facts, path: str | Path) -> PithNumber:
    number = facts.number
    if number is None:
        raise Undecidable(f"{path}: the PDF carries no Pith Number (no /PithNumber, XMP or pith link)")
    if not facts.agree:
        listed = ", ".join(f"{where} {n.body}" for where, n in facts.sources.items())
        raise Refused(f"{path}: the PDF names different Pith Numbers ({listed})")
    return number


def inspect(path: str | Path, password: bytes | None = None, *, locked_ok: bool = False) -> Facts:
    """Everything pith in a PDF (`Facts`); Refused for an encrypted file that does not open,
    unless `locked_ok` (then `facts.encryption` says why nothing else was read)."""
    from .pdf.facts import facts_of, refuse_locked

    facts = facts_of(path, password)
    if not locked_ok:
        refuse_locked(facts, path)
    return facts


# -- badge ----------------------------------------------------------------------------------
class Badge(NamedTuple):
    """A badge's number and state (its word from a verification, or none when nothing was checked)."""

    number: PithNumber
    state: BadgeState

    @property
    def exit_code(self) -> int:
        return self.state.exit_code

    @staticmethod
    def plain(number: PithNumber | str) -> Badge:
        """A badge with nothing checked: no state word."""
        from .web.badge import BadgeState

        return Badge(as_number(number), BadgeState())


def badge_state(number: PithNumber, document: dict[str, Any] | None, keys: KeyRing | None = None) -> BadgeState:
    """Verify `document` (when given) for `number`; 'verified' needs a passing report for this number."""
    from .verify import verify_document
    from .web.badge import BadgeState

    if document is None:
        return BadgeState()
    return state_of(verify_document(document, keys, expect=number), number)


def state_of(report: Report, number: PithNumber) -> BadgeState:
    """The badge's state word for a report: 'verified' only when it passed for this number (a
    record of another number that verified is this number's forgery: invalid)."""
    from . import brand
    from .web.badge import BadgeState, state_of_report

    if report.verified and report.number.body != number.body:
        return BadgeState(brand.INVALID, f"the record is {report.number.body}, not {number.body}", report.key_id)
    return state_of_report(report)


# -- check and bundle a paper ------------------------------------------------------------------
def check_arxiv(path: str | Path, *, engine: str = "auto", timeout: float | None = None,
                mains: list[str] | None = None, log_cap: int | None = None) -> Check:
    """Would this paper (a folder, .tex, .zip or .tar.gz) pass arXiv with its pith metadata?
    A `Check`: `.ok`, `.diagnostics`; `arxiv.report.as_dict(check)` is the `--json` report."""
    from .arxiv import sandbox
    from .arxiv.check import check_path

    return check_path(path, engine=engine, timeout=sandbox.DEFAULT_TIMEOUT if timeout is None else timeout, mains=mains,
                      log_cap=sandbox.LOG_CAP if log_cap is None else log_cap, read=_bounded_page)


def bundle_arxiv(path: str | Path, output: str | Path, *, engine: str = "auto", timeout: float | None = None,
                 mains: list[str] | None = None, log_cap: int | None = None) -> Bundle:
    """The arXiv upload of a paper (.tar.gz of the files its compile used), then checked:
    a `Bundle` whose `.verdict` is the `Check` of the archive."""
    from .arxiv import sandbox
    from .arxiv.bundle import bundle

    timeout = sandbox.DEFAULT_TIMEOUT if timeout is None else timeout
    return bundle(path, output, engine=engine, timeout=timeout, mains=mains,
                  log_cap=sandbox.LOG_CAP if log_cap is None else log_cap, read=_bounded_page)


def _bounded_page(pdf: Path, index: int) -> Page:
    """A compiled paper's page as check judges it, read as verify reads a PDF: in a bounded
    worker (a PDF that kills its reader costs the badge's judgement, not the check)."""
    from .arxiv.placement import page_read_by
    from .workers.bounded import read_view

    return page_read_by(read_view, pdf, index)
