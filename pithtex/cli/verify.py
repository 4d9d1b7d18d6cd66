"""`pithtex verify`: check a record's hash, number and receipt signature."""

from __future__ import annotations

from . import add_command, emit_json

EPILOG = """\
examples:
  pithtex verify examples/seed-record.json
  pithtex verify record.json --title "Efficient Large-Scale Language Model Training ..."
  pithtex verify record.json --keys mirror-keys.json --json

what "verified" means: the canonical record hashes to the number, and a pinned registry
key signed that hash. Nothing else in a record (paper details, status, citations) is signed.

exit codes: 0 verified, 1 something verifiably failed (tampered record, wrong number,
bad signature), 2 unusable input, 3 cannot be decided (no receipt, unknown key).
"""

MARKS = {"pass": "ok  ", "fail": "FAIL", "unknown": "??  "}


def register(subparsers) -> None:
    p = add_command(
        subparsers,
        "verify",
        help="verify a record's hash, number and Ed25519 receipt (offline)",
        description="Recompute a record's canonical hash and number, compare them with what the "
        "file states, and check the registry's Ed25519 receipt against the pinned keys.",
        epilog=EPILOG,
    )
    p.add_argument("file", metavar="FILE", help="a record file: full record, bundle or bare canonical record")
    p.add_argument("--keys", metavar="KEYS.json", help="trust these keys too (e.g. a mirror's)")
    p.add_argument("--title", help="also check that this title hashes to the record's title_canon_sha256")
    p.add_argument("--number", metavar="ID", help="also check that the record is this Pith Number")
    p.add_argument("--json", action="store_true", help="print a JSON report on stdout")


def run(args) -> int:
    from ..number import PithNumber
    from ..record import load_document
    from ..trust import load_keys, pinned_keys
    from ..verify import verify_document

    expect = PithNumber.parse(args.number) if args.number else None
    keys = pinned_keys()
    if args.keys:
        keys = keys.extended(load_keys(args.keys))
    report = verify_document(load_document(args.file), keys, title=args.title, expect=expect)
    if args.json:
        emit_json(report.as_dict())
    else:
        print_report(report, args.file)
    return report.exit_code


def print_report(report, source: str) -> None:
    verdict = {0: "VERIFIED", 1: "FAILED", 3: "NOT DECIDED"}[report.exit_code]
    print(f"{report.number}  {verdict}  ({source})")
    for name, check in report.checks.items():
        print(f"  [{MARKS[check.status]}] {name:<10} {check.detail}")
    if report.verified:
        print("  Signed: the canonical record only. Paper details, status and citations are not covered.")
