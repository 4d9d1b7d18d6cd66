"""uvicorn, as `pithtex serve` runs it on one machine (production may run `uvicorn
pithtex.serve:app` or gunicorn's uvicorn workers with the same settings)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .config import Settings


def listen(settings: Settings, host: str, port: int, connections: int) -> None:
    """Serve until SIGINT or SIGTERM; beyond `connections` at once, uvicorn answers 503."""
    import uvicorn

    from .app import create_app

    uvicorn.run(create_app(settings), host=host, port=port, limit_concurrency=connections, server_header=False,
                timeout_keep_alive=5, log_level="info")
