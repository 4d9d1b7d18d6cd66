"""pdf/crypt.py on its own: published known answers for the ciphers, and the standard
security handler's key derivation checked against files `qpdf --encrypt` wrote.

- RC4: RFC 6229's key streams (keys of 40 to 256 bits, offsets up to 4096).
- AES-CBC: NIST SP 800-38A F.2.1/F.2.2 (AES-128) and F.2.5/F.2.6 (AES-256).
- Algorithm 2 (the R2-R4 file key): qpdf's own key (`--show-encryption-key`) for every
  revision and method qpdf writes, with an empty and a non-empty user password.
- Algorithm 2.B (the R6 hash of ISO 32000-2): a reference written here from the standard's
  steps, shown to validate the /U and /O qpdf wrote, then used to build handlers whose keys
  the module must find.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pikepdf
import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from pithtex.pdf import crypt
from pithtex.pdf.objects import HexString, Name, Ref, Stream
from pithtex.pdf.reader import PdfFile, decode_stream

from ..pdfkit import PDFA_XMP, encrypt, make_pdf

OWNER = b"owner-pw"  # the owner password pdfkit.encrypt gives every file

# -- RC4: RFC 6229 section 2 ------------------------------------------------------------------
# Key stream bytes at a few of the RFC's offsets, for its first key of each length.
RFC6229 = {
    "0102030405": {0: "b2396305f03dc027ccc3524a0a1118a8", 0x10: "6982944f18fc82d589c403a47a0d0919",
                   0xF0: "28cb1132c96ce286421dcaadb8b69eae", 0xFF0: "068326a2118416d21f9d04b2cd1ca050",
                   0x1000: "ff25b58995996707e51fbdf08b34d875"},
    "01020304050607": {0: "293f02d47f37c9b633f2af5285feb46b", 0x100: "d0fdb583073ce85ab83917740ec011d5",
                       0x1000: "e74b0b9731227fd37c0ec08a47ddd8b8"},
    "0102030405060708": {0: "97ab8a1bf0afb96132f2f67258da15a8", 0x1F0: "73239f1db7f41d80b643c0c52518ec63",
                         0x1000: "3fb46e2c8f0f068edce8cdcd7dfc5862"},
    "0102030405060708090a": {0: "ede3b04643e586cc907dc21851709902", 0x3F0: "a64f70af88ae56b6f87581c0e23e6b08",
                             0x1000: "08b6be45124a43e2eb77953f84dc8553"},
    "0102030405060708090a0b0c0d0e0f10": {0: "9ac7cc9a609d1ef7b2932899cde41b97",
                                         0x5F0: "b40110c4190b5622a96116b0017ed297",
                                         0x1000: "a36a4c301ae8ac13610ccbc12256cacc"},
    "0102030405060708090a0b0c0d0e0f101112131415161718": {0: "0595e57fe5f0bb3c706edac8a4b2db11",
                                                         0x7F0: "bdf0e6c3cca5b5b9d533b69c56ada120",
                                                         0x1000: "3cb0f3b5020a98b82af9fe154484a168"},
    "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20": {
        0: "eaa6bd25880bf93d3f5d1e4ca2611d91", 0xBF0: "8aed95ee5b0dcbfbef4eb21d3a3f52f9",
        0x1000: "f3e4c0a2e02d1d01f7f0a74618af2b48"},
    "833222772a": {0: "80ad97bdc973df8a2e879e92a497efda", 0x10: "20f060c2f2e5126501d3d4fea10d5fc0"},
}
RC4_CASES = [(key, offset, stream) for key, table in RFC6229.items() for offset, stream in table.items()]


@pytest.mark.parametrize(("key", "offset", "stream"), RC4_CASES, ids=[f"{k[:10]}-{o:#x}" for k, o, _ in RC4_CASES])
def test_rc4_key_stream_is_rfc6229s(key: str, offset: int, stream: str):
    # RC4 of zeros is the key stream itself.
    out = crypt.rc4(bytes.fromhex(key), bytes(offset + 16))
    assert out[offset:].hex() == stream


def reference_rc4(key: bytes, data: bytes) -> bytes:
    """RC4 as its description reads (key schedule, then the generator), for any key length."""
    s = list(range(256))
    j = 0
    for i in range(256):
        j = (j + s[i] + key[i % len(key)]) % 256
        s[i], s[j] = s[j], s[i]
    out, i, j = bytearray(), 0, 0
    for byte in data:
        i = (i + 1) % 256
        j = (j + s[i]) % 256
        s[i], s[j] = s[j], s[i]
        out.append(byte ^ s[(s[i] + s[j]) % 256])
    return bytes(out)


def test_the_reference_rc4_meets_rfc6229():
    key = bytes.fromhex("0102030405")
    assert reference_rc4(key, bytes(32)).hex() == RFC6229["0102030405"][0] + RFC6229["0102030405"][0x10]


# Lengths no size `cryptography` accepts (5, 7, 8, 10, 16, 20, 24, 32 bytes) is a multiple of.
UNREACHABLE_RC4 = {9, 11, 13, 14, 15}


@pytest.mark.parametrize("n", range(1, 17))
def test_rc4_keys_of_any_reachable_length_give_the_plain_cipher(n: int):
    """PDF keys come in odd sizes (a 48-bit /Length, object keys of n+5 bytes): a key is repeated
    whole to a size the library takes, which must be the same cipher; the rest is refused."""
    key = bytes(range(0x31, 0x31 + n))
    data = b"Some plaintext that is longer than 32 bytes, to pass the key size." * 3
    if n in UNREACHABLE_RC4:
        with pytest.raises(crypt.EncryptionError, match=f"{8 * n}-bit key"):
            crypt.rc4(key, data)
    else:
        assert crypt.rc4(key, data) == reference_rc4(key, data)


def test_rc4_with_no_key_is_refused():
    with pytest.raises(crypt.EncryptionError):
        crypt.rc4(b"", b"data")


# -- AES-CBC: NIST SP 800-38A F.2 -------------------------------------------------------------
NIST_IV = bytes.fromhex("000102030405060708090a0b0c0d0e0f")
NIST_PLAIN = bytes.fromhex("6bc1bee22e409f96e93d7e117393172a" "ae2d8a571e03ac9c9eb76fac45af8e51"
                           "30c81c46a35ce411e5fbc1191a0a52ef" "f69f2445df4f9b17ad2b417be66c3710")
NIST_CBC = {
    "F.2.1-AES128": ("2b7e151628aed2a6abf7158809cf4f3c",
                     "7649abac8119b246cee98e9b12e9197d" "5086cb9b507219ee95db113a917678b2"
                     "73bed6b8e3c1743b7116e69e22229516" "3ff1caa1681fac09120eca307586e1a7"),
    "F.2.5-AES256": ("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
                     "f58c4c04d6e5f1ba779eabfb5f7bfbd6" "9cfc4e967edb808d679f777bc6702c7d"
                     "39f23369a9d9bacfa530e26304231461" "b2eb05e2c39be9fcda6c19078c6a9d1b"),
}


@pytest.mark.parametrize("case", NIST_CBC)
def test_aes_cbc_meets_sp800_38a(case: str):
    key, cipher = (bytes.fromhex(h) for h in NIST_CBC[case])
    assert crypt.aes_cbc_encrypt(key, NIST_IV, NIST_PLAIN, pad=False) == cipher
    # The decryption vectors (F.2.2, F.2.6) are the same blocks read back; the PDF layout puts
    # the IV in front of the ciphertext.
    assert crypt.aes_cbc_decrypt(key, NIST_IV + cipher, pad=False) == NIST_PLAIN


@pytest.mark.parametrize("case", NIST_CBC)
def test_aes_cbc_padding_is_one_whole_block_after_whole_blocks(case: str):
    key, cipher = (bytes.fromhex(h) for h in NIST_CBC[case])
    out = crypt.aes_cbc_encrypt(key, NIST_IV, NIST_PLAIN)
    # IV, the four NIST blocks, then sixteen bytes of 16 (RFC 8018 padding) chained on.
    assert out[:16] == NIST_IV and out[16:80] == cipher and len(out) == 96
    assert out[80:] == crypt.aes_cbc_encrypt(key, cipher[-16:], bytes([16]) * 16, pad=False)
    assert crypt.aes_cbc_decrypt(key, out) == NIST_PLAIN
    short = crypt.aes_cbc_encrypt(key, NIST_IV, b"abc")
    assert len(short) == 32 and crypt.aes_cbc_decrypt(key, short) == b"abc"


def test_aes_data_that_cannot_be_aes_is_an_encryption_error():
    key = bytes.fromhex(NIST_CBC["F.2.1-AES128"][0])
    cipher = bytes.fromhex(NIST_CBC["F.2.1-AES128"][1])
    assert crypt.aes_cbc_decrypt(key, b"") == b""
    with pytest.raises(crypt.EncryptionError, match="not whole blocks"):
        crypt.aes_cbc_decrypt(key, NIST_IV + cipher[:20])
    with pytest.raises(crypt.EncryptionError, match="not whole blocks"):
        crypt.aes_cbc_decrypt(key, b"short")
    # The first NIST block decrypts to plaintext ending in 0x2a: no valid padding.
    with pytest.raises(crypt.EncryptionError, match="bad padding"):
        crypt.aes_cbc_decrypt(key, NIST_IV + cipher[:16])


# -- files qpdf encrypted ---------------------------------------------------------------------
def qpdf_says(path: Path, password: bytes) -> dict[str, str]:
    """qpdf's own reading of the handler: `R = 4`, `Encryption key = …` and the like."""
    out = subprocess.run(["qpdf", f"--password={password.decode()}", "--show-encryption", "--show-encryption-key",
                          str(path)], capture_output=True, text=True, timeout=60, check=True).stdout
    return dict(line.split(" = ", 1) for line in out.splitlines() if " = " in line)


