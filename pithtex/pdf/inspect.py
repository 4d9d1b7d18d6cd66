"""Read everything pith back from any PDF: Info, XMP, link annotations, an attached record.

`inspect_pdf(path)` is the one reader for pith.sty output, stamped files and PDFs from
anywhere; `pithtex inspect`, `pithtex check` and `pithtex verify PDF` all call it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..errors import PithError
from .objects import Name, PdfSyntaxError, Ref, Stream, decode_text
from .reader import READ_FAILURES, PdfFile, decode_stream, read_failure

_PITH_URL = re.compile(r"/pith/([A-Za-z2-7]{26})(?![A-Za-z0-9])")
# Files with more pages than this are scanned for links on their first pages only.
MAX_LINK_PAGES = 5000
MAX_NAMES = 10_000
RECORD_NAME = "pith-record.json"


class InspectError(PithError):
    """A file that cannot be read as a PDF."""


def inspect_pdf(path: str | Path) -> dict[str, Any]:
    """Everything pith in a PDF as a JSON-ready dict (see `pithtex inspect --json`).

    Keys: number (the body or None), info {PithNumber, PithURL}, xmp {number, url, long} or
    None, links [URI...], attachment (bool), agree (bool), pithtex_update (bool), and
    sources, encrypted, signed, pdfa, links_all_pages for detail.
    """
    try:
        with PdfFile(path) as pdf:
            return read(pdf)
    except READ_FAILURES as exc:
        if isinstance(exc, PithError):
            raise
        raise InspectError(read_failure(path, exc)) from None


def read(pdf: PdfFile) -> dict[str, Any]:
    from .update import pithtex_original_size

    result: dict[str, Any] = {
        "file": str(pdf.path), "number": None, "info": {}, "xmp": None, "links": [], "attachment": False,
        "agree": False, "pithtex_update": pithtex_original_size(pdf) is not None,
        "encrypted": "Encrypt" in pdf.trailer, "signed": False, "pdfa": None, "sources": {},
    }
    if result["encrypted"]:
        return result  # strings and streams are ciphertext: nothing trustworthy to read
    catalog = pdf.catalog()
    result["signed"] = is_signed(pdf, catalog)
    result["info"] = read_info(pdf)
    xmp = read_xmp(pdf, catalog)
    if xmp is not None:
        result["pdfa"] = xmp.pop("pdfa", None)
        xmp.pop("schema_declared", None)
        if "error" in xmp or any(k in xmp for k in ("number", "url", "long")):
            result["xmp"] = xmp
    result["links"], result["links_all_pages"] = read_links(pdf)
    attached = read_attachment(pdf, catalog)
    result["attachment"] = attached is not None
    if attached is not None:
        result["attachment_number"] = attached
    result["sources"] = _sources(result)
    bodies = set(result["sources"].values())
    result["number"] = next(iter(result["sources"].values()), None)
    result["agree"] = len(bodies) == 1
    return result


def _sources(result: dict[str, Any]) -> dict[str, str]:
    """The body each source states, in order of authority (Info, XMP, record, links)."""
    found: dict[str, str] = {}
    info_number = _body(result["info"].get("PithNumber"))
    if info_number:
        found["info"] = info_number
    info_url = _url_body(result["info"].get("PithURL"))
    if info_url:
        found["info_url"] = info_url
    xmp = result["xmp"] or {}
    for key, getter in (("xmp", _body), ("xmp_url", _url_body), ("xmp_long", _body)):
        body = getter(xmp.get({"xmp": "number", "xmp_url": "url", "xmp_long": "long"}[key]))
        if body:
            found[key] = body
    if result.get("attachment_number"):
        found["attachment"] = result["attachment_number"]
    for i, uri in enumerate(result["links"]):
        body = _url_body(uri)
        if body:
            found[f"link{i}"] = body
    return found


def _body(text: Any) -> str | None:
    from ..number import PithNumber

    if not isinstance(text, str):
        return None
    try:
        return PithNumber.parse(text).body
    except PithError:
        return None


def _url_body(text: Any) -> str | None:
    m = _PITH_URL.search(text) if isinstance(text, str) else None
    return m.group(1).upper() if m else None


def read_info(pdf: PdfFile) -> dict[str, str]:
    info = pdf.resolve(pdf.trailer.get("Info"))
    if not isinstance(info, dict):
        return {}
    out = {}
    for key in ("PithNumber", "PithURL"):
        text = decode_text(pdf.resolve(info.get(key)))
        if text is not None:
            out[key] = text
    return out


def metadata_packet(pdf: PdfFile, catalog: dict) -> bytes | None:
    stream = pdf.resolve(catalog.get("Metadata"))
    if not isinstance(stream, Stream):
        return None
    return decode_stream(stream, limit=16 * 1024 * 1024)


def read_xmp(pdf: PdfFile, catalog: dict) -> dict[str, Any] | None:
    from .xmp import XmpError, read_pith

    try:
        packet = metadata_packet(pdf, catalog)
        return read_pith(packet) if packet is not None else None
    except (XmpError, PdfSyntaxError) as exc:
        return {"error": str(exc)}


def read_links(pdf: PdfFile) -> tuple[list[str], bool]:
    """URIs of link annotations that point at a pith record, over all pages (bounded)."""
    links: list[str] = []
    complete = True
    for i, (_ref, page, _inherited) in enumerate(pdf.pages()):
        if i >= MAX_LINK_PAGES:
            complete = False
            break
        annots = pdf.resolve(page.get("Annots"))
        if not isinstance(annots, list):
            continue
        for annot_ref in annots:
            uri = link_uri(pdf, pdf.resolve(annot_ref))
            if uri and _PITH_URL.search(uri) and uri not in links:
                links.append(uri)
    return links, complete


def link_uri(pdf: PdfFile, annot: Any) -> str | None:
    if not isinstance(annot, dict) or annot.get("Subtype") != "Link":
        return None
    action = pdf.resolve(annot.get("A"))
    if not isinstance(action, dict) or action.get("S") != "URI":
        return None
    uri = pdf.resolve(action.get("URI"))
    return uri.decode("latin-1") if isinstance(uri, bytes) else None


def embedded_files(pdf: PdfFile, catalog: dict) -> list[tuple[str, Any]]:
    """(name, filespec) pairs of the EmbeddedFiles name tree, flattened (bounded)."""
    names = pdf.resolve(catalog.get("Names"))
    tree = pdf.resolve(names.get("EmbeddedFiles")) if isinstance(names, dict) else None
    out: list[tuple[str, Any]] = []
    stack = [tree]
    seen = 0
    while stack and len(out) < MAX_NAMES and seen < MAX_NAMES:
        node = pdf.resolve(stack.pop())
        seen += 1
        if not isinstance(node, dict):
            continue
        pairs = pdf.resolve(node.get("Names"))
        if isinstance(pairs, list):
            for i in range(0, len(pairs) - 1, 2):
                key = pdf.resolve(pairs[i])
                out.append((decode_text(key) or "", pairs[i + 1]))
        kids = pdf.resolve(node.get("Kids"))
        if isinstance(kids, list):
            stack.extend(reversed(kids))
    return out


def read_attachment(pdf: PdfFile, catalog: dict) -> str | None:
    """The number of an attached pith record (recomputed from its canonical record)."""
    for name, spec_ref in embedded_files(pdf, catalog):
        spec = pdf.resolve(spec_ref)
        if not isinstance(spec, dict):
            continue
        filename = decode_text(pdf.resolve(spec.get("UF"))) or decode_text(pdf.resolve(spec.get("F"))) or name
        if filename != RECORD_NAME and name != RECORD_NAME:
            continue
        ef = pdf.resolve(spec.get("EF"))
        stream = pdf.resolve(ef.get("F") or ef.get("UF")) if isinstance(ef, dict) else None
        if not isinstance(stream, Stream):
            continue
        import json

        from ..record import canonical_of, number_of

        try:
            return number_of(canonical_of(json.loads(decode_stream(stream, limit=16 * 1024 * 1024)))).body
        except (ValueError, PithError, PdfSyntaxError):
            continue
    return None


def is_signed(pdf: PdfFile, catalog: dict) -> bool:
    """Signed or certified: /Perms, /SigFlags, or a signature field with a value."""
    if catalog.get("Perms") is not None:
        return True
    form = pdf.resolve(catalog.get("AcroForm"))
    if not isinstance(form, dict):
        return False
    flags = pdf.resolve(form.get("SigFlags"))
    if isinstance(flags, int) and flags & 1:
        return True
    fields = pdf.resolve(form.get("Fields"))
    stack = list(fields) if isinstance(fields, list) else []
    visited = 0
    while stack and visited < MAX_NAMES:
        visited += 1
        field = pdf.resolve(stack.pop())
        if not isinstance(field, dict):
            continue
        if field.get("FT") == Name("Sig") and field.get("V") is not None:
            return True
        kids = pdf.resolve(field.get("Kids"))
        if isinstance(kids, list):
            stack.extend(k for k in kids if isinstance(k, (Ref, dict)))
    return False
