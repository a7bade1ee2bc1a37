"""Duplicate rounds keep their deals secret until every table has played them.

In a duplicate tournament every table of a round plays the same deals. A
person who could watch a table that is ahead — or read a finished table's
game, where everything is public — would know the cards before playing
them. So while a duplicate round with human participants runs, its tables'
games answer reads only to their own seats (a seat's token); everybody else
gets 403 ``embargoed`` until the round has finished. Bot-only tournaments
have nobody to keep a secret from and are not embargoed.

The check runs before every read of a game (``/v1/games/<game_id>…``). A
table's tournament is found through the key the driver writes before it
creates the game (``TournamentDesk.tournament_of``); what is found is kept in
this process, so an ordinary game costs one Redis read the first time only.
"""
from __future__ import annotations

import threading
from collections import OrderedDict

from flask import request

from domain.tournament.decider import table_game_id

from .http import runtime, viewer_seat
from .problems import Problem

CACHE_SIZE = 4096


class Embargo:
    def __init__(self, size: int = CACHE_SIZE):
        self.size = size
        self._tournament_of: OrderedDict[str, str] = OrderedDict()  # game id -> tournament id, "" for none
        self._lock = threading.Lock()

    def check(self) -> None:
        """A before-request hook: refuse a read of an embargoed table's game to all but its seats."""
        game_id = (request.view_args or {}).get("game_id")
        if request.method not in ("GET", "HEAD") or not game_id:
            return
        tournament_id = self.tournament_of(game_id)
        if not tournament_id or not self.embargoed(tournament_id, game_id):
            return
        if viewer_seat(game_id, required=False) is None:
            raise Problem(403, "embargoed", "this table plays a duplicate round's deals, which other tables may "
                                            "still be playing: only its own seats can read it until the round "
                                            "has finished")

    def tournament_of(self, game_id: str) -> str:
        with self._lock:
            if game_id in self._tournament_of:
                self._tournament_of.move_to_end(game_id)
                return self._tournament_of[game_id]
        rt = runtime()
        found = rt.tournaments.tournament_of(game_id) or ""
        # A table's key is written before its game exists, so "none" is final only for a game that exists.
        if found or rt.handler.cached(game_id) is not None or rt.store.exists(game_id):
            with self._lock:
                self._tournament_of[game_id] = found
                while len(self._tournament_of) > self.size:
                    self._tournament_of.popitem(last=False)
        return found

    @staticmethod
    def embargoed(tournament_id: str, game_id: str) -> bool:
        state = runtime().tournaments.handler.load(tournament_id).state
        config = state.config
        if not config or not config["duplicate"] or all(p["kind"] == "bot" for p in config["participants"]):
            return False
        for round_ in state.rounds:
            for slot in round_.tables:
                if table_game_id(tournament_id, round_.number, slot.table) == game_id:
                    return not round_.finished
        return True  # a table of a round this process has not seen drawn yet: the round runs
