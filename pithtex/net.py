"""HTTP GET with one wall-clock deadline for the whole exchange, whatever the server's pace.

requests and urllib3 time out per socket operation: a server that sends one byte a second
never trips a 2 s read timeout, in the headers or in the body. So every `get` here has a
deadline (connect, TLS, headers, redirects and body together): a watchdog thread shuts down
the fetch's sockets when it passes, which ends even a read blocked in the middle of the
headers at once, and the body is read in small chunks with the deadline checked between
them. Each `get` uses its own session, so every connection it reads from is one it opened
(and watches); nothing is reused from an earlier fetch.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any

CONNECT_TIMEOUT = 5.0  # no single connect waits longer, even with a longer deadline
CHUNK = 8 * 1024
MAX_REDIRECTS = 5


class NetError(Exception):
    """A fetch that gave no usable answer; `retry` says whether asking again may help."""

    def __init__(self, reason: str, retry: bool = False) -> None:
        super().__init__(reason)
        self.retry = retry


class DeadlineExceeded(NetError):
    """The whole fetch did not finish before its deadline."""


class TooLarge(NetError):
    """The body is larger than the caller allows."""


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes  # empty unless status is 200
    url: str  # the URL that answered, after redirects
    etag: str | None = None
    redirected_from: str | None = None  # the URL asked for, when a redirect was followed


def get(url: str, headers: dict[str, str], deadline: float, max_bytes: int, user_agent: str) -> Answer:
    """GET `url`; the whole exchange ends by `deadline` (time.monotonic()) or raises."""
    import requests

    if not math.isfinite(deadline):  # a caller's bug: a fetch without an end is never allowed
        raise ValueError(f"deadline {deadline!r} is not a finite time")
    if deadline - time.monotonic() <= 0:
        raise DeadlineExceeded("no time left")
    with _Watchdog(deadline) as dog, _session(user_agent) as session:
        try:
            answer = _follow(session, url, headers, deadline, max_bytes)
        except requests.exceptions.RequestException as exc:
            if dog.fired or time.monotonic() >= deadline:
                raise DeadlineExceeded("too slow") from None
            if isinstance(exc, requests.exceptions.Timeout):
                raise DeadlineExceeded("timed out") from None
            raise NetError(_reason(exc, url), retry=isinstance(exc, requests.exceptions.ConnectionError)) from None
        if dog.fired:  # a close-delimited body cut short by the watchdog looks complete
            raise DeadlineExceeded("too slow")
        return answer


def _follow(session: Any, url: str, headers: dict[str, str], deadline: float, max_bytes: int) -> Answer:
    """Redirects by hand: a redirect's body is never read (requests would read all of it,
    however large), and each hop gets only the time that is left."""
    from urllib.parse import urljoin

    current = url
    for _hop in range(MAX_REDIRECTS + 1):
        remaining = max(deadline - time.monotonic(), 0.001)
        response = session.get(current, headers=headers, stream=True, allow_redirects=False,
                               timeout=(min(CONNECT_TIMEOUT, remaining), remaining))
        with response:
            location = response.headers.get("Location") if response.status_code in _REDIRECTS else None
            if not location:
                return _read(response, current, url, deadline, max_bytes)
        current = urljoin(current, location)
        if not current.startswith(("http://", "https://")):
            raise NetError("a redirect to a non-HTTP URL")
    raise NetError("too many redirects")


_REDIRECTS = frozenset({301, 302, 303, 307, 308})
# What urllib3 says when the server closes or resets the connection without an answer.
_DROPPED = ("Connection aborted", "RemoteDisconnected", "Connection reset", "BadStatusLine", "ProtocolError")


def _read(response: Any, current: str, asked: str, deadline: float, max_bytes: int) -> Answer:
    source = asked if current != asked else None
    etag = response.headers.get("ETag")
    if response.status_code != 200:
        return Answer(response.status_code, b"", current, etag, source)
    length = response.headers.get("Content-Length", "")
    if length.isdigit() and int(length) > max_bytes:
        raise TooLarge(f"sent {int(length):,} bytes")
    chunks, total = [], 0
    for chunk in response.iter_content(CHUNK):
        total += len(chunk)
        if total > max_bytes:
            raise TooLarge("kept sending past the limit")
        if time.monotonic() >= deadline:
            raise DeadlineExceeded("too slow")
        chunks.append(chunk)
    return Answer(200, b"".join(chunks), current, etag, source)


def _reason(exc: Exception, url: str) -> str:
    """A short reason from requests' nested exceptions (the innermost message), in words:
    never the exception tuple urllib3 nests (`('Connection aborted.', RemoteDisconnected(...))`)."""
    from urllib.parse import urlsplit

    import requests

    if isinstance(exc, requests.exceptions.ChunkedEncodingError) or "IncompleteRead" in str(exc):
        return "the server closed the connection before the answer was complete"
    if isinstance(exc, requests.exceptions.ContentDecodingError):
        return "the answer's Content-Encoding does not decode"
    text = str(exc.args[0] if exc.args else exc)
    if any(marker in text for marker in _DROPPED):
        host = urlsplit(url).netloc or url
        return f"the connection was dropped by {host} before it answered"
    for marker in ("Connection refused", "Name or service not known", "timed out", "Connection reset",
                   "Invalid URL"):
        if marker in text:
            return marker.lower()
    return text.split(":")[-1].strip(" )'\"") or type(exc).__name__


# -- the watchdog ----------------------------------------------------------------------------
_current = threading.local()  # the watchdog of the fetch running in this thread


class _Watchdog:
    """Shuts down every socket opened in this thread's fetch once the deadline passes."""

    def __init__(self, deadline: float) -> None:
        self.deadline, self.fired = deadline, False
        self._lock = threading.Lock()
        self._socks: list[socket.socket] = []
        self._timer = threading.Timer(max(0.0, deadline - time.monotonic()), self._fire)
        self._timer.daemon = True

    def __enter__(self) -> _Watchdog:
        _current.watchdog = self
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        _current.watchdog = None
        with self._lock:
            for sock in self._socks:
                sock.close()
            self._socks.clear()

    def watch(self, sock: socket.socket) -> None:
        # A duplicate of the descriptor: TLS wrapping detaches the original socket object,
        # but a shutdown on any descriptor of a connection ends reads on all of them.
        dup = socket.socket(fileno=os.dup(sock.fileno()))
        with self._lock:
            self._socks.append(dup)
            if self.fired:
                _shutdown(dup)

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            for sock in self._socks:
                _shutdown(sock)


