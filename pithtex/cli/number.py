"""`pithtex number`: read a Pith Number in any form, or compute it from a record."""

from __future__ import annotations

import sys

from .. import errors
from ..value import TYPE_CHECKING
from . import add_command, emit_json

if TYPE_CHECKING:
    from argparse import Namespace
    from typing import Any

    from ..number import PithAlias, PithNumber
    from . import Subparsers

EPILOG = """\
examples:
  pithtex number YBK5PTAKOSCXY2WMLIIB7DMYH6
  pithtex number ' pith:2021:ybk5ptakoscxy2wmliib7dmyh6 ' --json
  pithtex number YBK5PTAKOSCXY2WMLIIB7DMYH6 --year 2021
  pithtex number --record examples/seed-record.json

accepted forms (any case, white space around ignored):
  BODY              26 base32 characters (A-Z, 2-7)
  pith:BODY         the same with the prefix
  pith:YYYY:BODY    the long form; YYYY is the year the paper was submitted
  8, 12 or 16 chars a look-up alias (a prefix), never an identity
"""


def register(subparsers: Subparsers) -> None:
    p = add_command(
        subparsers,
        "number",
        help="show a Pith Number's forms, or compute one from a record",
        description="Show the body, short form, long form and URL of a Pith Number, "
        "or compute the number of a record file (full record, bundle or bare canonical record).",
        epilog=EPILOG,
    )
    p.add_argument("number", nargs="?", metavar="NUMBER", help="a Pith Number in any accepted form")
    p.add_argument("--record", metavar="FILE", help="compute the number of this record file instead")
    p.add_argument("--year", type=int, metavar="YYYY", help="the submission year, for the long form")
    p.add_argument("--json", action="store_true", help="print a JSON object on stdout")


def run(args: Namespace) -> int:
    from ..errors import PithError
    from ..number import YEARS, PithAlias, PithNumber, parse_reference

    if (args.number is None) == (args.record is None):
        raise PithError("give exactly one of NUMBER or --record FILE")
    if args.year is not None and args.year not in YEARS:
        raise PithError(f"--year {args.year}: a year has four digits")
    if args.record is not None:
        from ..record import canonical_of, canonical_sha256, load_document

        record = canonical_of(load_document(args.record))
        digest = canonical_sha256(record).hex()
        number = PithNumber.from_sha256(digest, year=_record_year(record, args.year))
        return _show(number, args.json, {"canonical_sha256": digest, "source": record.get("source")})
    ref = parse_reference(args.number, year=args.year)
    if isinstance(ref, PithAlias):
        return _show_alias(ref, args.json)
    return _show(ref, args.json, {})


def _record_year(record: dict[str, Any], given: int | None) -> int | None:
    from ..errors import PithError
    from ..record import submitted_year

    year = submitted_year(record)
    if given is not None and year is not None and given != year:
        raise PithError(f"--year {given} disagrees with the record's submitted_at year {year}")
    return year if year is not None else given


def _show(number: PithNumber, as_json: bool, extra: dict[str, Any]) -> int:
    if as_json:
        emit_json({**number.as_dict(), **extra})
        return errors.OK
    rows = [("body", number.body), ("short", number.short)]
    rows.append(("long", number.long or "(year unknown: add --year YYYY)"))
    rows.append(("url", number.url))
    if "canonical_sha256" in extra:
        rows.append(("sha256", extra["canonical_sha256"]))
    for label, value in rows:
        print(f"{label:<7}{value}")
    return errors.OK


def _show_alias(alias: PithAlias, as_json: bool) -> int:
    note = (
        f"note: {alias.prefix} is a look-up alias ({len(alias.prefix)} characters), not an identity; "
        "prefixes can collide, use the 26-character number to cite a paper"
    )
    if as_json:
        emit_json({"alias": alias.prefix, "body": None, "short": f"pith:{alias.prefix[:8]}", "long": None,
                   "url": alias.paper_url, "note": note})
    else:
        print(f"alias  {alias.prefix}")
        print(f"url    {alias.paper_url}")
    print(note, file=sys.stderr)
    return errors.OK
