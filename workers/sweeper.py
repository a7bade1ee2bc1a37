"""The sweeper: re-drives bot turns whose job was lost.

A bot's job can vanish — its worker killed mid-turn, Redis restarted between
enqueue and pick-up. RQ notices an abandoned job only when the job's
heartbeat expires, which is far too slow for a table waiting on a bot. Every
worker therefore runs a sweeper thread: any active game whose due seat is a
bot and whose last event is older than ``idle_after`` seconds gets a fresh
job. Bot turns are idempotent (expected seq + the key ``bot-<seq>``), so a
turn re-driven twice still moves once.
"""
from __future__ import annotations

import logging
import threading
import time
from datetime import datetime

from eventstore.handler import CommandHandler, UnknownGame
from eventstore.index import GameIndex

from .dispatch import due_bot_seats, job_id

log = logging.getLogger("stich.sweeper")


def event_age(at: str, now: float) -> float:
    return now - datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp()


class Sweeper:
    def __init__(self, handler: CommandHandler, index: GameIndex, queue, idle_after: float = 3.0):
        self.handler = handler
        self.index = index
        self.queue = queue
        self.idle_after = idle_after

    def sweep_once(self, now: float | None = None) -> int:
        """Queue a job for every overdue bot turn; returns how many were queued."""
        now = time.time() if now is None else now
        queued = 0
        for game_id in self.index.ids(status="active"):
            try:
                loaded = self.handler.load(game_id)
            except UnknownGame:
                continue
            seats = due_bot_seats(self.handler, loaded)
            if not seats:
                continue
            last = self.handler.store.read(loaded.game_id, after=loaded.seq - 1)
            age = event_age(last[-1].at, now) if last else 0.0
            if age < self.idle_after:
                continue
            # One retry job per idle window, so several sweepers do not pile up jobs.
            window = int(age // self.idle_after)
            for seat in seats:
                self.queue.enqueue("workers.bot_turn.play_bot_turn", loaded.game_id, seat, loaded.seq,
                                   job_id=f"{job_id(loaded.game_id, loaded.seq, seat)}-r{window}",
                                   result_ttl=60, failure_ttl=3600, job_timeout=30)
                queued += 1
                log.warning("re-driving bot turn of seat %s in game %s at seq %s (idle %.1fs)",
                            seat, loaded.game_id, loaded.seq, age)
        return queued

    def run_forever(self, interval: float, stop: threading.Event) -> None:
        while not stop.wait(interval):
            try:
                self.sweep_once()
            except Exception:  # a sweep must never take the worker down
                log.exception("sweep failed")
