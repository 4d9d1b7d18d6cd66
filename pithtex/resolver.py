"""A client for the Pith resolver (https://pith.science or a mirror): fetch records, resolve arXiv ids.

Network behaviour, chosen so a broken or hostile server costs little and says why:
- connect and read timeouts (5 s / 10 s; `PITH_TIMEOUT` or `timeout=` shortens both), and
  the whole body must arrive within three read timeouts;
- up to 2 retries with backoff, only on connection errors and HTTP 5xx (a timeout or a 4xx
  will not get better by asking again);
- the body is streamed and cut off beyond `max_bytes`;
- an on-disk cache under `$XDG_CACHE_HOME/pithtex` (default `~/.cache/pithtex`) revalidated
  with ETag / If-None-Match; `offline=True` reads only the cache;
- only a JSON Pith record that hashes to the number asked for is cached; when the server
  fails and a cached copy exists, that copy is used (and re-verified, like any record).

Nothing here trusts a record: callers verify it (`pithtex.verify.verify_document`).
Every failure raises `ResolverError` (exit code 3, "cannot be decided") with one sentence.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import brand
from .arxivid import ArxivId
from .errors import InvalidNumber, PithError, RecordError, Undecidable
from .files import write_atomic
from .number import PithNumber
from .record import canonical_of, number_of, parse_document

CONNECT_TIMEOUT = 5.0
READ_TIMEOUT = 10.0
RETRIES = 2
BACKOFF = 0.5  # seconds before the first retry; doubled for the next
MAX_BYTES = 4 * 1024 * 1024
USER_AGENT = f"pithtex/{brand.VERSION} (+https://pith.science)"


class ResolverError(Undecidable):
    """The resolver could not give an answer that can be checked (exit code 3)."""


@dataclass(frozen=True)
class Fetched:
    document: dict[str, Any]
    url: str
    source: str  # "network", "revalidated" (304), "cache" (offline) or "stale" (server failed)
    note: str = ""

    @property
    def detail(self) -> str:
        return {
            "network": f"fetched {self.url}",
            "revalidated": f"{self.url} answered 304 Not Modified; used the cached copy",
            "cache": f"read the cached copy of {self.url} (offline)",
            "stale": f"used the cached copy: {self.note.removesuffix('; cannot decide')}",
        }[self.source]


def base_url(given: str | None = None) -> str:
    """--base-url, else $PITH_BASE_URL, else https://pith.science."""
    url = (given or os.environ.get("PITH_BASE_URL") or brand.BASE_URL).strip().rstrip("/")
    if not re.match(r"https?://[^/\s]+", url):
        raise PithError(f"invalid base URL {url!r}: it must start with http:// or https://")
    return url


def cache_dir() -> Path:
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(root) / "pithtex"


def _env_timeout() -> float | None:
    text = os.environ.get("PITH_TIMEOUT")
    try:
        return float(text) if text else None
    except ValueError:
        return None


