"""The public list of games: id → game, status, players, seq, times.

It is derived from the streams (a listener updates it after every append that
changes what it shows), so it can be rebuilt from the events at any time.
"""
from __future__ import annotations

import json

import redis

from .codec import StoredEvent
from .handler import Loaded
from .keys import index_key


class GameIndex:
    def __init__(self, client: redis.Redis, prefix: str = "stich"):
        self.redis = client
        self.key = index_key(prefix)

    def __call__(self, loaded: Loaded, appended: list[StoredEvent]) -> None:
        """Listener: keep the entry current when the status or seats change."""
        relevant = {"GameCreated", "SeatTaken", "GameStarted", "SeedRevealed"}
        if not any(e.type in relevant for e in appended):
            return
        state = loaded.state
        created = appended[0].at if appended[0].seq == 1 else None
        entry = self.get(loaded.game_id) or {"id": loaded.game_id, "created_at": created}
        entry.update({
            "game": state.game.name,
            "players": state.players,
            "status": state.status,
            "open_seats": [i for i, s in enumerate(state.seats) if not s.taken],
            "updated_at": appended[-1].at,
        })
        self.redis.hset(self.key, loaded.game_id, json.dumps(entry))

    def get(self, game_id: str) -> dict | None:
        raw = self.redis.hget(self.key, game_id)
        return json.loads(raw) if raw else None

    def list(self, status: str | None = None, game: str | None = None, limit: int = 100) -> list[dict]:
        entries = [json.loads(v) for v in self.redis.hvals(self.key)]
        entries = [e for e in entries if (status is None or e["status"] == status)
                   and (game is None or e["game"] == game)]
        entries.sort(key=lambda e: e.get("created_at") or "", reverse=True)
        return entries[:limit]
