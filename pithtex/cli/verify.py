"""`pithtex verify`: check a record's hash, number and receipt signature, offline or online."""

from __future__ import annotations

import sys

from ..value import TYPE_CHECKING
from . import add_command, emit_json, help_text, warn_refused
from .options import add_password, add_resolver_options, usable_jobs

if TYPE_CHECKING:
    from argparse import Namespace

    from ..client import Client, Verification
    from . import Subparsers

def register(subparsers: Subparsers) -> None:
    p = add_command(subparsers, "verify",
        help="verify a record's hash, number and Ed25519 receipt (a file, or fetched --online)",
        description="Recompute a record's canonical hash and number, compare them with what the "
        "file states, and check the registry's Ed25519 receipt against the pinned keys. Given a Pith "
        "Number, an arXiv id or a PDF, fetch its record from the resolver first.",
        epilog=help_text("verify"),
    )
    p.add_argument("file", metavar="ID|PDF|FILE", nargs="+",
                   help="a record file (full record, bundle or bare canonical record), a Pith Number, "
                   "an arXiv id (arXiv:2104.04473), a PDF, or several PDFs and folders of PDFs")
    add_resolver_options(p)
    p.add_argument("--title", help="also check that this title hashes to the record's title_canon_sha256")
    p.add_argument("--number", metavar="ID", help="also check that the record is this Pith Number")
    network = p.add_mutually_exclusive_group()
    network.add_argument("--online", action="store_true", help="fetch the record of a Pith Number, arXiv id or "
                         "PDF from the resolver (the default for those)")
    network.add_argument("--offline", action="store_true",
                         help="for a Pith Number, arXiv id or PDF: use only the cached record; never the network")
    add_password(p)
    p.add_argument("--record", metavar="FILE", help="for a PDF: check it against this record file instead of "
                   "fetching its record")
    p.add_argument("--save", metavar="FILE", help="write the record to FILE, only when it verified (the file "
                   "a web page's <pith-badge src=...> serves)")
    p.add_argument("--json", action="store_true", help="print a JSON report on stdout (several files: JSON lines)")
    p.add_argument("--jobs", type=int, metavar="N", help="several PDFs: read N at a time (1 to 4 a CPU)")


def run(args: Namespace) -> int:
    from ..head_start import reading_one_pdf_early

    args.jobs = usable_jobs(args.jobs)  # before any work, one file too: a careless --jobs is said, not ignored
    if args.save:
        from ..files import output_path

        output_path(args.save)  # before any work: nothing is fetched for a path that cannot be written
    with reading_one_pdf_early(args.file, args.password):
        return _run(args)


def _run(args: Namespace) -> int:
    from pathlib import Path

    from ..client import Client
    from ..errors import PithError
    from ..target import kind_of

    client = Client(warn_refused(args.keys), base_url=args.base_url, offline=args.offline)
    if len(args.file) > 1 or Path(args.file[0]).is_dir():
        if args.record or args.save or args.number or args.title:
            raise PithError("--record, --save, --number and --title are for one target; give one file")
        from .verdicts import verify_many

        return verify_many(client, args.file, args.password, args.json, args.jobs)
    kind = kind_of(args.file[0])
    if args.record and (kind != "pdf" or args.online or args.offline):
        raise PithError(f"--record is for a PDF (checked against that record); {args.file[0]} is not a PDF"
                        if kind != "pdf" else "--record gives the record: drop --online/--offline")
    if kind == "record" and (args.online or args.offline) and Path(args.file[0]).exists():
        flag = "--online" if args.online else "--offline"
        raise PithError(f"{flag} is for a Pith Number, an arXiv id or a PDF; {args.file[0]} is verified from its "
                        f"own contents, so drop {flag} (or pass the number: pithtex verify NUMBER {flag})")
    return _show(args, client, kind)  # one target


def _show(args: Namespace, client: Client, kind: str) -> int:
    """Run one verification and print it; with --json, a record that could not be had still
    gets a report of the report's shape, naming the step that failed."""
    from ..errors import InvalidNumber
    from ..resolver import ResolverError

    target = args.file[0]
    if kind == "pdf":
        from ..head_start import meanwhile

        meanwhile(client, fetching=args.record is None)
    try:
        checked = client.verify(target, expect=args.number, title=args.title, record=args.record,
                                 password=args.password)
    except InvalidNumber as exc:
        if kind != "number":
            raise
        raise InvalidNumber(f"{target!r} is neither a record file nor a Pith Number ({exc})") from None
    except ResolverError as exc:  # no record could be had: --json still reports, naming the step
        if args.json and exc.step is not None:
            asked = {"arxiv": target.removeprefix("arXiv:")} if kind == "arxiv" else {}
            emit_json({**exc.as_report(), **asked})
        raise
    if args.json:
        emit_json(checked.as_dict())
    else:
        from .verdicts import print_report

        print_report(checked)
    _save(args, checked)
    return checked.exit_code


def _save(args: Namespace, checked: Verification) -> None:
    if args.save:
        verdict = checked.report.verdict
        note = (f"wrote {args.save} ({checked.report.headline_number.body}, {verdict})" if checked.save(
            args.save) else f"{args.save} not written: the record is {verdict}")
        print(f"pithtex: note: {note}", file=sys.stderr)
