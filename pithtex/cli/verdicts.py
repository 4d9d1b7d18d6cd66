"""How `pithtex verify` prints: one target's report (its checks, then what holds in one line),
or for many PDFs (`verify A.pdf B.pdf FOLDER/`) one line a file, a progress bar on a terminal,
the worst verdict's exit code. Lines are printed as verdicts come: nothing is kept."""

from __future__ import annotations

import sys

from ..value import TYPE_CHECKING

if TYPE_CHECKING:
    from ..client import Client, Verification
    from ..workers.pool import FileVerdict

BAR = 24  # characters of the progress bar
MARKS = {"pass": "ok  ", "fail": "FAIL", "unknown": "??  "}


def verify_many(client: Client, targets: list[str], password: bytes | None, as_json: bool, jobs: int = 1) -> int:
    import json

    from ..errors import worst
    from ..safetext import line

    bar = _Bar() if sys.stderr.isatty() else None
    codes: dict[int, int] = {}
    for verdict in client.verify_files(targets, password=password, progress=bar.show if bar else None, jobs=jobs):
        if bar is not None:
            bar.clear()
        print(json.dumps(verdict.as_dict(), ensure_ascii=False) if as_json else line(_line(verdict)), flush=True)
        codes[verdict.exit_code] = codes.get(verdict.exit_code, 0) + 1
    if bar is not None:
        bar.clear()
    total = sum(codes.values())
    counts = ", ".join(f"{n} {_word(code)}" for code, n in sorted(codes.items()))
    print(f"pithtex: {total} file{'s' if total != 1 else ''}: {counts or 'no PDF found'}", file=sys.stderr)
    return worst(codes) if codes else 2


def _line(verdict: FileVerdict) -> str:
    number = verdict.number.short if verdict.number else "-"
    return f"{verdict.file}  {verdict.arxiv or '-'}  {number}  {verdict.detail}"


def _word(code: int) -> str:
    from ..brand import STATE_OF_EXIT

    return STATE_OF_EXIT.get(code, "error") if code != 2 else "unusable"


class _Bar:
    """A one-line bar on stderr, redrawn in place; the count grows, the total is not known ahead."""

    def show(self, done: int, name: str) -> None:
        filled = done % (BAR + 1)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (BAR - filled)}] {done} done, {name[-40:]}\x1b[K")
        sys.stderr.flush()

    def clear(self) -> None:
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()


def print_report(checked: Verification) -> None:
    from ..safetext import line, shown

    report = checked.report
    print(f"{report.headline_number}  {report.verdict}  ({line(checked.source)})")
    for name, check in report.checks.items():
        print(f"  [{MARKS[check.status]}] {name:<10} {line(check.detail)}")
    if report.verified and report.title:
        print(f"  Paper: {shown(report.title, quote=True)} (its title hashes to the signed title_canon_sha256)")
    print(f"  {line(checked.summary)}")
    if report.verified:
        print("  Signed: the canonical record only. Paper details, status and citations are not covered.")
