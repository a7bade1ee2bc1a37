"""Quick play: pools of players waiting for a table, and the matches that seat them.

A pool is a game with fixed rules (``POOLS``). A player joins one (``join``) with a wish or two: whether
bots may fill the seats nobody takes, and how far from its own rating its table may be. The matcher
(``match``) seats the waiting players first come, first seated: the oldest entry and the next ones
compatible with everyone taken so far make a table as soon as there are enough of them; once the oldest
has waited ``POOL_WAIT_S`` and it allows bots, bots fill the seats its compatible companions leave. A
match is written in one transaction with the entries it takes out of the queue (their status
``matched``, bound to it), its game is created after it under an id the match derives, and then its
entries are ``seated`` with their game and seat, in one transaction again: a player learns of its table
once the table exists. A matcher that dies in between leaves a pending match, whose game the next pass
creates and whose entries it seats: nobody is seated twice or lost.

Keys (all in one Redis Cluster slot, ``{pools}``, so that a match and its entries change together):

* ``stich:{pools}:queue:<pool>`` — the waiting handles, scored by when they joined (ms);
* ``stich:{pools}:entry:<handle, lower case>`` — the player's entry (JSON): its pool, wishes, status,
  and once seated its game and seat; kept ``ENTRY_TTL_S`` after it changes;
* ``stich:{pools}:matches`` — match id → the match (JSON), ``pending`` until its game exists;
* ``stich:{pools}:lock:<pool>`` — one matcher at a time per pool (a lease of ``LOCK_S``).

Bounded: at most ``POOL_CAP`` players wait in a pool (more is a ``PoolFull``); an entry waiting longer
than ``MAX_WAIT_S`` expires; a pass looks at the ``SCAN`` oldest entries.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import time
from dataclasses import dataclass, field
from typing import Callable

import redis

log = logging.getLogger("stich.pools")

POOL_WAIT_S = float(os.environ.get("STICH_POOL_WAIT", "20"))  # the oldest entry's wait before bots fill its table
MAX_WAIT_S = 600.0
POOL_CAP = 5000
SCAN = 1000
ENTRY_TTL_S = 24 * 3600
LOCK_S = 10
WAITING, SEATED, LEFT, EXPIRED = "waiting", "seated", "left", "expired"
# Matched: out of the queue, bound to a match whose game is being created; seated once the game exists, so
# that a player never learns of a table before it can read it. Shown to the player as still waiting.
MATCHED = "matched"
# Matched: out of the queue, bound to a match whose game is being created; seated once the game exists, so
# that a player never learns of a table before it can read it. Shown to the player as still waiting.
MATCHED = "matched"


@dataclass(frozen=True)
class Pool:
    name: str
    game: str
    players: int
    rules: dict = field(default_factory=dict)
    bot: str = "heuristic"  # who fills the seats nobody took (a cheap, sound player: the pool's own work)
    rated: bool = True

    def to_json(self) -> dict:
        return {"pool": self.name, "game": self.game, "players": self.players, "rules": dict(self.rules),
                "bot": self.bot, "rated": self.rated, "wait_s": POOL_WAIT_S}


POOLS = {pool.name: pool for pool in (
    Pool("schafkopf", "schafkopf", 4, {"deals": 4}),
    Pool("scharwenzel", "scharwenzel", 4, {"deals": 4}),
    Pool("scharfe-schoten-3", "scharfe-schoten", 3, {"rounds": 3}),
    Pool("scharfe-schoten-4", "scharfe-schoten", 4, {"rounds": 4}),
)}


class AlreadyWaiting(Exception):
    def __init__(self, entry: dict):
        super().__init__(f"waiting in pool {entry['pool']} already")
        self.entry = entry


class PoolFull(Exception):
    pass


class NotWaiting(Exception):
    def __init__(self, entry: dict | None):
        super().__init__("not waiting in this pool")
        self.entry = entry


@dataclass(frozen=True)
class Match:
    match_id: str
    pool: str
    players: tuple[str, ...]  # handles, seat by seat from seat 0; the rest of the seats are bots
    created_at: float

    @property
    def game_id(self) -> str:
        """The game's id, derived from the match: creating it again finds the same game."""
        return hashlib.sha256(f"pool-game:{self.match_id}".encode()).hexdigest()[:16]

    def to_json(self) -> dict:
        return {"match_id": self.match_id, "pool": self.pool, "players": list(self.players),
                "created_at": self.created_at, "game_id": self.game_id}


