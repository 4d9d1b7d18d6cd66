"""A client for the Pith resolver (https://pith.science or a mirror): fetch records, resolve arXiv ids.

Network behaviour, chosen so a broken or hostile server costs little and says why:
- one wall-clock deadline per fetch: connect, TLS, headers, redirects, body and retries
  together take at most `PITH_TIMEOUT` seconds (default 20; `timeout=` in code), however
  slowly the server sends (see pithtex/net.py);
- up to 2 retries with backoff, only on connection errors and HTTP 5xx, within that deadline
  (a timeout or a 4xx will not get better by asking again);
- the body is cut off beyond `max_bytes`;
- redirects (at most 5) are followed to any public host, on the base URL's scheme (or from
  http to https), never to a loopback, private or link-local address unless the base URL is
  one itself (pithtex/net.py says which): the record is verified, never trusted, the report
  names the URL that answered, and a failure names the URL that failed;
- an on-disk cache under `$XDG_CACHE_HOME/pithtex` (default `~/.cache/pithtex`), one entry
  per resolver base URL and number, revalidated with ETag / If-None-Match; `offline=True`
  reads only the cache. Only a record that fully verifies (hash, number, and a receipt
  signed by one of the resolver's keys, by default the pinned registry keys) is cached; an
  entry that does not verify when read is ignored (and replaced by the next good answer).
  When the server fails, a cached copy that verifies is used.

Callers still verify every record they get (`pithtex.verify.verify_document`): the cache
check only decides what is worth keeping. Every failure raises `ResolverError` (exit code 3,
"cannot be decided") with one sentence.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import brand, net
from .arxiv.ids import ArxivId
from .errors import InputError, InvalidNumber, OutputError, PithError, RecordError, Undecidable
from .files import read_input, stale_temporaries, write_atomic
from .limits import MAX_RESPONSE_BYTES, NETWORK_SECONDS, env_seconds
from .number import PithNumber
from .record import canonical_of, number_of, parse_document
from .value import NamedTuple

if TYPE_CHECKING:
    from collections.abc import Callable

    # Does this record hold for this number (hash, number, a trusted key's signature)? The
    # caller's verification, so a record is verified once per command (pithtex.client).
    Holds = Callable[[PithNumber, dict[str, Any]], bool]

TIMEOUT = NETWORK_SECONDS  # seconds for one whole fetch (the element's too); PITH_TIMEOUT overrides
MAX_TIMEOUT = 3600.0  # a longer PITH_TIMEOUT is cut to this (a deadline must stay a deadline)
RETRIES = 2
BACKOFF = 0.5  # seconds before the first retry; doubled for the next
USER_AGENT = f"pithtex/{brand.VERSION} (+{brand.BASE_URL})"


class ResolverError(Undecidable):
    """The resolver could not give an answer that can be checked (exit code 3). `step` is the
    step of a verification it stopped ("fetch" a number's record, "resolve" an arXiv id), with
    the `number` fetched or the `arxiv` id resolved: a report names the step, a batch's line the
    paper."""

    def __init__(self, *args: object, remedy: tuple[str, str] | None = None, step: str | None = None,
                 number: PithNumber | None = None, arxiv: ArxivId | None = None) -> None:
        super().__init__(*args, remedy=remedy)
        self.step, self.number, self.arxiv = step, number, arxiv

    def _fields(self) -> dict[str, Any]:
        return {**super()._fields(), "step": self.step, "number": self.number, "arxiv": self.arxiv}

    def as_report(self) -> dict[str, Any]:
        """`pithtex verify --json`'s report when no record could be had: a report's keys (see
        verify.Report.as_dict), nothing verified, the step that failed "unknown", plus the
        "error" and "exit_code" every JSON error carries."""
        step, number = self.step or "fetch", self.number
        return {
            "verified": False, "state": "unchecked", "number": number and number.body,
            "long": number and number.long, "short": number and number.short, "url": number and number.url,
            "canonical_sha256": None, "key_id": None, "checks": {step: "unknown"}, "details": {step: str(self)},
            "error": str(self), "exit_code": self.exit_code,
        }


class Fetched(NamedTuple):
    document: dict[str, Any]
    url: str  # the URL that answered (after redirects)
    source: str  # "network", "revalidated" (304), "cache" (offline) or "stale" (server failed)
    note: str = ""
    redirected_from: str | None = None
    uncached: str = ""  # why a record fetched from the network was not cached (a planted link)

    @property
    def detail(self) -> str:
        via = f" (redirected from {self.redirected_from})" if self.redirected_from else ""
        kept = f"; not cached: {self.uncached}" if self.uncached else ""
        return {
            "network": f"fetched {self.url}{via}{kept}",
            "revalidated": f"{self.url}{via} answered 304 Not Modified; used the cached copy",
            "cache": f"read the cached copy of {self.url} (offline)",
            "stale": f"used the cached copy: {self.note.removesuffix('; cannot decide')}",
        }[self.source]


BASE_URL_ENV = "PITH_BASE_URL"  # the resolver when no --base-url is given (serve reads it too)


def base_url(given: str | None = None) -> str:
    """--base-url, else $PITH_BASE_URL, else https://pith.science: an http(s) URL with a host,
    a valid port, and no user name or password (they would be printed in every report and
    named in the cache folder; a resolver serves public records and needs none)."""
    from urllib.parse import urlsplit

    url = (given or os.environ.get(BASE_URL_ENV) or brand.BASE_URL).strip().rstrip("/")
    problem = _base_url_problem(url)
    if problem is None:
        try:
            parts = urlsplit(url)
            parts.port  # noqa: B018 (raises ValueError for a port outside 0-65535)
        except ValueError:
            problem = "its host or port is not valid"
        else:
            if parts.username is not None or parts.password is not None:
                problem = "it holds a user name or password; give the URL without them"
            elif parts.query or parts.fragment:
                problem = "it has a query or fragment; give the resolver's base URL only"
    if problem:
        shown = re.sub(r"//[^/@]*@", "//***@", url)  # never echo a password
        raise PithError(f"invalid base URL {shown!r}: {problem}")
    return url


def _base_url_problem(url: str) -> str | None:
    if not re.match(r"https?://[^/\s]+", url):
        return "it must start with http:// or https://"
    if re.search(r"[\x00-\x20\x7f-\x9f]", url):
        return "it holds spaces or control characters"
    return None


def cache_dir() -> Path:
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(root) / "pithtex"


def _env_timeout() -> float | None:
    """PITH_TIMEOUT in seconds (at most MAX_TIMEOUT), None when unset; a value that is no usable
    deadline (`abc`, `0`, `-1`, `nan`, or `inf`/`1e309`, none at all) is refused."""
    return env_seconds("PITH_TIMEOUT", most=MAX_TIMEOUT)


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
        max_bytes: int = MAX_RESPONSE_BYTES,
        keys: Any = None,
    ) -> None:
        self.base = base_url(base)
        self.offline = offline
        self.cache = Path(cache) if cache is not None else cache_dir()
        self.timeout = timeout if timeout is not None else (_env_timeout() or TIMEOUT)
        self.retries, self.backoff, self.max_bytes = retries, backoff, max_bytes
        self.keys = keys  # a trust.KeyRing; None: the pinned registry keys

    # -- public ------------------------------------------------------------------------------
    def record_url(self, number: PithNumber) -> str:
        return brand.record_url(number.body, self.base)

    def fetch_record(self, number: PithNumber, holds: Holds | None = None) -> Fetched:
        """The record for `number` (unverified!), from the network, a 304 or the cache; `holds`
        decides what the cache keeps and reads (default: `verify_document` here). A failure is
        a ResolverError of the step "fetch", naming `number`."""
        try:
            return self._record(number, holds)
        except ResolverError as exc:  # said by the step that failed, made whole for the caller
            raise ResolverError(*exc.args, step="fetch", number=number) from None

    def _record(self, number: PithNumber, holds: Holds | None) -> Fetched:
        url = self.record_url(number)
        holds = holds or self._verifies
        cached = self._cache_read(number, holds)
        if self.offline:
            if cached is None:
                raise ResolverError(
                    f"no cached record for {number.body} from {self.base} that verifies (in "
                    f"{self._cache_path(number)}), and working offline forbids the network; cannot decide"
                )
            return Fetched(cached[0], url, "cache")
        deadline = time.monotonic() + self.timeout
        try:
            return self._fetch_online(number, url, cached, deadline, holds)
        except ResolverError as exc:
            if cached is None:
                raise
            # Records are content-addressed and this copy verified when it was read, so it
            # is as good as a fresh one when the server fails; say so in the fetch check.
            return Fetched(cached[0], url, "stale", note=str(exc))

    def _fetch_online(self, number: PithNumber, url: str, cached: tuple[dict[str, Any], str | None] | None,
                      deadline: float, holds: Holds) -> Fetched:
        headers = {"Accept": "application/json"}
        if cached and cached[1]:
            headers["If-None-Match"] = cached[1]
        answer = self._get(url, headers, deadline)
        if answer.status == 404:
            # Some deployments serve JSON only through content negotiation on the page URL.
            page = number.url_at(self.base)
            answer = self._get(page, {**headers, "Accept": "application/ld+json"}, deadline)
            if answer.status == 404:
                raise ResolverError(f"{self.base} has no record for {number.body} (HTTP 404); cannot decide")
        if answer.status == 304:
            if cached is None:
                raise ResolverError(f"{answer.url} answered 304 Not Modified, but there is no cached copy; "
                                    "cannot decide")
            self._cache_keep(number, answer.url, cached[1], cached[0])  # the resolver vouched for it again: now
            return Fetched(cached[0], answer.url, "revalidated", redirected_from=answer.redirected_from)
        if answer.status != 200:
            raise ResolverError(f"{answer.url} answered HTTP {answer.status}; cannot decide")
        document = self._parse(answer.body, answer.url)
        uncached = self._cache_write(number, answer, document, holds)
        return Fetched(document, answer.url, "network", redirected_from=answer.redirected_from, uncached=uncached)

    def resolve_arxiv(self, arxiv_id: str | ArxivId) -> PithNumber:
        """The Pith Number the resolver gives for an arXiv id (a claim: verify its record)."""
        return self._ask_arxiv(arxiv_id)[0]

    def fetch_arxiv(self, arxiv_id: str | ArxivId, holds: Holds | None = None) -> tuple[PithNumber, Fetched]:
        """The number the resolver names for an arXiv id, and a record for it (both unverified):
        the record in the resolver's answer when it has one, else `fetch_record(number)`.
        The caller verifies that the record hashes to the number and names the paper.
        Offline, the number comes from what `remember_arxiv` kept of an earlier answer. A
        failure is a ResolverError of the step "resolve", naming `arxiv_id`."""
        if isinstance(arxiv_id, str):
            arxiv_id = ArxivId.parse(arxiv_id)
        try:
            return self._arxiv(arxiv_id, holds)
        except ResolverError as exc:  # said by the step that failed, made whole for the caller
            raise ResolverError(*exc.args, step="resolve", arxiv=arxiv_id) from None

    def _arxiv(self, arxiv_id: ArxivId, holds: Holds | None) -> tuple[PithNumber, Fetched]:
        if self.offline:
            return self._remembered(arxiv_id), self._record(self._remembered(arxiv_id), holds)
        number, answer, url = self._ask_arxiv(arxiv_id)
        if isinstance(answer.get("canonical_record"), dict):
            return number, Fetched(answer, url, "network")
        return number, self._record(number, holds)

    def remember_arxiv(self, arxiv_id: ArxivId, number: PithNumber, fetched: Fetched) -> None:
        """Keep, for working offline, that `arxiv_id` is `number` and its record: only once the
        caller verified the record and that it is of that paper (a cache keeps what verified)."""
        path = self._arxiv_path(arxiv_id)
        entry = {"base": self.base, "arxiv": str(arxiv_id), "number": number.body}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, json.dumps(entry).encode("utf-8"), follow=False, sync=False)
            if fetched.source == "network" and not self._cache_path(number).exists():
                record = {"base": self.base, "number": number.body, "url": fetched.url, "etag": None,
                          "verified_at": time.time(), "document": fetched.document}
                self._cache_path(number).parent.mkdir(parents=True, exist_ok=True)
                write_atomic(self._cache_path(number), json.dumps(record, ensure_ascii=False).encode("utf-8"),
                             follow=False, sync=False)
        except (OSError, OutputError):
            pass

    def _remembered(self, arxiv_id: ArxivId) -> PithNumber:
        try:
            entry = json.loads(read_input(self._arxiv_path(arxiv_id), 4096, "a cache entry", follow=False))
            if entry.get("base") == self.base and entry.get("arxiv") == str(arxiv_id):
                return PithNumber.parse(entry["number"])
        except (OSError, InputError, ValueError, RecursionError, AttributeError, KeyError, TypeError, PithError):
            pass  # missing, planted or not ours: as if never resolved
        raise ResolverError(f"resolving arXiv:{arxiv_id} needs the network (no verified answer from {self.base} "
                            "is cached), and working offline forbids it; cannot decide")

    def _arxiv_path(self, arxiv_id: ArxivId) -> Path:
        return self._cache_folder("arxiv") / (str(arxiv_id).replace("/", "_") + ".json")

    def _ask_arxiv(self, arxiv_id: str | ArxivId) -> tuple[PithNumber, dict[str, Any], str]:
        if isinstance(arxiv_id, str):
            arxiv_id = ArxivId.parse(arxiv_id)
        if self.offline:
            raise ResolverError(f"resolving arXiv:{arxiv_id} needs the network, and working offline forbids it")
        from urllib.parse import quote

        url = f"{self.base}/api/pith-number/resolve?arxiv={quote(str(arxiv_id), safe='')}&json=true"
        answer = self._get(url, {"Accept": "application/json"}, time.monotonic() + self.timeout)
        if answer.status == 404:
            raise ResolverError(f"{self.base} knows no Pith Number for arXiv:{arxiv_id} (HTTP 404)")
        if answer.status != 200:
            raise ResolverError(f"{answer.url} answered HTTP {answer.status}; cannot resolve arXiv:{arxiv_id}")
        document = _json(answer.body, answer.url)
        return _number_in_answer(document, answer.url), document, answer.url

    # -- HTTP --------------------------------------------------------------------------------
    def _get(self, url: str, headers: dict[str, str], deadline: float) -> net.Answer:
        """GET with bounded retries, all within `deadline`. Raises ResolverError on failure."""
        attempt = 0
        while True:
            try:
                answer = net.get(url, headers, deadline, self.max_bytes, USER_AGENT)
            except net.DeadlineExceeded as exc:
                raise ResolverError(
                    f"{exc.url or url} did not answer within {self.timeout:g} s; cannot decide (try again later, "
                    "or --offline to use the cache)"
                ) from None
            except net.TooLarge as exc:
                raise ResolverError(f"{exc.url or url} {exc}, more than a Pith record may have "
                                    f"({self.max_bytes:,} bytes); cannot decide") from None
            except net.RedirectRefused as exc:
                raise ResolverError(f"{exc}; cannot decide") from None
            except net.NetError as exc:
                if exc.retry and attempt < self.retries and self._wait(attempt, deadline):
                    attempt += 1
                    continue
                failed = exc.url or url  # a redirect's target is named, not the base it came from
                if exc.retry:
                    raise ResolverError(
                        f"cannot reach {self.base if failed == url else failed} ({exc}) after {attempt + 1} "
                        "tries; cannot decide"
                    ) from None
                raise ResolverError(f"{failed}: request failed ({exc}); cannot decide") from None
            if answer.status >= 500 and attempt < self.retries and self._wait(attempt, deadline):
                attempt += 1
                continue
            if answer.status >= 500:
                raise ResolverError(f"{answer.url} answered HTTP {answer.status} {attempt + 1} times; cannot decide")
            return answer

    def _wait(self, attempt: int, deadline: float) -> bool:
        """Sleep before retry `attempt + 1`; False when the deadline leaves no time for it."""
        pause = self.backoff * (2**attempt)
        if time.monotonic() + pause >= deadline:
            return False
        time.sleep(pause)
        return True

    # -- parsing and cache -------------------------------------------------------------------
    def _parse(self, data: bytes, name: str) -> dict[str, Any]:
        try:
            return parse_document(data, name=name)
        except RecordError as exc:
            raise ResolverError(f"{exc}; cannot decide") from None

    def cached_verified_at(self, number: PithNumber) -> float | None:
        """When the cached copy of `number`'s record last verified against this resolver's answer
        (a Unix time, the entry's `verified_at`), or None: no entry, or one written before entries
        said (a file's mtime is not that time: a copy, a restore or a sync sets it)."""
        try:
            data = read_input(self._cache_path(number), 2 * self.max_bytes, "a cache entry", follow=False)
            when = json.loads(data).get("verified_at")
        except (OSError, InputError, ValueError, RecursionError, AttributeError):
            return None
        return float(when) if isinstance(when, (int, float)) and not isinstance(when, bool) and when > 0 else None

    def _cache_path(self, number: PithNumber) -> Path:
        """One folder per resolver: a mirror's answers never stand in for another's."""
        return self._cache_folder("records") / f"{number.body}.json"

    def _cache_folder(self, kind: str) -> Path:
        host = re.sub(r"[^A-Za-z0-9.-]+", "-", self.base.split("://", 1)[1])[:60]
        tag = hashlib.sha256(self.base.encode()).hexdigest()[:12]
        return self.cache / kind / f"{host}-{tag}"

    def _verifies(self, number: PithNumber, document: dict[str, Any]) -> bool:
        from .verify import verify_document

        try:
            return verify_document(document, self.keys, expect=number).verified
        except PithError:
            return False

    def _cache_read(self, number: PithNumber, holds: Holds) -> tuple[dict[str, Any], str | None] | None:
        """(document, etag) of a cache entry that still verifies; None for anything else."""
        try:
            # The cache is ours: a link, FIFO or device planted there is not read through.
            data = read_input(self._cache_path(number), 2 * self.max_bytes, "a cache entry", follow=False)
            entry = json.loads(data)
        except (OSError, InputError, ValueError, RecursionError):  # missing, planted, or not JSON: as if absent
            return None
        if not isinstance(entry, dict) or entry.get("base") != self.base or entry.get("number") != number.body:
            return None
        document, etag = entry.get("document"), entry.get("etag")
        if not isinstance(document, dict) or not holds(number, document):
            return None
        return document, etag if isinstance(etag, str) else None

    def _cache_write(self, number: PithNumber, answer: net.Answer, document: dict[str, Any], holds: Holds) -> str:
        """Keep only a record that verifies as `number`; a cache failure is not an error.
        Returns why it was not kept when a user should hear it (a link planted in the cache),
        else ""."""
        if not holds(number, document):
            return ""
        return self._cache_keep(number, answer.url, answer.etag, document)

    def _cache_keep(self, number: PithNumber, url: str, etag: str | None, document: dict[str, Any]) -> str:
        """Write the cache entry of a record that verified as `number` just now (`verified_at`)."""
        entry = {"base": self.base, "number": number.body, "url": url, "etag": etag,
                 "verified_at": time.time(), "document": document}
        path = self._cache_path(number)
        try:
            link = self._linked_folder(path.parent)
            if link is not None:
                return f"{link} is a symbolic link, and pithtex writes its cache through none"
            path.parent.mkdir(parents=True, exist_ok=True)
            for stale in stale_temporaries(path.parent):  # the cache is ours: a killed run's leftovers go
                stale.unlink(missing_ok=True)
            write_atomic(path, json.dumps(entry, ensure_ascii=False).encode("utf-8"), follow=False, sync=False)
        except (OSError, OutputError):
            pass
        return ""

    def _linked_folder(self, folder: Path) -> Path | None:
        """The first of the cache's own folders (pithtex/, records/, records/HOST/) on the way to
        `folder` that is a symbolic link: a write there would land wherever the link points.
        The folders above the cache ($XDG_CACHE_HOME, ~/.cache) are the user's, links allowed."""
        at = self.cache
        for part in (None, *folder.relative_to(self.cache).parts):
            at = at if part is None else at / part
            if at.is_symlink():
                return at
        return None


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
            try:
                return number_of(canonical_of(answer))
            except RecordError as exc:
                raise ResolverError(f"{url}: the answer's record is not usable ({exc})") from None
    raise ResolverError(f"{url}: the answer names no Pith Number")
