"""Marshmallow schemas for each game's commands, by game name and command type.

A game module exports ``COMMANDS = {type: SchemaClass}``. The API validates a
posted command's shape here (unknown fields and wrong types are a 422); the
game's decider then judges whether the command is allowed now.
"""
from __future__ import annotations

from importlib import import_module

from marshmallow import Schema

_MODULES = {
    "scharfe-schoten": "api.commands.scharfe_schoten",
    "schafkopf": "api.commands.schafkopf",
    "scharwenzel": "api.commands.scharwenzel",
}


def command_schemas(game: str) -> dict[str, type[Schema]]:
    module = _MODULES.get(game)
    if module is None:
        return {}
    try:
        return import_module(module).COMMANDS
    except ModuleNotFoundError:
        return {}
