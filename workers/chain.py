"""A bot job's run of moves: the job that has just moved plays the next bot turn too.

One RQ job per bot move made a bot-only table wait for the queue at every move: a job's pick-up
and bookkeeping cost more than a random bot's whole move. So a bot-turn job goes on with the next
turn, deciding from the state its own move left in this process's cached fold, while

* every seat to act is a bot's: a person's turn is never played past, and a turn a person shares
  with a bot (simultaneous predictions) is left to the dispatcher, as before;
* the run has played fewer than ``STICH_BOT_CHAIN`` moves and for less than
  ``STICH_BOT_CHAIN_S`` seconds (a search bot's table), so one table never holds a worker for
  long: the rest is queued as before, in its lane, behind the other tables' turns;
* there is no think pause (``STICH_BOT_THINK_MS``): with one, every move is its own job.

The dispatchers ask ``claims`` before queueing a due bot turn, and skip the turns a running run
will play itself: a job queued for them would only find the seq moved on (measured in
docs/performance.md: skipping is the cheaper way). The run asks the same question of the same
state after its move and gets the same, remembered answer, so no turn is both skipped and left
unplayed by a live run. Every move still goes through the one command handler with its expected
seq and idempotency key, and still gets its due-time entry first (``BotSchedule`` runs before the
dispatcher), so a worker killed mid-run leaves a turn the sweeper re-drives, and a duplicate job
finds the seq moved on.
"""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from domain.table import Table
from eventstore.handler import Loaded

DEFAULT_MOVES = 64  # a Schafkopf deal is about 40 events: a run plays a deal or two, then queues the rest
DEFAULT_SECONDS = 0.5  # about three or four default searches (100-160 playouts, about 110-150 ms each here): a search table gives its worker up as often


def max_moves() -> int:
    """Moves one job plays at most (``STICH_BOT_CHAIN``; 1: one job per move, as before runs)."""
    return max(1, int(os.environ.get("STICH_BOT_CHAIN", str(DEFAULT_MOVES))))


def max_seconds() -> float:
    """Seconds after which a run starts no further move (``STICH_BOT_CHAIN_S``)."""
    return float(os.environ.get("STICH_BOT_CHAIN_S", str(DEFAULT_SECONDS)))


class Run:
    """One job's run of moves in one game. ``played`` counts the moves made or being made."""

    def __init__(self, game_id: str, moves: int, seconds: float, clock=time.monotonic):
        self.game_id = game_id
        self.moves = moves
        self.clock = clock
        self.until = clock() + seconds
        self.played = 0
        self._answer: tuple[int, bool] | None = None  # (seq, whether this run plays the turn due at seq)

    def goes_on(self, table: Table, loaded: Loaded) -> bool:
        """Whether this run plays the turn due in ``loaded`` itself. Asked by the dispatcher (inside
        the move's append) and by the run (after it): the first answer for a seq is kept, so the
        clock cannot make the two disagree."""
        if loaded.game_id != self.game_id:
            return False
        if self._answer is not None and self._answer[0] == loaded.seq:
            return self._answer[1]
        to_act = table.to_act(loaded.state)
        answer = (self.played < self.moves and self.clock() < self.until and bool(to_act)
                  and all(table.bot_for(loaded.state, seat) is not None for seat in to_act))
        self._answer = (loaded.seq, answer)
        return answer


_local = threading.local()


@contextmanager
def running(game_id: str, moves: int, seconds: float) -> Iterator[Run]:
    """A run in this thread for the duration of the block (a job's); an outer one is restored after."""
    outer = getattr(_local, "run", None)
    _local.run = run = Run(game_id, moves, seconds)
    try:
        yield run
    finally:
        _local.run = outer


def claims(table: Table, loaded: Loaded) -> bool:
    """Whether a run in this thread will play the bot turn due in ``loaded`` (so it needs no job)."""
    run = getattr(_local, "run", None)
    return run is not None and run.goes_on(table, loaded)