class Resolver:
    def __init__(
        self,
        base: str | None = None,
        *,
        offline: bool = False,
        cache: Path | None = None,
        timeout: float | None = None,
        retries: int = RETRIES,
        backoff: float = BACKOFF,
        max_bytes: int = MAX_BYTES,
    ) -> None:
        self.base = base_url(base)
        self.offline = offline
        self.cache = Path(cache) if cache is not None else cache_dir()
        limit = timeout if timeout is not None else _env_timeout()
        self.connect_timeout = min(CONNECT_TIMEOUT, limit) if limit else CONNECT_TIMEOUT
        self.read_timeout = min(READ_TIMEOUT, limit) if limit else READ_TIMEOUT
        self.retries, self.backoff, self.max_bytes = retries, backoff, max_bytes
        self._session: Any = None

    # -- public ------------------------------------------------------------------------------
    def record_url(self, number: PithNumber) -> str:
        return brand.record_url(number.body, self.base)

    def fetch_record(self, number: PithNumber) -> Fetched:
        """The record for `number` (unverified!), from the network, a 304 or the cache."""
        url = self.record_url(number)
        cached = self._cache_read(number)
        if self.offline:
            if cached is None:
                raise ResolverError(
                    f"no cached record for {number.body} in {self._cache_path(number)}, and --offline "
                    "forbids the network; cannot decide"
                )
            return Fetched(self._parse(cached[0], f"the cached copy of {url}"), url, "cache")
        try:
            return self._fetch_online(number, url, cached)
        except ResolverError as exc:
            if cached is None:
                raise
            # Records are content-addressed and re-verified on every use, so a cached copy
            # is as good as a fresh one when the server fails; say so in the fetch check.
            document = self._parse(cached[0], f"the cached copy of {url}")
            return Fetched(document, url, "stale", note=str(exc))

    def _fetch_online(self, number: PithNumber, url: str, cached: tuple[bytes, str | None] | None) -> Fetched:
        headers = {"Accept": "application/json"}
        if cached and cached[1]:
            headers["If-None-Match"] = cached[1]
        status, data, etag = self._get(url, headers)
        if status == 404:
            # Some deployments serve JSON only through content negotiation on the page URL.
            page = number.url_at(self.base)
            status, data, etag = self._get(page, {**headers, "Accept": "application/ld+json"})
            url = page
            if status == 404:
                raise ResolverError(f"{self.base} has no record for {number.body} (HTTP 404); cannot decide")
        if status == 304:
            if cached is None:
                raise ResolverError(f"{url} answered 304 Not Modified, but there is no cached copy; cannot decide")
            return Fetched(self._parse(cached[0], f"the cached copy of {url}"), url, "revalidated")
        if status != 200:
            raise ResolverError(f"{url} answered HTTP {status}; cannot decide")
        document = self._parse(data, url)
        self._cache_write(number, data, etag, document)
        return Fetched(document, url, "network")

    def resolve_arxiv(self, arxiv_id: str | ArxivId) -> PithNumber:
        """The Pith Number the resolver gives for an arXiv id (a claim: verify its record)."""
        return self._ask_arxiv(arxiv_id)[0]

    def fetch_arxiv(self, arxiv_id: str | ArxivId) -> tuple[PithNumber, Fetched]:
        """The number the resolver names for an arXiv id, and a record for it (both unverified):
        the record in the resolver's answer when it has one, else `fetch_record(number)`.
        The caller verifies that the record hashes to the number and names the paper."""
        number, answer, url = self._ask_arxiv(arxiv_id)
        if isinstance(answer.get("canonical_record"), dict):
            return number, Fetched(answer, url, "network")
        return number, self.fetch_record(number)

    def _ask_arxiv(self, arxiv_id: str | ArxivId) -> tuple[PithNumber, dict[str, Any], str]:
        if isinstance(arxiv_id, str):
            arxiv_id = ArxivId.parse(arxiv_id)
        if self.offline:
            raise ResolverError(f"resolving arXiv:{arxiv_id} needs the network, and --offline forbids it")
        from urllib.parse import quote

        url = f"{self.base}/api/pith-number/resolve?arxiv={quote(str(arxiv_id), safe='')}&json=true"
        status, data, _ = self._get(url, {"Accept": "application/json"})
        if status == 404:
            raise ResolverError(f"{self.base} knows no Pith Number for arXiv:{arxiv_id} (HTTP 404)")
        if status != 200:
            raise ResolverError(f"{url} answered HTTP {status}; cannot resolve arXiv:{arxiv_id}")
        answer = _json(data, url)
        return _number_in_answer(answer, url), answer, url

    # -- HTTP --------------------------------------------------------------------------------
    def _session_(self) -> Any:
        if self._session is None:
            import requests

            self._session = requests.Session()
            self._session.headers["User-Agent"] = USER_AGENT
        return self._session

    def _get(self, url: str, headers: dict[str, str]) -> tuple[int, bytes, str | None]:
        """GET with bounded retries; (status, body, etag). Raises ResolverError on failure."""
        import requests

        attempt = 0
        while True:
            try:
                status, data, etag = self._get_once(url, headers)
            except requests.exceptions.Timeout:
                raise ResolverError(
                    f"{url} did not answer within {self.read_timeout:g} s; cannot decide (try again later, "
                    "or --offline to use the cache)"
                ) from None
            except requests.exceptions.ConnectionError as exc:
                if attempt < self.retries:
                    attempt = self._wait(attempt)
                    continue
                raise ResolverError(
                    f"cannot reach {self.base} ({_reason(exc)}) after {attempt + 1} tries; cannot decide"
                ) from None
            except requests.exceptions.RequestException as exc:
                raise ResolverError(f"{url}: request failed ({_reason(exc)}); cannot decide") from None
            if status >= 500 and attempt < self.retries:
                attempt = self._wait(attempt)
                continue
            if status >= 500:
                raise ResolverError(f"{url} answered HTTP {status} {attempt + 1} times; cannot decide")
            return status, data, etag

    def _wait(self, attempt: int) -> int:
        time.sleep(self.backoff * (2**attempt))
        return attempt + 1

    def _get_once(self, url: str, headers: dict[str, str]) -> tuple[int, bytes, str | None]:
        import requests

        response = self._session_().get(
            url, headers=headers, timeout=(self.connect_timeout, self.read_timeout), stream=True
        )
        with response:
            if response.status_code != 200:
                return response.status_code, b"", None
            length = response.headers.get("Content-Length", "")
            if length.isdigit() and int(length) > self.max_bytes:
                raise ResolverError(f"{url} sent {int(length):,} bytes, more than a Pith record may have "
                                    f"({self.max_bytes:,}); cannot decide")
            # A trickling server must not hold us forever: a deadline for the whole body.
            deadline = time.monotonic() + 3 * self.read_timeout
            chunks, total = [], 0
            for chunk in response.iter_content(64 * 1024):
                total += len(chunk)
                if total > self.max_bytes:
                    raise ResolverError(f"{url} sent more than {self.max_bytes:,} bytes, more than a Pith "
                                        "record may have; cannot decide")
                if time.monotonic() > deadline:
                    raise requests.exceptions.ReadTimeout("body too slow")
                chunks.append(chunk)
            return 200, b"".join(chunks), response.headers.get("ETag")

    # -- parsing and cache -------------------------------------------------------------------
    def _parse(self, data: bytes, name: str) -> dict[str, Any]:
        try:
            return parse_document(data, name=name)
        except RecordError as exc:
            raise ResolverError(f"{exc}; cannot decide") from None

    def _cache_path(self, number: PithNumber) -> Path:
        return self.cache / "records" / f"{number.body}.json"

    def _cache_read(self, number: PithNumber) -> tuple[bytes, str | None] | None:
        path = self._cache_path(number)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        try:
            meta = json.loads(path.with_suffix(".meta").read_text("utf-8"))
            etag = meta.get("etag") if isinstance(meta, dict) else None
        except (OSError, ValueError):
            etag = None
        return data, etag if isinstance(etag, str) else None

    def _cache_write(self, number: PithNumber, data: bytes, etag: str | None, document: dict[str, Any]) -> None:
        """Keep only a record that hashes to the number asked for; a cache failure is not an error."""
        try:
            if number_of(canonical_of(document)).body != number.body:
                return
            path = self._cache_path(number)
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path.with_suffix(".meta"), json.dumps({"etag": etag, "number": number.body}).encode())
            write_atomic(path, data)
        except (OSError, RecordError):
            pass


def _json(data: bytes, url: str) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ResolverError(f"{url}: the answer is not valid JSON; cannot decide") from None


def _number_in_answer(answer: Any, url: str) -> PithNumber:
    """The number an answer states; only an answer that states none is read for its record's
    number (so a record that does not hash to the stated number is caught by verification)."""
    if isinstance(answer, dict):
        for key in ("pith_number", "number", "body"):
            if isinstance(answer.get(key), str):
                try:
                    return PithNumber.parse(answer[key])
                except InvalidNumber as exc:
                    raise ResolverError(f"{url}: the answer's {key} is not usable ({exc})") from None
        if isinstance(answer.get("canonical_record"), dict):
            return number_of(canonical_of(answer))
    raise ResolverError(f"{url}: the answer names no Pith Number")


def _reason(exc: Exception) -> str:
    """A short reason from requests' nested exceptions (the innermost message)."""
    text = str(exc.args[0] if exc.args else exc)
    for marker in ("Connection refused", "Name or service not known", "timed out", "Connection reset"):
        if marker in text:
            return marker.lower()
    return text.split(":")[-1].strip(" )'\"") or type(exc).__name__
