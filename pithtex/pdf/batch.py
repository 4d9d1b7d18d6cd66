"""Many files: one task per input, run in a process pool, failures collected, not raised."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from .. import errors
from ..errors import PithError, bug_message
from ..safetext import unfiltered
from ..value import TYPE_CHECKING, NamedTuple
from .stamp import Options, Outcome, revert_file, stamp_file

if TYPE_CHECKING:
    from collections.abc import Iterable


class Failure(NamedTuple):
    """A file a batch could not do: its name, the one-line reason, the exit code."""

    file: str
    message: str
    exit_code: int
    remedy: tuple[str, str] | None = None  # as PithError.remedy


class Task(NamedTuple):
    source: Path
    output: Path
    options: Options
    revert: bool = False


def run_one(task: Task) -> Outcome:
    if task.revert:
        return revert_file(task.source, task.output, task.options.force, task.options.password)
    return stamp_file(task.source, task.output, task.options)


def _safe(task: Task) -> tuple[Outcome | None, Failure | None]:
    """A worker's result as plain data: (outcome, None) or (None, (file, message, exit code))."""
    try:
        return run_one(task), None
    except PithError as exc:
        return None, Failure(str(task.source), str(exc), exc.exit_code, exc.remedy)
    except Exception as exc:  # a bug: it must not end the batch, and it is reported as a bug, not as bad input
        message = f"{task.source}: {bug_message(exc)}"
        if os.environ.get(errors.DEBUG):
            import traceback

            message += "\n" + traceback.format_exc().rstrip()
        return None, Failure(str(task.source), message, errors.BUG)


def run_batch(tasks: list[Task], jobs: int, progress: bool) -> tuple[list[Outcome], list[Failure]]:
    done: list[Outcome] = []
    failed: list[Failure] = []
    if jobs == 1:
        results = map(_safe, tasks)
        _collect(results, len(tasks), done, failed, progress)
    else:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=min(jobs, len(tasks))) as pool:
            _collect(pool.map(_safe, tasks, chunksize=max(1, len(tasks) // (jobs * 8))), len(tasks), done, failed,
                     progress)
    return done, failed


def _collect(results: Iterable[tuple[Outcome | None, Failure | None]], total: int,
             done: list[Outcome], failed: list[Failure], progress: bool) -> None:
    for i, (outcome, failure) in enumerate(results, start=1):
        if outcome is not None:
            done.append(outcome)
        elif failure is not None:  # one of the two is always None
            failed.append(failure)
        if progress:  # a one-line bar on a terminal only; nothing when piped
            width = 30
            filled = width * i // total
            unfiltered(sys.stderr).write(f"\r[{'#' * filled}{'.' * (width - filled)}] {i}/{total}")
            unfiltered(sys.stderr).flush()
    if progress:
        sys.stderr.write("\n")
