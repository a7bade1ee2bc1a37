"""Bot policies: pure functions from what a seat may know (a ``Decision``) to a command.

``random`` is shared by every game; ``heuristic`` and ``search`` are each game's own, in
``domain/<game>/bots/``. ``policy(kind, game)`` finds one.
"""
from __future__ import annotations

from importlib import import_module

from . import random_bot
from .decision import Policy

# Imported on first use: the games' bots import the games, which this package must not.
GAME_BOTS = {"schafkopf": "domain.schafkopf.bots", "scharwenzel": "domain.scharwenzel.bots",
             "scharfe-schoten": "domain.scharfe_schoten.bots"}


def policy(kind: str, game: str) -> Policy:
    if kind == "random":
        return random_bot.policy
    return import_module(GAME_BOTS[game]).BOTS[kind]
