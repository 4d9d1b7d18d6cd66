"""pithtex/net.py on the standard library's http.client: what requests did for it, kept.

Real HTTP on 127.0.0.1 only: the suite's resolver (tests/resolverkit.py), the same behind TLS
with a CA made for this run (tests/browserkit.py), and a proxy started here that tunnels
CONNECT (https) and forwards absolute-form GETs (http), logging every request line it got."""

from __future__ import annotations

import base64
import contextlib
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from urllib.parse import urljoin, urlsplit

import pytest

from pithtex import net

from .browserkit import TestCA
from .resolverkit import FakeResolver, Reply, serving

LIMIT = 64 * 1024
PROXY_VARIABLES = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY")


def get(url: str, seconds: float = 30.0, max_bytes: int = LIMIT) -> net.Answer:
    return net.get(url, {"Accept": "application/json"}, time.monotonic() + seconds, max_bytes, "pithtex-test/1")


@pytest.fixture(autouse=True)
def no_proxy_from_outside(monkeypatch) -> None:
    """Only the proxy a test sets: none from the machine's environment."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


class Proxy:
    """A proxy on 127.0.0.1: CONNECT opens a tunnel (or, with `drip`, answers it a byte at a
    time), any other request is forwarded to the host its absolute URL names."""

    def __init__(self, drip: float = 0.0) -> None:
        self.drip = drip
        self.asked: list[str] = []  # request lines, in order
        self.credentials: list[str | None] = []  # each request's Proxy-Authorization
        self.hung_up = threading.Event()  # a dripped client went away
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._open: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self._listener.close()
        for sock in self._open:
            with contextlib.suppress(OSError):
                sock.close()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            self._open.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        head = b""
        while b"\r\n\r\n" not in head:
            data = conn.recv(4096)
            if not data:
                return
            head += data
        lines = head.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
        headers = dict(line.split(": ", 1) for line in lines[1:])
        self.asked.append(lines[0])
        self.credentials.append(headers.pop("Proxy-Authorization", None))
        method, target, version = lines[0].split(" ")
        if method == "CONNECT" and self.drip:
            self._drip(conn, b"HTTP/1.1 200 Connection established\r\n\r\n")
            return
        if method == "CONNECT":
            host, port = target.rsplit(":", 1)
            upstream = socket.create_connection((host, int(port)))
            conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            parts = urlsplit(target)
            upstream = socket.create_connection((parts.hostname, parts.port))
            path = parts.path + (f"?{parts.query}" if parts.query else "")
            forwarded = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
            upstream.sendall(f"{method} {path} {version}\r\n{forwarded}\r\n".encode("latin-1"))
        self._open.append(upstream)
        threading.Thread(target=_pipe, args=(conn, upstream), daemon=True).start()
        _pipe(upstream, conn)

    def _drip(self, conn: socket.socket, data: bytes) -> None:
        for i in range(len(data) * 1000):  # far longer than any deadline here
            try:
                conn.sendall(data[i % len(data):i % len(data) + 1])
            except OSError:
                self.hung_up.set()
                return
            if self.hung_up.wait(self.drip):
                return


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            sink.sendall(data)
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


@contextlib.contextmanager
def proxy(drip: float = 0.0) -> Iterator[Proxy]:
    server = Proxy(drip)
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="module")
def ca(tmp_path_factory) -> TestCA:
    return TestCA(tmp_path_factory.mktemp("ca"))


@pytest.fixture
def tls(ca, monkeypatch) -> Iterator[FakeResolver]:
    """The suite's resolver behind TLS, its certificate (for 127.0.0.1) signed by this run's
    CA, which net.py trusts here in place of certifi's bundle."""
    import certifi

    monkeypatch.setattr(certifi, "where", lambda: str(ca.ca_pem))
    with serving() as server:
        server.server.socket = ca.context.wrap_socket(server.server.socket, server_side=True)
        server.base = server.base.replace("http://", "https://")
        yield server


