"""HTTP GET with one wall-clock deadline for the whole exchange, whatever the server's pace.

Built on the standard library's `http.client`: requests and urllib3 time out per socket
operation (a server that sends one byte a second never trips a 2 s read timeout, in the
headers or in the body), so they had to be wrapped in a watchdog and hand-made redirects
anyway, and importing them cost more than the interpreter's whole start. Every `get` has a
deadline (connect, TLS, a proxy's CONNECT, headers, redirects and body together): a watchdog
thread shuts down the fetch's sockets when it passes, which ends even a read blocked in the
middle of the headers at once, and the body is read in small chunks with the deadline
checked between them; a close-delimited body cut short by the watchdog is DeadlineExceeded,
never a short body. Each `get` opens its own connections (and watches them); nothing is
reused from an earlier fetch. https is verified against certifi's CA bundle (the set
requests used), with SNI and the host name checked. Proxies come from the environment as
requests took them (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, in either case, and NO_PROXY): a
CONNECT tunnel for https, the absolute URL for http.

Redirects stay on the asked URL's scheme (or go from http to https) and its host class: a
redirect to a loopback, private or link-local address (169.254.169.254, a cloud's metadata
service) is refused before anything connects to it, unless the asked URL's own host is of
that kind (a resolver on 127.0.0.1 may send us to localhost; a loopback or private one may
send us to loopback). The check is made on the addresses the name resolves to, and again on
the address each redirect's connection reached, so a name that resolves differently the
second time gains nothing. A redirect's body is never read. Every NetError names the URL
that failed (`url`).
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import math
import os
import socket
import threading
import time
from typing import TYPE_CHECKING, NamedTuple  # not value.py's, on net's own floor; the resolver imports typing
from urllib.parse import SplitResult, urljoin, urlsplit

if TYPE_CHECKING:
    import http.client
    from collections.abc import Callable
    from ssl import SSLContext

CONNECT_TIMEOUT = 5.0  # no single connect waits longer, even with a longer deadline
CHUNK = 8 * 1024
MAX_REDIRECTS = 5


class NetError(Exception):
    """A fetch that gave no usable answer; `retry` says whether asking again may help, `url`
    which URL failed (the one asked, or a redirect's target)."""

    def __init__(self, reason: str, retry: bool = False, url: str | None = None) -> None:
        super().__init__(reason)
        self.retry, self.url = retry, url


class RedirectRefused(NetError):
    """A redirect to a scheme or a kind of address the asked URL may not send us to."""


class DeadlineExceeded(NetError):
    """The whole fetch did not finish before its deadline."""


class TooLarge(NetError):
    """The body is larger than the caller allows."""


class Answer(NamedTuple):
    status: int
    body: bytes  # empty unless status is 200
    url: str  # the URL that answered, after redirects
    etag: str | None = None
    redirected_from: str | None = None  # the URL asked for, when a redirect was followed


def get(url: str, headers: dict[str, str], deadline: float, max_bytes: int, user_agent: str) -> Answer:
    """GET `url`; the whole exchange ends by `deadline` (time.monotonic()) or raises."""
    if not math.isfinite(deadline):  # a caller's bug: a fetch without an end is never allowed
        raise ValueError(f"deadline {deadline!r} is not a finite time")
    if deadline - time.monotonic() <= 0:
        raise DeadlineExceeded("no time left")
    import http.client  # here, not at import: 18 ms (its email parser, ssl) a command that never fetches skips

    hops = [url]  # every URL asked, in turn: the last is the one that failed
    sent = {"User-Agent": user_agent, "Accept": "*/*", **headers, "Accept-Encoding": "identity",
            "Connection": "close"}
    with _Watchdog(deadline) as dog:
        try:
            answer = _follow(dog, hops, sent, max_bytes)
        except NetError as exc:  # a step deep in the exchange may not know its URL: made whole here
            if dog.fired and not isinstance(exc, (DeadlineExceeded, TooLarge, RedirectRefused)):
                raise DeadlineExceeded("too slow", url=exc.url or hops[-1]) from None
            raise type(exc)(str(exc), retry=exc.retry, url=exc.url or hops[-1]) from None
        except (OSError, http.client.HTTPException) as exc:
            if dog.fired or time.monotonic() >= deadline:
                raise DeadlineExceeded("too slow", url=hops[-1]) from None
            if isinstance(exc, TimeoutError):  # socket.timeout: a connect's own bound
                raise DeadlineExceeded("timed out", url=hops[-1]) from None
            # Refused, dropped, unresolved, TLS: asking again may help; a broken answer will not.
            raise NetError(_reason(exc, hops[-1]), retry=isinstance(exc, OSError), url=hops[-1]) from None
        if dog.fired:  # a close-delimited body cut short by the watchdog looks complete
            raise DeadlineExceeded("too slow", url=hops[-1])
        return answer


def _follow(dog: _Watchdog, hops: list[str], headers: dict[str, str], max_bytes: int) -> Answer:
    """Redirects by hand: a redirect's body is never read, each hop gets only the time that
    is left, and each target is checked against the asked URL's scheme and host class before
    it is connected to (and its connection's peer once connected)."""
    asked = hops[0]
    allowed: tuple[str, frozenset[str]] | None = None  # the first hop goes where it was asked to
    for _hop in range(MAX_REDIRECTS + 1):
        current = hops[-1]
        conn, target, extra = _connection(current, dog, allowed)
        try:
            conn.request("GET", target, headers={**headers, **extra})
            response = conn.getresponse()
            location = response.getheader("Location") if response.status in _REDIRECTS else None
            if not location:
                return _read(response, current, asked, dog.deadline, max_bytes)
        finally:
            conn.close()
        target = urljoin(current, location or "")
        if not target.startswith(("http://", "https://")):
            raise NetError("a redirect to a non-HTTP URL", url=current)
        refusal = redirect_refusal(asked, target)
        if refusal:
            raise RedirectRefused(f"{current} redirected to {target}, {refusal}; a redirect stays on the "
                                  "resolver's scheme and kind of address", url=target)
        hops.append(target)
        allowed = (_host(target), allowed_classes(_host(asked)))  # checked again once connected
    raise NetError("too many redirects")


# -- where a redirect may go -------------------------------------------------------------------
def address_class(ip: str) -> str:
    """loopback, link-local, reserved (unspecified, multicast), private (any other address
    not on the public internet: RFC 1918, unique-local, carrier-grade NAT ...) or public."""
    addr = ipaddress.ip_address(ip.split("%", 1)[0])
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    if addr.is_loopback:
        return "loopback"
    if addr.is_link_local:
        return "link-local"
    if addr.is_unspecified or addr.is_multicast or addr.is_reserved:
        return "reserved"
    return "public" if addr.is_global else "private"


def host_addresses(host: str) -> list[str]:
    """The addresses `host` names: itself when it is one, else what the resolver says
    (nothing when the name does not resolve: the connection will fail and say so)."""
    try:
        return [str(ipaddress.ip_address(host.split("%", 1)[0]))]
    except ValueError:
        pass
    try:
        return sorted({str(info[4][0]) for info in socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)})
    except (OSError, UnicodeError):  # no such name (gaierror is an OSError), or not a usable one
        return []


