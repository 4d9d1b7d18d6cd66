"""A real HTTP server on 127.0.0.1 that plays the Pith resolver, scripted per path.

Each path maps to a list of `Reply`s served in turn (the last one repeats), so a test can
say "500, then 200", "200 with an ETag, then 304 when If-None-Match matches", "sleep",
"send one byte at a time" (`drip`, headers too with `drip_headers`), "redirect elsewhere"
(`Reply.redirect`), or "more bytes than a record may have". Every request is logged with
its headers.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to sleep before answering
    etag: str | None = None  # sent as ETag; a matching If-None-Match gets 304
    length: bool = True  # send Content-Length (False: close-delimited body)
    drip: float = 0.0  # seconds between single bytes of the body (a slow-drip server)
    drip_headers: bool = False  # drip the status line and headers too, not only the body

    @classmethod
    def json(cls, document: Any, **kw: Any) -> Reply:
        return cls(body=json.dumps(document).encode(), headers={"Content-Type": "application/json"}, **kw)


    @classmethod
    def redirect(cls, location: str, status: int = 302) -> Reply:
        return cls(status=status, headers={"Location": location})


@dataclass
class Request:
    path: str
    headers: dict[str, str]


class FakeResolver:
    def __init__(self, host: str = "127.0.0.1") -> None:
        self.routes: dict[str, list[Reply]] = {}
        self.requests: list[Request] = []
        self.active = self.peak = 0  # requests being answered now, and the most at once
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self.server = http.server.ThreadingHTTPServer((host, 0), self._handler())
        self.server.daemon_threads = True
        self.server.handle_error = self._handle_error  # type: ignore[method-assign]
        self.port = self.server.server_address[1]
        self.base = f"http://{host}:{self.port}"
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def _handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up (a deadline, an unread redirect body) is expected here."""
        import sys

        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            http.server.ThreadingHTTPServer.handle_error(self.server, request, client_address)

    def route(self, path: str, *replies: Reply) -> None:
        self.routes[path] = list(replies)

    def record(self, body: str, *replies: Reply) -> None:
        self.route(f"/pith/{body}.json", *replies)

    def hits(self, path: str) -> list[Request]:
        return [r for r in self.requests if r.path == path]

    def close(self) -> None:
        self._closing.set()
        self.server.shutdown()
        self.server.server_close()

    def _next(self, path: str, headers: dict[str, str]) -> Reply:
        with self._lock:
            self.requests.append(Request(path, headers))
            replies = self.routes.get(path.split("?")[0] if path.split("?")[0] in self.routes else path)
            if not replies:
                return Reply(404, b"not found")
            return replies.pop(0) if len(replies) > 1 else replies[0]

    def _handler(self) -> type[http.server.BaseHTTPRequestHandler]:
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                with fake._lock:
                    fake.active += 1
                    fake.peak = max(fake.peak, fake.active)
                try:
                    self._answer()
                finally:
                    with fake._lock:
                        fake.active -= 1

            def _answer(self) -> None:
                reply = fake._next(self.path, {k.lower(): v for k, v in self.headers.items()})
                if reply.delay:
                    fake._closing.wait(reply.delay)
                if reply.drip_headers:
                    head = (f"HTTP/1.1 {reply.status} OK\r\nContent-Length: {len(reply.body)}\r\n"
                            "Content-Type: application/json\r\n\r\n").encode()
                    self._drip(head + reply.body, reply.drip)
                    self.close_connection = True
                    return
                if reply.etag and self.headers.get("If-None-Match") == reply.etag:
                    self.send_response(304)
                    self.send_header("ETag", reply.etag)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(reply.status)
                for key, value in {"Access-Control-Allow-Origin": "*", **reply.headers}.items():
                    self.send_header(key, value)
                if reply.etag:
                    self.send_header("ETag", reply.etag)
                if reply.length:
                    self.send_header("Content-Length", str(len(reply.body)))
                else:
                    self.send_header("Connection", "close")
                    self.close_connection = True
                self.end_headers()
                if reply.drip:
                    self._drip(reply.body, reply.drip)
                    return
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(reply.body)

            def _drip(self, data: bytes, pause: float) -> None:
                """One byte, a pause, the next byte: until done, the client leaves, or we close."""
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    for i in range(len(data)):
                        if fake._closing.wait(pause):
                            return
                        self.wfile.write(data[i:i + 1])
                        self.wfile.flush()

        return Handler


@contextlib.contextmanager
def serving(host: str = "127.0.0.1") -> Iterator[FakeResolver]:
    """Use as a fixture body: `with serving() as server: yield server`; `host` is another
    loopback address (127.0.0.2) for a test that needs two kinds of host."""
    server = FakeResolver(host)
    try:
        yield server
    finally:
        server.close()


def closed_port_url() -> str:
    """A base URL on 127.0.0.1 where nothing listens (bound, then released)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    time.sleep(0)
    return f"http://127.0.0.1:{port}"