# -- bodies -----------------------------------------------------------------------------------
def test_a_chunked_body_is_read_whole(fake):
    chunks = [b'{"a": ', b"1", b", ", b'"b": [2, 3]}']
    framed = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in chunks) + b"0\r\n\r\n"
    fake.route("/x", Reply(body=framed, headers={"Transfer-Encoding": "chunked"}, length=False))
    answer = get(fake.base + "/x")
    assert answer.status == 200 and answer.body == b"".join(chunks)


def test_a_chunked_body_past_the_limit_is_too_large(fake):
    piece = b"x" * 1000
    framed = b"".join(b"3e8\r\n%s\r\n" % piece for _ in range(100)) + b"0\r\n\r\n"
    fake.route("/x", Reply(body=framed, headers={"Transfer-Encoding": "chunked"}, length=False))
    with pytest.raises(net.TooLarge, match="kept sending past the limit"):
        get(fake.base + "/x", max_bytes=10_000)


def test_a_content_length_past_the_limit_is_refused_before_the_body(fake):
    fake.route("/x", Reply(body=b"x" * 20_000))
    with pytest.raises(net.TooLarge, match="sent 20,000 bytes"):
        get(fake.base + "/x", max_bytes=10_000)


def test_identity_is_asked_for_and_the_headers_sent(fake):
    fake.route("/x", Reply(body=b"{}"))
    assert get(fake.base + "/x").body == b"{}"
    [request] = fake.requests
    assert request.headers["accept-encoding"] == "identity" and request.headers["user-agent"] == "pithtex-test/1"
    assert request.headers["accept"] == "application/json"


def test_a_slow_drip_in_the_headers_ends_at_the_deadline(fake):
    # One byte every 0.2 s: the 70-odd bytes of headers would take 15 s; the deadline is 1 s.
    fake.route("/x", Reply(body=b"{}", drip=0.2, drip_headers=True))
    with pytest.raises(net.DeadlineExceeded) as caught:
        get(fake.base + "/x", seconds=1.0)
    assert caught.value.url == fake.base + "/x" and len(fake.requests) == 1


def test_a_close_delimited_body_cut_by_the_deadline_is_not_a_short_body(fake):
    fake.route("/x", Reply(body=b"{" + b" " * 200 + b"}", drip=0.2, length=False))
    with pytest.raises(net.DeadlineExceeded):
        get(fake.base + "/x", seconds=1.0)



def test_a_redirect_s_body_is_never_read(fake):
    # The redirect's 1,000-byte body drips a byte every half second (500 s in all, past the
    # 30 s deadline): read, it would end the fetch; it is closed unread and /y answers.
    fake.route("/x", Reply(302, body=b"x" * 1000, headers={"Location": "/y"}, drip=0.5))
    fake.route("/y", Reply(body=b"{}"))
    answer = get(fake.base + "/x")
    assert (answer.status, answer.body, answer.url) == (200, b"{}", fake.base + "/y")
    assert answer.redirected_from == fake.base + "/x" and [r.path for r in fake.requests] == ["/x", "/y"]

# -- TLS ----------------------------------------------------------------------------------------
def test_https_is_verified_against_the_ca_bundle(tls):
    tls.route("/x", Reply(body=b"{}"))
    answer = get(tls.base + "/x")
    assert answer.status == 200 and answer.body == b"{}" and answer.url == tls.base + "/x"


def test_https_with_a_certificate_for_another_name_is_refused(tls):
    # The certificate names 127.0.0.1 only; asked as localhost, the host name check refuses it.
    tls.route("/x", Reply(body=b"{}"))
    with pytest.raises(net.NetError, match="the TLS certificate did not verify") as caught:
        get(tls.base.replace("127.0.0.1", "localhost") + "/x")
    assert "\n" not in str(caught.value) and not tls.requests


def test_https_from_an_unknown_ca_is_refused(tls, monkeypatch):
    import certifi

    monkeypatch.setattr(certifi, "where", lambda: certifi.core.where())  # the real bundle: no test CA
    tls.route("/x", Reply(body=b"{}"))
    with pytest.raises(net.NetError, match="the TLS certificate did not verify"):
        get(tls.base + "/x")
    assert not tls.requests


