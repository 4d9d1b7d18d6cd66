"""The bodies the server sends, drawn by pithtex.web (the same SVG and PNG `pithtex badge`
draws), each with a strong ETag; the /v/ page, every value from a record or a request escaped."""

from __future__ import annotations

import functools
import hashlib
import html
import json
import threading
from collections import OrderedDict
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, NamedTuple

from .. import brand
from ..web import badge

if TYPE_CHECKING:
    from ..number import PithNumber
    from ..web.badge import BadgeState
    from .ids import Target
    from .policy import Answer

DRAWN = 4096  # bodies kept (number, state, theme, format): a badge is drawn once, then served


class Body(NamedTuple):
    content: bytes
    etag: str  # strong: a hash of the bytes, so equal bytes have equal tags in every process


def body(content: bytes) -> Body:
    return Body(content, '"' + hashlib.sha256(content).hexdigest()[:32] + '"')


class Drawings:
    """The badges drawn so far, bounded (the least recently used go first)."""

    def __init__(self) -> None:
        self.kept: OrderedDict[tuple[object, ...], Body] = OrderedDict()
        self.lock = threading.Lock()

    def badge(self, number: PithNumber, state: BadgeState, theme: str, fmt: str) -> Body:
        key = (number, state, theme, fmt)
        with self.lock:
            held = self.kept.get(key)
            if held is not None:
                self.kept.move_to_end(key)
                return held
        made = body(badge.png(number, state, theme) if fmt == "png" else badge.svg(number, state, theme).encode())
        with self.lock:
            self.kept[key] = made
            while len(self.kept) > DRAWN:
                self.kept.popitem(last=False)
        return made


def shields(number: PithNumber | None, state: BadgeState, theme: str) -> Body:
    """shields.io's endpoint schema: img.shields.io/endpoint?url=... draws it in shields' styles."""
    word = state.word or brand.UNCHECKED
    message = f"{badge.message_text(number)} {word}" if number is not None else word
    document = {"schemaVersion": 1, "label": brand.LABEL, "message": message,
                "color": brand.THEMES[theme].state_bg(word).hex, "cacheSeconds": 300}
    return body(json.dumps(document, separators=(",", ":")).encode())


@functools.lru_cache(maxsize=4096)  # each verified answer's time, formatted once
def when(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def page(target: Target, answer: Answer, resolver: str, badge_path: str) -> Body:
    """The page a badge links to: what was verified (record, key, when), and the registry's page."""
    e = html.escape
    number, state = answer.number, answer.state
    word = state.word or brand.UNCHECKED
    rows: list[tuple[str, str]] = [("asked for", target.shown), ("state", word)]
    if number is not None:
        rows.append(("Pith Number", number.long or number.prefixed))
    if state.verified:
        rows.append(("key", state.signer or brand.signed_by_registry(str(state.key_id))))
    else:
        rows.append(("why", state.reason))
    rows += _record_rows(answer.document)
    if answer.verified_at is not None:
        rows.append(("verified at the resolver", when(answer.verified_at)))
    if answer.stale_age is not None:
        rows.append(("note", f"the resolver did not answer now; this answer is {answer.stale_age:.0f} s old"))
    table = "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in rows)
    link = ""
    if number is not None:
        url = brand.number_url(number.body, resolver)
        link = f'<p><a href="{e(url)}">This record at the registry</a></p>'
    text = (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{e(target.shown)}: {e(word)}</title>'
            '<meta name="viewport" content="width=device-width">'
            '<style>body{font:16px/1.5 system-ui,sans-serif;max-width:42em;margin:2em auto;padding:0 1em}'
            'th{text-align:left;padding-right:1em;vertical-align:top}td{overflow-wrap:anywhere}</style></head>'
            f'<body><h1>{e(target.shown)}</h1><p><img src="{e(badge_path)}" alt="pith badge: {e(word)}"></p>'
            f"<table>{table}</table>{link}</body></html>")
    return body(text.encode())


def _record_rows(document: dict[str, Any] | None) -> list[tuple[str, str]]:
    if document is None:
        return []
    from ..errors import RecordError
    from ..record import canonical_of

    try:
        canon = canonical_of(document)
    except RecordError:
        return []
    source, meta = canon.get("source") or {}, canon.get("metadata") or {}
    rows = []
    if isinstance(source, dict) and source.get("id"):
        rows.append(("paper", f"arXiv:{source['id']}" + (f"v{source['version']}" if source.get("version") else "")))
    if isinstance(meta, dict) and meta.get("submitted_at"):
        rows.append(("submitted", str(meta["submitted_at"])))
    return rows
