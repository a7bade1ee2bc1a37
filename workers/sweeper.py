"""The sweeper: re-drives bot turns whose job was lost, reading only what is due.

A bot's job can vanish — its worker killed mid-turn, Redis restarted between
enqueue and pick-up. RQ notices an abandoned job only when the job's
heartbeat expires, which is far too slow for a table waiting on a bot. So
when a bot becomes due, the ``BotSchedule`` listener records the turn in the
due-time index (``eventstore/schedule.py``), overdue ``idle_after`` seconds
later; the bot's own move removes the entry. Every worker runs a sweeper
thread that, each interval, claims the entries that are overdue (bounded:
``batch`` per claim, ``max_per_pass`` per pass), loads just those games and
queues a fresh job for a bot turn still due. A pass therefore costs in
proportion to the overdue turns, not to the games that exist.

The claim moves an entry's score to the end of a lease of ``idle_after``: two
sweepers never re-drive one turn at once, and if the re-driven job is lost
too (or the sweeper dies) the entry comes due again. Bot turns are idempotent
(expected seq + the key ``bot-<seq>``), so a turn re-driven twice still moves
once.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from datetime import datetime

import redis

from domain.table import Table
from eventstore.codec import StoredEvent
from eventstore.handler import CommandHandler, Loaded, UnknownGame
from eventstore.index import GameIndex
from eventstore.schedule import Entry, Schedule
from eventstore.store import DueChange

from .deadline import settle_turn
from .dispatch import bots_to_act, due_bot_seats, enqueue_turn, lane_of, sweep_after
from .start import KIND as START, settle_start
from .tournament import settle_tournament

log = logging.getLogger("stich.sweeper")

BACKFILL_QUIET_S = 600.0  # a rolling restart of many workers makes one backfill pass, not one each


def event_time(at: str) -> float:
    return datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp()


class BotSchedule:
    """Listener: after every append, the game's ``bot`` entry in the due-time index is
    moved to the new seq if a bot is due, else removed.

    It runs before the dispatcher, so the entry exists before the job: a
    process that dies between the two leaves a turn the sweeper will find."""

    def __init__(self, schedule: Schedule, table: Table, grace: float, clock: Callable[[], float] = time.time):
        self.schedule = schedule
        self.table = table
        self.grace = grace
        self.clock = clock

    def __call__(self, loaded: Loaded, appended: list[StoredEvent]) -> None:
        self.schedule.write(self.stage(loaded, appended[0].seq - 1))

    def stage(self, loaded: Loaded, previous_seq: int) -> DueChange | None:
        """The entry's change for the game moving from ``previous_seq`` to ``loaded`` (a command's
        append makes it in its own script: eventstore/handler.py)."""
        state = loaded.state
        if state.clock is None and not any(seat.kind == "bot" for seat in state.seats):
            return None  # no bot ever acts in this game (with a clock, one may play an abandoned seat)
        due_at = self.clock() + self.grace if bots_to_act(self.table, state) else None
        return self.schedule.change("bot", loaded.game_id, previous_seq, loaded.seq, due_at)


class Sweeper:
    def __init__(self, handler: CommandHandler, schedule: Schedule, queue, idle_after: float = 3.0,
                 batch: int = 100, max_per_pass: int = 1000):
        self.handler = handler
        self.schedule = schedule
        self.queue = queue
        self.idle_after = idle_after
        self.batch = batch
        self.max_per_pass = max_per_pass

    def sweep_once(self, now: float | None = None) -> int:
        """Queue a job for every overdue bot turn (up to ``max_per_pass`` entries); returns how many."""
        now = time.time() if now is None else now
        queued = claimed = 0
        while claimed < self.max_per_pass:
            entries = self.schedule.claim(now, now + self.idle_after, min(self.batch, self.max_per_pass - claimed))
            claimed += len(entries)
            for entry in entries:
                try:
                    queued += self._settle(entry, now)
                except Exception:  # one bad game must not stop the pass; its lease ends and it is tried again
                    log.exception("sweeping %s failed", entry.member)
            if len(entries) < self.batch:
                break
        return queued

    def _settle(self, entry: Entry, now: float) -> int:
        if entry.kind == "tournament":
            return settle_tournament(self, entry, now)
        if entry.kind == "turn":
            return settle_turn(self, entry, now)
        if entry.kind == START:
            return settle_start(self, entry, now)
        if entry.kind != "bot":
            return 0  # a kind a newer server writes: left for its sweeper (our claim only delays it)
        try:
            loaded = self.handler.load(entry.game_id)
        except UnknownGame:
            self.schedule.drop(entry)
            return 0
        seats = due_bot_seats(self.handler, loaded)
        if not seats:  # the bot moved, a human is to act, or the game is over
            self.schedule.drop(entry)
            return 0
        if loaded.seq != entry.seq:
            # Left behind by a late listener, or by a process that died between its append and
            # its listener: the turn due now gets its own entry, claimed on a later pass like any other.
            self.schedule.replace(entry, Entry("bot", loaded.game_id, loaded.seq), self.overdue_at(loaded, now))
            return 0
        for seat in seats:
            enqueue_turn(self.queue, loaded.game_id, seat, loaded.seq, retry=str(int(now * 1000)),
                         lane=lane_of(loaded.state, seat))
            log.warning("re-driving bot turn of seat %s in game %s at seq %s", seat, loaded.game_id, loaded.seq)
        return len(seats)

    def overdue_at(self, loaded: Loaded, now: float) -> float:
        """When the turn due in ``loaded`` is overdue: ``idle_after`` after its game's last event."""
        last = self.handler.store.read(loaded.game_id, after=loaded.seq - 1)
        return event_time(last[-1].at) + self.idle_after if last else now

    def backfill(self, index: GameIndex, page_size: int = 500, max_games: int = 1_000_000) -> int:
        """One paged pass over the active games in the game list: an entry for every due bot
        turn and every running clock that has none — games that became due before the due-time
        index existed, or whose appending process died before its listener ran. Returns how many
        entries it added."""
        added = 0
        for seen, game_id in enumerate(index.ids(status="active", page_size=page_size)):
            if seen >= max_games:
                log.warning("backfill stopped after %s active games", max_games)
                break
            try:
                loaded = self.handler.load(game_id)
            except UnknownGame:
                continue
            deadlines = self.handler.table.deadlines(loaded.state)
            if deadlines and self.schedule.add(Entry("turn", game_id, loaded.seq), min(deadlines.values()) / 1000):
                added += 1  # a clock whose entry was lost with its appending process
            if not due_bot_seats(self.handler, loaded):
                continue
            if self.schedule.add(Entry("bot", game_id, loaded.seq), self.overdue_at(loaded, time.time())):
                added += 1
        return added

    def backfill_unless_recent(self, index: GameIndex, holder: str, stop: threading.Event | None = None,
                               retry_s: float = 1.0, give_up_after_s: float = 600.0) -> int | None:
        """``backfill``, unless another worker started one within ``BACKFILL_QUIET_S``. A worker that
        starts while the store is down waits for it (up to ``give_up_after_s``, or until ``stop``)
        instead of losing its pass."""
        waited = 0.0
        while True:
            try:
                if not self.schedule.reserve("backfill", BACKFILL_QUIET_S, holder):
                    return None
                break
            except (redis.ConnectionError, redis.TimeoutError) as exc:
                if waited == 0.0:
                    log.warning("the backfill waits for the store: %s", exc)
                if waited >= give_up_after_s or (stop or threading.Event()).wait(retry_s):
                    return None
                waited += retry_s
        try:
            added = self.backfill(index)
        except Exception:  # a backfill must never take the worker down
            log.exception("backfill failed")
            return None
        if added:
            log.warning("backfill: %s due bot turns had no entry", added)
        return added

    def run_forever(self, interval: float, stop: threading.Event) -> None:
        store_down = False
        while not stop.wait(interval):
            try:
                self.sweep_once()
                store_down = False
            except (redis.ConnectionError, redis.TimeoutError) as exc:  # one line per outage, not per pass
                if not store_down:
                    log.warning("sweeps wait for the store: %s", exc)
                store_down = True
            except Exception:  # a sweep must never take the worker down
                log.exception("sweep failed")
