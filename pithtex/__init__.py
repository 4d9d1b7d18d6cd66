"""pithtex: Pith Numbers for papers.

    >>> from pithtex import PithNumber
    >>> n = PithNumber.parse("pith:2021:ybk5ptakoscxy2wmliib7dmyh6")
    >>> n.body, n.short, n.long
    ('YBK5PTAKOSCXY2WMLIIB7DMYH6', 'pith:YBK5PTAK', 'pith:2021:YBK5PTAKOSCXY2WMLIIB7DMYH6')

    >>> from pithtex import load_document, verify_document
    >>> verify_document(load_document("examples/seed-record.json")).verified
    True

Names are imported on first use, so `import pithtex` stays cheap for the command line.
"""

from __future__ import annotations

import importlib

from .brand import VERSION as __version__

_EXPORTS = {
    "PithNumber": "number",
    "PithAlias": "number",
    "parse_reference": "number",
    "canonical_json": "record",
    "canonical_sha256": "record",
    "canonical_of": "record",
    "number_of": "record",
    "load_document": "record",
    "parse_document": "record",
    "title_sha256": "record",
    "abstract_sha256": "record",
    "KeyRing": "trust",
    "PublicKey": "trust",
    "pinned_keys": "trust",
    "load_keys": "trust",
    "verify_document": "verify",
    "Report": "verify",
    "PithError": "errors",
    "InvalidNumber": "errors",
    "RecordError": "errors",
    "Refused": "errors",
    "Undecidable": "errors",
    "UnreadablePdf": "errors",
    "ResolverError": "resolver",
    "worst": "errors",
    # the use-cases (docs/library.md): one client, and what needs no keys or resolver, as functions
    "Client": "client",
    "Verification": "client",
    "FileVerdict": "workers.pool",
    "keyring": "client",
    "Badge": "client",
    "badge_state": "client",
    "pdf_number": "client",
    "inspect": "client",
    "kind_of": "target",
    "identify": "arxiv.identify",
    "Identity": "arxiv.identify",
    "plan_stamp": "stamping",
    "stamp": "stamping",
    "StampPlan": "stamping",
    "Stamped": "stamping",
    "check_arxiv": "client",
    "bundle_arxiv": "client",
    "inspect_pdf": "pdf.facts",
    "facts_of": "pdf.facts",
    "stamp_file": "pdf.stamp",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pithtex' has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)
