"""Pith records: canonical JSON, canonical hashes, and the record shapes found in the wild.

Shapes accepted by `load_document` / `canonical_of`:
- full record: the registry's `/pith/BODY.json` (top-level `canonical_record`, `receipt`, ...)
- bundle: `canonical_record` at the top level among other keys, in any order
- bare: the canonical record itself (`schema_version`, `source`, `metadata`)
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from pathlib import Path

from .errors import InputError, PithError, RecordError
from .files import open_input
from .limits import MAX_RECORD_BYTES  # a record file larger than this is refused before parsing
from .number import PithNumber
from .value import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

# The rules for reading record JSON, shared with pith-badge.js (webassets bakes them in) and
# held to by tests/fixtures/canon-vectors.json, which both run: a record nests at most
# MAX_DEPTH objects and lists (the registry's nest 5); an integer has at most MAX_DIGITS
# digits (Python's own limit for exact integer text); no object names a key twice (readers
# disagree on which one wins); NaN and Infinity are not JSON.
MAX_DEPTH = 100
MAX_DIGITS = 4300
_CANONICAL_KEYS = frozenset({"schema_version", "source", "metadata"})
_WHITESPACE = re.compile(r"\s+")


class _Unreadable(Exception):
    """Raised from inside json.loads' hooks: JSON this reader refuses, with the reason."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    document = dict(pairs)
    if len(document) != len(pairs):
        seen: set[str] = set()
        for twice, _value in pairs:
            if twice in seen:
                break
            seen.add(twice)
        raise _Unreadable(f"the key {json.dumps(twice[:64], ensure_ascii=True)} appears twice in one object "
                          "(JSON whose meaning depends on the reader)")
    return document


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise _Unreadable(f"an integer has more than {MAX_DIGITS:,} digits")
    return int(text)


class SourceFloat(float):
    """A JSON number with a fraction or exponent, that remembers how the record wrote it: a
    message quotes `5E0` as the record has it (as pith-badge.js does), not Python's `5.0`.
    Its value, and so the canonical JSON (json.dumps uses float's own repr), are a float's."""

    source: str

    def __new__(cls, text: str) -> SourceFloat:
        value = super().__new__(cls, text)
        value.source = text
        return value

    def __repr__(self) -> str:
        return self.source


def _constant(text: str) -> Any:
    raise _Unreadable(f"{text} is not JSON")


def _depth_exceeds(document: Any, limit: int) -> bool:
    """Whether objects and lists nest more than `limit` deep (iteratively: no recursion)."""
    stack = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def _load_json(text: str) -> Any:
    """json.loads by the shared rules above; _Unreadable or ValueError says why not."""
    try:
        document = json.loads(text, object_pairs_hook=_object, parse_int=_integer, parse_float=SourceFloat,
                              parse_constant=_constant)
    except RecursionError:
        document = None
        deep = True
    else:  # fewer opening brackets than the limit (in strings or not): no need to walk
        deep = text.count("[") + text.count("{") > MAX_DEPTH and _depth_exceeds(document, MAX_DEPTH)
    if deep:
        raise _Unreadable(f"JSON nested more than {MAX_DEPTH} deep; a Pith record is not")
    return document


def non_integer(record: Any, path: str = "") -> str | None:
    """Where the canonical record holds a number that is not an integer, with the number:
    a Pith record's numbers are integers, and JSON writers disagree on every other form
    (5.0, 1e0), so such a record has no one canonical text. None when there is none."""
    stack = [(record, path)]
    while stack:
        value, where = stack.pop()
        if isinstance(value, float):
            return f"{value!r} at {where or 'the top'}"
        if isinstance(value, dict):
            stack.extend((v, f"{where}.{k}" if where else k) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, f"{where}[{i}]") for i, v in enumerate(value))
    return None


def canonical_json(record: Any) -> bytes:
    """Canonical JSON bytes (sorted keys, no spaces, UTF-8); equals RFC 8785 for records."""
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def canonical_sha256(record: Any) -> bytes:
    """The raw 32-byte SHA-256 of a canonical record."""
    return hashlib.sha256(canonical_json(record)).digest()


def number_of(record: dict[str, Any]) -> PithNumber:
    """The Pith Number of a canonical record, with the year of `submitted_at` when present."""
    return PithNumber.from_sha256(canonical_sha256(record), year=submitted_year(record))


def submitted_year(record: dict[str, Any]) -> int | None:
    submitted = (record.get("metadata") or {}).get("submitted_at")
    if isinstance(submitted, str) and re.match(r"[0-9]{4}-", submitted):
        return int(submitted[:4])
    return None


