"""The ``random`` bot: uniform over the legal commands, reproducible per game.

The choice is seeded from the game id, the seq the bot is answering and its
seat, so replaying a game's bot turns gives the same moves.
"""
from __future__ import annotations

import random


def choose(legal: list[dict], game_id: str, seq: int, seat: int) -> dict | None:
    if not legal:
        return None
    rng = random.Random(f"{game_id}:{seq}:{seat}")
    return legal[rng.randrange(len(legal))]


def policy(decision) -> dict:
    """The ``random`` policy on a ``Decision`` (the arena's form of the same bot)."""
    return decision.legal[decision.rng.randrange(len(decision.legal))]
