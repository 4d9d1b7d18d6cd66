"""The use-cases: what the command line does, as functions a Python user calls the same way.

Each returns a typed result (a NamedTuple of pithtex.value: cheap to define, which `stamp`'s
start-up needs; `dataclasses` would import `inspect` and friends) and raises one of
`pithtex.errors`' classes, each with its exit code; `pithtex.cli` only parses arguments, calls one of these and prints.
docs/library.md shows them by example.
"""

from __future__ import annotations

from pathlib import Path

from . import errors
from .errors import PithError, Refused, Undecidable
from .value import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from .arxiv.bundle import Bundle
    from .arxiv.check import Check
    from .arxiv.ids import ArxivId
    from .number import PithNumber
    from .pdf.batch import Task
    from .pdf.facts import Facts
    from .pdf.stamp import Options
    from .resolver import Resolver
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


def open_resolver(base_url: str | None = None, *, offline: bool = False, keys: KeyRing | None = None) -> Resolver:
    """The resolver (default $PITH_BASE_URL or https://pith.science); offline: the cache only."""
    from .resolver import Resolver

    return Resolver(base_url, offline=offline, keys=keys)


# -- verify ---------------------------------------------------------------------------------
class Verification(NamedTuple):
    """A verified (or not) record: the report, the record checked, and what it came from."""

    report: Report
    document: dict[str, Any] | None
    source: str  # what was verified, in words: a file, a URL, "PDF via URL"
    arxiv: ArxivId | None = None
    resolved: PithNumber | None = None  # the number the resolver named for `arxiv`

    @property
    def verified(self) -> bool:
        return self.report.verified

    @property
    def exit_code(self) -> int:
        return self.report.exit_code

    def as_dict(self) -> dict[str, Any]:
        """The `pithtex verify --json` report."""
        out = self.report.as_dict()
        if self.arxiv is not None and self.resolved is not None:
            out = {**out, "arxiv": str(self.arxiv), "resolved_number": self.resolved.body}
        return out


def _fetching(step: str, number: PithNumber | None, exc: PithError) -> PithError:
    """Mark a resolver failure with the step it stopped (the --json report names it)."""
    exc.failed_step = (step, number)  # type: ignore[attr-defined]
    return exc


def _expect(number: PithNumber | str | None) -> PithNumber | None:
    return None if number is None else _number(number)


def _number(number: PithNumber | str) -> PithNumber:
    from .number import PithNumber

    return PithNumber.parse(number) if isinstance(number, str) else number


def verify_record(path: str | Path, keys: KeyRing | None = None, *, title: str | None = None,
                  number: PithNumber | str | None = None) -> Verification:
    """A record file, verified from its own contents (hash, number, the receipt's signature)."""
    from .record import load_document
    from .verify import verify_document

    document = load_document(path)
    report = verify_document(document, keys or keyring(), title=title, expect=_expect(number))
    return Verification(report, document, str(path))


def verify_number(number: PithNumber | str, keys: KeyRing | None = None, *,
                  base_url: str | None = None, offline: bool = False, title: str | None = None,
                  expect: PithNumber | str | None = None, source: str | None = None) -> Verification:
    """A Pith Number's record, fetched from the resolver (or its cache) and checked like a file."""
    from .verify import Check, verify_document

    number, keys = _number(number), keys or keyring()
    wanted = _expect(expect)
    if wanted is not None and wanted.body != number.body:
        raise PithError(f"{source or number.body} is {number.body}, but --number asks for {wanted.body}")
    document, url, detail = _fetch(number, keys, base_url, offline)
    report = verify_document(document, keys, title=title, expect=number)
    report.checks = {"fetch": Check("pass", detail), **report.checks}
    return Verification(report, document, url)


def _fetch(number: PithNumber, keys: KeyRing, base_url: str | None, offline: bool) -> tuple[dict[str, Any], str, str]:
    try:
        fetched = open_resolver(base_url, offline=offline, keys=keys).fetch_record(number)
    except PithError as exc:
        raise _fetching("fetch", number, exc) from None
    return fetched.document, fetched.url, fetched.detail


