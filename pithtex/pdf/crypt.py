"""The standard security handler (PDF 2.0 §7.6.4): open encrypted PDFs, encrypt what we append.

Revisions 2 to 6: RC4 40/128-bit (R2/R3), RC4 or AES-128 through crypt filters, /Identity
included (R4), AES-256 (R5, Adobe's extension level 3, and R6). The ciphers themselves come
from `cryptography` (imported only for encrypted files: it costs ~45 ms); what is here is
the key derivation the standard spells out, nothing hand-rolled on the cipher side.

An empty user password opens most encrypted PDFs (permission-restricted files): that is
tried first; another password is tried both as user and as owner password.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from .errors import EncryptionError, PasswordNeeded
from .objects import HexString, Keyword, Name, Ref, Stream, text_string

# The 32-byte padding string of Algorithm 2.
PAD = bytes.fromhex("28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A")


__all__ = ["EncryptionError", "PasswordNeeded", "Security", "open_security"]


@dataclass(frozen=True)
class Method:
    """One crypt filter: "none", "rc4", "aes128" or "aes256"."""

    kind: str

    @property
    def name(self) -> str:
        return {"none": "none", "rc4": "RC4", "aes128": "AES-128", "aes256": "AES-256"}[self.kind]


@dataclass(frozen=True)
class Parameters:
    """What the /Encrypt dictionary says, checked (no key yet)."""

    v: int
    r: int
    length: int  # key length in bytes
    o: bytes
    u: bytes
    oe: bytes
    ue: bytes
    p: int
    id0: bytes
    encrypt_metadata: bool
    strings: Method
    streams: Method
    filters: dict[str, Method]

    @property
    def summary(self) -> str:
        methods = {self.strings.name, self.streams.name} - {"none"}
        return f"R{self.r} {'/'.join(sorted(methods)) or 'identity'}" + (
            f" {self.length * 8}-bit" if "RC4" in methods else "")


def parameters(encrypt: Any, trailer_id: Any) -> Parameters:
    """Read and check an /Encrypt dictionary; EncryptionError for anything not supported."""
    if not isinstance(encrypt, dict):
        raise EncryptionError("its /Encrypt entry is not a dictionary")
    handler = encrypt.get("Filter")
    if handler != "Standard":
        raise EncryptionError(f"it uses the /{handler} security handler (only /Standard is supported)")
    v, r = encrypt.get("V", 0), encrypt.get("R")
    if v not in (1, 2, 4, 5) or r not in (2, 3, 4, 5, 6):
        raise EncryptionError(f"unsupported encryption V{v} R{r}")
    o, u, p = encrypt.get("O"), encrypt.get("U"), encrypt.get("P")
    if not (isinstance(o, bytes) and isinstance(u, bytes) and isinstance(p, int)):
        raise EncryptionError("its /Encrypt dictionary lacks /O, /U or /P")
    bits = encrypt.get("Length", 40)
    length = 32 if v == 5 else (5 if v == 1 else (bits // 8 if isinstance(bits, int) and 40 <= bits <= 128 else 5))
    filters: dict[str, Method] = {"Identity": Method("none")}
    if v >= 4:
        cf = encrypt.get("CF")
        for name, spec in (cf.items() if isinstance(cf, dict) else ()):
            cfm = spec.get("CFM") if isinstance(spec, dict) else None
            filters[name] = Method({"V2": "rc4", "AESV2": "aes128", "AESV3": "aes256", "None": "none"}.get(
                str(cfm), "unknown"))
            if v == 4 and cfm == "V2" and isinstance(spec.get("Length"), int) and 5 <= spec["Length"] <= 16:
                length = spec["Length"]  # bytes here (some writers put bits: those fail the range)
    default = Method("rc4")
    strings = filters.get(str(encrypt.get("StrF", "Identity")), Method("unknown")) if v >= 4 else default
    streams = filters.get(str(encrypt.get("StmF", "Identity")), Method("unknown")) if v >= 4 else default
    if "unknown" in (strings.kind, streams.kind):
        raise EncryptionError("it names a crypt filter this handler does not know")
    ids = trailer_id if isinstance(trailer_id, list) else []
    id0 = bytes(ids[0]) if ids and isinstance(ids[0], bytes) else b""
    meta = encrypt.get("EncryptMetadata", True)
    oe, ue = encrypt.get("OE", b""), encrypt.get("UE", b"")
    return Parameters(v, r, length, bytes(o), bytes(u), bytes(oe) if isinstance(oe, bytes) else b"",
                      bytes(ue) if isinstance(ue, bytes) else b"", p, id0, meta is not False, strings, streams,
                      filters)


class Security:
    """The file key and the per-object ciphers, for reading and for our update."""

    def __init__(self, params: Parameters, key: bytes, encrypt_ref: Ref | None) -> None:
        self.params = params
        self.key = key
        self.encrypt_ref = encrypt_ref
        self._serial = 0  # counts the strings and streams of the object being encrypted

    # -- keys ------------------------------------------------------------------------------
    def _object_key(self, ref: Ref, method: Method) -> bytes:
        if method.kind == "aes256":
            return self.key
        salt = b"sAlT" if method.kind == "aes128" else b""
        seed = self.key + (ref.num & 0xFFFFFF).to_bytes(3, "little") + (ref.gen & 0xFFFF).to_bytes(2, "little")
        return hashlib.md5(seed + salt, usedforsecurity=False).digest()[:min(len(self.key) + 5, 16)]

    # -- whole objects ---------------------------------------------------------------------
    def skips(self, ref: Ref, value: Any) -> bool:
        """Objects never encrypted: the /Encrypt dictionary, xref streams, cleartext metadata."""
        if self.encrypt_ref is not None and ref.num == self.encrypt_ref.num:
            return True
        if isinstance(value, Stream):
            kind = value.dict.get("Type")
            return kind == "XRef" or (kind == "Metadata" and not self.params.encrypt_metadata)
        return False

    def decrypt(self, ref: Ref, value: Any) -> Any:
        return value if self.skips(ref, value) else self._walk(ref, value, decrypt=True)

    def encrypt(self, ref: Ref, value: Any) -> Any:
        self._serial = 0
        return value if self.skips(ref, value) else self._walk(ref, value, decrypt=False)

    def _walk(self, ref: Ref, value: Any, decrypt: bool) -> Any:
        if isinstance(value, Stream):
            d = self._walk(ref, value.dict, decrypt)
            method = self._stream_method(value.dict)
            raw = value.raw if method.kind == "none" else self._cipher(ref, method, value.raw, decrypt)
            return Stream(d, raw)
        if isinstance(value, dict):
            # A signature dictionary's /Contents is never encrypted (ISO 32000-2, 7.6.2): it
            # holds the signature over the file's bytes, written after encryption. Usage
            # rights (/Perms /UR3) put one inside the catalog, which other tools leave clear.
            clear = "Contents" if "ByteRange" in value else None
            return {k: v if k == clear else self._walk(ref, v, decrypt) for k, v in value.items()}
        if isinstance(value, list):
            return [self._walk(ref, v, decrypt) for v in value]
        if self.params.strings.kind == "none":
            return value
        if isinstance(value, str) and not isinstance(value, (Name, Keyword)):
            value = text_string(value)  # a text string we are about to write: its PDF bytes
        if isinstance(value, bytes):
            out = self._cipher(ref, self.params.strings, bytes(value), decrypt)
            return HexString(out) if isinstance(value, HexString) else out
        return value

    def _stream_method(self, d: dict[str, Any]) -> Method:
        """The stream's own /Crypt filter when it names one, else the default (/StmF)."""
        filters = d.get("Filter")
        filters = [filters] if isinstance(filters, Name) else (filters if isinstance(filters, list) else [])
        if "Crypt" in filters:
            parms = d.get("DecodeParms")
            parms = parms[filters.index("Crypt")] if isinstance(parms, list) and len(parms) > filters.index(
                "Crypt") else parms
            name = parms.get("Name", "Identity") if isinstance(parms, dict) else "Identity"
            return self.params.filters.get(str(name), Method("none"))
        return self.params.streams

    def _cipher(self, ref: Ref, method: Method, data: bytes, decrypt: bool) -> bytes:
        key = self._object_key(ref, method)
        if method.kind == "rc4":
            return rc4(key, data)
        if decrypt:
            return aes_cbc_decrypt(key, data)
        # A deterministic IV (same input, same bytes: reproducible stamps), derived from the
        # key, the object, the value's place in it and the plaintext: equal strings in one
        # object still get different IVs, and different data never shares one.
        self._serial += 1
        iv = hashlib.sha256(key + b"%d %d %d" % (ref.num, ref.gen, self._serial) + data).digest()[:16]
        return aes_cbc_encrypt(key, iv, data)


