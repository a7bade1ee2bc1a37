"""One Redis stream per game; gapless ``seq`` from 1 as the entry id ``0-<seq>``.

The stream is never trimmed, so its length is the current seq. Appending is
one Lua script: it checks the idempotency key (kept permanently in a hash, not
as an expiring cache), then the expected seq, then XADDs every event of the
batch. A conflict appends nothing and reports the current seq. The key is
stored with the span of seqs it appended and a fingerprint of the request
(``first:last:fingerprint``), so a key reused for another request can be told
from a retry.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Iterable

import redis
from redis.cluster import RedisCluster

from .codec import StoredEvent, decode
from .keys import GameKeys

# KEYS: the events, the idempotency keys, the due-time index (only with due changes, see ``DueChange``),
# then the counters (``Counters``) counted with this write.
# ARGV: expected seq, idempotency key, fingerprint, the counters' expiry, how many counters, how many due
# changes, the counters' limits (one each), the due changes (member to remove, member to add, its score;
# '' for none), payloads.
APPEND_SCRIPT = """
local nc = tonumber(ARGV[5])
local nd = tonumber(ARGV[6])
local ck = 2
if nd > 0 then ck = 3 end
local counted = {}
local over = false
for i = 1, nc do
  local count = redis.call('INCR', KEYS[ck + i])
  redis.call('EXPIRE', KEYS[ck + i], ARGV[4])
  counted[i] = count
  if count > tonumber(ARGV[6 + i]) then over = true end
end
local current = redis.call('XLEN', KEYS[1])
if over then return {'limited', '', current, unpack(counted)} end
if ARGV[2] ~= '' then
  local prior = redis.call('HGET', KEYS[2], ARGV[2])
  if prior then return {'duplicate', prior, current, unpack(counted)} end
end
local expected = tonumber(ARGV[1])
if expected >= 0 and expected ~= current then
  return {'conflict', '', current, unpack(counted)}
end
local due = 6 + nc
local first = due + 3 * nd
local n = #ARGV - first
for i = 1, n do
  redis.call('XADD', KEYS[1], '0-' .. (current + i), 'e', ARGV[first + i])
end
local result = (current + 1) .. ':' .. (current + n) .. ':' .. ARGV[3]
if ARGV[2] ~= '' then redis.call('HSET', KEYS[2], ARGV[2], result) end
for j = 0, nd - 1 do
  local at = due + 3 * j
  if ARGV[at + 1] ~= '' then redis.call('ZREM', KEYS[3], ARGV[at + 1]) end
  if ARGV[at + 2] ~= '' then redis.call('ZADD', KEYS[3], ARGV[at + 3], ARGV[at + 2]) end
