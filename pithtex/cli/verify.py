"""`pithtex verify`: check a record's hash, number and receipt signature, offline or online."""

from __future__ import annotations

import sys
from pathlib import Path

from ..value import TYPE_CHECKING
from . import add_command, emit_json

if TYPE_CHECKING:
    from argparse import Namespace
    from collections.abc import Callable
    from typing import Any

    from ..app import Verification
    from ..errors import PithError
    from ..number import PithNumber
    from ..verify import Report
    from . import Subparsers

EPILOG = """\
examples:
  pithtex verify examples/seed-record.json
  pithtex verify record.json --title "Efficient Large-Scale Language Model Training ..."
  pithtex verify record.json --keys mirror-keys.json --json
  pithtex verify pith:2021:YBK5PTAKOSCXY2WMLIIB7DMYH6 --online
  pithtex verify arXiv:2104.04473 --online            # or arXiv:2104.04473v5, hep-th/9901001
  pithtex verify paper.pdf --online --base-url https://mirror.example.org
  pithtex verify paper.pdf --record record.json      # is this PDF the record's paper?
  pithtex verify YBK5PTAKOSCXY2WMLIIB7DMYH6 --online --save site/record.json
  pithtex verify YBK5PTAKOSCXY2WMLIIB7DMYH6 --offline     # the cached record only

what "verified" means: the canonical record hashes to the number, and a pinned registry
key signed that hash (a key from --keys: "verified, signed by KEY, a key --keys added, not the
Pith registry"; a --keys key that takes a registry key's id is refused). Nothing else in a
record (paper details, status, citations) is signed. A long form's year (pith:YYYY:BODY, a
PDF's pith:long) must be the year of the record's submitted_at.
A PDF is verified only when it shows the record's paper: the record's paper.title must hash to
its signed title_canon_sha256, and page 1 (or Info /Title, XMP dc:title) must show that title
(ligatures, hyphens, case, accents and TeX math undone); invalid when the PDF sets another,
unrelated title as its own, unchecked when it cannot be told (no text layer, title not found).
--record FILE checks a PDF against a record file; --save FILE writes the record, only when
it verified (the file <pith-badge src=...> serves).
A record fetched from the resolver (--online) is checked exactly like a file: the server
is never trusted. An arXiv id is resolved with /api/pith-number/resolve?arxiv=ID; the
record must then hash to the number the resolver named and be of that paper (and of that
version, when the id has one), or the result is invalid. The resolver is https://pith.science
unless --base-url or PITH_BASE_URL say otherwise. PITH_TIMEOUT (seconds, default 20) bounds
one whole fetch: connect, headers, redirects, body and retries. Only records that verify
are cached, per resolver, under $XDG_CACHE_HOME/pithtex (default ~/.cache/pithtex), and
re-verified whenever they are read. A record file is verified from its own contents:
--online/--offline are for IDs, arXiv ids and PDFs.

result and exit code: verified (0); invalid (1: something verifiably failed: tampered
record, wrong number, bad signature, another paper's record); unchecked (3: cannot be
decided: no receipt, unknown key, server unreachable or broken, offline without a cached
record); 2 is unusable input.
"""

MARKS = {"pass": "ok  ", "fail": "FAIL", "unknown": "??  "}


def register(subparsers: Subparsers) -> None:
    p = add_command(
        subparsers,
        "verify",
        help="verify a record's hash, number and Ed25519 receipt (a file, or fetched --online)",
        description="Recompute a record's canonical hash and number, compare them with what the "
        "file states, and check the registry's Ed25519 receipt against the pinned keys. Given a Pith "
        "Number or a PDF, fetch its record from the resolver first.",
        epilog=EPILOG,
    )
    p.add_argument("file", metavar="ID|PDF|FILE",
                   help="a record file (full record, bundle or bare canonical record), a Pith Number, "
                   "an arXiv id (arXiv:2104.04473), or a PDF")
    p.add_argument("--keys", metavar="KEYS.json", help="trust these keys too (e.g. a mirror's)")
    p.add_argument("--title", help="also check that this title hashes to the record's title_canon_sha256")
    p.add_argument("--number", metavar="ID", help="also check that the record is this Pith Number")
    network = p.add_mutually_exclusive_group()
    network.add_argument("--online", action="store_true", help="fetch the record of a Pith Number, arXiv id or "
                         "PDF from the resolver (the default for those)")
    network.add_argument("--offline", action="store_true",
                         help="for a Pith Number or PDF: use only the cached record; never the network")
    p.add_argument("--base-url", metavar="URL", help="the resolver (default $PITH_BASE_URL or https://pith.science)")
    p.add_argument("--password", metavar="PW", help="the password of an encrypted PDF (user or owner)")
    p.add_argument("--record", metavar="FILE", help="for a PDF: check it against this record file instead of "
                   "fetching its record")
    p.add_argument("--save", metavar="FILE", help="write the record to FILE, only when it verified (the file "
                   "a web page's <pith-badge src=...> serves)")
    p.add_argument("--json", action="store_true", help="print a JSON report on stdout")


