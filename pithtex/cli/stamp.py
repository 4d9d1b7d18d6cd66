"""`pithtex stamp`: put a Pith Number into PDFs as one safe, revertible incremental update."""

from __future__ import annotations

import sys

from . import add_command, emit_json

EPILOG = """\
examples:
  pithtex stamp paper.pdf --number pith:2021:YBK5PTAKOSCXY2WMLIIB7DMYH6   # writes paper.pith.pdf
  pithtex stamp paper.pdf --record record.json -o stamped.pdf --badge
  pithtex stamp paper.pdf --number YBK5PTAKOSCXY2WMLIIB7DMYH6 --in-place
  pithtex stamp paper.pdf --in-place            # complete what pith.sty left out
  pithtex stamp stamped.pdf --revert -o original.pdf
  pithtex stamp papers/*.pdf --record record.json -o stamped/ --jobs 4

The original bytes are kept untouched at the start of the output; the update is marked, so a
second stamp with the same number changes nothing and --revert gives the original back
(refused when other updates were appended after pithtex's: --force drops them too).
Encrypted PDFs open with the empty user password or --password, and the update is encrypted
like the rest of the file. Damaged PDFs are refused; on signed PDFs only metadata changes,
on PDF/A files --badge (and --attach-record below PDF/A-3) need --force (for more, see docs/pdf.md).
"""


def register(subparsers) -> None:
    p = add_command(
        subparsers,
        "stamp",
        help="stamp a Pith Number into PDFs (incremental update: signatures survive)",
        description="Add the Pith Number to PDFs as one incremental update: Info /PithNumber and "
        "/PithURL, XMP (merged, PDF/A-aware), optionally a visible badge and the attached record.",
        epilog=EPILOG,
    )
    p.add_argument("pdfs", nargs="+", metavar="PDF", help="the PDF files to stamp")
    p.add_argument("--number", metavar="ID", help="the Pith Number, in any accepted form (with --record: "
                   "must be the record's, year included)")
    p.add_argument("--record", metavar="FILE", help="take the number (and year) from this record file; page 1 "
                   "must show the record's title (--force stamps it anyway)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("-o", "--output", metavar="OUT", help="output file (a folder for several inputs)")
    where.add_argument("--in-place", action="store_true",
                       help="append the update to the input itself (fsync; cut back on failure)")
    p.add_argument("--badge", action="store_true", help="draw the pith badge with its link on page 1")
    p.add_argument("--attach-record", action="store_true", help="embed the --record file in the PDF")
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="stamp N files at a time")
    p.add_argument("--force", action="store_true",
                   help="replace a different number; allow badge/attachment on signed or PDF/A files; "
                   "let --revert drop updates made after pithtex's")
    p.add_argument("--password", metavar="PW", help="the password of an encrypted PDF (user or owner)")
    p.add_argument("--revert", action="store_true", help="remove pithtex's update, restoring the original")
    p.add_argument("--json", action="store_true", help="print a JSON report on stdout")
    p.add_argument("--remove-stale", action="store_true",
                   help="remove the temporary files that killed pithtex runs left in the output folders")


def run(args) -> int:
    from pathlib import Path

    from ..errors import PithError
    from ..pdf.batch import Task, run_batch, run_one

    if args.attach_record and not args.record:
        raise PithError("--attach-record needs --record FILE")
    if args.revert and (args.number or args.record or args.badge or args.attach_record):
        raise PithError("--revert takes no --number, --record, --badge or --attach-record")
    if args.jobs < 1:
        raise PithError(f"--jobs {args.jobs}: give 1 or more")
    opts = _options(args)
    sources = [Path(p) for p in args.pdfs]
    if args.record and not args.revert:
        _refuse_other_papers(sources, args)
    outdir = None
    if args.output and len(sources) > 1:
        outdir = Path(args.output)
        if not outdir.is_dir():
            raise PithError(f"{args.output}: with several inputs, -o must be an existing folder")
    tasks = [Task(src, _target(src, args, outdir), opts, args.revert) for src in sources]
    _refuse_collisions(tasks)
    _stale(tasks, args.remove_stale)
    if len(tasks) == 1:
        outcome = run_one(tasks[0])
        _report([outcome.as_dict()], [], args.json)
        return 0
    done, failed = run_batch(tasks, args.jobs, progress=sys.stderr.isatty() and not args.json)
    _report(done, failed, args.json)
    return max((code for _name, _msg, code in failed), default=0)


def _options(args):
    from ..number import PithNumber
    from ..pdf.stamp import Options

    if args.record:
        from ..files import read_input
        from ..record import MAX_RECORD_BYTES, canonical_of, load_document, number_of

        path = __import__("pathlib").Path(args.record)
        number = number_of(canonical_of(load_document(path)))
        if args.number:
            _same_number(PithNumber.parse(args.number), number, args.record)
        data = read_input(path, MAX_RECORD_BYTES, "a Pith record") if args.attach_record else None
        return Options(number, data, args.badge, args.attach_record, args.force, _password(args))
    number = PithNumber.parse(args.number) if args.number else None
    return Options(number, None, args.badge, args.attach_record, args.force, _password(args))


def _same_number(given, number, record: str) -> None:
    """--number beside --record must be the record's number, and a long form its year."""
    from ..errors import Refused

    if given.body != number.body:
        raise Refused(f"--number {given.body} is not the number of {record} ({number.body})")
    if given.year is not None and given.year != number.year:
        held = f"submitted_at is in {number.year}" if number.year is not None else "it has no submitted_at year"
        raise Refused(f"--number {given.long} names year {given.year}, but {record}'s {held}")