class Pools:
    def __init__(self, client: redis.Redis, prefix: str = "stich"):
        self.redis = client
        self.base = f"{prefix}:{{pools}}"

    def _queue(self, pool: str) -> str:
        return f"{self.base}:queue:{pool}"

    def _entry(self, handle: str) -> str:
        return f"{self.base}:entry:{handle.lower()}"

    @property
    def _matches(self) -> str:
        return f"{self.base}:matches"

    # -- the player's side -------------------------------------------------------------------
    def entry(self, handle: str) -> dict | None:
        raw = self.redis.get(self._entry(handle))
        return None if raw is None else json.loads(raw)

    def join(self, pool: Pool, handle: str, bots: bool, rating_range: float | None, rating: float,
             now: float | None = None) -> dict:
        """The player waits in ``pool`` (its entry). Raises AlreadyWaiting (in this or another pool),
        PoolFull."""
        now = time.time() if now is None else now
        found = self.entry(handle)
        if found is not None and (found["status"] == MATCHED or (found["status"] == WAITING
                                                                 and not self._expired(found, now))):
            raise AlreadyWaiting(found)
        if self.redis.zcard(self._queue(pool.name)) >= POOL_CAP:
            raise PoolFull(pool.name)
        entry = {"pool": pool.name, "handle": handle, "joined_at": now, "bots": bots, "range": rating_range,
                 "rating": rating, "status": WAITING, "game_id": None, "seat": None, "seated_at": None}
        with self.redis.pipeline() as pipe:  # MULTI: the entry and its place in the queue together
            pipe.set(self._entry(handle), json.dumps(entry), ex=ENTRY_TTL_S)
            pipe.zadd(self._queue(pool.name), {handle: now * 1000})
            pipe.execute()
        return entry

    def leave(self, pool: Pool, handle: str) -> dict:
        """The player leaves the pool, unless it was matched or seated meanwhile (NotWaiting, with its entry)."""
        with self.lock(pool.name):
            found = self.entry(handle)
            if found is None or found["pool"] != pool.name or found["status"] != WAITING:
                raise NotWaiting(found)
            found = {**found, "status": LEFT}
            with self.redis.pipeline() as pipe:
                pipe.zrem(self._queue(pool.name), handle)
                pipe.set(self._entry(handle), json.dumps(found), ex=ENTRY_TTL_S)
                pipe.execute()
            return found

    def waiting(self, pool: str) -> int:
        return int(self.redis.zcard(self._queue(pool)))

    # -- the matcher's side ------------------------------------------------------------------------
    def lock(self, pool: str):
        return _Lease(self.redis, f"{self.base}:lock:{pool}", LOCK_S)

    def match(self, pool: Pool, create: Callable[[Match], None], now: float | None = None) -> list[Match]:
        """Seat whoever can be seated now (under the pool's lock; a busy lock: nothing, the holder does
        it), then create the matches' games. The matches made."""
        now = time.time() if now is None else now
        made: list[Match] = []
        lease = self.lock(pool.name)
        if not lease.acquire(blocking=False):
            return made
        try:
            handles = [h.decode() if isinstance(h, bytes) else h
                       for h in self.redis.zrange(self._queue(pool.name), 0, SCAN - 1)]
            raw = self.redis.mget([self._entry(h) for h in handles]) if handles else []
            entries = []
            for handle, found in zip(handles, raw):
                entry = json.loads(found) if found else None
                if entry is None or entry["status"] != WAITING or entry["pool"] != pool.name:
                    self.redis.zrem(self._queue(pool.name), handle)  # a stale member: its entry moved on
                elif self._expired(entry, now):
                    self._close(pool, entry, EXPIRED)
                else:
                    entries.append(entry)
            for group, _ in groups(entries, pool.players, now):
                made.append(self._seat(pool, group, now))
        finally:
            lease.release()
        for found in made:
            try:
                create(found)
            except Exception:  # the match stays pending: the recovery pass creates its game
                log.exception("the game of match %s was not created", found.match_id)
                continue
            self.seat(found)
        return made

    def origin(self, game_id: str) -> str | None:
        """``pool:<name>`` for a game a pool's match made."""
        raw = self.redis.get(f"{self.base}:game:{game_id}")
        return None if raw is None else f"pool:{raw.decode() if isinstance(raw, bytes) else raw}"

    def pending(self) -> list[Match]:
        """Matches whose game may not exist yet (their matcher died): the recovery pass creates them."""
        return [Match(m["match_id"], m["pool"], tuple(m["players"]), m["created_at"])
                for m in (json.loads(raw) for raw in self.redis.hvals(self._matches))]

    def seat(self, match: Match, now: float | None = None) -> None:
        """The match's game exists: its entries are seated (with their game and seat), and the match done,
        in one transaction."""
        now = time.time() if now is None else now
        found = self.redis.mget([self._entry(handle) for handle in match.players])
        with self.redis.pipeline() as pipe:
            for seat, (handle, raw) in enumerate(zip(match.players, found)):
                entry = json.loads(raw) if raw else {"pool": match.pool, "handle": handle, "bots": True,
                                                      "range": None, "rating": 0.0, "joined_at": match.created_at}
                seated = {**entry, "status": SEATED, "game_id": match.game_id, "seat": seat, "seated_at": now}
                pipe.set(self._entry(handle), json.dumps(seated), ex=ENTRY_TTL_S)
            pipe.hdel(self._matches, match.match_id)
            pipe.execute()

    def _seat(self, pool: Pool, group: list[dict], now: float) -> Match:
        found = Match(secrets.token_hex(8), pool.name, tuple(e["handle"] for e in group), now)
        with self.redis.pipeline() as pipe:  # MULTI: the match, its entries matched and out of the queue
            pipe.hset(self._matches, found.match_id, json.dumps(found.to_json()))
            pipe.set(f"{self.base}:game:{found.game_id}", pool.name, ex=7 * 24 * 3600)
            for seat, entry in enumerate(group):
                matched = {**entry, "status": MATCHED, "game_id": found.game_id, "seat": seat}
                pipe.set(self._entry(entry["handle"]), json.dumps(matched), ex=ENTRY_TTL_S)
                pipe.zrem(self._queue(pool.name), entry["handle"])
            pipe.execute()
        return found

    def _close(self, pool: Pool, entry: dict, status: str) -> None:
        with self.redis.pipeline() as pipe:
            pipe.zrem(self._queue(pool.name), entry["handle"])
            pipe.set(self._entry(entry["handle"]), json.dumps({**entry, "status": status}), ex=ENTRY_TTL_S)
            pipe.execute()

    @staticmethod
    def _expired(entry: dict, now: float) -> bool:
        return now - entry["joined_at"] > MAX_WAIT_S


