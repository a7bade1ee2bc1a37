"""Who runs a due bot turn: RQ in production, an inline queue in tests.

Both are listeners of the command handler: after every append they look at
who is to act and queue one job per due bot seat, with the deterministic id
``bot-<game>-<seq>-<seat>``.
"""
from __future__ import annotations

import threading
from collections import deque

from domain.table import Table, TableState
from eventstore.codec import StoredEvent
from eventstore.handler import CommandHandler, Loaded

QUEUE_NAME = "stich-bots"


def bots_to_act(table: Table, state: TableState) -> list[int]:
    """The seats a bot plays now: bot seats, and human seats abandoned after timing out."""
    return [seat for seat in sorted(table.to_act(state)) if table.bot_for(state, seat) is not None]


def due_bot_seats(handler: CommandHandler, loaded: Loaded) -> list[int]:
    return bots_to_act(handler.table, loaded.state)


def job_id(game_id: str, seq: int, seat: int) -> str:
    return f"bot-{game_id}-{seq}-{seat}"


def enqueue_turn(queue, game_id: str, seat: int, seq: int, retry: str = "") -> None:
    """One bot-turn job; ``retry`` (a sweeper's) tells a re-drive's job id from the first one's."""
    queue.enqueue("workers.bot_turn.play_bot_turn", game_id, seat, seq,
                  job_id=job_id(game_id, seq, seat) + (f"-r{retry}" if retry else ""),
                  result_ttl=60, failure_ttl=3600, job_timeout=30)


class RQDispatcher:
    def __init__(self, queue):
        self.queue = queue
        self.handler: CommandHandler | None = None

    def __call__(self, loaded: Loaded, appended: list[StoredEvent]) -> None:
        for seat in due_bot_seats(self.handler, loaded):
            enqueue_turn(self.queue, loaded.game_id, seat, loaded.seq)


class InlineDispatcher:
    """Runs bot turns in the calling thread, iteratively (never recursively),
    until no bot is due. Used by tests and by single-process tools."""

    def __init__(self):
        self.handler: CommandHandler | None = None
        self._pending: deque = deque()
        self._local = threading.local()

    def __call__(self, loaded: Loaded, appended: list[StoredEvent]) -> None:
        from .bot_turn import play_bot_turn

        for seat in due_bot_seats(self.handler, loaded):
            self._pending.append((loaded.game_id, seat, loaded.seq))
        if getattr(self._local, "draining", False):
            return
        self._local.draining = True
        try:
            while True:
                try:  # other threads drain the same queue: pop, never check-then-pop
                    game_id, seat, seq = self._pending.popleft()
                except IndexError:
                    break
                play_bot_turn(game_id, seat, seq, handler=self.handler)
        finally:
            self._local.draining = False
