"""Turn deadlines: when a human seat's clock runs out, its clock's bot moves for it.

The ``TurnSchedule`` listener keeps one ``turn`` entry per clocked game in the
due-time index (``eventstore/schedule.py``), scored with the earliest running
deadline; every append moves it to the new seq. The sweeper claims entries
that are due and calls ``settle_turn``, which queues a ``time_out_turn`` job
per seat whose time is up. The job re-reads the game and, if that seat is
still on the clock at that seq, sends the system command ``time_out`` with
the bot's move through the one command handler: the table checks the
deadline against the time the events are stamped with, so a job that runs
early or late, twice, or for a game that moved on appends nothing wrong.
"""
from __future__ import annotations

import logging
import time

from domain.errors import RuleViolation
from domain.table import Table
from eventstore.codec import StoredEvent
from eventstore.handler import CommandHandler, Contention, IdempotencyKeyReused, Loaded, StaleSeq, UnknownGame
from eventstore.schedule import Entry, Schedule
from eventstore.store import DueChange

from .dispatch import INTERACTIVE, lane_queue
from .runtime import current_handler

log = logging.getLogger("stich.deadline")

JOB_TIMEOUT_S = 30  # above the largest search budget (2 s), like a bot turn's


class TurnSchedule:
    """Listener: after every append to a clocked game, its ``turn`` entry moves to the new seq,
    due at the earliest running deadline (or goes, when no clock runs)."""

    def __init__(self, schedule: Schedule, table: Table):
        self.schedule = schedule
        self.table = table

    def __call__(self, loaded: Loaded, appended: list[StoredEvent]) -> None:
        self.schedule.write(self.stage(loaded, appended[0].seq - 1))

    def stage(self, loaded: Loaded, previous_seq: int) -> DueChange | None:
        """The entry's change for the game moving from ``previous_seq`` to ``loaded`` (a command's
        append makes it in its own script: eventstore/handler.py)."""
        if loaded.state.clock is None:
            return None
        deadlines = self.table.deadlines(loaded.state)
        due_at = min(deadlines.values()) / 1000 if deadlines else None
        return self.schedule.change("turn", loaded.game_id, previous_seq, loaded.seq, due_at)


def job_id(game_id: str, seq: int, seat: int) -> str:
    return f"turn-{game_id}-{seq}-{seat}"


def enqueue_time_out(queue, game_id: str, seat: int, seq: int, retry: str = "") -> None:
    # The interactive lane: a time-out is a human seat's turn, and the others at its table wait on it.
    lane_queue(queue, INTERACTIVE).enqueue("workers.deadline.time_out_turn", game_id, seat, seq,
                                           job_id=job_id(game_id, seq, seat) + (f"-r{retry}" if retry else ""),
                                           result_ttl=60, failure_ttl=3600, job_timeout=JOB_TIMEOUT_S)


def settle_turn(sweeper, entry: Entry, now: float) -> int:
    """A claimed ``turn`` entry: queue a time-out for every seat whose time is up; an entry of
    a seq the game has left, or with seats still in time, is written again for when it is due."""
    try:
        loaded = sweeper.handler.load(entry.game_id)
    except UnknownGame:
        sweeper.schedule.drop(entry)
        return 0
    deadlines = sweeper.handler.table.deadlines(loaded.state)
    if not deadlines:
        sweeper.schedule.drop(entry)
        return 0
    current = Entry("turn", loaded.game_id, loaded.seq)
    if loaded.seq != entry.seq:
        sweeper.schedule.replace(entry, current, min(deadlines.values()) / 1000)
        return 0
    due = [seat for seat, at_ms in sorted(deadlines.items()) if at_ms <= now * 1000]
    for seat in due:
        enqueue_time_out(sweeper.queue, loaded.game_id, seat, loaded.seq, retry=str(int(now * 1000)))
        log.info("seat %s of game %s timed out at seq %s", seat, loaded.game_id, loaded.seq)
    later = [at_ms for seat, at_ms in deadlines.items() if seat not in due]
    if later:  # another seat's clock runs on (simultaneous decisions): due again at its deadline
        sweeper.schedule.redue(entry, min(later) / 1000)
    # Otherwise the entry keeps the claim's lease: if the job is lost, the time-out is queued again.
    return len(due)


def time_out_turn(game_id: str, seat: int, seq: int, handler: CommandHandler | None = None) -> str:
    """The job: if ``seat`` is still on the clock at ``seq`` and its time is up, its clock's bot moves."""
    from .bot_turn import choose  # the bots' code path, shared with bot seats

    if handler is None:  # an RQ job in a worker process
        handler = current_handler()
    try:
        loaded = handler.load(game_id)
    except UnknownGame:
        return "unknown game"
    state = loaded.state
    if loaded.seq != seq:
        return "moved on"
    due = handler.table.deadlines(state).get(seat)
    if due is None:
        return "not on the clock"
    if due > time.time() * 1000:
        return "not due"
    move = choose(handler, game_id, state, seat, seq, bot=state.clock.bot)
    if move is None:
        return "no legal command"
    try:
        handler.execute(game_id, None, {"type": "time_out", "seat": seat, "move": move}, expected_seq=seq,
                        idempotency_key=f"timeout-{seq}-{seat}")
    except (StaleSeq, Contention, IdempotencyKeyReused):  # the seat moved just in time, or a twin job did
        return "moved on"
    except RuleViolation as exc:  # e.g. this worker's clock runs ahead of the stamping one's: try again later
        return f"rejected: {exc.code}"
    return "timed out"
