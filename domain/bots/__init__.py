"""Bot policies: pure functions from what a seat may know (a ``Decision``) to a command.

``random`` is shared by every game; ``heuristic`` and ``search`` are each game's own, in
``domain/<game>/bots/``. ``policy(kind, game)`` finds one; ``roster`` lists them and a
search's default budget.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import random_bot
from .roster import GAME_BOTS, bots_of, default_playouts, kinds

if TYPE_CHECKING:  # only an annotation: importing the package stays free of the table (see roster)
    from .decision import Policy

__all__ = ["GAME_BOTS", "default_playouts", "kinds", "policy", "random_bot"]


def policy(kind: str, game: str) -> Policy:
    if kind == "random":
        return random_bot.policy
    return bots_of(game)[kind]
