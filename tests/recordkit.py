"""Build synthetic Pith records signed with a key the test generates (never a real key)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from pithtex.number import PithNumber
from pithtex.record import abstract_sha256, canonical_sha256, title_sha256
from pithtex.trust import fingerprint


class TestKey:
    """A fresh Ed25519 key pair with an id, and a key file pithtex --keys can read."""

    __test__ = False  # not a pytest class

    def __init__(self, key_id: str = "test-key-1") -> None:
        self.key_id = key_id
        self.private = Ed25519PrivateKey.generate()
        self.raw_public = self.private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    def key_file(self, folder: Path) -> Path:
        path = folder / f"{self.key_id}.json"
        path.write_text(json.dumps({"keys": [{
            "key_id": self.key_id, "algorithm": "ed25519",
            "public_key_hex": self.raw_public.hex(), "fingerprint": fingerprint(self.raw_public),
        }]}))
        return path

    def sign(self, digest: bytes) -> str:
        return base64.b64encode(self.private.sign(digest)).decode("ascii")


def canonical(title: str = "A Test Paper", abstract: str = "An abstract.", arxiv_id: str = "2401.00001",
              version: int = 1, submitted_at: str = "2024-01-02T03:04:05Z", license: str = "",
              primary: str = "cs.CL", cross: list[str] | None = None) -> dict[str, Any]:
    return {
        "schema_version": "1.0",
        "source": {"kind": "arxiv", "id": arxiv_id, "version": version},
        "metadata": {
            "title_canon_sha256": title_sha256(title),
            "abstract_canon_sha256": abstract_sha256(abstract),
            "license": license,
            "primary_cat": primary,
            "cross_cats_sorted": sorted(cross or []),
            "submitted_at": submitted_at,
        },
    }


def full_record(record: dict[str, Any], key: TestKey) -> dict[str, Any]:
    """A full record in the registry's shape, signed by `key`."""
    digest = canonical_sha256(record)
    number = PithNumber.from_sha256(digest, year=int(record["metadata"]["submitted_at"][:4]))
    return {
        "record_type": "pith_number_record",
        "pith_number": number.long,
        "short_pith_number": number.short,
        "canonical_sha256": digest.hex(),
        "canonical_record": record,
        "receipt": {
            "kind": "pith_receipt", "key_id": key.key_id, "algorithm": "ed25519",
            "signed_message": "canonical_sha256_bytes", "canonical_sha256": digest.hex(),
            "signature_b64": key.sign(digest), "public_key_fingerprint": fingerprint(key.raw_public),
        },
        "aliases": [{"alias_kind": f"pith_short_{n}", "alias_value": number.body[:n]} for n in (8, 12, 16)],
    }