def handler_of(path: Path) -> crypt.Parameters:
    """The /Encrypt dictionary of `path` as crypt reads it (the reader hands it out even when
    the file stays locked)."""
    with PdfFile(path) as pdf:
        return crypt.parameters(pdf.get(pdf.trailer["Encrypt"]), pdf.trailer.get("ID"))


@pytest.fixture(scope="module")
def plain(tmp_path_factory) -> Path:
    return make_pdf(tmp_path_factory.mktemp("crypt") / "plain.pdf", xmp=PDFA_XMP, title="Grüße, a test")


@pytest.fixture(scope="module")
def page_contents(plain: Path) -> bytes:
    with pikepdf.open(plain) as pdf:
        return pdf.pages[0].Contents.read_bytes()


def pikepdf_metadata(path: Path, password: bytes) -> bytes:
    with pikepdf.open(path, password=password.decode()) as pdf:
        return pdf.Root.Metadata.read_bytes()


R2_R4 = {  # pdfkit variant -> (R, what the module sums the handler up as)
    "rc4-40-R2": (2, "R2 RC4 40-bit"),
    "rc4-128-R3": (3, "R3 RC4 128-bit"),
    "rc4-128-R4": (4, "R4 RC4 128-bit"),
    "aes-128-R4": (4, "R4 AES-128"),
    "aes-128-R4-clear-meta": (4, "R4 AES-128"),
}


