"""Paged lists (games, tournaments): one reading of ``status``, ``game``, ``limit`` and ``cursor``."""
from __future__ import annotations

import re

from flask import request

from eventstore.index import BadCursor

from .http import int_arg
from .problems import Problem

GAME_NAME = re.compile(r"[a-z][a-z-]{0,39}")  # an unknown name is an empty list, not an error


def listed_page(index, statuses: tuple[str, ...]):
    """The page of ``index`` the request asks for; a 422 naming the parameter that is wrong."""
    status = request.args.get("status")
    if status is not None and status not in statuses:
        raise Problem(422, "validation_error", f"status must be one of {', '.join(statuses)}",
                      errors={"status": ["unknown status"]})
    game = request.args.get("game")
    if game is not None and not GAME_NAME.fullmatch(game):
        raise Problem(422, "validation_error", "game must be a game name such as schafkopf",
                      errors={"game": ["not a game name"]})
    limit = int_arg("limit", 100, 1, 1000)
    try:
        return index.page(status=status, game=game, limit=limit, cursor=request.args.get("cursor"))
    except BadCursor as exc:
        raise Problem(422, "validation_error", f"cursor: {exc}", errors={"cursor": [str(exc)]})
