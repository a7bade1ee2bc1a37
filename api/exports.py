"""Exports at scale: every finished game of a month, a tournament or a player as one NDJSON stream.

In the spirit of lichess's monthly database dumps: ``GET /v1/exports?month=2026-12`` (or ``tournament=``,
or ``player=``) answers the games the history recorded, in the order they finished, each as its own export
(``GET /v1/games/{id}/export``: a header line, then its events), one after another, ``limit`` games a page.
The next page's cursor comes with the answer (``Link: <…>; rel="next"`` and ``X-Next-Cursor``), known before
the first byte, so a download cut off is resumed from the page it was on. Every line of it is public: the
history records a game once it has finished, a duplicate round's tables and a daily challenge's games once
their embargo is over. Archived games are read from the archive, as every read of them is.
"""
from __future__ import annotations

import re

from flask import Blueprint, request

from .audit import export_header, export_lines
from .cursor import cursor_arg, cursor_of
from .http import download, int_arg, query_params, runtime
from .meta import version
from .problems import Problem

exports_at_scale = Blueprint("exports_at_scale", __name__, url_prefix="/v1")

MONTH = re.compile(r"[0-9]{4}-(0[1-9]|1[0-2])")
PAGE, LONGEST_PAGE = 100, 1000


@exports_at_scale.get("/exports")
@query_params("month", "tournament", "player", "limit", "cursor")
def export_many():
    month, tournament, player = (request.args.get(name) for name in ("month", "tournament", "player"))
    given = [name for name, value in (("month", month), ("tournament", tournament), ("player", player)) if value]
    if len(given) != 1:
        raise Problem(422, "validation_error", "give exactly one of month, tournament and player",
                      errors={"_query": ["exactly one of month, tournament, player"]})
    if month is not None and not MONTH.fullmatch(month):
        raise Problem(422, "validation_error", "month must be YYYY-MM", errors={"month": ["YYYY-MM"]})
    if tournament is not None and not re.fullmatch(r"t[0-9a-f]{15}", tournament):
        raise Problem(422, "validation_error", "tournament must be a tournament id", errors={"tournament": ["an id"]})
    rt = runtime()
    identity = None
    if player is not None:
        found = rt.players.get(player)
        if found is None:
            raise Problem(404, "unknown_player", f"no player {player!r} is registered here")
        identity = found.handle
    limit = int_arg("limit", PAGE, 1, LONGEST_PAGE)
    rows = rt.history.finished_games(cursor_arg(), limit + 1, month=month, tournament=tournament, identity=identity)
    more, rows = len(rows) > limit, rows[:limit]
    handler, store, stich = rt.handler, rt.store, version()

    def lines():  # runs after the request's context has gone: handed all it needs
        for _, game_id in rows:
            loaded = handler.load(game_id)
            yield from export_lines(store, export_header(handler.table, loaded, True, stich), game_id, loaded,
                                    None, True)

    response = download(lines(), "application/x-ndjson")
    response.headers["X-Games"] = str(len(rows))
    if more:
        cursor = cursor_of(*rows[-1])
        args = {k: v for k, v in request.args.items() if k != "cursor"}
        query = "&".join(f"{k}={v}" for k, v in {**args, "cursor": cursor}.items())
        response.headers["X-Next-Cursor"] = cursor
        response.headers["Link"] = f'</v1/exports?{query}>; rel="next"'
    return response