end
return {'ok', result, current + n, unpack(counted)}
"""


@dataclass(frozen=True)
class DueChange:
    """A change of the due-time index (``eventstore/schedule.py``) that goes with an append: the entry
    ``remove`` goes and ``add`` is written with score ``due_at``. Made in the append's own script, it
    costs no round trip of its own, lands only if the events do, and before anything the append's
    listeners do (a bot turn's entry exists before its job). A Redis Cluster keeps the index in
    another slot than the game's keys: there the schedule writes it after the append, as before."""

    key: str
    remove: str | None
    add: str | None
    due_at: float | None = None


@dataclass
class Counters:
    """Fixed-window counters (a write rate limit's) to count in the append's own script, so that a
    command costs one round trip: each key is incremented and expires ``expire_s`` later, and when
    one passes its limit nothing is appended (the append answers ``limited``). Counted once, by the
    first append that takes them (``counts`` is then set, in the keys' order). A Redis Cluster keeps
    them in other slots than the game's keys, so there they are left uncounted for the caller."""

    keys: list[str]
    limits: list[int]
    expire_s: int
    counts: list[int] | None = None

    @property
    def over(self) -> bool:
        return self.counts is not None and any(c > n for c, n in zip(self.counts, self.limits))


@dataclass(frozen=True)
class Span:
    """What an idempotency key appended: seqs ``first..last``, for the request with ``fingerprint``."""

    first: int
    last: int
    fingerprint: str = ""  # empty for keys stored before fingerprints existed

    @classmethod
    def parse(cls, raw: bytes | str) -> "Span":
        first, last, *fingerprint = (raw.decode() if isinstance(raw, bytes) else raw).split(":", 2)
        return cls(int(first), int(last), fingerprint[0] if fingerprint else "")


@dataclass(frozen=True)
class AppendResult:
    status: str  # ok | duplicate | conflict | limited (a counter passed its limit: nothing appended)
    first_seq: int  # of the batch (the first append's batch for a duplicate); 0 on conflict
    last_seq: int
    current_seq: int  # the stream's seq after the call
    fingerprint: str = ""  # a duplicate's: the fingerprint stored with the key

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def decode_entries(entries) -> list[StoredEvent]:
    """Stream entries (``XRANGE``/``XREAD`` replies) as events; the entry id ``0-<seq>`` gives the seq."""
    return [decode(int(entry_id.split(b"-")[1]), fields[b"e"]) for entry_id, fields in entries]


class EventStore:
    def __init__(self, client: redis.Redis, prefix: str = "stich", archive=None):
        """``archive``: an ``eventstore.archive.Archive`` that holds finished games whose keys Redis no longer
        has; the reads below answer for such a game from it, as if its keys were there."""
        self.redis = client
        self.prefix = prefix
        self.archive = archive
        self._append = client.register_script(APPEND_SCRIPT)
        self.cluster = isinstance(client, RedisCluster)

    @property
    def takes_due_changes(self) -> bool:
        """Whether ``append`` can write due-time index changes in its own script (not across cluster slots)."""
        return not self.cluster

    def keys(self, game_id: str) -> GameKeys:
        return GameKeys(game_id, self.prefix)

    def append(self, game_id: str, payloads: Iterable[str], expected_seq: int | None,
               idempotency_key: str | None = None, fingerprint: str = "",
               counters: Counters | None = None, due: Iterable[DueChange] = ()) -> AppendResult:
        """Append encoded events atomically. ``expected_seq=None`` appends at any seq.
        ``fingerprint`` (no colons) is stored with the idempotency key. ``counters``, unless
        counted already, are counted first, in the same script (status ``limited`` past a limit).
        ``due``: changes of the due-time index made if (and only if) the events are appended; not
        on a Redis Cluster (``takes_due_changes``)."""
        keys = self.keys(game_id)
        payloads = list(payloads)
        if not payloads:
            raise ValueError("nothing to append")
        expected = -1 if expected_seq is None else int(expected_seq)
        counting = counters if counters is not None and counters.counts is None and not self.cluster else None
        counter_keys = counting.keys if counting else []
        due = list(due)
        if due and self.cluster:
            raise ValueError("a Redis Cluster keeps the due-time index in another slot: write it after the append")
        if len({change.key for change in due}) > 1:
            raise ValueError("due changes of one append go to one due-time index")
        due_keys = [due[0].key] if due else []
        due_args = [a for change in due for a in (change.remove or "", change.add or "",
                                                   repr(change.due_at) if change.add else "")]
        status, span, current, *counts = self._append(
            keys=[keys.events, keys.idem, *due_keys, *counter_keys],
            args=[expected, idempotency_key or "", fingerprint, counting.expire_s if counting else 0,
                  len(counter_keys), len(due), *(counting.limits if counting else []), *due_args, *payloads])
        if counting:
            counting.counts = [int(c) for c in counts]
        status = status.decode() if isinstance(status, bytes) else status
        if status in ("conflict", "limited"):
            return AppendResult(status, 0, 0, int(current))
        stored = Span.parse(span)
        return AppendResult(status, stored.first, stored.last, int(current) if status == "duplicate" else stored.last,
                            stored.fingerprint)

    def idempotent_result(self, game_id: str, idempotency_key: str) -> Span | None:
        span = self.redis.hget(self.keys(game_id).idem, idempotency_key)
        return None if span is None else Span.parse(span)

    def seq(self, game_id: str) -> int:
        found = int(self.redis.xlen(self.keys(game_id).events))
        if found or self.archive is None:
            return found
        archived = self.archive.events(game_id)
        return len(archived) if archived else 0

    def exists(self, game_id: str) -> bool:
        return self.seq(game_id) > 0

    def last_events(self, game_ids: list[str]) -> dict[str, StoredEvent]:
        """Each game's last event, in one round trip (a game without events is left out)."""
        pipe = self.redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.xrevrange(self.keys(game_id).events, count=1)
        found = {}
        for game_id, entries in zip(game_ids, pipe.execute()):
            if entries:
                found[game_id] = decode_entries(entries)[0]
        return found

    def read(self, game_id: str, after: int = 0, until: int | None = None,
             count: int | None = None) -> list[StoredEvent]:
        """Events with ``after < seq <= until`` in order (an archived game's from the archive)."""
        end = "+" if until is None else f"0-{until}"
        key = self.keys(game_id).events
        if self.archive is None:
            return decode_entries(self.redis.xrange(key, min=f"0-{after + 1}", max=end, count=count))
        # Whether the stream is there, in the same round trip: only a game Redis lacks is asked of the archive.
        pipe = self.redis.pipeline(transaction=False)
        pipe.xrange(key, min=f"0-{after + 1}", max=end, count=count)
        pipe.exists(key)
        entries, present = pipe.execute()
        if entries or present:
            return decode_entries(entries)
        archived = self.archive.events(game_id) or []
        found = archived[after:until if until is not None else len(archived)]
        return found[:count] if count else found

    def payloads(self, game_id: str) -> list[bytes]:
        """The stream's stored payloads in seq order, as they are kept (for the archive)."""
        return [fields[b"e"] for _, fields in self.redis.xrange(self.keys(game_id).events)]

    def release(self, game_id: str) -> None:
        """Delete the keys of an archived game (its stream, idempotency keys, snapshot, secret, credentials,
        claims, origin): one command, all in the game's slot."""
        self.redis.delete(*self.keys(game_id).all())

    def _archived(self, game_id: str) -> dict | None:
        """An archived game's secret, credentials and origin, when Redis has not its stream."""
        if self.archive is None or self.redis.exists(self.keys(game_id).events):
            return None
        return self.archive.row(game_id)

    # -- snapshots ---------------------------------------------------------
    def save_snapshot(self, game_id: str, blob: bytes) -> None:
        self.redis.set(self.keys(game_id).snap, blob)

    def load_snapshot(self, game_id: str) -> bytes | None:
        return self.redis.get(self.keys(game_id).snap)

    # -- the secret seed and the seat credentials --------------------------
    def save_secret(self, game_id: str, seed_hex: str) -> None:
        self.redis.set(self.keys(game_id).secret, seed_hex)

    def claim_secret(self, game_id: str, seed_hex: str) -> str:
        """Record ``seed_hex`` unless the id has a secret already; returns the id's secret either way."""
        self.redis.set(self.keys(game_id).secret, seed_hex, nx=True)
        return self.load_secret(game_id)

    def load_secret(self, game_id: str) -> str | None:
        raw = self.redis.get(self.keys(game_id).secret)
        if raw is None:
            archived = self._archived(game_id)
            return archived["secret"] if archived else None
        return raw.decode()

    def save_seat_credential(self, game_id: str, seat: int, token_hash: str) -> bool:
        """Record a seat's token hash unless the seat already has one."""
        return bool(self.redis.hsetnx(self.keys(game_id).seats, str(seat), token_hash))

    def replace_seat_credential(self, game_id: str, seat: int, credential: str) -> None:
        """A seat taken again after it was abandoned: the new holder's credential replaces the old."""
        self.redis.hset(self.keys(game_id).seats, str(seat), credential)

    def seat_credentials(self, game_id: str) -> dict[int, str]:
        raw = self.redis.hgetall(self.keys(game_id).seats)
        if not raw:
            archived = self._archived(game_id)
            return archived["credentials"] if archived else {}
        return {int(k): v.decode() for k, v in raw.items()}

    def delete_seat_credential(self, game_id: str, seat: int) -> None:
        self.redis.hdel(self.keys(game_id).seats, str(seat))

    def save_seat_claims(self, game_id: str, claims: dict[int, str]) -> None:
        """Seats assigned to named players (seat -> their claim's hash): only the claim takes them."""
        if claims:
            self.redis.hset(self.keys(game_id).claimed, mapping={str(s): c for s, c in claims.items()})

    def seat_claim(self, game_id: str, seat: int) -> str | None:
        """The hash of the claim ``seat`` was assigned to, if a bulk pairing assigned it."""
        raw = self.redis.hget(self.keys(game_id).claimed, str(seat))
        return raw.decode() if raw is not None else None

    # -- imported games ------------------------------------------------------
    def save_origin(self, game_id: str, origin: dict) -> None:
        self.redis.set(self.keys(game_id).origin, json.dumps(origin, separators=(",", ":")))

    def load_origin(self, game_id: str) -> dict | None:
        raw = self.redis.get(self.keys(game_id).origin)
        if raw is None:
            archived = self._archived(game_id)
            return archived["origin"] if archived else None
        return json.loads(raw)
