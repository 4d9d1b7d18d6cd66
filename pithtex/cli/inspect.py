"""`pithtex inspect`: everything pith in a PDF, and whether the sources agree."""

from __future__ import annotations

from . import add_command, emit_json

EPILOG = """\
examples:
  pithtex inspect paper.pdf
  pithtex inspect paper.pith.pdf --json

Reads the number from the Info dictionary, the XMP packet, link annotations to pith URLs and
an attached record; says whether a pithtex update is present and whether the sources agree.
exit codes: 0 read, 1 encrypted, 2 not a readable PDF.
"""


def register(subparsers) -> None:
    p = add_command(
        subparsers,
        "inspect",
        help="show the Pith Number metadata in a PDF",
        description="Read the Pith Number from a PDF's Info, XMP, links and attached record.",
        epilog=EPILOG,
    )
    p.add_argument("pdf", metavar="PDF", help="the PDF to read")
    p.add_argument("--json", action="store_true", help="print a JSON object on stdout")


def run(args) -> int:
    from ..pdf.inspect import inspect_pdf

    result = inspect_pdf(args.pdf)
    if result["encrypted"] and not args.json:
        from ..errors import Refused

        raise Refused(f"{args.pdf}: encrypted PDF: its metadata cannot be read")
    if args.json:
        emit_json(result)
    else:
        _print(result)
    return 1 if result["encrypted"] else 0


def _print(r: dict) -> None:
    rows = [("number", r["number"] or "(none)")]
    for key, value in r["info"].items():
        rows.append((f"Info /{key}", value))
    for key, value in (r["xmp"] or {}).items():
        rows.append((f"XMP {key}", value))
    rows.extend(("link", uri) for uri in r["links"])
    rows.append(("attached record", r.get("attachment_number") or ("yes" if r["attachment"] else "no")))
    rows.append(("pithtex update", "yes" if r["pithtex_update"] else "no"))
    if r["pdfa"]:
        rows.append(("PDF/A", r["pdfa"]))
    if r["signed"]:
        rows.append(("signed", "yes"))
    rows.append(("sources agree", "yes" if r["agree"] else ("no number found" if not r["sources"] else "NO")))
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value}")
