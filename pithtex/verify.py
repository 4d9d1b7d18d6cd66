"""Offline verification of a Pith record: what can be proven from the file alone.

`verify_document` is pure: a parsed document and a key ring in, a `Report` out. It never
claims more than the receipt covers: the canonical record hashes to the number, and a
pinned registry key signed that hash. Everything else in a full record (paper, status,
graph, citations, links) is unsigned and is not vouched for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from . import errors
from .arxiv.ids import ArxivId, source_problem
from .brand import ADDED_BY_OPTION, STATE_OF_EXIT, added_key
from .errors import InvalidNumber, PithError
from .number import PithAlias, PithNumber, parse_reference
from .pdf import titles
from .record import canonical_of, canonical_sha256, non_integer, submitted_year, title_sha256
from .trust import ALGORITHM, SIGNED_MESSAGE, KeyRing, PublicKey, decode_signature, pinned_keys
from .value import NamedTuple

if TYPE_CHECKING:
    from .pdf.shown import Shown

Status = Literal["pass", "fail", "unknown"]
PASS: Status = "pass"
FAIL: Status = "fail"
UNKNOWN: Status = "unknown"

# Checks that, when run, must pass for "verified" (not merely not fail): the PDF is the paper.
REQUIRED_IF_PRESENT = ("paper",)


class Check(NamedTuple):
    status: Status
    detail: str


class Report:
    """What verifying a record found; filled in as the checks run (`checks`, `signer`, ...).
    A plain class, not a dataclass: `dataclasses` (with `inspect` and `ast`) costs every
    `verify` more to import than the check itself takes."""

    _FIELDS = ("number", "canonical_sha256", "key_id", "checks", "asked", "signer", "registry_signed", "title")

    def __init__(self, number: PithNumber, canonical_sha256: str, key_id: str | None = None,
                 checks: dict[str, Check] | None = None, asked: PithNumber | None = None, signer: str | None = None,
                 registry_signed: bool = False, title: str | None = None) -> None:
        self.number = number
        self.canonical_sha256 = canonical_sha256
        self.key_id = key_id
        self.checks: dict[str, Check] = {} if checks is None else checks
        self.asked = asked  # the number the user asked for (`expect`), if any
        self.signer = signer  # brand.signed_by_registry / signed_by_added, once a signature held
        self.registry_signed = registry_signed  # the signature that held is a pinned registry key's
        self.title = title  # the record's title, when it hashes to title_canon_sha256 (`record_title`)

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self._FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._values() == other._values()
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, as a dataclass without frozen=True

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._FIELDS)
        return f"{type(self).__qualname__}({shown})"

    @property
    def headline_number(self) -> PithNumber:
        """What a report is about: the number asked for, else the one the record hashes to."""
        return self.asked or self.number

    @property
    def failed(self) -> bool:
        return any(c.status == FAIL for c in self.checks.values())

    @property
    def verified(self) -> bool:
        """True only when nothing failed, a trusted key's signature over the hash held, and
        (for a PDF) the PDF was shown to be the record's paper."""
        signature = self.checks.get("signature")
        required = [self.checks[name] for name in REQUIRED_IF_PRESENT if name in self.checks]
        return (not self.failed and signature is not None and signature.status == PASS
                and all(c.status == PASS for c in required))

    @property
    def verdict(self) -> str:
        """The state word; for a record verified under a key someone added, never the bare word:
        "verified, signed by KEY, a key --keys added, not the Pith registry"."""
        word = STATE_OF_EXIT[self.exit_code]
        return f"{word}, {self.signer}" if self.verified and not self.registry_signed and self.signer else word

    @property
    def exit_code(self) -> int:
        if self.failed:
            return errors.FAILED
        return errors.OK if self.verified else errors.UNDECIDED

    def as_dict(self) -> dict[str, Any]:
        return {
            "verified": self.verified,
            "state": STATE_OF_EXIT[self.exit_code],
            "number": self.number.body,
            "long": self.number.long,
            "short": self.number.short,
            "url": self.number.url,
            "canonical_sha256": self.canonical_sha256,
            "key_id": self.key_id,
            "registry_signed": self.verified and self.registry_signed,
            "verdict": self.verdict,
            "signer": self.signer if self.verified else None,
            "title": self.title,
            "checks": {name: c.status for name, c in self.checks.items()},
            "details": {name: c.detail for name, c in self.checks.items()},
        }