@pytest.mark.parametrize("user", [b"", b"us3r pw"], ids=["empty-user", "user-pw"])
@pytest.mark.parametrize("variant", R2_R4)
def test_algorithm_2_file_key_is_qpdfs(tmp_path: Path, plain: Path, page_contents: bytes, variant: str,
                                       user: bytes):
    locked = encrypt(plain, tmp_path / "locked.pdf", variant, user=user.decode())
    told = qpdf_says(locked, user)
    key = bytes.fromhex(told["Encryption key"])
    params = handler_of(locked)
    assert (params.r, params.summary) == R2_R4[variant] and int(told["R"]) == params.r
    clear_meta = variant == "aes-128-R4-clear-meta"
    assert params.encrypt_metadata is not clear_meta
    assert (b"<pdfaid:part>2</pdfaid:part>" in locked.read_bytes()) is clear_meta  # left clear in the file
    assert crypt.file_key_r4(params, user) == key
    assert crypt.u_value(params, key)[:16] == params.u[:16]  # Algorithms 4/5 give qpdf's /U
    assert crypt.user_key(params, user) == key
    assert crypt.owner_key(params, OWNER) == key  # Algorithm 7: /O unlocks to the user password
    assert crypt.user_key(params, b"wrong") is None and crypt.owner_key(params, b"wrong") is None
    # With that key every object decrypts to what pikepdf reads (Algorithm 1's object keys).
    for password in (user, OWNER):
        with PdfFile(locked, password=password or None) as pdf:
            assert pdf.locked is None and pdf.security.key == key
            info = pdf.get(pdf.trailer["Info"])
            assert info["Title"] == "Grüße, a test".encode("latin-1")
            catalog = pdf.catalog()
            packet = decode_stream(pdf.get(catalog["Metadata"]))
            assert b"<pdfaid:part>2</pdfaid:part>" in packet and packet == pikepdf_metadata(locked, password)
            _, page, _ = next(pdf.pages())
            assert decode_stream(pdf.get(page["Contents"])) == page_contents