def verify_arxiv(arxiv: ArxivId | str, keys: KeyRing | None = None, *, base_url: str | None = None,
                 offline: bool = False,
                 title: str | None = None, expect: PithNumber | str | None = None) -> Verification:
    """An arXiv id resolved to its Pith Number, whose record must hash to it and be of that paper."""
    from .arxiv.ids import ArxivId
    from .verify import Check, verify_document

    asked = ArxivId.parse(arxiv) if isinstance(arxiv, str) else arxiv
    keys = keys or keyring()
    try:
        number, fetched = open_resolver(base_url, offline=offline, keys=keys).fetch_arxiv(asked)
    except PithError as exc:
        raise _fetching("resolve", None, exc) from None
    report = verify_document(fetched.document, keys, title=title, expect=number, arxiv=asked)
    wanted = _expect(expect)
    resolve = Check("pass", f"the resolver names {number.body} for {asked.prefixed}")
    if wanted and wanted.body != number.body:
        resolve = Check("fail", f"the resolver names {number.body} for {asked.prefixed}, not {wanted.body}")
    report.checks = {"resolve": resolve, "fetch": Check("pass", fetched.detail), **report.checks}
    return Verification(report, fetched.document, f"{asked.prefixed} via {fetched.url}", asked, number)


def verify_pdf(path: str | Path, keys: KeyRing | None = None, *, record: str | Path | None = None,
               base_url: str | None = None, offline: bool = False, title: str | None = None,
               expect: PithNumber | str | None = None, password: bytes | None = None) -> Verification:
    """A PDF: its number's record (fetched, or `record`), verified, and the PDF shown to be its paper."""
    from .pdf.shown import shown_of
    from .record import load_document
    from .verify import Check, check_paper, verify_document

    path, keys = Path(path), keys or keyring()
    facts = inspect(path, password)
    number = _number_of(facts, path)
    wanted = _expect(expect)
    if wanted is not None and wanted.body != number.body:
        raise PithError(f"{path} is {number.body}, but --number asks for {wanted.body}")
    if record is not None:
        document, source, fetch = load_document(record), f"{path} with {record}", None
    else:
        document, url, fetch = _fetch(number, keys, base_url, offline)
        source = f"{path} via {url}"
    report = verify_document(document, keys, title=title, expect=number)
    checks = {"fetch": Check("pass", fetch)} if fetch else {}
    report.checks = {**checks, **report.checks, "paper": check_paper(document, shown_of(path, password, facts),
                                                                  title)}
    return Verification(report, document, source)


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


def badge_state(number: PithNumber, document: dict[str, Any] | None, keys: KeyRing | None = None) -> BadgeState:
    """Verify `document` (when given) for `number`; 'verified' needs a passing report for this number."""
    from . import brand
    from .verify import verify_document
    from .web.badge import BadgeState, state_of_report

    if document is None:
        return BadgeState()
    report = verify_document(document, keys, expect=number)
    if report.verified and report.number.body == number.body:
        return BadgeState(brand.VERIFIED, f"hash and signature by {report.key_id} checked", report.key_id,
                          report.signer)
    return state_of_report(report)


def make_badge(number: PithNumber | str, *, record: str | Path | None = None, fetch: bool = False,
          base_url: str | None = None, offline: bool = False, keys: KeyRing | None = None) -> Badge:
    """A badge for `number`, its state checked from `record` or (fetch=True) the resolver's record.
    A record that cannot be had makes the badge 'unchecked' (a missing record file is an error)."""
    from . import brand
    from .web.badge import BadgeState

    number = _number(number)
    if record is None and not fetch:
        return Badge(number, BadgeState())
    keys = keys or keyring()
    try:
        if record is not None:
            from .record import load_document

            document = load_document(record)
        else:
            document = open_resolver(base_url, offline=offline, keys=keys).fetch_record(number).document
    except PithError as exc:
        if record is not None and not Path(record).exists():
            raise
        return Badge(number, BadgeState(brand.UNCHECKED, str(exc)))
    return Badge(number, badge_state(number, document, keys))