def allowed_classes(base_host: str) -> frozenset[str]:
    """The kinds of address a redirect from a URL on `base_host` may go to: public ones, the
    kinds the base itself is, and loopback when the base is not public."""
    own = {address_class(ip) for ip in host_addresses(base_host)} or {"public"}
    return frozenset({"public"} | own | ({"loopback"} if own - {"public"} else set()))


def redirect_refusal(asked: str, target: str) -> str | None:
    """Why a redirect from the URL first asked to `target` is not followed, or None."""
    was, now = urlsplit(asked).scheme, urlsplit(target).scheme
    if now != was and (was, now) != ("http", "https"):
        return f"from {was} to {now}"
    allowed = allowed_classes(_host(asked))
    for ip in host_addresses(_host(target)):
        kind = address_class(ip)
        if kind not in allowed:
            return f"a {kind} address ({ip})"
    return None


def _host(url: str) -> str:
    return urlsplit(url).hostname or ""


_REDIRECTS = frozenset({301, 302, 303, 307, 308})


# -- connections: watched from their first byte --------------------------------------------------
def _connection(url: str, dog: _Watchdog, allowed: tuple[str, frozenset[str]] | None,
                ) -> tuple[http.client.HTTPConnection, str, dict[str, str]]:
    """An unopened connection for `url` (through the environment's proxy, if any) whose
    sockets report to `dog` and are checked against `allowed` as they connect; with the
    request target and the headers the proxy alone is to see."""
    parts = _split(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    proxy = _proxy_for(parts)
    remaining = max(dog.deadline - time.monotonic(), 0.001)
    extra: dict[str, str] = {}
    if proxy is None:
        conn = _open(parts.scheme, parts.hostname or "", port, remaining)
    else:
        conn = _open(parts.scheme, proxy.hostname or "", proxy.port or 80, remaining)
        if parts.scheme == "https":  # CONNECT host:port, then TLS to the host inside the tunnel
            conn.set_tunnel(parts.hostname or "", port, _proxy_auth(proxy))
        else:  # a forward proxy: the absolute URL, and its credentials in this request only
            target, extra = parts._replace(fragment="").geturl(), _proxy_auth(proxy)
    # The stdlib's own hook: each socket the connection opens (to the host, or to the proxy
    # before its CONNECT) is watched, and its peer checked, before a byte is sent.
    conn._create_connection = functools.partial(_watched, dog, allowed)  # type: ignore[attr-defined]
    return conn, target, extra


def _open(scheme: str, host: str, port: int, remaining: float) -> http.client.HTTPConnection:
    import http.client

    if scheme == "https":
        return http.client.HTTPSConnection(host, port, timeout=remaining, context=_tls())
    return http.client.HTTPConnection(host, port, timeout=remaining)


def _watched(dog: _Watchdog, allowed: tuple[str, frozenset[str]] | None, address: tuple[str, int],
             timeout: float, source_address: tuple[str, int] | None = None) -> socket.socket:
    """socket.create_connection, with the connect bounded by CONNECT_TIMEOUT and the time
    left, then watched, then checked: a redirect's peer of a kind it may not reach is closed."""
    remaining = max(dog.deadline - time.monotonic(), 0.001)
    sock = socket.create_connection(address, min(CONNECT_TIMEOUT, remaining), source_address)
    try:
        dog.watch(sock)
        _check_peer(sock, address[0], allowed)
        sock.settimeout(max(dog.deadline - time.monotonic(), 0.001))  # the watchdog ends it sooner
    except BaseException:
        sock.close()
        raise
    return sock


def _split(url: str) -> SplitResult:
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  # read for its check: a port out of range or not a number
    except ValueError:
        raise NetError("invalid url") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise NetError("invalid url")
    return parts


def _tls() -> SSLContext:
    """The TLS context: certifi's CA bundle (what requests verified against), host names checked."""
    import certifi

    return _context(certifi.where())


@functools.cache
def _context(cafile: str) -> SSLContext:  # its ~150 certificates take tens of ms to load: once a process
    import ssl

    return ssl.create_default_context(cafile=cafile)


# -- proxies, as requests took them from the environment -----------------------------------
_PROXY_VARIABLES = frozenset({"https_proxy", "http_proxy", "all_proxy"})


def _proxy_for(parts: SplitResult) -> SplitResult | None:
    """The proxy the environment names for this URL, or None (also when NO_PROXY covers it).
    urllib.request is imported only when a proxy variable is set."""
    if not any(name.lower() in _PROXY_VARIABLES and value for name, value in os.environ.items()):
        return None
    import urllib.request

    proxies = urllib.request.getproxies_environment()
    if _in_a_no_proxy_network(parts.hostname or "", proxies.get("no", "")) or \
            urllib.request.proxy_bypass(parts.netloc.rpartition("@")[2]):  # NO_PROXY's names and addresses
        return None
    given = proxies.get(parts.scheme) or proxies.get("all")
    if not given:
        return None
    proxy = urlsplit(given if "://" in given else f"http://{given}")
    if proxy.scheme != "http" or not proxy.hostname:
        raise NetError(f"the proxy {proxy.scheme}://{proxy.hostname or ''} is not an http:// proxy")
    return proxy


def _in_a_no_proxy_network(host: str, no_proxy: str) -> bool:
    """An address inside a network NO_PROXY names (10.0.0.0/8), as requests allowed; urllib
    matches names and addresses only."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    for entry in no_proxy.replace(" ", "").split(","):
        with contextlib.suppress(ValueError):  # a name, or not a network
            if "/" in entry and address in ipaddress.ip_network(entry, strict=False):
                return True
    return False


def _proxy_auth(proxy: SplitResult) -> dict[str, str]:
    """Basic credentials for a proxy URL that carries them (user:password@)."""
    if proxy.username is None:
        return {}
    import base64
    from urllib.parse import unquote

    pair = f"{unquote(proxy.username)}:{unquote(proxy.password or '')}".encode()
    return {"Proxy-Authorization": "Basic " + base64.b64encode(pair).decode("ascii")}


# -- the answer ---------------------------------------------------------------------------------
def _read(response: http.client.HTTPResponse, current: str, asked: str, deadline: float, max_bytes: int) -> Answer:
    source = asked if current != asked else None
    etag = response.getheader("ETag")
    if response.status != 200:
        return Answer(response.status, b"", current, etag, source)
    length = (response.getheader("Content-Length") or "").strip()
    if length.isdigit() and int(length) > max_bytes:
        raise TooLarge(f"sent {int(length):,} bytes")
    decode = _decoder(response.getheader("Content-Encoding"), max_bytes)
    chunks, total = [], 0
    while chunk := response.read(CHUNK):  # chunked, sized or close-delimited: http.client's
        if time.monotonic() >= deadline:
            raise DeadlineExceeded("too slow")
        chunk = decode(chunk)
        total += len(chunk)
        if total > max_bytes:
            raise TooLarge("kept sending past the limit")
        chunks.append(chunk)
    if response.length:  # a sized body ended early: http.client's read(n) returns it short
        import http.client

        raise http.client.IncompleteRead(b"", response.length)
    return Answer(200, b"".join(chunks), current, etag, source)


def _decoder(encoding: str | None, max_bytes: int) -> Callable[[bytes], bytes]:
    """We ask for identity; a server that compresses anyway (gzip or deflate, as requests
    accepted) is decoded a chunk at a time, never more than one byte past `max_bytes`."""
    kind = (encoding or "identity").strip().lower()
    if kind == "identity":
        return lambda chunk: chunk
    if kind not in ("gzip", "x-gzip", "deflate"):
        raise NetError(f"the answer's Content-Encoding ({kind[:40]}) is not one we read")
    import zlib

    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS if "gzip" in kind else zlib.MAX_WBITS)

    def decode(chunk: bytes) -> bytes:
        try:  # output short of the cap means all input was used; at the cap, TooLarge follows
            return inflate.decompress(chunk, max_bytes + 1)
        except zlib.error:
            raise NetError("the answer's Content-Encoding does not decode") from None

    return decode


def _reason(exc: Exception, url: str) -> str:
    """A short reason in words, never an exception's repr."""
    import http.client
    import ssl

    if isinstance(exc, http.client.IncompleteRead):
        return "the server closed the connection before the answer was complete"
    if isinstance(exc, (http.client.RemoteDisconnected, http.client.BadStatusLine, ConnectionResetError,
                        ConnectionAbortedError, BrokenPipeError)):
        return f"the connection was dropped by {urlsplit(url).netloc or url} before it answered"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, socket.gaierror):
        return "name or service not known" if exc.errno == socket.EAI_NONAME else f"name not resolved ({exc.strerror})"
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"the TLS certificate did not verify ({exc.verify_message})"
    if isinstance(exc, ssl.SSLError):
        return f"TLS failed ({exc.reason or exc.strerror})"
    if isinstance(exc, http.client.InvalidURL):  # a redirect's Location with control characters
        return "invalid url"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return str(exc).strip().split("\n")[0][:200] or type(exc).__name__


# -- the watchdog ----------------------------------------------------------------------------
class _Watchdog:
    """Shuts down every socket opened in one fetch once the deadline passes."""

    def __init__(self, deadline: float) -> None:
        self.deadline, self.fired = deadline, False
        self._lock = threading.Lock()
        self._socks: list[socket.socket] = []
        self._timer = threading.Timer(max(0.0, deadline - time.monotonic()), self._fire)
        self._timer.daemon = True

    def __enter__(self) -> _Watchdog:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        self._timer.join()  # gone once the fetch is: a fork after it copies a process of one thread
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


def _check_peer(sock: socket.socket, host: str, allowed: tuple[str, frozenset[str]] | None) -> None:
    """A redirect's connection reached an address of an allowed kind, or it is closed before
    a byte is sent (a name that resolved to a public address for the check, then not). A
    connection to another host (a configured proxy) is not the redirect's target."""
    if allowed is None or host.strip("[]").lower() != allowed[0].lower():
        return
    peer = str(sock.getpeername()[0])
    kind = address_class(peer)
    if kind not in allowed[1]:
        sock.close()
        raise RedirectRefused(f"a redirect's connection reached a {kind} address ({peer})")