def test_a_user_password_is_needed_and_a_wrong_one_said_so(tmp_path: Path, plain: Path):
    locked = encrypt(plain, tmp_path / "locked.pdf", "aes-128-R4", user="us3r pw")
    with PdfFile(locked) as pdf:
        assert isinstance(pdf.locked, crypt.PasswordNeeded) and "needs a password" in str(pdf.locked)
        with pytest.raises(crypt.PasswordNeeded):
            pdf.catalog()
    with PdfFile(locked, password=b"wrong") as pdf:
        assert "neither as user nor as owner password" in str(pdf.locked)


def test_r2_to_r4_passwords_count_to_32_bytes(tmp_path: Path, plain: Path):
    """Algorithm 2 pads or cuts the password to 32 bytes: qpdf and we agree on both sides."""
    long = b"abcdefghijklmnopqrstuvwxyz0123456789-tail"
    locked = encrypt(plain, tmp_path / "locked.pdf", "rc4-128-R3", user=long.decode())
    key = bytes.fromhex(qpdf_says(locked, long)["Encryption key"])
    params = handler_of(locked)
    assert crypt.user_key(params, long) == key
    assert crypt.user_key(params, long[:32]) == key
    assert crypt.user_key(params, long[:31]) is None


# -- R5/R6: Algorithm 2.A with the hash of Algorithm 2.B --------------------------------------
def aes256_no_iv(key: bytes, data: bytes, decrypt: bool) -> bytes:
    """AES-256 in CBC mode with a zero IV and no padding (how /UE and /OE hold the file key)."""
    c = Cipher(algorithms.AES(key), modes.CBC(bytes(16)))
    op = c.decryptor() if decrypt else c.encryptor()
    return op.update(data) + op.finalize()


def reference_hash_2b(password: bytes, salt: bytes, udata: bytes) -> bytes:
    return reference_hash_2b_rounds(password, salt, udata)[0]