def badge_arxiv(arxiv: ArxivId | str, *, base_url: str | None = None, offline: bool = False,
                keys: KeyRing | None = None) -> Badge:
    """The badge of an arXiv paper: its number from the resolver, checked like `verify_arxiv`."""
    from .web.badge import state_of_report

    checked = verify_arxiv(arxiv, keys, base_url=base_url, offline=offline)
    assert checked.resolved is not None  # verify_arxiv always names the number it resolved
    return Badge(checked.resolved, state_of_report(checked.report))


# -- stamp ----------------------------------------------------------------------------------
class StampPlan(NamedTuple):
    """What a stamp will do: one task per file (its output checked), and warnings to show."""

    tasks: list[Task]
    warnings: list[str]
    jobs: int = 1  # files stamped at a time


class Stamped(NamedTuple):
    """A stamp's outcome: each file done (as `Outcome.as_dict()`), each failed (file, message,
    exit code), and the exit code of the whole."""

    done: list[dict[str, Any]]
    failed: list[tuple[str, str, int]]

    @property
    def exit_code(self) -> int:
        return max((code for _name, _msg, code in self.failed), default=errors.OK)


def plan_stamp(pdfs: Sequence[str | Path], *, number: PithNumber | str | None = None,
               record: str | Path | None = None, output: str | Path | None = None, in_place: bool = False,
               badge: bool = False, attach_record: bool = False, force: bool = False,
               password: bytes | None = None, revert: bool = False, jobs: int = 1) -> StampPlan:
    """Check a stamp's arguments and files before anything is written; the record file is
    read once, and the bytes hashed are the bytes attached."""
    from .files import names_folder
    from .pdf.batch import Task

    if attach_record and record is None:
        raise PithError("--attach-record needs --record FILE")
    if revert and (number or record or badge or attach_record):
        raise PithError("--revert takes no --number, --record, --badge or --attach-record")
    if jobs < 1:
        raise PithError(f"--jobs {jobs}: give 1 or more")
    sources = [Path(p) for p in pdfs]
    opts, document = _options(number, record, badge, attach_record, force, password)
    warnings = _refuse_other_papers(sources, document, record, force, password) if document and not revert else []
    outdir = None
    if output and (len(sources) > 1 or names_folder(output)):  # `-o stamped/` as well for one input
        outdir = Path(output)
        if not outdir.is_dir():
            raise PithError(f"{output}: " + ("with several inputs, -o must be an existing folder" if len(sources) > 1
                                            else "no such folder (pithtex creates no folders for -o)"))
    tasks = [Task(src, _target(src, output, in_place, outdir), opts, revert) for src in sources]
    _refuse_collisions(tasks, [str(p) for p in pdfs])
    return StampPlan(tasks, warnings, jobs)


def stamp(plan: StampPlan, progress: bool = False) -> Stamped:
    """Run a plan: one file here (its failure raised), several on `plan.jobs` workers (each
    file's failure its own, in `failed`)."""
    from .pdf.batch import run_batch, run_one

    if len(plan.tasks) == 1:
        return Stamped([run_one(plan.tasks[0]).as_dict()], [])
    done, failed = run_batch(plan.tasks, plan.jobs, progress=progress)
    return Stamped(done, failed)


def _options(number: PithNumber | str | None, record: str | Path | None, badge: bool, attach: bool, force: bool,
             password: bytes | None) -> tuple[Options, dict[str, Any] | None]:
    from .pdf.stamp import Options

    if record is None:  # no record: json, hashlib and the record rules stay unloaded
        return Options(_expect(number), None, badge, attach, force, password), None
    from .record import canonical_of, number_of, read_document

    document, data = read_document(record)
    held = number_of(canonical_of(document))
    if number:
        _same_number(_number(number), held, str(record))
    return Options(held, data if attach else None, badge, attach, force, password), document


def _same_number(given: PithNumber, number: PithNumber, record: str) -> None:
    """--number beside --record must be the record's number, and a long form its year."""
    if given.body != number.body:
        raise Refused(f"--number {given.body} is not the number of {record} ({number.body})")
    if given.year is not None and given.year != number.year:
        held = f"submitted_at is in {number.year}" if number.year is not None else "it has no submitted_at year"
        raise Refused(f"--number {given.long} names year {given.year}, but {record}'s {held}")


