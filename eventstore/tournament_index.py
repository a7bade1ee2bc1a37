"""The public list of tournaments: the game list's mechanism (``index.py``) over tournaments' streams.

Kept in the tournaments' key space (``<prefix>:tournaments:games`` and its
sorted sets), so a tournament never shows in the game list nor a game here,
and paged the same way: newest first, one ``ZREVRANGEBYLEX`` from an opaque
cursor, filtered by status, game or both.
"""
from __future__ import annotations

import re

from .index import GameIndex

STATUSES = ("waiting", "active", "finished")
# Which of a tournament's events change what its entry shows.
RELEVANT = frozenset({"TournamentCreated", "ParticipantJoined", "TournamentStarted", "RoundDrawn",
                      "RoundFinished", "TournamentPaused", "TournamentResumed", "TournamentAborted", "SeedRevealed"})


class TournamentIndex(GameIndex):
    pattern = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\|t[0-9a-f]{15}")
    relevant = RELEVANT

    def fields(self, state) -> dict:
        config = state.config
        return {
            "name": config["name"],
            "game": config["game"],
            "players": config["players"],
            "participants": len(config["participants"]),
            "rounds": config["rounds"],
            "round": len(state.rounds),
            "status": state.status,
            "paused": bool(getattr(state, "paused", False)),
        }
