"""Every game ends: the idle sweep ends games and tournaments nothing has happened in for too long.

A game waiting for a person who never comes, or for a move that never comes in a game without a
clock, would otherwise wait for ever, holding its entry in the open games, its creator's quota and
every stream that follows it. Each game records its idle ceiling (``GameCreated.limits.max_idle_s``,
``domain/limits.py``; the server's default ``STICH_IDLE_AFTER``, six hours); once that long has
passed since its last event, the sweep sends the system's ``end_game`` with reason ``idle`` through
the command handler — the one path every move takes — and the table decides it at the time it is
stamped with: ``GameCutShort`` (reason ``idle``, ``idle_since``), then the seed reveal; the
standings are those of the deals settled so far.

A paused table is left alone: it waits for its tournament. A tournament waiting to start, or
paused, with no event for the server's idle time is aborted by the system (reason ``idle``), and an
aborted tournament's open tables are ended by its driver (``workers/tournament.py``, reason
``aborted``), so they leave the open games too.

A pass pages through the unfinished games of the game list (and the tournaments of theirs), reading
each one's last event in pipelined batches: it costs one round trip per ``BATCH`` games, and loads only
the games idle long enough to be candidates. One worker makes a pass per ``interval`` (a lock in
Redis); the others skip it.
"""
from __future__ import annotations

import logging
import os
import threading
import time

from domain.clock import iso, millis
from domain.errors import RuleViolation
from domain.limits import DEFAULT_IDLE_S, IDLE_S_RANGE
from domain.table import IDLE
from eventstore.handler import CommandHandler, Contention, StaleSeq, UnknownGame
from eventstore.index import GameIndex

log = logging.getLogger("stich.idle")

BATCH = 500  # games whose last event one round trip reads
INTERVAL_S = 60.0


def idle_after() -> int:
    """The server's default idle ceiling for new games, and its tournaments' (``STICH_IDLE_AFTER``, s)."""
    value = int(os.environ.get("STICH_IDLE_AFTER", DEFAULT_IDLE_S))
    low, high = IDLE_S_RANGE
    if not low <= value <= high:
        raise ValueError(f"STICH_IDLE_AFTER must be {low}..{high} seconds, not {value}")
    return value


class IdleSweep:
    def __init__(self, handler: CommandHandler, index: GameIndex, tournaments=None,
                 tournament_idle_s: int = DEFAULT_IDLE_S):
        """``tournaments``: a ``TournamentDesk`` (its handler and list), whose waiting and paused
        tournaments idle for ``tournament_idle_s`` are aborted."""
        self.handler = handler
        self.index = index
        self.tournaments = tournaments
        self.tournament_idle_s = tournament_idle_s
        self.redis = handler.store.redis
        self.lock_key = f"{handler.store.prefix}:idle:pass"

    def pass_once(self, now_ms: int | None = None) -> dict[str, int]:
        """One pass over every unfinished game and tournament: how many were ended."""
        now_ms = int(time.time() * 1000) if now_ms is None else now_ms
        ended = {"games": 0, "tournaments": 0}
        for status in ("waiting", "active"):
            for batch in _batches(self.index.ids(status=status), BATCH):
                ended["games"] += self._end_idle(self.handler, batch, now_ms, self._end_game)
        if self.tournaments is not None:
            desk = self.tournaments
            for status in ("waiting", "active"):
                for batch in _batches(desk.index.ids(status=status), BATCH):
                    ended["tournaments"] += self._end_idle(desk.handler, batch, now_ms, self._abort_tournament)
        return ended

    def _end_idle(self, handler: CommandHandler, ids: list[str], now_ms: int, end) -> int:
        shortest = IDLE_S_RANGE[0] * 1000  # no game ends sooner: only older ones are loaded
        last = handler.store.last_events(ids)
        ended = 0
        for game_id, event in last.items():
            if now_ms - millis(event.at) >= shortest:
                try:
                    ended += end(game_id, now_ms)
                except (RuleViolation, StaleSeq, Contention, UnknownGame):  # moved or ended meanwhile
                    pass
        return ended

    def _end_game(self, game_id: str, now_ms: int) -> int:
        loaded = self.handler.load(game_id)
        state = loaded.state
        if (state.status not in ("waiting", "active") or state.cut_short or state.paused or state.last_at is None
                or now_ms - millis(state.last_at) < state.limits.max_idle_s * 1000):
            return 0
        # Pinned to the seq it saw: a move meanwhile makes the game not idle, and the append refuses it.
        self.handler.execute(game_id, None, {"type": "end_game", "reason": IDLE}, expected_seq=loaded.seq,
                             idempotency_key=f"idle-{loaded.seq}")
        log.info("ended game %s: idle since %s", game_id, state.last_at)
        return 1

    def _abort_tournament(self, tournament_id: str, now_ms: int) -> int:
        handler = self.tournaments.handler
        loaded = handler.load(tournament_id)
        state = loaded.state
        waiting_or_paused = state.status == "waiting" or (state.status == "active" and state.paused)
        last = handler.store.last_events([tournament_id]).get(tournament_id)
        if not waiting_or_paused or last is None or now_ms - millis(last.at) < self.tournament_idle_s * 1000:
            return 0
        reason = (f"idle: nothing happened since {last.at} ({self.tournament_idle_s} s), "
                  f"{'waiting to start' if state.status == 'waiting' else 'paused'}")
        handler.execute(tournament_id, None, {"type": "abort", "reason": reason}, expected_seq=loaded.seq,
                        idempotency_key=f"idle-{loaded.seq}")
        log.info("aborted tournament %s: %s", tournament_id, reason)
        return 1

    def run_forever(self, stop: threading.Event, interval: float = INTERVAL_S) -> None:
        """A pass every ``interval`` by whichever worker takes the lock first; a failed pass is logged
        and the next one tries again (a store outage must not end the thread)."""
        while not stop.wait(interval):
            try:
                if self.redis.set(self.lock_key, iso(int(time.time() * 1000)), nx=True, ex=max(1, int(interval))):
                    self.pass_once()
            except Exception:
                log.exception("an idle sweep pass failed; the next one tries again")


def _batches(ids, size: int):
    batch = []
    for game_id in ids:
        batch.append(game_id)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