# -- opening ----------------------------------------------------------------------------------
def open_security(encrypt: Any, encrypt_ref: Ref | None, trailer_id: Any, password: bytes | None) -> Security:
    """The handler for this file, unlocked with the empty password or `password`."""
    params = parameters(encrypt, trailer_id)
    tries = [b""] if password is None else [password]
    for pw in tries:
        key = user_key(params, pw)
        if key is None:
            key = owner_key(params, pw)
        if key is not None:
            return Security(params, key, encrypt_ref)
    if password is None:
        raise PasswordNeeded("it needs a password to open, and none was given")
    raise PasswordNeeded("the password given opens neither as user nor as owner password")


def _padded(password: bytes) -> bytes:
    return (password + PAD)[:32]


def _md5(data: bytes) -> bytes:
    return hashlib.md5(data, usedforsecurity=False).digest()


def file_key_r4(params: Parameters, password: bytes) -> bytes:
    """Algorithm 2: the file key from a (user) password, for R2-R4."""
    seed = _padded(password) + params.o[:32] + (params.p & 0xFFFFFFFF).to_bytes(4, "little") + params.id0
    if params.r >= 4 and not params.encrypt_metadata:
        seed += b"\xff\xff\xff\xff"
    digest = _md5(seed)
    n = params.length if params.r >= 3 else 5
    if params.r >= 3:
        for _ in range(50):
            digest = _md5(digest[:n])
    return digest[:n]


