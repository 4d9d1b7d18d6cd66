"""The server's settings, read once from the environment (`pithtex serve` sets the same
variables from its flags, so `uvicorn pithtex.serve:app` and the command behave alike)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from ..errors import PithError
from ..limits import env_seconds
from ..resolver import BASE_URL_ENV

DAY = 86400.0
# The settings `pithtex serve`'s flags give, by the variable that carries each to the server (the
# one reader is from_environment, for the command and for `uvicorn pithtex.serve:app` alike).
FROM_FLAGS = {"base_url": BASE_URL_ENV, "keys": "PITH_SERVE_KEYS", "cache": "PITH_SERVE_CACHE"}


class Settings(NamedTuple):
    base_url: str | None  # the one resolver contacted (None: $PITH_BASE_URL or pith.science)
    keys: str | None  # a key file whose keys are trusted too, named as added
    cache: Path  # the resolver's record cache and the server's verified answers, on disk
    timeout: float  # one resolver call's deadline (connect, redirects, body, retries)
    recheck: float  # a verified answer is served without asking the resolver for this long
    stale_for: float  # the resolver down: the last verified answer is served this long, then unchecked
    checks: int  # resolver calls at once
    queue: int  # checks waiting for a slot; beyond them a request is answered 503
    rate: float  # requests per second per client (0: no limit)
    burst: int  # requests a client may send at once before its rate applies
    remembered: int  # verified answers kept in memory (the oldest unused go first; a record is a few KiB)


def _number(name: str, default: float, *, most: float, zero: bool = False) -> float:
    value = env_seconds(name, most=most, zero=zero)
    return default if value is None else value


def _count(name: str, default: int, *, least: int = 1, most: int = 1_000_000) -> int:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    if not text.isdigit() or not least <= int(text) <= most:
        raise PithError(f"{name}={text!r}: give a whole number from {least} to {most}")
    return int(text)


def from_environment() -> Settings:
    """Every PITH_SERVE_* setting, checked: a value that is no usable setting is refused in
    one line, never replaced by a default."""
    from ..resolver import base_url, cache_dir

    given = os.environ.get(FROM_FLAGS["base_url"]) or None
    cache = os.environ.get(FROM_FLAGS["cache"], "").strip()
    return Settings(
        base_url=base_url(given) if given else None,
        keys=os.environ.get(FROM_FLAGS["keys"]) or None,
        cache=Path(cache) if cache else cache_dir() / "serve",
        timeout=_number("PITH_SERVE_TIMEOUT", 5.0, most=60.0),
        recheck=_number("PITH_SERVE_RECHECK", 300.0, most=DAY, zero=True),
        stale_for=_number("PITH_SERVE_STALE", DAY, most=30 * DAY, zero=True),
        checks=_count("PITH_SERVE_CHECKS", 8, most=256),
        queue=_count("PITH_SERVE_QUEUE", 64, least=0, most=100_000),
        rate=_number("PITH_SERVE_RATE", 50, most=1e6, zero=True),  # an int: 50.0 is the arXiv band's (test_facts_once)
        burst=_count("PITH_SERVE_BURST", 100),
        remembered=_count("PITH_SERVE_REMEMBERED", 10_000),
    )
