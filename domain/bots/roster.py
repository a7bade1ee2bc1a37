"""Each game's bots, found by name on first use, and a search bot's default budget.

This module imports no other project module, so that ``domain.table`` can ask it for a game's
default playouts while it validates a game's seats: the games' bots import the games (and the
table), which the table must not import.
"""
from __future__ import annotations

from importlib import import_module

GAME_BOTS = {"schafkopf": "domain.schafkopf.bots", "scharwenzel": "domain.scharwenzel.bots",
             "scharfe-schoten": "domain.scharfe_schoten.bots"}


def bots_of(game: str) -> dict:
    """The game's own bots (``heuristic``, ``search`` and any variants), by kind."""
    return import_module(GAME_BOTS[game]).BOTS


def kinds(game: str) -> tuple[str, ...]:
    """Every bot kind ``game`` has: ``random`` (every game's) and the game's own."""
    return ("random", *bots_of(game))


def default_playouts(game: str) -> int:
    """The game's search bot's budget per decision when its seat names none: the number of
    playouts (or simulator steps) its search module calls ``DEFAULT_PLAYOUTS``."""
    return import_module(f"{GAME_BOTS[game]}.search").DEFAULT_PLAYOUTS
