"""Write rate limits per seat token and per client address.

Fixed windows counted in Redis (INCR + EXPIRE), so every API process behind a
load balancer shares the same counters. Exceeding a limit is a 429
problem+json with ``Retry-After``. Tokens are counted by their hash, so the
limiter never stores a raw credential. A command's counters are counted by its
append's own script on a single Redis (``eventstore.store.Counters``), so a
move costs one round trip; a command refused before its append, a replayed one
and any write on a Redis Cluster (whose counters live in other slots) are
counted on their own, so every write counts once either way.

Every answer to a request that counted against a fixed-window limit (these and
the per-address quotas of ``api/quotas.py`` that count requests) says where the
caller stands, in the fields of draft-ietf-httpapi-ratelimit-headers (its
structured-field syntax, draft 08 on): ``RateLimit-Policy`` names each limit
with its quota ``q`` and window ``w``, ``RateLimit`` what is left of it ``r``
and the seconds until its window ends ``t``. A client can slow down before its
first 429, which still carries ``Retry-After`` (docs/configuration.md).
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass

import redis
from flask import g, has_request_context

from eventstore.store import Counters

from .problems import Problem


@dataclass(frozen=True)
class Standing:
    """Where the caller stands against one limit once this request counted."""
    policy: str  # the limit's name in RateLimit-Policy and RateLimit
    quota: int
    window_s: int
    remaining: int
    reset_s: int


def note(policy: str, quota: int, window_s: int, count: int, reset_s: int) -> None:
    """Record for this request's answer that it counted ``count`` of ``quota`` (see ``standing_fields``)."""
    if has_request_context():
        g.setdefault("rate_limits", {})[policy] = Standing(policy, quota, window_s, max(0, quota - count), reset_s)


def standing_fields(response):
    """The RateLimit-Policy and RateLimit fields of every limit this request counted against (none: no field)."""
    standings = g.get("rate_limits")
    if standings:
        response.headers["RateLimit-Policy"] = ", ".join(f'"{s.policy}";q={s.quota};w={s.window_s}'
                                                         for s in standings.values())
        response.headers["RateLimit"] = ", ".join(f'"{s.policy}";r={s.remaining};t={s.reset_s}'
                                                  for s in standings.values())
    return response


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


ADDRESS, TOKEN = "address", "token"  # the kinds of write counter, also in their policies' names


def window_counts(client: redis.Redis, keys: list[str], window_s: int, amount: int = 1) -> list[int]:
    """Count ``amount`` more in each fixed-window counter (``keys`` hold the window's index); each
    expires once its window is over, so nothing needs cleaning up."""
    pipe = client.pipeline(transaction=False)
    for key in keys:
        pipe.incr(key, amount)
        pipe.expire(key, window_s * 2)
    return pipe.execute()[::2]


def window_now(window_s: int) -> tuple[int, int]:
    """The current window's index, and the seconds until the next one begins (for Retry-After)."""
    now = time.time()
    index = int(now // window_s)
    return index, max(1, int((index + 1) * window_s - now + 0.999))


class Reservation:
    """An amount counted in a window's counter before the work it pays for (``reserve_import``,
    ``reserve_events``, ``reserve_upload``)."""

    def __init__(self, client: redis.Redis | None, key: str | None, size: int):
        self._client, self._key, self._size = client, key, size

    @classmethod
    def none(cls) -> "Reservation":
        """Nothing counted (an exempt caller's)."""
        return cls(None, None, 0)

    def refund(self) -> None:
        """Idempotent: nothing was stored (the export did not verify or was there already; the
        creation was refused or failed)."""
        client, self._client = self._client, None
        if client is not None:
            client.decrby(self._key, self._size)

    def settle(self, actual: int) -> None:
        """The amount stored turned out to be ``actual``: count the difference (none when the estimate
        before was right, as it is when ``game_events`` and ``Table.create`` agree)."""
        if self._client is not None and actual != self._size:
            self._client.incrby(self._key, actual - self._size)
            self._size = actual


class RateLimiter:
    def __init__(self, client: redis.Redis, limits: Limits, prefix: str = "stich"):
        self.redis = client
        self.limits = limits
        self.prefix = prefix

    def check(self, address: str | None, token_hash: str | None = None) -> None:
        """Count a write now (one round trip); 429 past a limit."""
        write = self.counters(address, token_hash)
        if write is not None:
            self.count(write)

    def counters(self, address: str | None, token_hash: str | None = None) -> "WriteCounters | None":
        """This write's counters, to count later: with a command's append, in its script (one round
        trip for both), or by ``count``. None when no limit applies."""
        if not self.limits.enabled:
            return None
        window = self.limits.window_s
        index, retry_after = window_now(window)
        checks = []
        if self.limits.per_address and address:
            checks.append((f"{self.prefix}:rl:a:{address}:{index}", self.limits.per_address, ADDRESS))
        if self.limits.per_token and token_hash:
            checks.append((f"{self.prefix}:rl:t:{token_hash}:{index}", self.limits.per_token, TOKEN))
        if not checks:
            return None
        return WriteCounters([key for key, _, _ in checks], [limit for _, limit, _ in checks], window * 2,
                             kinds=[kind for _, _, kind in checks], window_s=window, retry_after=retry_after)

    def count(self, write: "WriteCounters") -> None:
        """Count ``write`` unless its append counted it; 429 when it passed a limit."""
        if write.counts is None:
            write.counts = window_counts(self.redis, write.keys, write.window_s)
        write.note()
        if write.over:
            raise write.refusal()


class WriteCounters(Counters):
    """A write's rate-limit counters, with what a refusal says."""

    def __init__(self, keys, limits, expire_s, kinds, window_s, retry_after):
        super().__init__(keys, limits, expire_s)
        self.kinds, self.window_s, self.retry_after = kinds, window_s, retry_after

    def note(self) -> None:
        for limit, kind, count in zip(self.limits, self.kinds, self.counts or []):
            note(f"writes-per-{kind}", limit, self.window_s, count, self.retry_after)

    def refusal(self) -> Problem:
        self.note()  # also when the append counted and refused it, and count() never ran
        for limit, kind, count in zip(self.limits, self.kinds, self.counts or []):
            if count > limit:
                return Problem(429, "rate_limited", f"more than {limit} writes in {self.window_s}s from this "
                               f"{kind}; retry after {self.retry_after}s",
                               headers={"Retry-After": str(self.retry_after)}, limit=limit, window_s=self.window_s)
        raise ValueError("no limit was passed")
