"""Write tests/fixtures/canon-vectors.json: records that both readers (pithtex/record.py with
pithtex/verify.py, and pith-badge.js) must give one verdict on (tests/test_canon_vectors.py).

Run from the checkout: `.venv/bin/python tools/make_canon_vectors.py`. The output is the same
every time: the test key is derived from a fixed, public seed (it signs nothing but these
vectors, and no reader pins it: the test adds it), and Ed25519 signatures are deterministic.

Verdicts: verified (exit 0), invalid (1), refused (2: not a Pith record at all; the element
shows it as unchecked with the reason), unchecked (3).
"""

from __future__ import annotations

import base64
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from pithtex.number import PithNumber
from pithtex.record import MAX_DEPTH, MAX_DIGITS, canonical_json, title_sha256
from pithtex.trust import fingerprint

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "canon-vectors.json"
KEY_ID = "canon-vectors-test-key"
PRIVATE = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"pithtex canon-vectors test key; public").digest())
RAW_PUBLIC = PRIVATE.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
DEEP = "@DEEP@"  # where a vector's "deep" nesting goes: "[" * n + "]" * n


def canonical(**metadata: Any) -> dict[str, Any]:
    return {
        "schema_version": "1.0",
        "source": {"kind": "arxiv", "id": "2401.00001", "version": 1},
        "metadata": {"title_canon_sha256": title_sha256("A Test Paper"), "license": "", "primary_cat": "cs.CL",
                     "cross_cats_sorted": [], "submitted_at": "2024-01-02T03:04:05Z", **metadata},
    }


def full(record: dict[str, Any], key_id: str = KEY_ID, signed: bytes | None = None, **extra: Any) -> dict[str, Any]:
    """A full record; `signed` are the canonical bytes the key signs (default: Python's of `record`)."""
    digest = hashlib.sha256(signed if signed is not None else canonical_json(record)).digest()
    number = PithNumber.from_sha256(digest, year=2024)
    return {
        "pith_number": number.long, "canonical_sha256": digest.hex(), "canonical_record": record,
        "receipt": {"key_id": key_id, "algorithm": "ed25519", "signed_message": "canonical_sha256_bytes",
                    "canonical_sha256": digest.hex(), "signature_b64": base64.b64encode(PRIVATE.sign(digest)).decode(),
                    "public_key_fingerprint": fingerprint(RAW_PUBLIC)},
        **extra,
    }


def text(doc: Any) -> str:
    return json.dumps(doc, ensure_ascii=False)