def run(args: Namespace) -> int:
    from .. import app
    from ..arxiv.ids import ArxivId, looks_like
    from ..errors import InvalidNumber, PithError
    from ..files import output_path
    from ..number import PithNumber

    if args.save:
        output_path(args.save)  # before any work: nothing is fetched for a path that cannot be written
    keys = app.keyring(args.keys)
    for refusal in keys.refused:
        print(f"pithtex: warning: {refusal}", file=sys.stderr)
    target = args.file
    path = Path(target)
    is_pdf = path.exists() and not path.is_dir() and _is_pdf(path)
    if args.record and not is_pdf:
        raise PithError(f"--record is for a PDF (checked against that record); {target} is not a PDF")
    where = {"base_url": args.base_url, "offline": args.offline}
    if target.strip().lower().startswith("arxiv:") or (not path.exists() and looks_like(target)):
        asked = ArxivId.parse(target)
        return _show(args, lambda: app.verify_arxiv(asked, keys, **where, title=args.title,
                                                     expect=args.number), {"arxiv": str(asked)})
    if is_pdf:
        if args.record and (args.online or args.offline):
            raise PithError("--record gives the record: drop --online/--offline")
        return _show(args, lambda: app.verify_pdf(path, keys, record=args.record, **where,
                                                   title=args.title, expect=args.number,
                                                   password=_password(args)))
    if path.exists() or "/" in target or "." in target:
        if (args.online or args.offline) and path.exists():
            flag = "--online" if args.online else "--offline"
            raise PithError(f"{flag} is for a Pith Number, an arXiv id or a PDF; {target} is verified from its "
                            f"own contents, so drop {flag} (or pass the number: pithtex verify NUMBER {flag})")
        return _show(args, lambda: app.verify_record(args.file, keys, title=args.title, number=args.number))
    try:
        number = PithNumber.parse(target)
    except InvalidNumber as exc:
        raise InvalidNumber(f"{target!r} is neither a record file nor a Pith Number ({exc})") from None
    return _show(args, lambda: app.verify_number(number, keys, **where, title=args.title,
                                                  expect=args.number, source=target))


def _password(args: Namespace) -> bytes | None:
    return args.password.encode("utf-8") if args.password else None


def _show(args: Namespace, verify: Callable[[], Verification], failed_extra: dict[str, Any] | None = None) -> int:
    """Run one verification and print it; with --json, a record that could not be had still
    gets a report of the report's shape, naming the step that failed."""
    from ..errors import PithError

    try:
        checked = verify()
    except PithError as exc:
        step = getattr(exc, "failed_step", None)
        if args.json and step is not None:
            emit_json({**_failed_fetch(step[1], exc, step[0]), **(failed_extra or {})})
        raise
    return _print(args, checked)


def _failed_fetch(number: PithNumber | None, exc: PithError, step: str = "fetch") -> dict[str, Any]:
    """The JSON report when no record could be had: same keys as a report, nothing verified,
    plus the "error" and "exit_code" every --json error carries."""
    return {
        "verified": False, "state": "unchecked", "number": number and number.body,
        "long": number and number.long, "short": number and number.short, "url": number and number.url,
        "canonical_sha256": None, "key_id": None, "checks": {step: "unknown"}, "details": {step: str(exc)},
        "error": str(exc), "exit_code": exc.exit_code,
    }


def _is_pdf(path: Path) -> bool:
    if path.suffix.lower() == ".pdf":
        return True
    from ..errors import InputError
    from ..files import open_input

    try:
        with open_input(path) as handle:  # a FIFO is not waited on: load_document refuses it
            return handle.read(1024).lstrip().startswith(b"%PDF-")
    except (OSError, InputError):
        return False


def _print(args: Namespace, checked: Verification) -> int:
    if args.json:
        emit_json(checked.as_dict())
    else:
        print_report(checked.report, checked.source)
    _save(args, checked.report, checked.document)
    return checked.exit_code


def _save(args: Namespace, report: Report, document: dict[str, Any] | None) -> None:
    """--save: the record, as verified, for a web page to serve; nothing unless it verified."""
    import json

    from ..files import write_atomic

    if not args.save:
        return
    if not report.verified:
        print(f"pithtex: note: {args.save} not written: the record is {report.verdict}", file=sys.stderr)
        return
    write_atomic(args.save, json.dumps(document, ensure_ascii=False, indent=1) + "\n")
    print(f"pithtex: note: wrote {args.save} ({report.headline_number.body}, {report.verdict})", file=sys.stderr)


def print_report(report: Report, source: str) -> None:
    from ..safetext import line, shown

    print(f"{report.headline_number}  {report.verdict}  ({line(source)})")
    for name, check in report.checks.items():
        print(f"  [{MARKS[check.status]}] {name:<10} {line(check.detail)}")
    if report.verified and report.title:
        print(f"  Paper: {shown(report.title, quote=True)} (its title hashes to the signed title_canon_sha256)")
    if report.verified:
        print("  Signed: the canonical record only. Paper details, status and citations are not covered.")