def reference_hash_2b_rounds(password: bytes, salt: bytes, udata: bytes) -> tuple[bytes, int]:
    """ISO 32000-2 Algorithm 2.B, step by step as the standard words it; also the rounds made."""
    k = hashlib.sha256(password + salt + udata).digest()
    e = b""
    round_number = 0
    # (e) after 64 rounds (0 to 63), another round is made while E's last byte is greater
    # than the number of the round about to be made minus 32.
    while round_number < 64 or e[-1] > round_number - 32:
        k1 = (password + k + udata) * 64  # (a) 64 repetitions of password, K and the user data
        cbc = Cipher(algorithms.AES(k[:16]), modes.CBC(k[16:32])).encryptor()
        e = cbc.update(k1) + cbc.finalize()  # (b) AES-128-CBC, key and IV from K, no padding
        mod3 = int.from_bytes(e[:16], "big") % 3  # (c) E's first 16 bytes as a big-endian number
        k = {0: hashlib.sha256, 1: hashlib.sha384, 2: hashlib.sha512}[mod3](e).digest()  # (d)
        round_number += 1
    return k[:32], round_number


# Salts whose hashes end after different numbers of rounds (the loop's length depends on E).
SALTS = [hashlib.sha256(b"salt %d" % i).digest() for i in range(12)]


def r6_values(user: bytes, owner: bytes, file_key: bytes, salts: bytes) -> dict:
    """/U, /UE, /O, /OE for these passwords and file key (Algorithms 8 and 9), `salts` 32 bytes."""
    uvs, uks, ovs, oks = salts[:8], salts[8:16], salts[16:24], salts[24:32]
    u = reference_hash_2b(user, uvs, b"") + uvs + uks
    ue = aes256_no_iv(reference_hash_2b(user, uks, b""), file_key, decrypt=False)
    o = reference_hash_2b(owner, ovs, u) + ovs + oks
    oe = aes256_no_iv(reference_hash_2b(owner, oks, u), file_key, decrypt=False)
    return {"U": u, "UE": ue, "O": o, "OE": oe}


def r6_dict(values: dict) -> dict:
    return {Name("Filter"): Name("Standard"), Name("V"): 5, Name("R"): 6, Name("Length"): 256, Name("P"): -4,
            Name("CF"): {Name("StdCF"): {Name("CFM"): Name("AESV3"), Name("Length"): 32}},
            Name("StmF"): Name("StdCF"), Name("StrF"): Name("StdCF"), **{Name(k): v for k, v in values.items()}}


@pytest.mark.parametrize("user", [b"", b"us3r pw", "pässwörd".encode()], ids=["empty", "ascii", "utf-8"])
def test_r6_reference_hash_validates_what_qpdf_wrote(tmp_path: Path, plain: Path, page_contents: bytes,
                                                     user: bytes):
    """First the reference against qpdf (independent of this package), then the module."""
    locked = encrypt(plain, tmp_path / "locked.pdf", "aes-256-R6", user=user.decode())
    key = bytes.fromhex(qpdf_says(locked, user)["Encryption key"])
    params = handler_of(locked)
    assert params.r == 6 and params.summary == "R6 AES-256"
    u, o = params.u, params.o
    assert reference_hash_2b(user, u[32:40], b"") == u[:32]
    assert reference_hash_2b(OWNER, o[32:40], u[:48]) == o[:32]
    assert aes256_no_iv(reference_hash_2b(user, u[40:48], b""), params.ue, decrypt=True) == key
    assert aes256_no_iv(reference_hash_2b(OWNER, o[40:48], u[:48]), params.oe, decrypt=True) == key
    assert crypt.user_key(params, user) == key
    assert crypt.owner_key(params, OWNER) == key
    assert crypt.user_key(params, b"wrong") is None and crypt.owner_key(params, b"wrong") is None
    with PdfFile(locked, password=user or None) as pdf:
        _, page, _ = next(pdf.pages())
        assert decode_stream(pdf.get(page["Contents"])) == page_contents


