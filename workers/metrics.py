"""The metrics a bot worker writes (``api.metrics`` serves them, summed over every process)."""
from __future__ import annotations

from prometheus_client import Counter, Histogram

BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)

MOVES = Counter("stich_moves", "Commands accepted (humans and bots), by game", ["game"])
BOT_TURN_SECONDS = Histogram("stich_bot_turn_seconds", "A bot's turn: from its job being queued to its move stored",
                             ["game"], buckets=BUCKETS)
