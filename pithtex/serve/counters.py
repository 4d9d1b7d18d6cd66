"""What the server counts, shown at /metrics in Prometheus' text format (version 0.0.4)."""

from __future__ import annotations

import threading
from collections import Counter

# Resolver latency buckets, seconds (Prometheus' histogram: cumulative counts per upper bound)
BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Counters:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests: Counter[tuple[str, int]] = Counter()  # (route, status)
        self.cache: Counter[str] = Counter()  # hit, miss
        self.verdicts: Counter[str] = Counter()  # verified, invalid, unchecked, stale
        self.refused: Counter[str] = Counter()  # rate, busy, path, body, method
        self.latency = [0] * len(BUCKETS)
        self.latency_count, self.latency_sum = 0, 0.0

    def request(self, route: str, status: int) -> None:
        with self.lock:
            self.requests[(route, status)] += 1

    def hit(self, kind: str) -> None:
        with self.lock:
            self.cache[kind] += 1

    def verdict(self, word: str) -> None:
        with self.lock:
            self.verdicts[word] += 1

    def refuse(self, why: str) -> None:
        with self.lock:
            self.refused[why] += 1

    def resolver(self, seconds: float) -> None:
        with self.lock:
            for i, bound in enumerate(BUCKETS):
                if seconds <= bound:
                    self.latency[i] += 1
            self.latency_count += 1
            self.latency_sum += seconds

    def text(self, gauges: dict[str, float]) -> str:
        with self.lock:
            lines = ["# HELP pith_requests_total Requests answered, by route and status.",
                     "# TYPE pith_requests_total counter"]
            lines += [f'pith_requests_total{{route="{r}",status="{s}"}} {n}'
                      for (r, s), n in sorted(self.requests.items())]
            lines += ["# HELP pith_cache_total Badge answers from the verified cache (hit) or the resolver (miss).",
                      "# TYPE pith_cache_total counter"]
            lines += [f'pith_cache_total{{result="{k}"}} {n}' for k, n in sorted(self.cache.items())]
            lines += ["# HELP pith_verdicts_total Verdicts served after a check; stale: the last verified answer.",
                      "# TYPE pith_verdicts_total counter"]
            lines += [f'pith_verdicts_total{{state="{k}"}} {n}' for k, n in sorted(self.verdicts.items())]
            lines += ["# HELP pith_refused_total Requests refused before any work, by reason.",
                      "# TYPE pith_refused_total counter"]
            lines += [f'pith_refused_total{{reason="{k}"}} {n}' for k, n in sorted(self.refused.items())]
            lines += ["# HELP pith_resolver_seconds Time of one check at the resolver, fetch and verification.",
                      "# TYPE pith_resolver_seconds histogram"]
            lines += [f'pith_resolver_seconds_bucket{{le="{b}"}} {n}'
                      for b, n in zip(BUCKETS, self.latency, strict=True)]
            lines += [f'pith_resolver_seconds_bucket{{le="+Inf"}} {self.latency_count}',
                      f"pith_resolver_seconds_sum {self.latency_sum:.6f}",
                      f"pith_resolver_seconds_count {self.latency_count}"]
        for name, value in gauges.items():
            lines += [f"# TYPE {name} gauge", f"{name} {value:g}"]
        return "\n".join(lines) + "\n"
