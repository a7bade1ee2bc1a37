"""Write rate limits per seat token and per client address.

Fixed windows counted in Redis (INCR + EXPIRE), so every API process behind a
load balancer shares the same counters. Exceeding a limit is a 429
problem+json with ``Retry-After``. Tokens are counted by their hash, so the
limiter never stores a raw credential.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass

import redis

from .problems import Problem


@dataclass(frozen=True)
class Limits:
    per_token: int | None = None  # writes per window per seat token; None = unlimited
    per_address: int | None = None  # writes per window per client address
    window_s: int = 10

    @property
    def enabled(self) -> bool:
        return bool(self.per_token or self.per_address)

    @classmethod
    def from_env(cls) -> "Limits":
        """``STICH_RATE_LIMIT_TOKEN`` / ``_ADDRESS`` writes per ``_WINDOW`` seconds; 0 turns a limit off."""
        def read(name: str, default: int) -> int | None:
            value = int(os.environ.get(name, default))
            return value or None

        return cls(per_token=read("STICH_RATE_LIMIT_TOKEN", 100), per_address=read("STICH_RATE_LIMIT_ADDRESS", 1000),
                   window_s=int(os.environ.get("STICH_RATE_LIMIT_WINDOW", 10)))


def window_counts(client: redis.Redis, keys: list[str], window_s: int) -> list[int]:
    """Count one more in each fixed-window counter (``keys`` hold the window's index); each
    expires once its window is over, so nothing needs cleaning up."""
    pipe = client.pipeline(transaction=False)
    for key in keys:
        pipe.incr(key)
        pipe.expire(key, window_s * 2)
    return pipe.execute()[::2]


def window_now(window_s: int) -> tuple[int, int]:
    """The current window's index, and the seconds until the next one begins (for Retry-After)."""
    now = time.time()
    index = int(now // window_s)
    return index, max(1, int((index + 1) * window_s - now + 0.999))


class RateLimiter:
    def __init__(self, client: redis.Redis, limits: Limits, prefix: str = "stich"):
        self.redis = client
        self.limits = limits
        self.prefix = prefix

    def check(self, address: str | None, token_hash: str | None = None) -> None:
        if not self.limits.enabled:
            return
        window = self.limits.window_s
        index, retry_after = window_now(window)
        checks = []
        if self.limits.per_address and address:
            checks.append((f"{self.prefix}:rl:a:{address}:{index}", self.limits.per_address, "address"))
        if self.limits.per_token and token_hash:
            checks.append((f"{self.prefix}:rl:t:{token_hash}:{index}", self.limits.per_token, "token"))
        if not checks:
            return
        counts = window_counts(self.redis, [key for key, _, _ in checks], window)
        for (key, limit, kind), count in zip(checks, counts):
            if count > limit:
                raise Problem(429, "rate_limited", f"more than {limit} writes in {window}s from this {kind}; "
                              f"retry after {retry_after}s", headers={"Retry-After": str(retry_after)},
                              limit=limit, window_s=window)