def _shutdown(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed by the other side: nothing left to stop
        sock.shutdown(socket.SHUT_RDWR)


def _session(user_agent: str) -> Any:
    import requests

    session = requests.Session()
    session.headers["User-Agent"] = user_agent
    adapter = _adapter_class()
    for prefix in ("http://", "https://"):
        session.mount(prefix, adapter())
    return session


@functools.cache
def _adapter_class() -> type:
    """A requests adapter whose connections report their sockets to the current watchdog."""
    from requests.adapters import HTTPAdapter
    from urllib3.connection import HTTPConnection, HTTPSConnection
    from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

    def watched(base: type) -> type:
        class Watched(base):  # type: ignore[misc]  # a base known at run time only (both kinds)
            def _new_conn(self) -> socket.socket:
                sock: socket.socket = super()._new_conn()
                dog = getattr(_current, "watchdog", None)
                if dog is not None:
                    dog.watch(sock)
                return sock

        return Watched

    pools = {
        "http": type("WatchedHTTPPool", (HTTPConnectionPool,), {"ConnectionCls": watched(HTTPConnection)}),
        "https": type("WatchedHTTPSPool", (HTTPSConnectionPool,), {"ConnectionCls": watched(HTTPSConnection)}),
    }

    class Adapter(HTTPAdapter):
        def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
            super().init_poolmanager(*args, **kwargs)
            self.poolmanager.pool_classes_by_scheme = pools

        def proxy_manager_for(self, proxy: str, **kwargs: Any) -> Any:
            manager = super().proxy_manager_for(proxy, **kwargs)
            manager.pool_classes_by_scheme = pools
            return manager

    return Adapter