def vectors() -> list[dict[str, Any]]:
    v: list[dict[str, Any]] = []

    def add(name: str, verdict: str, why: str, body: str | None = None, raw: bytes | None = None, **more: Any) -> None:
        entry: dict[str, Any] = {"name": name, "verdict": verdict, "why": why}
        if raw is not None:
            entry["base64"] = base64.b64encode(raw).decode()
        else:
            entry["text"] = body
        v.append({**entry, **more})

    plain = full(canonical())
    base = text(plain)
    add("plain", "verified", "a record signed by the test key", base)
    add("pretty", "verified", "white space between tokens is not part of the value",
        json.dumps(plain, indent="\t").replace("\n", "\r\n"))
    add("stated-hash-wrong", "invalid", "the stated hash is not the recomputed one",
        text({**plain, "canonical_sha256": "00" * 32}))
    add("no-receipt", "unchecked", "nothing signed it", text({k: x for k, x in plain.items() if k != "receipt"}))
    other = full(canonical(), key_id="a-key-nobody-pins")
    add("unknown-key", "unchecked", "signed by a key no reader trusts", text(other))
    look_alike = full(canonical(), key_id="pith-v1-2026-05\u200b")
    add("key-id-look-alike", "unchecked", "signed under the registry's key id plus a zero-width space, which no "
        "reader pins (nor lets a page or --keys add)", text(look_alike))

    # numbers: integers only, as written; 5.0 and 1e0 are not integers whatever their value
    five = canonical()
    five["source"]["version"] = 5
    five = full(five)
    add("float-5.0", "invalid", "5.0 is not an integer (JSON.parse would read 5)",
        text(five).replace('"version": 5', '"version": 5.0'))
    as_python = canonical()
    as_python["source"]["version"] = 5.0
    add("float-5.0-signed-as-python-writes-it", "invalid",
        "signed over Python's text for 5.0 ('5.0'): still not an integer, so no one canonical text",
        text(full(as_python)))
    add("exponent-1e0", "invalid", "1e0 is not an integer", text(plain).replace('"version": 1', '"version": 1e0'))
    add("exponent-1E2", "invalid", "an upper-case exponent is an exponent",
        text(plain).replace('"version": 1', '"version": 1E2'))
    add("float-in-a-list", "invalid", "a non-integer anywhere in the canonical record",
        text(plain).replace('"cross_cats_sorted": []', '"cross_cats_sorted": [1, 2.5]'))
    zero = canonical()
    zero["source"]["version"] = 0
    add("minus-zero", "verified", "-0 is the integer 0 (no fraction, no exponent), written 0 in canonical form",
        text(full(zero)).replace('"version": 0', '"version": -0'))
    add("minus-zero-float", "invalid", "-0.0 is not an integer",
        text(full(zero)).replace('"version": 0', '"version": -0.0'))
    add("floats-outside-the-record", "verified", "unsigned parts may hold any JSON number",
        text({**plain, "paper": {"score": 0.5, "huge": 1}}).replace('"huge": 1', '"huge": 1e400'))
    big = canonical(extra=-(2 ** 64 + 7))
    big["source"]["version"] = 2 ** 53 + 1
    add("integers-beyond-2^53", "verified", "read exactly as written (JSON.parse would round 9007199254740993)",
        text(full(big)))
    add("integer-rounded", "invalid", "9007199254740992 is not the signed 9007199254740993",
        text(full(big)).replace("9007199254740993", "9007199254740992"))
    add(f"integer-of-{MAX_DIGITS}-digits", "verified", "the longest integer read",
        text({**plain, "paper": {"n": 1}}).replace('"n": 1', '"n": ' + "9" * MAX_DIGITS))
    add(f"integer-of-{MAX_DIGITS + 1}-digits", "refused", "longer than any reader need hold exactly",
        text({**plain, "paper": {"n": 1}}).replace('"n": 1', '"n": ' + "9" * (MAX_DIGITS + 1)))
    for bad, name in (("NaN", "nan"), ("Infinity", "infinity"), ("-Infinity", "minus-infinity"), ("05", "leading-zero"),
                      ("+1", "plus-sign"), (".5", "bare-fraction"), ("1.", "bare-point"), ("0x10", "hex")):
        add(f"number-{name}", "refused", f"{bad} is not JSON",
            text({**plain, "paper": {"n": 1}}).replace('"n": 1', '"n": ' + bad))

    # nesting: the registry's records nest 5 deep; a reader refuses past MAX_DEPTH
    at_limit = MAX_DEPTH - 1  # the document is one level, and "paper" holds the rest
    add("nested-200000-deep", "refused", f"more than {MAX_DEPTH} deep",
        text({**plain, "paper": DEEP}).replace(f'"{DEEP}"', DEEP), deep=200_000)
    add(f"nested-{MAX_DEPTH}-deep", "verified", "at the limit",
        text({**plain, "paper": DEEP}).replace(f'"{DEEP}"', DEEP), deep=at_limit)
    inside, lists = canonical(), MAX_DEPTH - 3  # the document, canonical_record and metadata are three levels
    inside["metadata"]["deep"] = DEEP
    signed = canonical_json(inside).replace(f'"{DEEP}"'.encode(), b"[" * lists + b"]" * lists)
    add(f"nested-{MAX_DEPTH}-deep-in-the-record", "verified", "at the limit, inside the signed record",
        text(full(inside, signed=signed)).replace(f'"{DEEP}"', DEEP), deep=lists)
    add(f"nested-{MAX_DEPTH + 1}-deep", "refused", "one past the limit",
        text({**plain, "paper": DEEP}).replace(f'"{DEEP}"', DEEP), deep=at_limit + 1)

    # strings and keys: code-point order, every escape, non-BMP characters
    wide = canonical(**{"😀 emoji": "😀 𝕏 \U0010fffd", "\ufffd replacement": "\ufffd", "é": "é", "𝕏": ["𝕏"],
                        "__proto__": 1})
    add("non-bmp-keys-and-strings", "verified", "keys sort by code point (U+FFFD before U+1F600), UTF-8 raw",
        text(full(wide)))
    add("non-bmp-escaped", "verified", "the same record with \\ud83d\\ude00 escapes: the same values",
        json.dumps(full(wide), ensure_ascii=True))
    escapes = canonical(note="\" \\ / \b \f \n \r \t \x00 \x1f \x7f \u2028 \u2029 é")
    written = (r'"\" \\ \/ \b \f \n \r \t \u0000 \u001F ' + "\x7f" + r' \u2028 \u2029 \u00E9"')
    add("every-escape", "verified", "each JSON escape (\\/ and upper-case hex too), DEL raw",
        text(full(escapes)).replace(json.dumps(escapes["metadata"]["note"], ensure_ascii=False), written))
    add("bad-escape", "refused", "\\x is not a JSON escape", base.replace('"license": ""', r'"license": "\x41"'))
    add("short-unicode-escape", "refused", "\\u needs four hex digits",
        base.replace('"license": ""', r'"license": "\u12"'))
    add("raw-control-character", "refused", "a raw tab inside a string",
        base.replace('"license": ""', '"license": "a\tb"'))
    add("lone-surrogate-in-record", "refused", "no UTF-8 text holds it",
        base.replace('"license": ""', r'"license": "\ud800"'))
    add("lone-surrogate-unsigned", "refused", "no UTF-8 text holds it, signed or not",
        text({**plain, "paper": {"title": "x"}}).replace('"title": "x"', r'"title": "\udc00x"'))

    # duplicate keys: readers disagree on which one wins
    add("duplicate-key-in-record", "refused", "the last would win in Python and JSON.parse, the first elsewhere",
        base.replace('"version": 1', '"version": 7, "version": 1'))
    add("duplicate-key-unsigned", "refused", "unsigned parts too",
        text({**plain, "paper": {"title": "x"}}).replace('"title": "x"', '"title": "x", "title": "y"'))
    add("duplicate-key-by-escape", "refused", "\\u0076ersion is version",
        base.replace('"version": 1', r'"version": 1, "\u0076ersion": 1'))

    # bytes: UTF-8, one BOM allowed
    add("bom", "verified", "one leading byte-order mark is dropped", "\ufeff" + base)
    add("two-boms", "refused", "the second is not white space", "\ufeff\ufeff" + base)
    add("bom-after-space", "refused", "a BOM only leads", " \ufeff" + base)
    add("invalid-utf8", "refused", "a byte that is not UTF-8", raw=base.replace("cs.CL", "cs.\xffCL").encode("latin-1"))
    add("overlong-utf8", "refused", "an overlong encoding of '/'",
        raw=base.encode().replace(b"cs.CL", b"cs.\xc0\xafCL"))
    add("utf16", "refused", "UTF-16 is not UTF-8", raw=base.encode("utf-16"))
    add("utf8-encoded-surrogate", "refused", "the bytes of U+D800 are not UTF-8",
        raw=base.encode().replace(b"cs.CL", b"cs.\xed\xa0\x80CL"))
    add("raw-nul", "refused", "a raw U+0000 inside a string", base.replace('"license": ""', '"license": "a\x00b"'))
    odd = canonical(**{"\x00 key": "\ufffe \uffff \U0001f600", "": "an empty key"})
    add("noncharacters-and-odd-keys", "verified", "U+FFFE and U+FFFF are text; a NUL key and an empty key are keys",
        text(full(odd)))

    # the JSON text itself
    add("empty", "refused", "nothing", "")
    add("white-space-only", "refused", "nothing", " \n\t ")
    add("trailing-comma", "refused", "not JSON", base[:-1] + ",}")
    add("two-documents", "refused", "more after the value", base + " {}")
    add("top-level-list", "refused", "a record is an object", "[" + base + "]")
    add("single-quotes", "refused", "not JSON", base.replace('"license": ""', "'license': ''"))
    add("comment", "refused", "not JSON", base.replace("{", "{/* c */", 1))
    add("capital-true", "refused", "not JSON", text({**plain, "paper": {"ok": True}}).replace("true", "True"))

    # the title rule (pithtex.record.canonical_title): paper.title authenticates against the signed hash
    for i, title in enumerate(["ΟΔΟΣ ΣΤΟ ΦΩΣ", "İstanbul ΣΑΣ", "Cafe\u0301 ﬁne ß", "Ｆｕｌｌ ｗｉｄｔｈ", "Ǆemal ǅ"]):
        record = canonical()
        record["metadata"]["title_canon_sha256"] = title_sha256(title)
        add(f"title-{i}", "verified", "paper.title hashes by the one title rule to the signed title_canon_sha256",
            text(full(record, paper={"title": title})), title=True)
    return v


def document() -> dict[str, Any]:
    return {
        "about": __doc__.split("\n\n")[0].replace("\n", " "),
        "verdicts": {"verified": 0, "invalid": 1, "refused": 2, "unchecked": 3},
        "rules": {"max_depth": MAX_DEPTH, "max_digits": MAX_DIGITS, "deep": f"{DEEP} in a vector's text stands for "
                  "'[' * deep + ']' * deep", "bytes": "text as UTF-8, or base64"},
        "keys": {"keys": [{"key_id": KEY_ID, "algorithm": "ed25519", "public_key_hex": RAW_PUBLIC.hex(),
                           "fingerprint": fingerprint(RAW_PUBLIC)}]},
        "vectors": vectors(),
    }


def main() -> int:
    OUT.write_text(json.dumps(document(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
