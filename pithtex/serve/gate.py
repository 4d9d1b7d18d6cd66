"""Bounds on what clients can make the server do: a per-client rate (token buckets, the
clients remembered bounded too) and the checks at the resolver (so many at once, so many
waiting; one check per target however many ask, the others wait for its answer)."""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")
CLIENTS = 10_000  # clients whose buckets are kept; the one unseen longest is forgotten first


class Rate:
    """Token buckets: `rate` requests a second, `burst` at once, per client address."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # client → (tokens, when)

    def allow(self, client: str) -> bool:
        if self.rate <= 0:
            return True
        now = self.clock()
        tokens, then = self.buckets.pop(client, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - then) * self.rate)
        allowed = tokens >= 1.0
        self.buckets[client] = (tokens - 1.0 if allowed else tokens, now)
        if len(self.buckets) > CLIENTS:
            self.buckets.popitem(last=False)
        return allowed


class Busy(Exception):
    """Every check slot and waiting place is taken: the request is answered 503 at once."""


class Checks:
    def __init__(self, at_once: int, waiting: int) -> None:
        self.pool = ThreadPoolExecutor(max_workers=at_once, thread_name_prefix="pith-check")
        self.capacity = at_once + waiting
        self.running: dict[str, asyncio.Future[Any]] = {}

    @property
    def pending(self) -> int:
        return len(self.running)

    async def run(self, key: str, work: Callable[[], T], deadline: float) -> T:
        """`work()` in a worker thread, once for `key` however many await it; Busy when full;
        TimeoutError when it takes longer than `deadline` seconds (it still finishes, in its slot)."""
        future = self.running.get(key)
        if future is None:
            if len(self.running) >= self.capacity:
                raise Busy
            future = asyncio.get_running_loop().run_in_executor(self.pool, work)
            self.running[key] = future
            future.add_done_callback(lambda _done: self.running.pop(key, None))
        done: T = await asyncio.wait_for(asyncio.shield(future), deadline)
        return done

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
