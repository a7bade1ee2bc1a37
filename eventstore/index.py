"""The public list of games: id → game, status, players, seq, times; paged newest first.

It is derived from the streams (a listener updates it after every append that
changes what it shows), so it can be rebuilt from the events at any time.

Keys: a hash ``stich:games`` (id → the entry as JSON) and sorted sets that
order the ids for each filter the list route offers: all games, by status,
by game, and by both. Every member is ``<created_at>|<id>`` with score 0, so
the sets sort by creation time (ISO 8601 UTC, which sorts as text) and a page
is one ``ZREVRANGEBYLEX`` from the last member of the previous page: no scan,
whatever the number of games.
"""
from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass
from typing import Iterator

import redis

from .codec import StoredEvent
from .handler import Loaded
from .keys import index_key

STATUSES = ("waiting", "active", "finished")
MEMBER = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\|[0-9a-f]{16}")


class BadCursor(ValueError):
    pass


@dataclass(frozen=True)
class Page:
    entries: list[dict]
    next: str | None  # the cursor of the following page; None on the last page


def encode_cursor(member: str) -> str:
    return base64.urlsafe_b64encode(member.encode()).decode().rstrip("=")


def decode_cursor(cursor: str, pattern: re.Pattern = MEMBER) -> str:
    try:
        member = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise BadCursor("not a cursor this server gave out") from None
    if not pattern.fullmatch(member):
        raise BadCursor("not a cursor this server gave out")
    return member


class GameIndex:
    pattern = MEMBER  # what a cursor may name (a tournament's list has ids of its own shape)

    def __init__(self, client: redis.Redis, prefix: str = "stich"):
        self.redis = client
        self.key = index_key(prefix)

    def order_key(self, status: str | None = None, game: str | None = None) -> str:
        parts = [self.key, "by"]
        if status:
            parts += ["status", status]
        if game:
            parts += ["game", game]
        return ":".join(parts) if status or game else f"{self.key}:by:all"

    def _order_keys(self, status: str, game: str) -> list[str]:
        return [self.order_key(), self.order_key(status=status), self.order_key(game=game),
                self.order_key(status=status, game=game)]

    @staticmethod
    def member(entry: dict) -> str:
        return f"{entry.get('created_at') or '0000-00-00T00:00:00.000Z'}|{entry['id']}"

    # The events that change what an entry shows (a subclass lists another stream's).
    relevant = frozenset({"GameCreated", "SeatTaken", "GameStarted", "SeedRevealed"})

    def __call__(self, loaded: Loaded, appended: list[StoredEvent]) -> None:
        """Listener: keep the entry current when what it shows changes."""
        if not any(e.type in self.relevant for e in appended):
            return
        created = appended[0].at if appended[0].seq == 1 else None
        before = self.get(loaded.game_id)
        entry = dict(before or {"id": loaded.game_id, "created_at": created})
        entry.update(self.fields(loaded.state), updated_at=appended[-1].at)
        self._store(entry, before)

    def fields(self, state) -> dict:
        """What the entry shows of ``state`` (its ``status`` and ``game`` also order the lists)."""
        return {
            "game": state.game.name,
            "players": state.players,
            "status": state.status,
            # A seat kept for a player is its player's alone: not open to whoever reads the list.
            "open_seats": [i for i, s in enumerate(state.seats) if not s.taken and s.player is None],
            "rated": state.rated,
        }

    def _store(self, entry: dict, before: dict | None) -> None:
        member = self.member(entry)
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(self.key, entry["id"], json.dumps(entry))
        if before and before["status"] != entry["status"]:
            pipe.zrem(self.order_key(status=before["status"]), member)
            pipe.zrem(self.order_key(status=before["status"], game=before["game"]), member)
        for key in self._order_keys(entry["status"], entry["game"]):
            pipe.zadd(key, {member: 0})
        pipe.execute()

    def drop(self, game_id: str) -> None:
        """Take a game off the list (its entry and its place in every order): the archiver's, once the game
        has moved out of Redis (``workers/archiver.py``); the list is of the games Redis holds."""
        entry = self.get(game_id)
        if entry is None:
            return
        member = self.member(entry)
        pipe = self.redis.pipeline(transaction=False)
        for key in self._order_keys(entry["status"], entry["game"]):
            pipe.zrem(key, member)
        pipe.hdel(self.key, game_id)
        pipe.execute()

    def get(self, game_id: str) -> dict | None:
        raw = self.redis.hget(self.key, game_id)
        return json.loads(raw) if raw else None

    def statuses(self, game_ids: list[str]) -> list[str | None]:
        """Each game's status (None for an id the list does not have), in one round trip."""
        raw = self.redis.hmget(self.key, game_ids) if game_ids else []
        return [json.loads(r)["status"] if r else None for r in raw]

    def page(self, status: str | None = None, game: str | None = None, limit: int = 100,
             cursor: str | None = None) -> Page:
        """Up to ``limit`` entries, newest first, after ``cursor`` (raises BadCursor)."""
        start = f"({decode_cursor(cursor, self.pattern)}" if cursor is not None else "+"
        members = [m.decode() if isinstance(m, bytes) else m for m in
                   self.redis.zrevrangebylex(self.order_key(status, game), start, "-", start=0, num=limit + 1)]
        shown = members[:limit]
        ids = [m.rsplit("|", 1)[1] for m in shown]
        raw = self.redis.hmget(self.key, ids) if ids else []
        entries = [json.loads(r) for r in raw if r]
        more = len(members) > limit
        return Page(entries, encode_cursor(shown[-1]) if more else None)

    def ids(self, status: str | None = None, page_size: int = 500) -> Iterator[str]:
        """Every id in the list (of one status), page by page."""
        cursor = None
        while True:
            page = self.page(status=status, limit=page_size, cursor=cursor)
            yield from (entry["id"] for entry in page.entries)
            if page.next is None:
                return
            cursor = page.next

    def backfill(self) -> int:
        """Order the entries of an index written before the sorted sets existed; returns how many."""
        if self.redis.hlen(self.key) <= self.redis.zcard(self.order_key()):
            return 0
        count = 0
        for _, raw in self.redis.hscan_iter(self.key, count=500):
            self._store(json.loads(raw), None)
            count += 1
        return count
