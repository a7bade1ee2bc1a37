"""The daily challenge's entries (``domain/challenge.py``): who played which day's deals, in which game.

Keys (one Redis Cluster slot, ``{challenge}``):

* ``<prefix>:{challenge}:secret`` — 32 random bytes, made once: the days' deals are drawn from it, so
  nobody can know a day's cards before the day (nor, from one day, another's);
* ``<prefix>:{challenge}:entries:<game>:<day>`` — handle → its game's id;
* ``<prefix>:{challenge}:game:<game id>`` — the game's challenge (game, day, handle): its embargo;
* ``<prefix>:{challenge}:results:<game>:<day>`` — handle → the deal records of its finished game (JSON),
  kept once read, so the day's leaderboard reads each finished game once.

Entries are kept ``KEEP_DAYS``; a player has one entry a game and day (its game's id derives from them).
"""
from __future__ import annotations

import hashlib
import json
import secrets
from datetime import date, datetime, timedelta, timezone

import redis

KEEP_DAYS = 30


def today(now: datetime | None = None) -> str:
    return (now or datetime.now(timezone.utc)).date().isoformat()


def day_end(day: str) -> datetime:
    """When the day's challenge closes (its next midnight, UTC)."""
    return datetime.combine(date.fromisoformat(day) + timedelta(days=1), datetime.min.time(), timezone.utc)


def is_day(value: str) -> bool:
    try:
        return date.fromisoformat(value).isoformat() == value
    except ValueError:
        return False


class Challenges:
    def __init__(self, client: redis.Redis, prefix: str = "stich"):
        self.redis = client
        self.base = f"{prefix}:{{challenge}}"

    def secret(self) -> bytes:
        key = f"{self.base}:secret"
        self.redis.set(key, secrets.token_bytes(32).hex(), nx=True)
        return bytes.fromhex(self.redis.get(key).decode())

    @staticmethod
    def game_id(game: str, day: str, handle: str) -> str:
        return hashlib.sha256(f"challenge|{game}|{day}|{handle.lower()}".encode()).hexdigest()[:16]

    def enter(self, game: str, day: str, handle: str, game_id: str) -> bool:
        """Record the player's entry before its game exists (so the game is embargoed from its first
        event); False when it entered already."""
        ttl = KEEP_DAYS * 24 * 3600
        self.redis.set(f"{self.base}:game:{game_id}", json.dumps({"game": game, "day": day, "handle": handle}),
                       ex=ttl)
        key = f"{self.base}:entries:{game}:{day}"
        added = self.redis.hsetnx(key, handle.lower(), game_id)
        self.redis.expire(key, ttl)
        return bool(added)

    def entries(self, game: str, day: str) -> dict[str, str]:
        return {k.decode(): v.decode() for k, v in self.redis.hgetall(f"{self.base}:entries:{game}:{day}").items()}

    def of_game(self, game_id: str) -> dict | None:
        raw = self.redis.get(f"{self.base}:game:{game_id}")
        return None if raw is None else json.loads(raw)

    def embargoed(self, game_id: str, now: datetime | None = None) -> bool:
        """A challenge game whose day is not over: its cards are the day's, which others may still play."""
        return self.embargoed_until(game_id, now) is not None

    def embargoed_until(self, game_id: str, now: datetime | None = None) -> float | None:
        """When a challenge game's embargo ends (Unix time), or None when it has none (now)."""
        found = self.of_game(game_id)
        if found is None:
            return None
        end = day_end(found["day"])
        return end.timestamp() if (now or datetime.now(timezone.utc)) < end else None

    def origin(self, game_id: str) -> str | None:
        found = self.of_game(game_id)
        return None if found is None else f"challenge:{found['game']}:{found['day']}"

    def results(self, game: str, day: str) -> dict[str, list[dict]]:
        raw = self.redis.hgetall(f"{self.base}:results:{game}:{day}")
        return {k.decode(): json.loads(v) for k, v in raw.items()}

    def keep_results(self, game: str, day: str, handle: str, records: list[dict]) -> None:
        key = f"{self.base}:results:{game}:{day}"
        self.redis.hset(key, handle.lower(), json.dumps(records))
        self.redis.expire(key, KEEP_DAYS * 24 * 3600)