def verify_document(
    document: dict[str, Any],
    keys: KeyRing | None = None,
    *,
    title: str | None = None,
    expect: PithNumber | None = None,
    arxiv: ArxivId | None = None,
) -> Report:
    """Run every check that applies to `document` (any record shape); `expect` and `arxiv`
    add that the record is this number and of this arXiv paper (and version, if given)."""
    record = canonical_of(document)
    digest = canonical_sha256(record)
    number = PithNumber.from_sha256(digest, year=submitted_year(record))
    receipt = document.get("receipt") if isinstance(document.get("receipt"), dict) else None
    report = Report(number=number, canonical_sha256=digest.hex(), asked=expect)
    checks = report.checks
    odd = non_integer(record)
    if odd is not None:  # pith-badge.js says the same (tests/fixtures/canon-vectors.json)
        checks["canonical"] = Check(FAIL, f"the canonical record holds {odd}, not an integer "
                                          "(a Pith record's numbers are integers)")
    checks["hash"] = _check_hash(document, receipt, digest.hex())
    checks["number"] = _check_number(document, number)
    year = _check_year(document, number)
    if year:
        checks["year"] = year
    aliases = _check_aliases(document, number)
    if aliases:
        checks["aliases"] = aliases
    if expect is not None:
        checks["expected"] = _check_expected(expect, number)
    if title is not None:
        checks["title"] = _check_title(record, title)
    if arxiv is not None:
        checks["arxiv"] = Check(*source_problem(record, arxiv))
    report.title = record_title(document, title)[0]
    receipt_checks, report.key_id, key = _check_receipt(receipt, digest, keys or pinned_keys())
    checks.update(receipt_checks)
    if key is not None and checks["signature"].status == PASS:
        report.signer, report.registry_signed = key.signer(), key.registry
    return report


def _check_hash(document: dict[str, Any], receipt: dict[str, Any] | None, actual: str) -> Check:
    stated = {"record": document.get("canonical_sha256")}
    if receipt is not None:
        stated["receipt"] = receipt.get("canonical_sha256")
    stated = {where: value for where, value in stated.items() if value is not None}
    wrong = [where for where, value in stated.items() if str(value).lower() != actual]
    if wrong:
        return Check(FAIL, f"recomputed {actual}, but the {' and '.join(wrong)} states {stated[wrong[0]]}")
    if not stated:
        return Check(UNKNOWN, f"recomputed {actual}; the file states no hash to compare")
    return Check(PASS, f"recomputed {actual}, equal to the {' and '.join(stated)}")


def _stated_numbers(document: dict[str, Any]) -> list[tuple[str, Any]]:
    keys = ("pith_number", "number", "body")
    return [(key, document[key]) for key in keys if document.get(key) is not None]


def _check_number(document: dict[str, Any], number: PithNumber) -> Check:
    stated = _stated_numbers(document)
    if not stated:
        return Check(UNKNOWN, f"computed {number.body}; the file states no number")
    for key, value in stated:
        try:
            ref = parse_reference(str(value))
        except InvalidNumber as exc:
            return Check(FAIL, f"{key}: {exc}")
        if not isinstance(ref, PithNumber) or ref.body != number.body:
            return Check(FAIL, f"{key} says {value}, but the record hashes to {number.body}")
    return Check(PASS, f"{number.body} is the first 26 base32 characters of the hash")


def _check_year(document: dict[str, Any], number: PithNumber) -> Check | None:
    for key, value in _stated_numbers(document):
        try:
            ref = parse_reference(str(value))
        except InvalidNumber:
            continue
        if isinstance(ref, PithNumber) and ref.year is not None:
            if number.year is None:
                return Check(FAIL, f"{key} names year {ref.year}, but the record has no submitted_at year")
            if ref.year != number.year:
                return Check(FAIL, f"{key} names year {ref.year}, but submitted_at is in {number.year}")
            return Check(PASS, f"year {ref.year} equals submitted_at's year")
    return None


def _stated_aliases(document: dict[str, Any]) -> list[tuple[str, str]]:
    found = []
    if document.get("short_pith_number") is not None:
        found.append(("short_pith_number", str(document["short_pith_number"])))
    for entry in document.get("aliases") or []:
        if isinstance(entry, dict) and str(entry.get("alias_kind", "")).startswith("pith_short_"):
            found.append((str(entry["alias_kind"]), str(entry.get("alias_value", ""))))
    return found