def test_r5_hash_is_plain_sha256(tmp_path: Path, plain: Path):
    """Adobe's extension level 3 (R5), which qpdf still writes on request: one SHA-256."""
    locked = encrypt(plain, tmp_path / "locked.pdf", "aes-256-R5", user="us3r pw")
    key = bytes.fromhex(qpdf_says(locked, b"us3r pw")["Encryption key"])
    params = handler_of(locked)
    assert params.r == 5
    assert hashlib.sha256(b"us3r pw" + params.u[32:40]).digest() == params.u[:32]
    assert crypt.user_key(params, b"us3r pw") == key and crypt.owner_key(params, OWNER) == key


def test_r6_passwords_count_to_127_bytes():
    """ISO 32000-2 cuts R6 passwords to 127 bytes. (qpdf 11.3 is no witness here: it hashes a
    longer password whole when it encrypts, then cuts it when it checks, and so cannot open
    its own file again.)"""
    long = ("x" * 120 + "0123456789").encode()
    file_key = bytes(range(32))
    values = r6_values(long[:127], b"owner", file_key, SALTS[0])
    params = crypt.parameters(r6_dict(values), None)
    assert crypt.user_key(params, long) == file_key
    assert crypt.user_key(params, long[:127]) == file_key
    assert crypt.user_key(params, long[:126]) is None


@pytest.mark.parametrize("salts", SALTS, ids=[f"salts{i}" for i in range(len(SALTS))])
def test_r6_keys_from_reference_values(salts: bytes):
    file_key = hashlib.sha256(b"file key" + salts).digest()
    values = r6_values(b"user", b"owner", file_key, salts)
    params = crypt.parameters(r6_dict(values), None)
    assert crypt.user_key(params, b"user") == file_key
    assert crypt.owner_key(params, b"owner") == file_key
    assert crypt.user_key(params, b"owner") is None and crypt.owner_key(params, b"user") is None
    sec = crypt.open_security(r6_dict(values), Ref(9), None, b"owner")
    assert sec.key == file_key
    with pytest.raises(crypt.PasswordNeeded, match="needs a password"):
        crypt.open_security(r6_dict(values), Ref(9), None, None)


def test_r6_rounds_vary_beyond_64():
    """The salts above must exercise the loop past its 64 fixed rounds, or they test little."""
    rounds = {reference_hash_2b_rounds(b"user", salts[:8], b"")[1] for salts in SALTS}
    assert len(rounds) > 3 and max(rounds) > 66


# -- the /Encrypt dictionary and the per-object ciphers ----------------------------------------
BASE = {Name("Filter"): Name("Standard"), Name("V"): 2, Name("R"): 3, Name("Length"): 128, Name("O"): bytes(32),
        Name("U"): bytes(32), Name("P"): -4}


@pytest.mark.parametrize(("change", "says"), [
    ({"Filter": Name("Adobe.PubSec")}, "/Adobe.PubSec security handler"),
    ({"V": 3}, "unsupported encryption V3 R3"),
    ({"R": 7}, "unsupported encryption V2 R7"),
    ({"O": None}, "lacks /O, /U or /P"),
    ({"P": 1.5}, "lacks /O, /U or /P"),
    ({"V": 4, "R": 4, "CF": {Name("StdCF"): {Name("CFM"): Name("FancyCipher")}}, "StmF": Name("StdCF")},
     "crypt filter this handler does not know"),
    ({"V": 4, "R": 4, "StrF": Name("NoSuchFilter")}, "crypt filter this handler does not know"),
])
def test_unsupported_handlers_are_refused_in_one_clause(change: dict, says: str):
    with pytest.raises(crypt.EncryptionError, match=says):
        crypt.parameters({**BASE, **{Name(k): v for k, v in change.items()}}, None)
    with pytest.raises(crypt.EncryptionError, match="not a dictionary"):
        crypt.parameters(Ref(5), None)