# -- proxies from the environment ---------------------------------------------------------------
def test_https_goes_through_a_connect_tunnel(tls, monkeypatch):
    tls.route("/x", Reply(body=b"{}"))
    with proxy() as p:
        monkeypatch.setenv("HTTPS_PROXY", p.url)
        answer = get(tls.base + "/x")
    assert answer.body == b"{}"
    # (http.client says HTTP/1.0 in a CONNECT before Python 3.12, HTTP/1.1 since, as urllib3 did)
    assert [line.rsplit(".", 1)[0] for line in p.asked] == [f"CONNECT 127.0.0.1:{tls.port} HTTP/1"]
    assert [r.path for r in tls.requests] == ["/x"]  # TLS to the resolver, through the tunnel


def test_http_goes_to_a_forward_proxy_with_its_credentials_kept_from_the_server(fake, monkeypatch):
    fake.route("/x", Reply(body=b"{}"))
    with proxy() as p:
        monkeypatch.setenv("http_proxy", p.url.replace("http://", "http://ann:s%40cret@"))
        answer = get(fake.base + "/x?q=1")
    assert answer.body == b"{}"
    assert p.asked == [f"GET {fake.base}/x?q=1 HTTP/1.1"]
    assert p.credentials == ["Basic " + base64.b64encode(b"ann:s@cret").decode()]
    assert [r.path for r in fake.requests] == ["/x?q=1"] and "proxy-authorization" not in fake.requests[0].headers


def test_all_proxy_serves_any_scheme_and_no_proxy_bypasses_it(fake, monkeypatch):
    fake.route("/x", Reply(body=b"{}"))
    with proxy() as p:
        monkeypatch.setenv("ALL_PROXY", p.url)
        get(fake.base + "/x")
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        get(fake.base + "/x")
    assert p.asked == [f"GET {fake.base}/x HTTP/1.1"]  # the second went straight to the server
    assert len(fake.requests) == 2


@pytest.mark.parametrize("no_proxy", ["127.0.0.0/8", "example.org, 127.0.0.1", "*"])
def test_no_proxy_names_hosts_addresses_and_networks(fake, monkeypatch, no_proxy):
    fake.route("/x", Reply(body=b"{}"))
    with proxy() as p:
        monkeypatch.setenv("HTTP_PROXY", p.url)
        monkeypatch.setenv("no_proxy", no_proxy)
        get(fake.base + "/x")
    assert p.asked == [] and len(fake.requests) == 1


def test_a_proxy_that_drips_its_connect_answer_is_cut_off(tls, monkeypatch):
    with proxy(drip=0.2) as p:
        monkeypatch.setenv("HTTPS_PROXY", p.url)
        with pytest.raises(net.DeadlineExceeded):
            get(tls.base + "/x", seconds=1.0)
        assert p.hung_up.wait(30)  # the watchdog closed the tunnel's socket (30 s: a hang guard only)
    assert not tls.requests


def test_a_proxy_that_is_not_http_is_said_plainly(fake, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "socks5://127.0.0.1:1080")
    with pytest.raises(net.NetError, match=r"^the proxy socks5://127\.0\.0\.1 is not an http:// proxy$"):
        get(fake.base + "/x")
    assert not fake.requests


# -- start-up ---------------------------------------------------------------------------------------
def test_importing_net_loads_no_http_client_and_no_requests():
    """The fetch's libraries load at the first fetch: a command that never fetches skips them."""
    code = "import sys, pithtex.net, pithtex.resolver; print(sorted({'http.client', 'ssl', 'requests', " \
           "'urllib3', 'urllib.request', 'certifi'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "[]"


# -- failures in words --------------------------------------------------------------------------
@pytest.mark.parametrize(("location", "said"), [
    ("http://127.0.0.1:99999/x", "invalid url"),  # no such port
    ("/a\x01b", "invalid url"),  # a control character in the path
], ids=["port", "control-character"])
def test_a_redirect_to_a_malformed_url_names_it(fake, location, said):
    fake.route("/x", Reply.redirect(location))
    with pytest.raises(net.NetError) as caught:
        get(fake.base + "/x")
    assert str(caught.value) == said and not caught.value.retry
    assert caught.value.url == urljoin(fake.base + "/x", location)