def _check_aliases(document: dict[str, Any], number: PithNumber) -> Check | None:
    stated = _stated_aliases(document)
    if not stated:
        return None
    for kind, value in stated:
        try:
            ref = parse_reference(value)
        except InvalidNumber as exc:
            return Check(FAIL, f"{kind}: {exc}")
        if not isinstance(ref, PithAlias) or not ref.matches(number):
            return Check(FAIL, f"{kind} {value} is not a prefix of {number.body}")
        if kind.startswith("pith_short_") and kind != f"pith_short_{len(ref.prefix)}":
            return Check(FAIL, f"{kind} {value} has {len(ref.prefix)} characters")
    return Check(PASS, f"{len(stated)} stated short alias(es) are prefixes of the number")


def _check_expected(expect: PithNumber, number: PithNumber) -> Check:
    if expect.body != number.body:
        return Check(FAIL, f"asked for {expect.body}, but the record hashes to {number.body}")
    if expect.year is not None and expect.year != number.year:
        held = f"its submitted_at is in {number.year}" if number.year is not None else "it has no submitted_at year"
        return Check(FAIL, f"{expect.long} names year {expect.year}, but the record is of {number.body} and {held}")
    if expect.year is not None:
        return Check(PASS, f"the record is the one asked for ({expect.long}: submitted_at is in {expect.year})")
    return Check(PASS, f"the record is the one asked for ({expect.body})")


def _check_title(record: dict[str, Any], title: str) -> Check:
    stated = (record.get("metadata") or {}).get("title_canon_sha256")
    actual = title_sha256(title)
    if stated is None:
        return Check(UNKNOWN, "the record states no title_canon_sha256")
    if str(stated).lower() == actual:
        return Check(PASS, "the title hashes to title_canon_sha256")
    return Check(FAIL, f"the title hashes to {actual}, the record states {stated}")


def _check_receipt(
    receipt: dict[str, Any] | None, digest: bytes, keys: KeyRing
) -> tuple[dict[str, Check], str | None, PublicKey | None]:
    if receipt is None:
        return {"receipt": Check(UNKNOWN, "no receipt: nothing signed this record")}, None, None
    key_id = receipt.get("key_id") if isinstance(receipt.get("key_id"), str) else None
    checks: dict[str, Check] = {}
    algorithm, message = receipt.get("algorithm"), receipt.get("signed_message")
    if algorithm != ALGORITHM or message != SIGNED_MESSAGE:
        checks["receipt"] = Check(
            UNKNOWN, f"receipt uses {algorithm!r} over {message!r}; only {ALGORITHM} over {SIGNED_MESSAGE}"
        )
        return checks, key_id, None
    checks["receipt"] = Check(PASS, f"{ALGORITHM} over {SIGNED_MESSAGE}")
    key = keys.get(key_id) if key_id else None
    if key is None:
        checks["key"] = Check(UNKNOWN, f"key {key_id!r} is not a pinned registry key")
        checks["signature"] = Check(UNKNOWN, "cannot be checked without a trusted key")
        return checks, key_id, None
    whose = "pinned" if key.registry else added_key(key.added_by or ADDED_BY_OPTION)
    stated_fp = receipt.get("public_key_fingerprint")
    if stated_fp is not None and str(stated_fp).lower() != key.fingerprint:
        checks["key"] = Check(FAIL, f"receipt names fingerprint {stated_fp}, {key_id} ({whose}) "
                              f"is {key.fingerprint}")
    else:
        checks["key"] = Check(PASS, f"{key_id} is {whose} (fingerprint {key.fingerprint})")
    signature = decode_signature(receipt.get("signature_b64"))
    if signature is None:
        checks["signature"] = Check(FAIL, "signature_b64 is not a base64 Ed25519 signature (64 bytes)")
    elif key.verify(signature, digest):
        checks["signature"] = Check(PASS, f"valid Ed25519 signature over the hash: {key.signer()}")
    else:
        checks["signature"] = Check(FAIL, f"the signature does not verify under {key_id}")
    return checks, key_id, key


# -- the PDF is the paper ------------------------------------------------------------------
def record_title(document: dict[str, Any], given: str | None = None) -> tuple[str | None, str]:
    """The record's title once authenticated, and how; or None and why not. The signature covers
    only title_canon_sha256, so a title is taken (--title first, then the unsigned paper.title)
    only when it hashes to it by the one title rule (record.title_sha256)."""
    try:
        stated = (canonical_of(document).get("metadata") or {}).get("title_canon_sha256")
    except PithError:
        stated = None
    if not isinstance(stated, str):
        return None, "the record states no title_canon_sha256, so no title can be authenticated"
    paper = document.get("paper")
    if not isinstance(paper, dict):
        paper = {}
    candidates = [("--title", given), ("the record's paper.title", paper.get("title"))]
    tried = []
    for where, text in candidates:
        if isinstance(text, str) and text.strip():
            if title_sha256(text) == stated.lower():
                return text, f"{where} hashes to title_canon_sha256"
            tried.append(f"{where} {_quoted(text)}")
    if not tried:
        return None, "the record has no paper.title (and no --title was given) to hash to title_canon_sha256"
    return None, f"{' and '.join(tried)} do{'es' if len(tried) == 1 else ''} not hash to title_canon_sha256"