def u_value(params: Parameters, key: bytes) -> bytes:
    """Algorithms 4 and 5: the /U value this key would give (first 16 bytes count for R3+)."""
    if params.r == 2:
        return rc4(key, PAD)
    data = rc4(key, _md5(PAD + params.id0))
    for i in range(1, 20):
        data = rc4(bytes(b ^ i for b in key), data)
    return data


def user_key(params: Parameters, password: bytes) -> bytes | None:
    if params.r >= 5:
        return _user_key_aes256(params, password)
    key = file_key_r4(params, password)
    u = u_value(params, key)
    ok = u == params.u[:32] if params.r == 2 else u[:16] == params.u[:16]
    return key if ok else None


def owner_key(params: Parameters, password: bytes) -> bytes | None:
    if params.r >= 5:
        return _owner_key_aes256(params, password)
    # Algorithm 7: the owner password decrypts /O to the user password.
    digest = _md5(_padded(password))
    n = params.length if params.r >= 3 else 5
    if params.r >= 3:
        for _ in range(50):
            digest = _md5(digest)
    key = digest[:n]
    user = params.o[:32]
    if params.r == 2:
        user = rc4(key, user)
    else:
        for i in range(19, -1, -1):
            user = rc4(bytes(b ^ i for b in key), user)
    return user_key(params, user)


def _r6_password(password: bytes) -> bytes:
    return password[:127]


