"""Marshmallow schemas for each game's commands, by game name and command type.

A game module exports ``COMMANDS = {type: SchemaClass}``. The API validates a
posted command's shape here (unknown fields and wrong types are a 422); the
game's decider then judges whether the command is allowed now.
"""
from __future__ import annotations

from marshmallow import Schema

from . import schafkopf, scharfe_schoten, scharwenzel

_BY_GAME = {
    "scharfe-schoten": scharfe_schoten.COMMANDS,
    "schafkopf": schafkopf.COMMANDS,
    "scharwenzel": scharwenzel.COMMANDS,
}


def command_schemas(game: str) -> dict[str, type[Schema]]:
    return _BY_GAME.get(game, {})
