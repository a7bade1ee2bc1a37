"""Quotas per client address, and the operator key that is exempt from them.

Three quotas bound what one anonymous address can make the server do:

* **game creation**: at most ``creates`` games per ``create_window_s``, counted in
  Redis (a fixed window, shared by every API process);
* **active games**: at most ``active`` games created by the address that have
  not finished (games older than ``ACTIVE_HORIZON_S`` no longer count, so an
  abandoned lobby does not lock its creator out for ever);
* **open streams**: at most ``streams`` SSE streams and waiting long polls at
  once per address and HTTP process (a process's own count: a waiting
  request holds memory in that process, so that is where the bound belongs).

Each refusal is a 429 problem with ``Retry-After``. With ``STICH_API_KEYS`` set
(comma-separated keys), creating a game needs ``X-API-Key`` with one of them,
and a request carrying a valid key is exempt from every quota and from the
per-address write limit: that is a tournament backend's credential.
"""
from __future__ import annotations

import hmac
import os
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator

import redis

from .problems import Problem
from .ratelimit import window_counts, window_now

ACTIVE_HORIZON_S = 24 * 3600
API_KEY_HEADER = "X-API-Key"


@dataclass(frozen=True)
class Quotas:
    creates: int | None = None  # games per window per address; None = unlimited
    create_window_s: int = 60
    active: int | None = None  # unfinished games per address
    streams: int | None = None  # open streams and long polls per address and process
    api_keys: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def from_env(cls) -> "Quotas":
        def read(name: str, default: int) -> int | None:
            return int(os.environ.get(name, default)) or None

        keys = frozenset(k.strip() for k in os.environ.get("STICH_API_KEYS", "").split(",") if k.strip())
        return cls(creates=read("STICH_CREATE_LIMIT", 30), create_window_s=int(os.environ.get("STICH_CREATE_WINDOW", 60)),
                   active=read("STICH_ACTIVE_GAMES_LIMIT", 100), streams=read("STICH_STREAMS_LIMIT", 500),
                   api_keys=keys)


class QuotaKeeper:
    def __init__(self, client: redis.Redis, quotas: Quotas, prefix: str = "stich"):
        self.redis = client
        self.quotas = quotas
        self.prefix = prefix
        self._open: dict[str, int] = {}  # address -> open streams in this process
        self._lock = threading.Lock()

    # -- the operator key ------------------------------------------------------
    def operator(self, presented: str | None) -> bool:
        """Whether ``presented`` is a configured key (compared in constant time, each key)."""
        if not presented or not self.quotas.api_keys:
            return False
        found = False
        for key in self.quotas.api_keys:
            found |= hmac.compare_digest(presented.encode(), key.encode())
        return found

    def require_key_to_create(self, presented: str | None) -> bool:
        """True when the caller holds an operator key; raises when keys are configured and it does not."""
        if self.operator(presented):
            return True
        if self.quotas.api_keys:
            if not presented:
                raise Problem(401, "missing_api_key", f"creating a game on this server needs an {API_KEY_HEADER}")
            raise Problem(403, "invalid_api_key", f"the {API_KEY_HEADER} is not one of this server's keys")
        return False

    # -- creation ------------------------------------------------------------
    def check_create(self, address: str, status_of) -> None:
        """Before a creation: the rate and the active games. ``status_of(ids)`` gives their statuses."""
        q = self.quotas
        now = time.time()
        if q.creates:
            index, retry = window_now(q.create_window_s)
            [count] = window_counts(self.redis, [f"{self.prefix}:quota:create:{address}:{index}"], q.create_window_s)
            if count > q.creates:
                raise Problem(429, "create_quota", f"more than {q.creates} games created in {q.create_window_s}s "
                              f"from this address; retry after {retry}s", headers={"Retry-After": str(retry)},
                              limit=q.creates, window_s=q.create_window_s)
        if q.active:
            key = self._active_key(address)
            self.redis.zremrangebyscore(key, "-inf", now - ACTIVE_HORIZON_S)
            ids = [i.decode() if isinstance(i, bytes) else i for i in self.redis.zrange(key, 0, -1)]
            done = [i for i, status in zip(ids, status_of(ids)) if status in (None, "finished")]
            if done:
                self.redis.zrem(key, *done)
            if len(ids) - len(done) >= q.active:
                raise Problem(429, "active_games_quota", f"{q.active} games created from this address have not "
                              "finished; finish or wait for one first", headers={"Retry-After": "60"},
                              limit=q.active)

    def created(self, address: str, game_id: str) -> None:
        if self.quotas.active:
            key = self._active_key(address)
            pipe = self.redis.pipeline(transaction=False)
            pipe.zadd(key, {game_id: time.time()})
            pipe.expire(key, ACTIVE_HORIZON_S)
            pipe.execute()

    def _active_key(self, address: str) -> str:
        return f"{self.prefix}:quota:active:{address}"

    # -- streams ---------------------------------------------------------------
    def stream_slot(self, address: str | None, exempt: bool = False) -> "Slot":
        """Hold one of the address's stream slots until ``release`` (429 when none is free)."""
        if exempt or not self.quotas.streams or address is None:
            return Slot(None, None)
        with self._lock:
            held = self._open.get(address, 0)
            if held >= self.quotas.streams:
                raise Problem(429, "stream_quota", f"{held} streams and long polls from this address are open; "
                              "close one first", headers={"Retry-After": "5"}, limit=self.quotas.streams)
            self._open[address] = held + 1
        return Slot(self, address)

    @contextmanager
    def holding_stream(self, address: str | None, exempt: bool = False) -> Iterator[None]:
        slot = self.stream_slot(address, exempt)
        try:
            yield
        finally:
            slot.release()

    def _give_back(self, address: str) -> None:
        with self._lock:
            left = self._open.get(address, 0) - 1
            if left > 0:
                self._open[address] = left
            else:
                self._open.pop(address, None)  # the map holds only addresses with open streams


class Slot:
    def __init__(self, keeper: QuotaKeeper | None, address: str | None):
        self._keeper, self._address = keeper, address

    def release(self) -> None:
        """Idempotent: the stream's end and the server's close both call it."""
        keeper, self._keeper = self._keeper, None
        if keeper is not None:
            keeper._give_back(self._address)