def _hash_r6(params: Parameters, password: bytes, salt: bytes, udata: bytes) -> bytes:
    """Algorithm 2.A's hash: SHA-256 for R5, Algorithm 2.B for R6."""
    k = hashlib.sha256(password + salt + udata).digest()
    if params.r == 5:
        return k
    i = 0
    while True:
        block = (password + k + udata) * 64
        e = aes_cbc_encrypt(k[:16], k[16:32], block, pad=False)
        choice = sum(e[:16]) % 3
        k = (hashlib.sha256, hashlib.sha384, hashlib.sha512)[choice](e).digest()
        i += 1
        if i >= 64 and e[-1] <= i - 32:
            return k[:32]


def _user_key_aes256(params: Parameters, password: bytes) -> bytes | None:
    pw = _r6_password(password)
    u = params.u
    if len(u) < 48 or _hash_r6(params, pw, u[32:40], b"") != u[:32]:
        return None
    return aes_cbc_decrypt(_hash_r6(params, pw, u[40:48], b""), bytes(16) + params.ue[:32], pad=False)


def _owner_key_aes256(params: Parameters, password: bytes) -> bytes | None:
    pw = _r6_password(password)
    o, u = params.o, params.u[:48]
    if len(o) < 48 or _hash_r6(params, pw, o[32:40], u) != o[:32]:
        return None
    return aes_cbc_decrypt(_hash_r6(params, pw, o[40:48], u), bytes(16) + params.oe[:32], pad=False)


# -- the ciphers (from `cryptography`) --------------------------------------------------------
def rc4(key: bytes, data: bytes) -> bytes:
    from cryptography.hazmat.primitives.ciphers import Cipher

    try:  # cryptography ≥ 43 keeps RC4 among its "decrepit" algorithms
        from cryptography.hazmat.decrepit.ciphers.algorithms import ARC4
    except ImportError:  # older releases
        from cryptography.hazmat.primitives.ciphers.algorithms import ARC4
    enc = Cipher(ARC4(_rc4_key(key)), mode=None).encryptor()
    return enc.update(data) + enc.finalize()


RC4_KEY_BYTES = (5, 7, 8, 10, 16, 20, 24, 32)  # the key sizes cryptography's ARC4 accepts


def _rc4_key(key: bytes) -> bytes:
    """The key, or the same key repeated whole to a size cryptography accepts.

    RC4's key schedule only reads key[i mod len(key)], so a key repeated whole gives the
    same cipher: a 48-bit (/Length 48) file key becomes 24 bytes. A length with no such
    multiple (the 11-byte object keys of that file, 9, 13, 14, 15) is refused cleanly.
    """
    for size in RC4_KEY_BYTES:
        if key and size % len(key) == 0:
            return key * (size // len(key))
    raise EncryptionError(f"it uses RC4 with a {len(key) * 8}-bit key, which is not supported")


def aes_cbc_decrypt(key: bytes, data: bytes, pad: bool = True) -> bytes:
    """IV (16 bytes) + ciphertext → plaintext; EncryptionError when the data cannot be AES."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    if not data:
        return b""
    if len(data) < 16 or len(data) % 16:
        raise EncryptionError("an AES-encrypted string or stream has a length that is not whole blocks")
    dec = Cipher(algorithms.AES(key), modes.CBC(data[:16])).decryptor()
    out = dec.update(data[16:]) + dec.finalize()
    if not pad:
        return out
    n = out[-1] if out else 0
    if not 1 <= n <= 16 or out[-n:] != bytes([n]) * n:
        raise EncryptionError("an AES-encrypted string or stream has bad padding (wrong key or damaged)")
    return out[:-n]


def aes_cbc_encrypt(key: bytes, iv: bytes, data: bytes, pad: bool = True) -> bytes:
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    if pad:
        n = 16 - len(data) % 16
        data += bytes([n]) * n
    enc = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    body = enc.update(data) + enc.finalize()
    return iv + body if pad else body