def _refuse_other_papers(sources: list[Path], document: dict[str, Any], record: str | Path | None, force: bool,
                         password: bytes | None) -> list[str]:
    """With a record, a PDF whose page 1 does not show the record's (authenticated) title is
    another paper, or cannot be told apart from one: refused, or with force stamped and said so.
    Files stamp cannot open are left to stamp's own error."""
    from .errors import UnreadablePdf
    from .pdf.facts import facts_of
    from .pdf.shown import shown_of
    from .verify import PASS, check_paper

    warnings = []
    for src in sources:
        try:
            facts = facts_of(src, password, pages=1)
        except UnreadablePdf:
            continue
        if facts.encryption is not None and not facts.encryption.opened:
            continue
        check = check_paper(document, shown_of(src, password, facts))
        if check.status == PASS:
            continue
        if not force:
            raise Refused(f"{src}: not stamped with {record}: {check.detail} (--force stamps it anyway)")
        warnings.append(f"{src}: stamped anyway (--force): {check.detail}")
    return warnings


def _target(src: Path, output: str | Path | None, in_place: bool, outdir: Path | None) -> Path:
    """Where `src` goes, checked by the one output rule (regular files only, a symlink is
    followed to its target, the folder must exist) before anything is read or written."""
    from .files import output_path
    from .pdf.stamp import default_output

    if in_place:
        return output_path(src)
    if outdir is not None:
        return output_path(outdir / src.name)
    if output:
        return output_path(Path(output))
    return output_path(default_output(src))


def _refuse_collisions(tasks: list[Task], typed: list[str]) -> None:
    """Two inputs written to one file, or one input's output overwriting another input, would
    silently lose a result: refuse the whole batch before writing anything. Files are told
    apart by inode, so two hard links (or a symlink) to one file are one file; each is named
    as `typed` on the command line (`./a/r.pdf`, which Path() would show as `a/r.pdf`)."""
    if len(tasks) < 2:
        return
    by_target: dict[object, str] = {}
    for task, name in zip(tasks, typed, strict=True):
        key = _identity(task.output)
        if key in by_target:
            raise PithError(f"{by_target[key]} and {name} would both be written to {task.output}; "
                            "stamp them in separate runs (or into different folders)")
        by_target[key] = name
    inputs = {_identity(t.source): (t.source, name) for t, name in zip(tasks, typed, strict=True)}
    for task, name in zip(tasks, typed, strict=True):
        other = inputs.get(_identity(task.output))
        if other is not None and other[0] != task.source:
            raise PithError(f"the output of {name} would replace {other[1]}, another input; "
                            "stamp them in separate runs")


def _identity(path: Path) -> object:
    """(device, inode) of an existing file, else its resolved path (a file yet to be made)."""
    import os

    try:
        info = os.stat(path)
    except OSError:
        return os.path.normcase(os.path.realpath(path))
    return (info.st_dev, info.st_ino)


# -- check and bundle a paper ------------------------------------------------------------------
def check_arxiv(path: str | Path, *, engine: str = "auto", timeout: float | None = None,
                mains: list[str] | None = None, log_cap: int | None = None) -> Check:
    """Would this paper (a folder, .tex, .zip or .tar.gz) pass arXiv with its pith metadata?
    A `Check`: `.ok`, `.diagnostics`; `arxiv.report.as_dict(check)` is the `--json` report."""
    from .arxiv import sandbox
    from .arxiv.check import check_path

    return check_path(path, engine=engine, timeout=sandbox.DEFAULT_TIMEOUT if timeout is None else timeout, mains=mains,
                      log_cap=sandbox.LOG_CAP if log_cap is None else log_cap)


def bundle_arxiv(path: str | Path, output: str | Path, *, engine: str = "auto", timeout: float | None = None,
                 mains: list[str] | None = None, log_cap: int | None = None) -> Bundle:
    """The arXiv upload of a paper (.tar.gz of the files its compile used), then checked:
    a `Bundle` whose `.verdict` is the `Check` of the archive."""
    from .arxiv import sandbox
    from .arxiv.bundle import bundle

    timeout = sandbox.DEFAULT_TIMEOUT if timeout is None else timeout
    return bundle(path, output, engine=engine, timeout=timeout, mains=mains,
                  log_cap=sandbox.LOG_CAP if log_cap is None else log_cap)
