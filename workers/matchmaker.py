"""The matchmaker: quick play's pools (``eventstore/pools.py``) made into tables, through the one handler.

A match's game is created under the id the match derives, with every seat of a waiting player kept for
that player and taken by it at once (``SeatTaken.player``) and the rest of the seats bots of the pool's
kind, so it starts as soon as it exists: its players learn their table from their entries and play with
their player tokens. A join tries to seat at once (the API calls ``seat_now``); the workers' pass, every
``INTERVAL_S``, seats tables whose oldest entry has waited long enough for bots, expires entries that
waited too long, and creates the games of matches whose matcher died before it could.
"""
from __future__ import annotations

import logging
import threading
import time

from domain.table import TableState
from eventstore.handler import CommandHandler
from eventstore.pools import POOLS, Match, Pool, Pools

log = logging.getLogger("stich.matchmaker")

INTERVAL_S = 0.5
RECOVER_AFTER_S = 5.0  # a pending match this old has lost its matcher


def create_game(handler: CommandHandler, pool: Pool, match: Match) -> str:
    """The match's game (created once: its id is the match's)."""
    table = handler.table
    seats = ([{"kind": "human", "player": handle} for handle in match.players]
             + [{"kind": "bot", "bot": pool.bot}] * (pool.players - len(match.players)))

    def build(commitment: str):
        events = table.create(pool.game, pool.players, pool.rules, seats, None, commitment, rated=pool.rated)
        state = table.fold(TableState(), events)
        for seat, handle in enumerate(match.players):  # every player's seat taken now: the game waits for nobody
            taken = table.decide(state, None, {"type": "take_seat", "seat": seat, "player": handle})
            events, state = events + taken, table.fold(state, taken)
        return events

    return handler.create_with(build, game_id=match.game_id).game_id


class Matchmaker:
    def __init__(self, handler: CommandHandler, pools: Pools):
        self.handler = handler
        self.pools = pools

    def seat_now(self, pool: Pool) -> list[Match]:
        return self.pools.match(pool, lambda match: self._create(pool, match))

    def _create(self, pool: Pool, match: Match) -> None:
        create_game(self.handler, pool, match)

    def pass_once(self, now: float | None = None) -> int:
        now = time.time() if now is None else now
        made = 0
        for pool in POOLS.values():
            try:
                made += len(self.pools.match(pool, lambda match, pool=pool: self._create(pool, match), now))
            except Exception:
                log.exception("matching pool %s failed", pool.name)
        for match in self.pools.pending():
            if now - match.created_at >= RECOVER_AFTER_S and match.pool in POOLS:
                create_game(self.handler, POOLS[match.pool], match)
                self.pools.seat(match, now)
        return made

    def run_forever(self, stop: threading.Event, interval: float = INTERVAL_S) -> None:
        while not stop.wait(interval):
            try:
                self.pass_once()
            except Exception:
                log.exception("a matchmaker pass failed; the next one tries again")
