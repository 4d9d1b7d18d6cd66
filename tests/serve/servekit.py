"""A real `pithtex serve` (uvicorn) process on 127.0.0.1, on a free port, against a resolver of
the suite's (tests/resolverkit.py); ready when uvicorn says it listens."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import requests

from ..browserkit import free_port

READY = "Uvicorn running on"  # printed once the socket listens


class Served:
    def __init__(self, proc: subprocess.Popen[str], port: int) -> None:
        self.proc, self.port = proc, port
        self.base = f"http://127.0.0.1:{port}"
        self.output: list[str] = []
        self.ready = threading.Event()
        self.ended = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            if len(self.output) < 10_000:  # bounded, whatever the process says
                self.output.append(line)
            if READY in line:
                self.ready.set()
        self.ended.set()
        self.ready.set()  # wakes a waiter; `ended` says it died

    def get(self, path: str, **kw: object) -> requests.Response:
        return requests.get(self.base + path, timeout=60, allow_redirects=False, **kw)  # type: ignore[arg-type]

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@contextlib.contextmanager
def serving(resolver_url: str, cache: Path, *args: str, env: dict[str, str] | None = None,
            uvicorn: bool = False) -> Iterator[Served]:
    """`pithtex serve` until the block ends; `env` sets PITH_SERVE_* (recheck, stale, bounds);
    `uvicorn`: the production route instead, `uvicorn pithtex.serve:app` configured by env."""
    port = free_port()
    exe = shutil.which("pithtex", path=str(Path(sys.executable).parent)) or "pithtex"
    environ = {**os.environ, "PITH_SERVE_RATE": "0", **(env or {})}
    command = [exe, "serve", "--port", str(port), "--base-url", resolver_url, "--cache", str(cache), *args]
    if uvicorn:
        environ.update(PITH_BASE_URL=resolver_url, PITH_SERVE_CACHE=str(cache))
        command = [sys.executable, "-m", "uvicorn", "pithtex.serve:app", "--host", "127.0.0.1", "--port", str(port),
                   "--http", "h11", "--h11-max-incomplete-event-size", "16384", *args]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=environ)
    served = Served(proc, port)
    try:
        served.ready.wait(120)
        assert not served.ended.is_set() and served.ready.is_set(), "".join(served.output)[-2000:]
        yield served
    finally:
        served.stop()
