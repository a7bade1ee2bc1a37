"""Duplicate rounds keep their deals secret until every table has played them.

In a duplicate tournament every table of a round plays the same deals. A
person who could watch a table that is ahead — or read a finished table's
game, where everything is public — would know the cards before playing
them. So while a duplicate round with human participants runs, its tables'
games answer reads only to their own seats (a seat's token); everybody else
gets 403 ``embargoed`` until the round has finished. Bot-only tournaments
have nobody to keep a secret from and are not embargoed.

Not even its own seats may take a table's game away as a document while the
round runs: its export and transcript are refused to everyone, and
``POST /v1/imports`` refuses an export of such a table (``refuse_import``),
which would otherwise become a public game holding the deals. The table's
per-seat results are withheld from the tournament's feed and summary until the
round has finished too (``TableFinished``'s visibility, see
``domain/tournament/decider.py``).

The check runs before every read of a game (``/v1/games/<game_id>…``). A
table's tournament is found through the key the driver writes before it
creates the game (``TournamentDesk.tournament_of``); what is found is kept in
this process, so an ordinary game costs one Redis read the first time only.
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict

from flask import current_app, request

from domain.tournament.decider import table_game_id
from eventstore.handler import UnknownGame

from .http import runtime, viewer_seat
from .problems import Problem

CACHE_SIZE = 4096
DOCUMENTS = ("audit.export", "audit.transcript")  # a game as a file to pass on: not even to its seats


def embargo() -> "Embargo":
    return current_app.extensions["stich.embargo"]


def table_tournaments(game_ids: list[str]) -> list[str | None]:
    """The tournament of each game that is a tournament's table (None for an ordinary game)."""
    return [found or None for found in embargo().tournaments_of(game_ids)]


def tournament_of(game_id: str) -> dict | None:
    """The tournament, round and table a game is, or None for an ordinary game: in its summary,
    in every view of it (GET, the command's answer, the stream's), so that they are the same."""
    [tournament_id] = table_tournaments([game_id])
    return table_link(game_id, tournament_id)


def table_link(game_id: str, tournament_id: str | None) -> dict | None:
    """Which tournament, round and table a game is (``tournament_id`` as the table key names it), or None.
    The key is written before the game is created, so a table not yet recorded as opened is found by
    the id its round and table derive."""
    if not tournament_id:
        return None
    try:
        state = runtime().tournaments.handler.load(tournament_id).state
    except UnknownGame:
        return None
    for round_ in reversed(state.rounds):
        for slot in round_.tables:
            if slot.game_id == game_id:
                return {"id": tournament_id, "round": round_.number, "table": slot.table}
    current = state.current
    for slot in current.tables if current else ():
        if table_game_id(tournament_id, current.number, slot.table) == game_id:
            return {"id": tournament_id, "round": current.number, "table": slot.table}
    return None



def refuse_unless_seated(game_id: str, documents: str, reading: str) -> None:
    """An embargoed game's read: its documents (export, transcript) to nobody (``documents`` says why),
    the rest to its own seats only (``reading``)."""
    if request.endpoint in DOCUMENTS:
        raise Problem(403, "embargoed", documents)
    if viewer_seat(game_id, required=False) is None:
        raise Problem(403, "embargoed", reading)

class Embargo:
    def __init__(self, size: int = CACHE_SIZE):
        self.size = size
        self._tournament_of: OrderedDict[str, str] = OrderedDict()  # game id -> tournament id, "" for none
        self._challenge_end: OrderedDict[str, float | None] = OrderedDict()  # game id -> its embargo's end
        self._lock = threading.Lock()

    def check(self) -> None:
        """A before-request hook: refuse a read of an embargoed table's game to all but its seats."""
        game_id = (request.view_args or {}).get("game_id")
        if request.method not in ("GET", "HEAD") or not game_id:
            return
        if self.challenge_embargoed(game_id):
            refuse_unless_seated(game_id,
                                 "this game plays today's daily challenge, which other players may still be playing: "
                                 "nobody, its own player included, exports it or reads its transcript until the day "
                                 "is over",
                                 "this game plays today's daily challenge, which other players may still be playing: "
                                 "only its own player reads it until the day is over")
            return
        tournament_id = self.tournament_of(game_id)
        if tournament_id and self.embargoed(tournament_id, game_id):
            refuse_unless_seated(game_id,
                                 "this table plays a duplicate round's deals, which other tables may still be "
                                 "playing: nobody, its own seats included, exports it or reads its transcript until "
                                 "the round has finished",
                                 "this table plays a duplicate round's deals, which other tables may still be "
                                 "playing: only its own seats can read it until the round has finished")

    def refuse_import(self, game_id: str | None, seed_sha256: str | None = None) -> None:
        """An export of a table of a running duplicate round is not imported (a 403): the imported
        game would be public, and so would the deals the round still plays. The table is found by
        the header's ``game_id`` and, since a header is only a label, by the seed commitment of its
        GameCreated, which the hash chain covers."""
        committed = runtime().tournaments.table_committed_to(seed_sha256) if seed_sha256 else None
        for candidate in dict.fromkeys(i for i in (committed, game_id) if isinstance(i, str) and i):
            self._refuse_table_import(candidate)

    def _refuse_table_import(self, game_id: str) -> None:
        tournament_id = self.tournament_of(game_id)
        if tournament_id and self.embargoed(tournament_id, game_id):
            raise Problem(403, "embargoed", f"game {game_id} is a table of a duplicate round other tables may "
                                            "still be playing: its export is imported once the round has "
                                            "finished")

    def tournaments_of(self, game_ids: list[str]) -> list[str]:
        """``tournament_of`` for many games that exist (they are listed), in one round trip for
        those not known in this process yet; "" for an ordinary game."""
        with self._lock:
            known = {i: self._tournament_of[i] for i in game_ids if i in self._tournament_of}
        missing = [i for i in game_ids if i not in known]
        if missing:
            found = runtime().tournaments.tournaments_of(missing)
            with self._lock:
                for game_id, tournament_id in zip(missing, found):
                    known[game_id] = self._tournament_of[game_id] = tournament_id or ""
                while len(self._tournament_of) > self.size:
                    self._tournament_of.popitem(last=False)
        return [known[i] for i in game_ids]

    def challenge_embargoed(self, game_id: str) -> bool:
        """Whether the game is a daily challenge's whose day is not over. Its end is kept per process once
        known (a game's challenge is written before the game exists, so "none" is final for one that does)."""
        with self._lock:
            until = self._challenge_end.get(game_id, 0.0)
        if until == 0.0:
            rt = runtime()
            found = rt.challenges.embargoed_until(game_id)
            if found is not None or rt.handler.cached(game_id) is not None or rt.store.exists(game_id):
                with self._lock:
                    self._challenge_end[game_id] = found
                    while len(self._challenge_end) > self.size:
                        self._challenge_end.popitem(last=False)
            until = found
        return until is not None and time.time() < until

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
        if not state.keeps_deals_secret:
            return False
        for round_ in state.rounds:
            for slot in round_.tables:
                if table_game_id(tournament_id, round_.number, slot.table) == game_id:
                    return not round_.finished
        return True  # a table of a round this process has not seen drawn yet: the round runs