def compatible(a: dict, b: dict) -> bool:
    """Both accept the other's rating (each entry's ``range``: the most its table's ratings may differ
    from its own; None: any)."""
    gap = abs(a["rating"] - b["rating"])
    return all(e["range"] is None or gap <= e["range"] for e in (a, b))


def groups(entries: list[dict], size: int, now: float) -> list[tuple[list[dict], bool]]:
    """The tables to open now, oldest entries first: each ``(entries, with bots)``. For the oldest entry
    still waiting, the next ones compatible with every entry taken so far; a full table opens at once;
    one short of players opens with bots once its oldest has waited ``POOL_WAIT_S`` and every entry of it
    allows them. An entry that cannot be seated now is passed over, so the others keep their turn."""
    out = []
    left = list(entries)
    while left:
        first = left[0]
        group = [first]
        for other in left[1:]:
            if len(group) == size:
                break
            if all(compatible(other, member) for member in group):
                group.append(other)
        if len(group) == size:
            out.append((group, False))
        elif now - first["joined_at"] >= POOL_WAIT_S:
            with_bots = [e for e in group if e["bots"]]
            if first["bots"] and with_bots:
                out.append((with_bots, True))
                group = with_bots
            else:
                group = [first]
        else:
            group = [first]
        left = [e for e in left if e not in group]
    return out


class _Lease:
    """A lock in Redis held at most ``seconds`` (its holder may die)."""

    def __init__(self, client: redis.Redis, key: str, seconds: int):
        self.redis, self.key, self.seconds = client, key, seconds
        self.token = secrets.token_hex(8)

    def acquire(self, blocking: bool = True, timeout: float = 5.0) -> bool:
        deadline = time.monotonic() + timeout
        while True:
            if self.redis.set(self.key, self.token, nx=True, ex=self.seconds):
                return True
            if not blocking or time.monotonic() >= deadline:
                return False
            time.sleep(0.01)

    def release(self) -> None:
        # Only its own: a lease that ran out may be another's now.
        self.redis.eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end "
                        "return 0", 1, self.key, self.token)

    def __enter__(self):
        if not self.acquire():
            raise TimeoutError(f"the pool is busy ({self.key})")
        return self

    def __exit__(self, *exc):
        self.release()
        return False
