"""uvicorn, as `pithtex serve` runs it on one machine (production may run `uvicorn
pithtex.serve:app` or gunicorn's uvicorn workers with the same settings)."""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .config import Settings

HEADERS = 16 * 1024  # bytes of request line and headers at most


def listen(settings: Settings, host: str, port: int, connections: int) -> None:
    """Serve until SIGINT or SIGTERM; beyond `connections` at once, uvicorn answers 503."""
    import uvicorn

    from .app import create_app

    uvicorn.run(create_app(settings), host=host, port=port, limit_concurrency=connections, server_header=False,
                timeout_keep_alive=5, log_level="info", http=_protocol(), h11_max_incomplete_event_size=HEADERS)


def _protocol() -> type | str:
    """httptools (uvicorn's fast parser) with the head of each request bounded: uvicorn's own
    httptools protocol took a 5 MB header line and answered it. Without httptools, h11, which
    refuses a head over `h11_max_incomplete_event_size` itself."""
    if importlib.util.find_spec("httptools") is None:
        return "h11"
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class BoundedHead(HttpToolsProtocol):
        received = 0  # bytes since the last request's headers ended (a badge request has no body)

        def data_received(self, data: bytes) -> None:
            self.received += len(data)
            if self.received > HEADERS:
                self.send_400_response("Request line and headers too large.")
                return
            super().data_received(data)

        def on_headers_complete(self) -> None:
            self.received = 0
            super().on_headers_complete()

    return BoundedHead
