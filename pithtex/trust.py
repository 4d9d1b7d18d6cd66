"""Pinned registry keys and Ed25519 receipt signatures.

The package ships the registry's public keys as data (`data/keys.json`); each key's
fingerprint (first 16 bytes of SHA-256 of the raw key, hex) is checked when it is loaded,
so a corrupted or edited key file fails loudly instead of trusting the wrong key.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from pathlib import Path

from . import brand, safetext
from .errors import InputError, KeyFileError
from .files import read_input
from .value import TYPE_CHECKING, Frozen

if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

ALGORITHM = "ed25519"
SIGNED_MESSAGE = "canonical_sha256_bytes"


def fingerprint(raw_public_key: bytes) -> str:
    return hashlib.sha256(raw_public_key).digest()[:16].hex()


class PublicKey(Frozen):
    """An Ed25519 public key by its id. A Frozen value, not a dataclass: `dataclasses` (with
    `inspect` and `ast`) cost every `verify` more to import than checking the signature."""

    __slots__ = ("key_id", "raw", "added_by")  # noqa: RUF023 (Frozen takes its fields in this order, as __init__)
    key_id: str
    raw: bytes
    # Who trusted a key beside the registry's (brand.ADDED_BY_OPTION, ...); None for keys as loaded.
    added_by: str | None

    def __init__(self, key_id: str, raw: bytes, added_by: str | None = None) -> None:
        object.__setattr__(self, "key_id", key_id)
        object.__setattr__(self, "raw", raw)
        object.__setattr__(self, "added_by", added_by)

    def __repr__(self) -> str:  # the key's bytes left out, as its fingerprint says which it is
        return f"PublicKey(key_id={self.key_id!r}, added_by={self.added_by!r})"

    @property
    def registry(self) -> bool:
        """True only for a pinned registry key itself: same id and same key bytes."""
        pinned = pinned_keys().get(self.key_id)
        return pinned is not None and pinned.raw == self.raw

    def signer(self) -> str:
        """Whose signature this key makes, in the one wording of brand.py."""
        if self.registry:
            return brand.signed_by_registry(self.key_id)
        return brand.signed_by_added(self.key_id, self.added_by or brand.ADDED_BY_OPTION)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.raw)

    def _verifier(self) -> Any:
        verifier = _VERIFIERS.get(self.raw)
        if verifier is None:
            # Imported here: `cryptography` costs ~45 ms, and most commands never verify.
            from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

            verifier = _VERIFIERS[self.raw] = Ed25519PublicKey.from_public_bytes(self.raw)
        return verifier

    def ready(self) -> None:
        """Its verifier made now (cryptography imported), ahead of a signature to check: while
        a worker reads the PDF whose record it will check (client.Client.verify_pdf)."""
        from cryptography.exceptions import InvalidSignature  # noqa: F401  (verify's, imported with it)

        self._verifier()

    def verify(self, signature: bytes, message: bytes) -> bool:
        from cryptography.exceptions import InvalidSignature

        try:
            self._verifier().verify(signature, message)
        except InvalidSignature:
            return False
        return True


# Each key's verifier, made once a process (by its raw bytes: the same key under another id or
# trusted by another option verifies alike).
_VERIFIERS: dict[bytes, Any] = {}


class KeyRing:
    """Keys by id. Only keys in the ring can make a receipt 'verified'."""

    def __init__(self, keys: list[PublicKey] | None = None) -> None:
        self._keys: dict[str, PublicKey] = {}
        self.refused: list[str] = []  # why keys offered to `extended` were not taken, one line each
        for key in keys or []:
            self.add(key)

    def add(self, key: PublicKey) -> None:
        self._keys[key.key_id] = key

    def get(self, key_id: str) -> PublicKey | None:
        return self._keys.get(key_id)

    def __iter__(self) -> Iterator[PublicKey]:
        return iter(self._keys.values())

    def __len__(self) -> int:
        return len(self._keys)

    def extended(self, other: KeyRing, added_by: str = brand.ADDED_BY_OPTION, source: str = "") -> KeyRing:
        """This ring plus `other`'s keys, each marked as added by `added_by`. A key whose id is
        a pinned registry key's is never taken: the pinned key stays, and `refused` says why
        (the same key under its own id is taken silently: it changes nothing)."""
        ring = KeyRing(list(self))
        ring.refused = list(self.refused)
        for key in other:
            if pinned_keys().get(key.key_id) is not None:
                if not PublicKey(key.key_id, key.raw).registry:
                    ring.refused.append(brand.key_id_clash(source or added_by, key.key_id))
                continue
            ring.add(PublicKey(key.key_id, key.raw, added_by))
        return ring


def keys_from_json(document: Any, source: str) -> list[PublicKey]:
    """Keys from a key document: {"keys": [...]}, a list, or one key object."""
    if isinstance(document, dict) and "keys" in document:
        entries = document["keys"]
    elif isinstance(document, list):
        entries = document
    else:
        entries = [document]
    if not isinstance(entries, list) or not entries:
        raise KeyFileError(f"{source}: no keys found (expected {{\"keys\": [...]}})")
    keys = [_key_from_entry(entry, source) for entry in entries]
    seen: set[str] = set()
    for key in keys:  # the ring keeps one key an id: which one would depend on the order
        if key.key_id in seen:
            raise KeyFileError(f"{source}: key {key.key_id!r} is given twice; a key id names one key")
        seen.add(key.key_id)
    return keys


def _key_from_entry(entry: Any, source: str) -> PublicKey:
    if not isinstance(entry, dict) or not isinstance(entry.get("key_id"), str):
        raise KeyFileError(f"{source}: every key needs a 'key_id'")
    key_id = entry["key_id"]
    if not key_id.isprintable() or key_id != key_id.strip() or not key_id:
        # a zero-width space or a bidi control would let `pith-v1-2026-05` + U+200B pass for
        # the registry's key id on a page or a terminal: such an id names no key of ours
        raise KeyFileError(brand.key_id_unusable(source, safetext.shown(key_id, quote=True)))
    algorithm = str(entry.get("algorithm", ALGORITHM)).lower()
    if algorithm != ALGORITHM:
        raise KeyFileError(f"{source}: key {key_id!r} is {algorithm}; only ed25519 is supported")
    raw = _raw_key(entry, source, key_id)
    stated = entry.get("fingerprint") or entry.get("public_key_fingerprint")
    if stated is not None and str(stated).lower() != fingerprint(raw):
        raise KeyFileError(
            f"{source}: key {key_id!r} does not match its fingerprint "
            f"(stated {stated}, computed {fingerprint(raw)}); refusing to trust it"
        )
    return PublicKey(key_id, raw)


def _raw_key(entry: dict[str, Any], source: str, key_id: str) -> bytes:
    try:
        if "public_key_hex" in entry:
            raw = bytes.fromhex(entry["public_key_hex"])
        elif "public_key_b64" in entry:
            raw = base64.b64decode(entry["public_key_b64"], validate=True)
        else:
            raise KeyFileError(f"{source}: key {key_id!r} has no 'public_key_hex' or 'public_key_b64'")
    except (ValueError, TypeError, binascii.Error):
        raise KeyFileError(f"{source}: key {key_id!r} is not valid hex/base64") from None
    if len(raw) != 32:
        raise KeyFileError(f"{source}: key {key_id!r} has {len(raw)} bytes; an Ed25519 public key has 32")
    return raw


_PINNED: KeyRing | None = None


def pinned_keys() -> KeyRing:
    """The registry keys shipped with pithtex (loaded and fingerprint-checked once)."""
    global _PINNED
    if _PINNED is None:
        # beside this module, as the package installs it (importlib.resources would cost every
        # `verify` its import, for a file that is never inside a zip)
        text = Path(__file__).with_name("data").joinpath("keys.json").read_text("utf-8")
        _PINNED = KeyRing(keys_from_json(json.loads(text), "pithtex/data/keys.json"))
    return _PINNED


MAX_KEY_FILE_BYTES = 1024 * 1024  # a key file holds a few keys; /dev/zero must not fill memory


def load_keys(path: str | Path) -> KeyRing:
    """Extra trusted keys from a JSON file (a mirror's key, or a test key)."""
    path = Path(path)
    try:
        document = json.loads(read_input(path, MAX_KEY_FILE_BYTES, "a key file").decode("utf-8"))
    except FileNotFoundError:
        raise KeyFileError(f"{path}: no such key file") from None
    except InputError as exc:
        raise KeyFileError(str(exc)) from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise KeyFileError(f"{path}: not a JSON key file ({exc})") from None
    return KeyRing(keys_from_json(document, str(path)))


def decode_signature(text: Any) -> bytes | None:
    """The 64 raw bytes of a base64 Ed25519 signature, or None when it is not one."""
    if not isinstance(text, str):
        return None
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw if len(raw) == 64 else None
