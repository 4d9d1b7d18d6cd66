"""Records per second over 10,000 synthetic records, one core: hash only, and hash + signature.

Targets: >= 50,000/s hash-only, >= 5,000/s with Ed25519 signatures.
Run: .venv/bin/python bench/verify.py [COUNT]
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.measure import header
from pithtex.number import PithNumber
from pithtex.record import canonical_of, canonical_sha256, submitted_year
from pithtex.trust import KeyRing, PublicKey
from pithtex.verify import verify_document
from tests.recordkit import TestKey, canonical, full_record


def make_records(count: int, key: TestKey) -> list[dict]:
    return [
        full_record(canonical(title=f"Paper number {i} — Ünïcode", arxiv_id=f"2401.{i:05d}", version=1 + i % 5,
                              cross=["cs.DC", "math.PR"][: i % 3]), key)
        for i in range(count)
    ]


def hash_only(documents: list[dict]) -> int:
    ok = 0
    for document in documents:
        record = canonical_of(document)
        digest = canonical_sha256(record)
        number = PithNumber.from_sha256(digest, year=submitted_year(record))
        ok += digest.hex() == document["canonical_sha256"] and number.body == document["pith_number"][-26:]
    return ok


def full(documents: list[dict], keys: KeyRing) -> int:
    return sum(verify_document(document, keys).verified for document in documents)


def rate(label: str, fn, count: int, target: float, runs: int = 5) -> None:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        ok = fn()
        times.append(time.perf_counter() - start)
    assert ok == count, f"{label}: only {ok}/{count} verified"
    per_second = count / statistics.median(times)
    print(f"{label:<28} {per_second:>10,.0f} records/s   target {target:>7,.0f}/s   x{per_second / target:.1f}")


def main() -> None:
    header(__file__)
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    key = TestKey("bench-key")
    keys = KeyRing([PublicKey(key.key_id, key.raw_public)])
    documents = make_records(count, key)
    print(f"{count:,} synthetic records, one core, median of 5 runs")
    rate("hash only", lambda: hash_only(documents), count, 50_000)
    rate("hash + Ed25519 signature", lambda: full(documents, keys), count, 5_000)


if __name__ == "__main__":
    main()