def test_key_lengths_read_from_the_dictionary():
    assert crypt.parameters({**BASE, Name("V"): 1}, None).length == 5  # V1: 40 bits whatever /Length says
    assert crypt.parameters({**BASE, Name("Length"): 48}, None).length == 6
    assert crypt.parameters({**BASE, Name("Length"): 4096}, None).length == 5  # out of range: the default
    v4 = {**BASE, Name("V"): 4, Name("R"): 4, Name("StmF"): Name("StdCF"), Name("StrF"): Name("StdCF")}
    rc4_cf = {Name("StdCF"): {Name("CFM"): Name("V2"), Name("Length"): 16}}
    assert crypt.parameters({**v4, Name("CF"): rc4_cf}, None).length == 16
    identity = crypt.parameters({**BASE, Name("V"): 4, Name("R"): 4}, None)  # no /StmF, /StrF: Identity
    assert identity.summary == "R4 identity"


def security(kind: str, encrypt_metadata: bool = True) -> crypt.Security:
    method = crypt.Method(kind)
    params = crypt.Parameters(4, 4, 16, bytes(32), bytes(32), b"", b"", -4, b"id", encrypt_metadata, method, method,
                              {"Identity": crypt.Method("none"), "StdCF": method})
    return crypt.Security(params, bytes(range(16)), Ref(7))


@pytest.mark.parametrize("kind", ["rc4", "aes128"])
def test_objects_round_trip_and_are_reproducible(kind: str):
    sec = security(kind)
    value = {Name("Title"): b"same", Name("Subject"): b"same", Name("Id"): HexString(b"\x00\x01"),
             Name("Kids"): [Ref(3), 1.5, Name("N")], Name("Alt"): "Grüße"}
    out = sec.encrypt(Ref(4, 0), value)
    assert out[Name("Title")] != b"same" and isinstance(out[Name("Id")], HexString)
    assert out[Name("Kids")] == [Ref(3), 1.5, Name("N")]  # only strings are encrypted
    assert sec.encrypt(Ref(4, 0), value) == out  # same input, same bytes
    if kind == "aes128":  # equal strings in one object still get their own IVs
        assert out[Name("Title")][:16] != out[Name("Subject")][:16]
    back = sec.decrypt(Ref(4, 0), out)
    assert back[Name("Title")] == b"same" and back[Name("Alt")] == "Grüße".encode("latin-1")
    # The object number and generation are in the key (Algorithm 1).
    assert sec.encrypt(Ref(5, 0), value)[Name("Title")] != out[Name("Title")]
    assert sec.encrypt(Ref(4, 1), value)[Name("Title")] != out[Name("Title")]


def test_what_is_never_encrypted():
    sec = security("aes128", encrypt_metadata=False)
    encrypt_dict = {Name("O"): b"x" * 32}
    assert sec.encrypt(Ref(7), encrypt_dict) is encrypt_dict  # the /Encrypt dictionary itself
    xref = Stream({Name("Type"): Name("XRef")}, b"rows")
    meta = Stream({Name("Type"): Name("Metadata")}, b"<x:xmpmeta/>")
    assert sec.encrypt(Ref(8), xref).raw == b"rows" and sec.encrypt(Ref(9), meta).raw == b"<x:xmpmeta/>"
    assert sec.encrypt(Ref(9), Stream({Name("Type"): Name("Metadata")}, b"x")).raw == b"x"
    # A signature's /Contents stays clear; its other strings do not.
    sig = {Name("ByteRange"): [0, 10, 20, 30], Name("Contents"): HexString(b"\x30\x82"), Name("Name"): b"me"}
    out = sec.encrypt(Ref(10), sig)
    assert out[Name("Contents")] == HexString(b"\x30\x82") and out[Name("Name")] != b"me"
    # A stream whose /Crypt filter names /Identity is left as it is, others are not.
    ident = Stream({Name("Filter"): [Name("Crypt")], Name("DecodeParms"): [{Name("Name"): Name("Identity")}]}, b"abc")
    assert sec.encrypt(Ref(11), ident).raw == b"abc"
    assert sec.encrypt(Ref(11), Stream({}, b"abc")).raw != b"abc"
    assert security("aes128").encrypt(Ref(9), meta).raw != b"<x:xmpmeta/>"
