"""The games this server knows, by their API name."""
from __future__ import annotations

from .game import Game
from .schafkopf.game import Schafkopf
from .scharfe_schoten.game import ScharfeSchoten
from .scharwenzel.game import Scharwenzel


def all_games() -> dict[str, Game]:
    games = (ScharfeSchoten(), Schafkopf(), Scharwenzel())
    return {game.name: game for game in games}