def _refuse_other_papers(sources, args) -> None:
    """With --record, a PDF whose page 1 does not show the record's (authenticated) title is
    another paper, or cannot be told apart from one: refused, or with --force stamped and said so.
    Files stamp cannot open are left to stamp's own error."""
    from ..errors import Refused
    from ..pdf.facts import UnreadablePdf, facts_of
    from ..pdf.shown import shown_of
    from ..record import load_document
    from ..safetext import line
    from ..verify import PASS, check_paper

    document = load_document(args.record)
    for src in sources:
        try:
            facts = facts_of(src, _password(args), pages=1)
        except UnreadablePdf:
            continue
        if facts.encryption is not None and not facts.encryption.opened:
            continue
        check = check_paper(document, shown_of(src, _password(args)))
        if check.status == PASS:
            continue
        if not args.force:
            raise Refused(f"{src}: not stamped with {args.record}: {check.detail} (--force stamps it anyway)")
        print(line(f"pithtex: warning: {src}: stamped anyway (--force): {check.detail}"), file=sys.stderr)


def _password(args) -> bytes | None:
    """A password as the handler wants it: UTF-8 (R5/R6 use it as is; R2-R4 as Latin-1 bytes)."""
    if args.password is None:
        return None
    return args.password.encode("utf-8")


def _target(src, args, outdir):
    """Where `src` goes, checked by the one output rule (regular files only, a symlink is
    followed to its target, the folder must exist) before anything is read or written."""
    from pathlib import Path

    from ..files import output_path
    from ..pdf.stamp import default_output

    if args.in_place:
        return output_path(src)
    if outdir is not None:
        return output_path(outdir / src.name)
    if args.output:
        return output_path(Path(args.output))
    return output_path(default_output(src))


def _refuse_collisions(tasks) -> None:
    """Two inputs written to one file, or one input's output overwriting another input, would
    silently lose a result: refuse the whole batch before writing anything. Files are told
    apart by inode, so two hard links (or a symlink) to one file are one file."""
    from ..errors import PithError

    if len(tasks) < 2:
        return
    by_target: dict[object, object] = {}
    for task in tasks:
        key = _identity(task.output)
        if key in by_target:
            raise PithError(f"{by_target[key]} and {task.source} would both be written to {task.output}; "
                            "stamp them in separate runs (or into different folders)")
        by_target[key] = task.source
    inputs = {_identity(t.source): t.source for t in tasks}
    for task in tasks:
        other = inputs.get(_identity(task.output))
        if other is not None and other != task.source:
            raise PithError(f"the output of {task.source} would replace {other}, another input; "
                            "stamp them in separate runs")


def _identity(path) -> object:
    """(device, inode) of an existing file, else its resolved path (a file yet to be made)."""
    import os

    try:
        info = os.stat(path)
    except OSError:
        return os.path.normcase(os.path.realpath(path))
    return (info.st_dev, info.st_ino)


def _stale(tasks, remove: bool) -> None:
    """Name (or, with --remove-stale, remove) temporary files of killed runs in the folders
    this run writes into: a kill -9 during -o leaves one as large as the output."""
    from ..files import stale_temporaries
    from ..safetext import line

    folders = dict.fromkeys(task.output.parent for task in tasks)
    for folder in folders:
        for stale in stale_temporaries(folder):
            if remove:
                try:
                    stale.unlink()
                except FileNotFoundError:
                    continue  # another run removed it first
                except OSError as exc:
                    print(line(f"pithtex: warning: {stale}: cannot remove it ({exc.strerror})"), file=sys.stderr)
                    continue
                print(line(f"pithtex: removed {stale}, a temporary file left by a killed pithtex run"),
                      file=sys.stderr)
            else:
                print(line(f"pithtex: warning: {stale}: a temporary file left by a killed pithtex run "
                           "(--remove-stale removes it)"), file=sys.stderr)


def _report(done: list[dict], failed: list[tuple[str, str, int]], as_json: bool) -> None:
    from ..safetext import line

    if as_json:
        report = done[0] if len(done) == 1 and not failed else {
            "files": done, "failed": [{"file": f, "error": m, "exit_code": c} for f, m, c in failed]}
        emit_json(report)
    else:
        for item in done:
            print(line(_line(item)))
    for item in done:
        for warning in item["warnings"]:
            print(line(f"pithtex: warning: {item['file']}: {warning}"), file=sys.stderr)
    if len(done) + len(failed) > 1:
        counts = {s: sum(1 for d in done if d["status"] == s) for s in ("stamped", "unchanged", "reverted")}
        summary = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
        names = "; ".join(f"{f}: {m.removeprefix(f + ': ')}" for f, m, _c in failed)
        print(f"pithtex: {summary or 'nothing done'}, {len(failed)} failed" + (f" ({names})" if failed else ""),
              file=sys.stderr)


def _line(item: dict) -> str:
    if item["status"] == "unchanged":
        return f"{item['file']}: already carries pith:{item['number']}: nothing to change" + (
            f" (copied to {item['output']})" if item["output"] != item["file"] else "")
    if item["status"] == "reverted":
        return f"{item['file']}: pithtex update removed -> {item['output']}"
    return f"{item['file']}: stamped pith:{item['number']} -> {item['output']} ({', '.join(item['changed'])})"
