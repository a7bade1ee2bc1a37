"""Who runs a due bot turn: RQ in production, an inline queue in tests.

Both are listeners of the command handler: after every append they look at
who is to act and queue one job per due bot seat, with the deterministic id
``bot-<game>-<seq>-<seat>`` — unless the bot job that made the move plays the
next bot turn itself (``workers/chain.py``: bot-only stretches of a game run
in one job, up to a bound).

With RQ a turn goes into one of three lanes, each an RQ queue of its own,
so that nobody waiting at a table queues behind work nobody waits for:

* ``interactive`` (``<base>-interactive``): games with a human seat, a turn
  capped at ``LONG_SEARCH_MS`` of thinking or less — what a person is waiting on now;
* ``slow`` (``<base>-slow``): games with a human seat whose bot may search
  longer (the person chose to wait for it, but nobody else should);
* ``bulk`` (the base name, ``stich-bots``): bot-only games and tournament
  tables without humans, and every job that names no lane (a tournament
  driver's pass, jobs queued by an older server);
* ``analysis`` (``<base>-analysis``): the analyses of finished games
  (``workers/analysis.py``), up to minutes of search each, which nobody plays on.

A worker takes the lanes in that order (RQ pops its queues in priority
order), and ``stich serve`` also runs one worker for the interactive lane
alone: priority alone does not help while every worker is inside a 2 s search
or a tournament's backlog, so the human's next bot turn needs a worker that
never starts such a job. For the same reason no worker drains the analysis
lane unless told to (``BOT_LANES`` is the default): an analysis in a bot
worker's hands held up every bot-only game and tournament table queued behind
it for its whole length, so analyses run on workers of their own, niced to
yield the cores to the games (``workers/worker.py``; the figures:
docs/reliability.md).
"""
from __future__ import annotations

import os
import threading
from collections import deque

from rq import Queue

from domain.table import DEFAULT_BUDGET_MS, Table, TableState
from eventstore.codec import StoredEvent
from eventstore.handler import CommandHandler, Loaded

from . import chain

QUEUE_NAME = "stich-bots"  # the base name: the bulk lane's queue, and the others' prefix

INTERACTIVE, SLOW, BULK, ANALYSIS = "interactive", "slow", "bulk", "analysis"
LANES = (INTERACTIVE, SLOW, BULK, ANALYSIS)  # a worker's priority order
BOT_LANES = (INTERACTIVE, SLOW, BULK)  # what a worker drains unless told: the games' lanes, no analyses
# A turn of a human's game whose search may think longer than this goes to the slow lane: a seat's
# wall-clock cap (``budget_ms``) bounds its decision whatever its playouts, and the default cap stays
# interactive. The interactive worker then answers within about this long plus a few ms even when
# the turn ahead of it is another person's search (typically far less: the default playouts take
# a fraction of the cap, docs/performance.md).
LONG_SEARCH_MS = DEFAULT_BUDGET_MS


def sweep_after() -> float:
    """Seconds a due bot turn may stay unplayed before it is re-driven (``STICH_SWEEP_AFTER``)."""
    return float(os.environ.get("STICH_SWEEP_AFTER", "3"))


def lane_of(state: TableState, seat: int) -> str:
    """The lane of ``seat``'s bot turn: by whether a person plays in the game, and how long the bot thinks.
    A human seat's abandoned turn (its clock's bot) thinks at the default budget."""
    if not any(s.kind == "human" for s in state.seats):
        return BULK
    budget = state.seats[seat].budget_ms
    return SLOW if budget is not None and budget > LONG_SEARCH_MS else INTERACTIVE


def lane_name(base: str, lane: str) -> str:
    return base if lane == BULK else f"{base}-{lane}"


def lane_queue(queue, lane: str):
    """The RQ queue of ``lane`` beside ``queue`` (the base one), with its connection and serializer.
    Anything else standing in for a queue (a test's recorder) takes every lane's jobs itself."""
    if lane == BULK or not isinstance(queue, Queue):
        return queue
    return Queue(lane_name(queue.name, lane), connection=queue.connection, serializer=queue.serializer)


def lane_queues(queue, lanes=BOT_LANES) -> list:
    """A worker's queues, in the priority order of ``LANES`` whatever order ``lanes`` names them in."""
    unknown = set(lanes) - set(LANES)
    if unknown or not lanes:
        raise ValueError(f"lanes are {', '.join(LANES)}; not {', '.join(sorted(unknown)) or 'none'}")
    return [lane_queue(queue, lane) for lane in LANES if lane in lanes]


def bots_to_act(table: Table, state: TableState) -> list[int]:
    """The seats a bot plays now: bot seats, and human seats abandoned after timing out."""
    return [seat for seat in sorted(table.to_act(state)) if table.bot_for(state, seat) is not None]


def due_bot_seats(handler: CommandHandler, loaded: Loaded) -> list[int]:
    return bots_to_act(handler.table, loaded.state)


def seats_to_queue(handler: CommandHandler, loaded: Loaded) -> list[int]:
    """The due bot seats that need a job: none when the bot job that made this move plays them
    itself (``workers/chain.py``)."""
    if chain.claims(handler.table, loaded):
        return []
    return due_bot_seats(handler, loaded)


def job_id(game_id: str, seq: int, seat: int) -> str:
    return f"bot-{game_id}-{seq}-{seat}"


def enqueue_turn(queue, game_id: str, seat: int, seq: int, retry: str = "", lane: str = BULK) -> None:
    """One bot-turn job in ``lane`` (beside the base ``queue``); ``retry`` (a sweeper's) tells a
    re-drive's job id from the first one's."""
    lane_queue(queue, lane).enqueue("workers.bot_turn.play_bot_turn", game_id, seat, seq,
                                    job_id=job_id(game_id, seq, seat) + (f"-r{retry}" if retry else ""),
                                    result_ttl=60, failure_ttl=3600, job_timeout=30)


class RQDispatcher:
    def __init__(self, queue):
        self.queue = queue
        self.handler: CommandHandler | None = None

    def __call__(self, loaded: Loaded, appended: list[StoredEvent]) -> None:
        for seat in seats_to_queue(self.handler, loaded):
            enqueue_turn(self.queue, loaded.game_id, seat, loaded.seq, lane=lane_of(loaded.state, seat))


class InlineDispatcher:
    """Runs bot turns in the calling thread, iteratively (never recursively),
    until no bot is due. Used by tests and by single-process tools."""

    def __init__(self):
        self.handler: CommandHandler | None = None
        self._pending: deque = deque()
        self._local = threading.local()

    def __call__(self, loaded: Loaded, appended: list[StoredEvent]) -> None:
        from .bot_turn import play_bot_turn

        for seat in seats_to_queue(self.handler, loaded):
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
