"""The cursor of a page of finished games (a player's games, ``GET /v1/exports``): the last game's
``(finished_at, game_id)``, the history's order, as URL-safe base64 of its JSON, so that a page is
resumed after the game it ended on whatever finished since."""
from __future__ import annotations

import base64
import binascii
import json

from flask import request

from .problems import Problem


def cursor_of(finished_at: str, game_id: str) -> str:
    raw = json.dumps([finished_at, game_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def cursor_arg() -> tuple[str, str] | None:
    """The request's ``cursor``, or None; a 422 for anything this server did not give out."""
    raw = request.args.get("cursor")
    if raw is None:
        return None
    try:
        finished_at, game_id = json.loads(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)))
        if not (isinstance(finished_at, str) and isinstance(game_id, str) and len(finished_at) < 40
                and len(game_id) < 40):
            raise ValueError
    except (ValueError, TypeError, binascii.Error):
        raise Problem(422, "validation_error", "cursor: not a cursor this server gave out",
                      errors={"cursor": ["not a cursor this server gave out"]}) from None
    return finished_at, game_id
