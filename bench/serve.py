#!/usr/bin/env python3
"""`pithtex serve` under load, on loopback only: an asyncio HTTP/1.1 client (keep-alive
connections, bounded in requests and seconds) against a real `pithtex serve` process.

    .venv/bin/python bench/serve.py [SECONDS]

1. cached: one verified badge asked for again and again (200, and 304 with If-None-Match),
   side by side: requests a second, p50 and p99 latency;
2. distinct: 1,000 ids (records signed by a test key, given with --keys) against a resolver
   that takes 0.2 s an answer, 200 connections for 3 x SECONDS: the server's peak memory
   (VmHWM), open file descriptors, the requests answered 503 (checks full) while it works
   through them, and how many of the 1,000 it then answers verified;
3. restart: the ids verified, then the server stopped under load and started again with the
   resolver gone: how many verified answers the new process still serves (from its disk cache).
A ratio and counts, not a test; the machine may be shared, so say what else ran.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.measure import header  # noqa: E402
from pithtex.number import PithNumber  # noqa: E402
from tests.browserkit import free_port  # noqa: E402
from tests.conftest import BODY, seed_doc  # noqa: E402
from tests.recordkit import TestKey, canonical, full_record  # noqa: E402
from tests.resolverkit import FakeResolver, Reply  # noqa: E402

MAX_REQUESTS = 400_000  # a load loop's bound in count, beside its bound in seconds


class Server:
    def __init__(self, resolver: str, cache: Path, port: int, keys: Path | None, env: dict[str, str]) -> None:
        exe = shutil.which("pithtex", path=str(Path(sys.executable).parent)) or "pithtex"
        command = [exe, "serve", "--port", str(port), "--base-url", resolver, "--cache", str(cache)]
        command += ["--keys", str(keys)] if keys else []
        environ = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        self.proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                     env={**environ, "PITH_SERVE_RATE": "0", **env})
        self.port, self.ready = port, threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        if not self.ready.wait(120) or self.proc.poll() is not None:
            raise SystemExit("the server did not start")

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            if "Uvicorn running on" in line:
                self.ready.set()

    def peak_kib(self) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
        return 0

    def fds(self) -> int:
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=60)


async def get(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: str,
              etag: str = "") -> tuple[int, dict[str, str]]:
    extra = f"If-None-Match: {etag}\r\n" if etag else ""
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}\r\n".encode())
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (h.partition(":") for h in head[1:] if h)}
    await reader.readexactly(int(headers.get("content-length", "0")))
    return int(head[0].split()[1]), headers


async def hammer(port: int, paths: list[str], connections: int, seconds: float, etag: str = "") -> dict[str, float]:
    """`connections` keep-alive connections asking for `paths` in turn until `seconds` or MAX_REQUESTS."""
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    errors = 0
    end = time.monotonic() + seconds

    async def one(index: int) -> None:
        nonlocal errors
        i = index
        while time.monotonic() < end and len(latencies) < MAX_REQUESTS:
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                errors += 1
                await asyncio.sleep(0.05)
                continue
            try:
                while time.monotonic() < end and len(latencies) < MAX_REQUESTS:
                    started = time.perf_counter()
                    status, _ = await get(reader, writer, paths[i % len(paths)], etag)
                    latencies.append(time.perf_counter() - started)
                    statuses[status] = statuses.get(status, 0) + 1
                    i += connections
            except (OSError, asyncio.IncompleteReadError, ValueError):
                errors += 1
            finally:
                writer.close()

    started = time.monotonic()
    await asyncio.gather(*(one(i) for i in range(connections)))
    took = time.monotonic() - started
    latencies.sort()
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000 if latencies else 0.0  # noqa: E731
    return {"requests": len(latencies), "per_s": len(latencies) / took, "p50_ms": pick(0.5), "p99_ms": pick(0.99),
            "errors": errors, **{f"http_{k}": v for k, v in sorted(statuses.items())}}


def show(name: str, figures: dict[str, float]) -> None:
    print(f"{name:<34} " + "  ".join(f"{k} {v:,.1f}" if isinstance(v, float) else f"{k} {v:,}"
                                     for k, v in figures.items()), flush=True)


def cached(resolver: FakeResolver, folder: Path, seconds: float) -> None:
    resolver.record(BODY, Reply.json(seed_doc()))
    server = Server(resolver.base, folder / "cached", free_port(), None, {})
    try:
        path = f"/badge/{BODY}.svg"
        status, headers = asyncio.run(_first(server.port, path))
        assert status == 200 and headers["x-pith-state"] == "verified", headers
        show("cached 200, 32 connections", asyncio.run(hammer(server.port, [path], 32, seconds)))
        show("cached 304, 32 connections", asyncio.run(hammer(server.port, [path], 32, seconds, headers["etag"])))
    finally:
        server.stop()


async def _first(port: int, path: str) -> tuple[int, dict[str, str]]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        return await get(reader, writer, path)
    finally:
        writer.close()


def records(resolver: FakeResolver, key: TestKey, count: int, delay: float) -> list[str]:
    bodies = []
    for i in range(count):
        document = full_record(canonical(title=f"Paper {i}", arxiv_id=f"2401.{i:05d}"), key)
        body = PithNumber.parse(document["pith_number"]).body
        resolver.record(body, Reply.json(document, delay=delay))
        bodies.append(body)
    return bodies


def distinct(resolver: FakeResolver, folder: Path, key: TestKey, seconds: float) -> None:
    bodies = records(resolver, key, 1000, 0.2)
    server = Server(resolver.base, folder / "distinct", free_port(), key.key_file(folder), {})
    try:
        fds_before = server.fds()
        sampled = {"fds": fds_before}

        def sample() -> None:
            while server.proc.poll() is None and not done.is_set():
                sampled["fds"] = max(sampled["fds"], server.fds())
                done.wait(0.1)

        done = threading.Event()
        threading.Thread(target=sample, daemon=True).start()
        paths = [f"/badge/{b}.svg" for b in bodies]
        figures = asyncio.run(hammer(server.port, paths, 200, seconds * 3))
        done.set()
        figures["verified_of_1000"] = asyncio.run(_states(server.port, paths)).count("verified")
        figures.update(peak_rss_mib=server.peak_kib() / 1024, fds_idle=fds_before, fds_peak=sampled["fds"],
                       resolver_peak=resolver.peak)
        show("distinct ids, slow resolver, 200 conn", figures)
    finally:
        server.stop()


def restart(resolver: FakeResolver, folder: Path, key: TestKey, seconds: float) -> None:
    bodies = records(resolver, key, 200, 0.0)
    paths = [f"/badge/{b}.svg" for b in bodies]
    port, cache, keys = free_port(), folder / "restart", key.key_file(folder)
    first = Server(resolver.base, cache, port, keys, {})
    verified = asyncio.run(_states(port, paths))
    load = threading.Thread(target=lambda: show("load across the restart", asyncio.run(hammer(port, paths, 16,
                                                                                             seconds))))
    load.start()
    time.sleep(seconds / 3)
    first.stop()
    resolver.close()  # the resolver is gone too: only what the first process kept can answer
    # The resolver is closed: every verified answer the new process gives is one the first kept on disk.
    second = Server(resolver.base, cache, port, keys, {"PITH_SERVE_TIMEOUT": "1"})
    load.join()
    try:
        after = asyncio.run(_states(port, paths))
    finally:
        second.stop()
    print(f"restart: verified before {verified.count('verified')}/{len(paths)}, after (resolver down) "
          f"{after.count('verified')}/{len(paths)}", flush=True)


async def _states(port: int, paths: list[str]) -> list[str]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        return [(await get(reader, writer, path))[1].get("x-pith-state", "") for path in paths]
    finally:
        writer.close()


def main() -> None:
    header(__file__)
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
    key = TestKey("bench-key")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for leg in (cached, distinct):
            resolver = FakeResolver()
            try:
                leg(resolver, folder, *((key,) if leg is distinct else ()), seconds)  # type: ignore[operator]
            finally:
                resolver.close()
        restart(FakeResolver(), folder, key, seconds)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end", flush=True)


if __name__ == "__main__":
    main()
