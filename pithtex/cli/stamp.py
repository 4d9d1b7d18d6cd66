"""`pithtex stamp`: put a Pith Number into PDFs as one safe, revertible incremental update."""

from __future__ import annotations

import sys

from ..value import TYPE_CHECKING
from . import add_command, add_remove_stale, emit_json, report_stale, warn_refused
from .options import add_password, add_resolver_options, usable_jobs

if TYPE_CHECKING:
    from argparse import Namespace

    from ..pdf.batch import Failure
    from ..pdf.stamp import Outcome
    from . import Subparsers

EPILOG = """\
examples:
  pithtex stamp paper.pdf --number pith:2021:YBK5PTAKOSCXY2WMLIIB7DMYH6   # writes paper.pith.pdf
  pithtex stamp paper.pdf --record record.json -o stamped.pdf --badge
  pithtex stamp paper.pdf --number YBK5PTAKOSCXY2WMLIIB7DMYH6 --in-place
  pithtex stamp paper.pdf --in-place            # complete what pith.sty left out
  pithtex stamp 1706.03762v5.pdf                # an arXiv PDF: its stamp names its record
  pithtex stamp stamped.pdf --revert -o original.pdf
  pithtex stamp papers/*.pdf --record record.json -o stamped/ --jobs 4

Without --number or --record, a PDF that carries no number is identified as `verify` does
(arXiv's stamp, its own arXiv link or DOI), its record resolved and verified, and stamped
only when the record verified and the PDF shows it (otherwise refused, saying why).
The original bytes are kept untouched at the start of the output; the update is marked, so a
second stamp with the same number changes nothing and --revert gives the original back
(refused when other updates were appended after pithtex's: --force drops them too).
Encrypted PDFs open with the empty user password or --password, and the update is encrypted
like the rest of the file. Damaged PDFs are refused; on signed PDFs only metadata changes,
on PDF/A files --badge (and --attach-record below PDF/A-3) need --force (for more, see docs/pdf.md).
"""


def register(subparsers: Subparsers) -> None:
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
    where.add_argument("-o", "--output", metavar="OUT", help="output file, or a folder (OUT/, or one that exists) "
                       "to write each input into by its name")
    where.add_argument("--in-place", action="store_true",
                       help="append the update to the input itself (fsync; cut back on failure)")
    p.add_argument("--badge", action="store_true", help="draw the pith badge with its link on page 1")
    p.add_argument("--attach-record", action="store_true", help="embed the --record file in the PDF")
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="stamp N files at a time")
    p.add_argument("--force", action="store_true",
                   help="replace a different number; allow badge/attachment on signed or PDF/A files; "
                   "let --revert drop updates made after pithtex's")
    add_password(p)
    p.add_argument("--revert", action="store_true", help="remove pithtex's update, restoring the original")
    p.add_argument("--json", action="store_true", help="print a JSON report on stdout")
    add_resolver_options(p)
    p.add_argument("--offline", action="store_true", help="an arXiv PDF's record from the cache only")
    add_remove_stale(p)


def run(args: Namespace) -> int:
    from .. import stamping
    from ..safetext import line

    # Only a stamp by name checks a record: a numbered one never loads the client, keys or crypto.
    plan_stamp = stamping.plan_stamp
    if args.number is None and args.record is None and not args.revert:
        from ..client import Client

        plan_stamp = Client(warn_refused(args.keys), base_url=args.base_url, offline=args.offline).plan_stamp
    plan = plan_stamp(args.pdfs, number=args.number, record=args.record, output=args.output,
                      in_place=args.in_place, badge=args.badge, attach_record=args.attach_record,
                      force=args.force, password=args.password, revert=args.revert, jobs=usable_jobs(args.jobs))
    for warning in plan.warnings:
        print(line(f"pithtex: warning: {warning}"), file=sys.stderr)
    report_stale([task.output.parent for task in plan.tasks], args.remove_stale)
    done = stamping.stamp(plan, progress=sys.stderr.isatty() and not args.json)
    _report(done.done, done.failed, args.json)
    return done.exit_code


def _report(done: list[Outcome], failed: list[Failure], as_json: bool) -> None:
    from ..safetext import line

    if as_json:
        emit_json(done[0].as_dict() if len(done) == 1 and not failed else {
            "files": [d.as_dict() for d in done], "failed": [f._asdict() | {"error": f.message} for f in failed]})
    else:
        for item in done:
            print(line(_line(item)))
    for item in done:
        for warning in item.warnings:
            print(line(f"pithtex: warning: {item.source}: {warning}"), file=sys.stderr)
    if len(done) + len(failed) > 1:
        counts = {s: sum(1 for d in done if d.status == s) for s in ("stamped", "unchanged", "reverted")}
        summary = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
        names = "; ".join(f"{f.file}: {f.message.removeprefix(f.file + ': ')}" for f in failed)
        print(f"pithtex: {summary or 'nothing done'}, {len(failed)} failed" + (f" ({names})" if failed else ""),
              file=sys.stderr)


def _line(item: Outcome) -> str:
    if item.status == "unchanged":
        return f"{item.source}: already carries pith:{item.number}: nothing to change" + (
            f" (copied to {item.output})" if item.output != item.source else "")
    if item.status == "reverted":
        return f"{item.source}: pithtex update removed -> {item.output}"
    return f"{item.source}: stamped pith:{item.number} -> {item.output} ({', '.join(item.changed)})"