def check_paper(document: dict[str, Any], shown: Shown, title: str | None = None) -> Check:
    """Does the PDF (what `pdf.shown.shown_of` read) show the record's paper? FAIL when the PDF
    names an unrelated title that it also typesets (pith.sty's record of it, or metadata whose
    title is page 1's title); else PASS when page 1's title (its largest visible text in its top
    part) is the authenticated title, matched as whole words; UNKNOWN otherwise, saying what was
    found. Metadata alone never passes (anyone can write it), and a genuine PDF with a stray
    Info /Title or no text layer is never FAIL: nothing there shows it is another paper."""
    wanted, how = record_title(document, title)
    if wanted is None:
        return Check(UNKNOWN, f"cannot tell which paper this PDF must show: {how}")
    named = shown.named()
    typeset = shown.pith_title
    if typeset and titles.is_title(typeset) and titles.unrelated(wanted, typeset):
        return Check(FAIL, f"the PDF is of another paper: pith.sty typeset the title {_quoted(typeset)}, "
                     f"the record's is {_quoted(wanted)}")
    heading = shown.largest or ""
    for where, text in named:
        # Another paper only when the PDF also sets that title as its title: a stray Info
        # /Title (a DOI, arXiv's stamp, a template's) proves nothing.
        if titles.is_title(text) and titles.unrelated(wanted, text) and titles.shows(text, heading):
            return Check(FAIL, f"the PDF is of another paper: its {where} {_quoted(text)} is the title set "
                         f"on page 1, the record's title {_quoted(wanted)} is not page 1's title")
    if titles.shows(wanted, heading):
        return _as_drawn(Check(PASS, f"page 1 shows the record's title {_quoted(wanted)} as its title ({how})"),
                         wanted, shown)
    if titles.with_subtitle(wanted, heading):
        return _as_drawn(Check(PASS, f"page 1 shows the record's title {_quoted(wanted)} as its title, with a "
                               f"subtitle inserted: {_quoted(heading)} ({how})"), heading, shown)
    return Check(UNKNOWN, _not_shown(wanted, shown, named))


def _as_drawn(passed: Check, expected: str, shown: Shown) -> Check:
    """`passed`, unless page 1's title is set in a font whose glyphs cannot be told from its text
    layer (pdf/glyphs.py): then only when its rendered title band reads `expected` too (pdf/ocr.py);
    never PASS from such a text layer alone."""
    page = shown.page
    if page is None or page.untold is None:
        return passed
    from .pdf import ocr

    why = f"page 1's title is set in {page.untold}, so its text layer is not taken at its word"
    if page.pixels is None:
        return Check(UNKNOWN, f"{why}: {page.pixels_problem}; cannot tell that this PDF is the record's paper")
    if not ocr.reads(expected, page.pixels):
        return Check(UNKNOWN, f"{why}, and the rendered title reads {_quoted(page.pixels)}, not "
                     f"{_quoted(expected)}; cannot tell that this PDF is the record's paper")
    return Check(PASS, f"{passed.detail}; its rendered title reads the same ({page.untold})")


def _not_shown(wanted: str, shown: Shown, named: list[tuple[str, str]]) -> str:
    if shown.problem:
        found = shown.problem
    elif not shown.has_text:
        found = "page 1 shows no text"
    else:
        found = f"page 1 does not show the record's title {_quoted(wanted)} as its title"
        if titles.shows(wanted, shown.page1 or ""):
            found += " (only in its smaller text)"
        if shown.largest:
            found += f"; its title reads {_quoted(shown.largest)}"
        if shown.page is not None and shown.page.hidden:
            found += f"; {shown.page.hidden:,} of its characters are not visible to a reader"
    others = "; ".join(f"{where} reads {_quoted(text)}" for where, text in named)
    if any(titles.same(wanted, text) for _where, text in named):
        others += " (metadata alone does not show which paper a PDF is)"
    return f"{found}{'; ' + others if others else ''}; cannot tell that this PDF is the record's paper"


def _quoted(text: str) -> str:
    return '"' + titles.shorten(titles.readable(text)) + '"'