# The text rules behind title_canon_sha256 / abstract_canon_sha256 live here and only here:
# the records seen leave NFC-or-not and lower()-or-casefold() open (docs/format.md), so one place decides.
def canonical_title(title: str) -> str:
    return unicodedata.normalize("NFC", title).lower()


def canonical_abstract(abstract: str) -> str:
    return _WHITESPACE.sub(" ", unicodedata.normalize("NFC", abstract)).strip().lower()


def title_sha256(title: str) -> str:
    try:
        data = canonical_title(title).encode("utf-8")
    except UnicodeEncodeError:  # bytes on the command line that were not UTF-8
        raise PithError("the title is not valid UTF-8 text") from None
    return hashlib.sha256(data).hexdigest()


def abstract_sha256(abstract: str) -> str:
    return hashlib.sha256(canonical_abstract(abstract).encode("utf-8")).hexdigest()


def canonical_of(document: Any) -> dict[str, Any]:
    """The canonical record inside any accepted shape; RecordError when there is none."""
    if not isinstance(document, dict):
        raise RecordError(f"a Pith record is a JSON object, not {_json_kind(document)}")
    inner = document.get("canonical_record")
    if inner is not None:
        if not isinstance(inner, dict):
            raise RecordError(f"'canonical_record' is {_json_kind(inner)}, not an object")
        candidate = inner
    elif document.keys() >= _CANONICAL_KEYS:
        candidate = document
    else:
        raise RecordError(
            "not a Pith record: no 'canonical_record', and not a bare record "
            "(needs 'schema_version', 'source' and 'metadata')"
        )
    _check_canonical_shape(candidate)
    return candidate


def _check_canonical_shape(record: dict[str, Any]) -> None:
    for key in ("source", "metadata"):
        if not isinstance(record.get(key), dict):
            raise RecordError(f"the canonical record's {key!r} must be an object")
    if not isinstance(record.get("schema_version"), str):
        raise RecordError("the canonical record's 'schema_version' must be a string")


def parse_document(data: bytes | str, name: str = "input") -> dict[str, Any]:
    """Parse record JSON from bytes or text, with one clear error for every failure."""
    if isinstance(data, bytes):
        if len(data) > MAX_RECORD_BYTES:
            raise RecordError(f"{name}: {len(data):,} bytes is too large for a Pith record")
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise RecordError(f"{name}: not UTF-8 text (byte {exc.start}); a Pith record is JSON") from None
    if not data.strip():
        raise RecordError(f"{name}: the file is empty; a Pith record is JSON")
    try:
        document = _load_json(data)
    except _Unreadable as exc:
        raise RecordError(f"{name}: {exc}") from None
    except ValueError as exc:
        raise RecordError(f"{name}: not valid JSON ({_json_error(exc)})") from None
    _check_unicode(document, name)
    canonical_of(document)  # reject non-records early, with the reason
    assert isinstance(document, dict)  # canonical_of refused every other kind
    return document


def _check_unicode(document: Any, name: str) -> None:
    """JSON may escape a lone surrogate ("\\ud800"), which no UTF-8 text can hold: such a record
    has no canonical bytes (and cannot even be printed), so refuse it here, once."""
    try:
        json.dumps(document, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start:exc.end].encode("unicode_escape").decode("ascii")
        raise RecordError(f"{name}: holds text that is not valid Unicode (a lone surrogate {bad}); "
                          "a Pith record is UTF-8 JSON") from None


def load_document(path: str | Path) -> dict[str, Any]:
    """Read a record file (any shape); RecordError names the file and the reason."""
    return read_document(path)[0]


def read_document(path: str | Path) -> tuple[dict[str, Any], bytes]:
    """A record file read once: (the parsed document, the very bytes parsed), so what is
    attached to a PDF is exactly what was hashed. RecordError names the file and the reason."""
    path = Path(path)
    try:
        with open_input(path) as handle:  # a FIFO or /dev/zero is refused, not waited on
            data = handle.read(MAX_RECORD_BYTES + 1)
    except FileNotFoundError:
        raise RecordError(f"{path}: no such file") from None
    except InputError as exc:
        raise RecordError(str(exc)) from None
    except OSError as exc:
        raise RecordError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    try:
        return parse_document(data, name=str(path)), data
    except RecordError as exc:
        message = str(exc)
        if not message.startswith(str(path)):
            message = f"{path}: {message}"
        raise RecordError(message) from None


def _json_kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else "null"
    )


def _json_error(exc: ValueError) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
    return str(exc)
