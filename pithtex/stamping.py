"""Stamping PDFs: a stamp is planned (its arguments, files and output paths checked before
anything is written), then run, one file here or many on worker processes (pdf/batch.py).

A PDF stamped by name only (no number, no record) is identified by what it shows and stamped
only when its record verified: that verification is the caller's function (`Client.plan_stamp`
passes its own), so this room needs no keys, resolver or Client.
"""

from __future__ import annotations

from pathlib import Path

from .errors import PithError, Refused, worst
from .value import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, Protocol

    from .number import PithNumber
    from .pdf.batch import Failure, Task
    from .pdf.stamp import Options, Outcome
    from .verify import Report

    class Checked(Protocol):
        """What stamping reads of a verification (a `client.Verification`)."""

        @property
        def verified(self) -> bool: ...

        @property
        def summary(self) -> str: ...

        @property
        def report(self) -> Report: ...

    from .pdf.view import PageView

    # A PDF's verification by what it shows (its arXiv stamp, link or DOI); None when it shows
    # no paper of its own. Given the PDF as already read (pdf/view.py), it does not read it again.
    VerifyShown = Callable[[Path, bytes | None, PageView], Checked | None]


class StampPlan(NamedTuple):
    """What a stamp will do: one task per file (its output checked), and warnings to show."""

    tasks: list[Task]
    warnings: list[str]
    jobs: int = 1  # files stamped at a time


class Stamped(NamedTuple):
    """A stamp's outcome: each file done (an `Outcome`: source, output, status, number,
    changed, warnings), each failed (a `Failure`: file, message, exit code), and the exit code
    of the whole."""

    done: list[Outcome]
    failed: list[Failure]

    @property
    def exit_code(self) -> int:
        return worst(failure.exit_code for failure in self.failed)


def plan_stamp(pdfs: Sequence[str | Path], *, number: PithNumber | str | None = None,
               record: str | Path | None = None, output: str | Path | None = None, in_place: bool = False,
               badge: bool = False, attach_record: bool = False, force: bool = False,
               password: bytes | None = None, revert: bool = False, jobs: int = 1,
               verify: VerifyShown | None = None) -> StampPlan:
    """Check a stamp's arguments and files before anything is written; the record file is
    read once, and the bytes hashed are the bytes attached. With neither `number` nor
    `record`, a PDF that carries no number is identified (arXiv's stamp, its own arXiv link or
    DOI) and its record resolved and verified by `verify` (`Client.plan_stamp` gives its own):
    stamped only when it verified. Without `verify`, such a PDF is left to the stamp's error."""
    from .files import names_folder
    from .pdf.batch import Task
    from .workers.bounded import reading

    if attach_record and record is None:
        raise PithError("attaching the record needs the record file")
    if revert and (number or record or badge or attach_record):
        raise PithError("a revert takes no number, record, badge or attachment")
    if jobs < 1:
        raise PithError(f"{jobs} files at a time: give 1 or more")
    sources = [Path(p) for p in pdfs]
    opts, document = _options(number, record, badge, attach_record, force, password)
    with reading():  # the PDFs read for what they show: in one bounded worker, reused
        warnings = _refuse_other_papers(sources, document, record, force, password) if document and not revert else []
    outdir = None
    if output and (len(sources) > 1 or names_folder(output)):  # `-o stamped/` as well for one input
        outdir = Path(output)
        if not outdir.is_dir():
            raise PithError(f"{output}: " + ("with several inputs, the output must be an existing folder"
                                            if len(sources) > 1 else "no such folder (pithtex creates no folders)"))
    tasks = [Task(src, _target(src, output, in_place, outdir), opts, revert) for src in sources]
    if number is None and record is None and not revert and verify is not None:
        with reading():
            tasks = [_by_name(task, verify) for task in tasks]
    _refuse_collisions(tasks, [str(p) for p in pdfs])
    return StampPlan(tasks, warnings, jobs)


def _by_name(task: Task, verify: VerifyShown) -> Task:
    """A PDF stamped by name only: one that carries its number keeps it (the stamp completes
    what is missing); else its arXiv identity's record, which must verify, PDF and all."""
    from .workers.bounded import read_view

    view = read_view(task.source, task.options.password)  # read once, bounded: `verify` reads this view
    if view.facts.locked or view.facts.number is not None:
        return task
    checked = verify(task.source, task.options.password, view)
    if checked is None:
        return task  # nothing names its number: the stamp says so, as for any PDF
    if not checked.verified:
        raise Refused(f"{task.source}: not stamped: its record does not verify ({checked.summary})")
    return task._replace(options=task.options._replace(number=checked.report.number))


def stamp(plan: StampPlan, progress: bool = False) -> Stamped:
    """Run a plan: one file here (its failure raised), several on `plan.jobs` workers (each
    file's failure its own, in `failed`)."""
    from .pdf.batch import run_batch, run_one

    if len(plan.tasks) == 1:
        return Stamped([run_one(plan.tasks[0])], [])
    done, failed = run_batch(plan.tasks, plan.jobs, progress=progress)
    return Stamped(done, failed)


def _options(number: PithNumber | str | None, record: str | Path | None, badge: bool, attach: bool, force: bool,
             password: bytes | None) -> tuple[Options, dict[str, Any] | None]:
    from .number import as_number, as_number_or_none
    from .pdf.stamp import Options

    if record is None:  # no record: json, hashlib and the record rules stay unloaded
        return Options(as_number_or_none(number), None, badge, attach, force, password), None
    from .record import canonical_of, number_of, read_document

    document, data = read_document(record)
    held = number_of(canonical_of(document))
    if number:
        _same_number(as_number(number), held, str(record))
    return Options(held, data if attach else None, badge, attach, force, password), document


def _same_number(given: PithNumber, number: PithNumber, record: str) -> None:
    """--number beside --record must be the record's number, and a long form its year."""
    if given.body != number.body:
        raise Refused(f"the number given, {given.body}, is not the number of {record} ({number.body})")
    if given.year is not None and given.year != number.year:
        held = f"submitted_at is in {number.year}" if number.year is not None else "it has no submitted_at year"
        raise Refused(f"the number given, {given.long}, names year {given.year}, but {record}'s {held}")


def _refuse_other_papers(sources: list[Path], document: dict[str, Any], record: str | Path | None, force: bool,
                         password: bytes | None) -> list[str]:
    """With a record, a PDF whose page 1 does not show the record's (authenticated) title is
    another paper, or cannot be told apart from one: refused, or with force stamped and said so.
    Files stamp cannot open are left to stamp's own error."""
    from .errors import UnreadablePdf
    from .verify import PASS, check_paper
    from .workers.bounded import read_view

    warnings = []
    for src in sources:
        try:
            facts, shown = read_view(src, password, pages=1)
        except UnreadablePdf:
            continue
        if facts.encryption is not None and not facts.encryption.opened:
            continue
        check = check_paper(document, shown)
        if check.status == PASS:
            continue
        if not force:
            raise Refused(f"{src}: not stamped with {record}: {check.detail}", remedy=("force", "stamp it anyway"))
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
    as `typed` (`./a/r.pdf`, which Path() would show as `a/r.pdf`)."""
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
