"""`pithtex inspect`: everything pith in a PDF, and whether the sources agree."""

from __future__ import annotations

from .. import errors
from ..value import TYPE_CHECKING
from . import add_command, emit_json
from .options import add_password

if TYPE_CHECKING:
    from argparse import Namespace
    from typing import Any

    from . import Subparsers

EPILOG = """\
examples:
  pithtex inspect paper.pdf
  pithtex inspect paper.pith.pdf --json

Reads the number from the Info dictionary, the XMP packet, link annotations to pith URLs and
an attached record; says whether a pithtex update is present and whether the sources agree.
Encrypted PDFs are read with the empty user password, or --password.
exit codes: 0 read, 1 encrypted and cannot be opened, 2 not a readable PDF.
"""


def register(subparsers: Subparsers) -> None:
    p = add_command(
        subparsers,
        "inspect",
        help="show the Pith Number metadata in a PDF",
        description="Read the Pith Number from a PDF's Info, XMP, links and attached record.",
        epilog=EPILOG,
    )
    p.add_argument("pdf", metavar="PDF", help="the PDF to read")
    add_password(p)
    p.add_argument("--json", action="store_true", help="print a JSON object on stdout")


def run(args: Namespace) -> int:
    from .. import client as app

    facts = app.inspect(args.pdf, args.password, locked_ok=args.json)
    if args.json:
        emit_json(facts.as_dict())
    else:
        _print(facts.as_dict())
    return errors.FAILED if facts.locked else errors.OK


def _print(r: dict[str, Any]) -> None:
    rows = [("number", r["number"] or "(none)")]
    for key, value in r["info"].items():
        rows.append((f"Info /{key}", value))
    for key, value in (r["xmp"] or {}).items():
        rows.append((f"XMP {key}", value))
    rows.extend(("link", uri) for uri in r["links"])
    for off in r.get("links_off_page", []):
        x0, y0, x1, y1 = off["rect"]
        rows.append(("link off the page", f"p.{off['page']} at ({x0:g}, {y0:g})-({x1:g}, {y1:g}), outside the "
                     f"visible box {' '.join(f'{v:g}' for v in off['visible'])}: nobody sees or clicks it"))
    rows.append(("attached record", r.get("attachment_number") or ("yes" if r["attachment"] else "no")))
    rows.append(("pithtex update", "yes" if r["pithtex_update"] else "no"))
    if r.get("unfinished_update"):
        rows.append(("unfinished update", f"an interrupted stamp left bytes after byte "
                     f"{r['unfinished_update']['original_size']:,} (stamp or --revert removes them)"))
    if r["pdfa"]:
        rows.append(("PDF/A", r["pdfa"]))
    if r["signed"]:
        rows.append(("signed", "yes, certified (/DocMDP)" if r.get("certified") else "yes"))
    if r["encrypted"]:
        rows.append(("encrypted", r["encryption"]["method"]))
    if r.get("after_pithtex_update"):
        rows.append(("changed after pithtex", ", ".join(r["after_pithtex_update"])))
    rows.append(("sources agree", "yes" if r["agree"] else ("no number found" if not r["sources"] else "NO")))
    from ..safetext import line

    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(line(f"{label:<{width}}  {value}"))
