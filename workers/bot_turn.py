"""The bot-turn job: re-read the game, and if the bot is still due, move; then, while only bots
are to act, play their turns too (a bounded run, ``workers/chain.py``).

Job arguments are ids, never objects. A job that finds the game has moved on
(another seq, or the seat no longer to act) exits quietly, so duplicate or
late jobs are harmless; the append's expected seq and the idempotency key
``bot-<seq>`` make a double move impossible. The run's later moves decide from
the state the previous move left in the handler's cache (no reload) and take
the same path: the handler's ``execute``, with the expected seq and the key.
"""
from __future__ import annotations

import os
import random
import time
from datetime import datetime, timezone

from rq import get_current_job

from domain.bots import policy, random_bot
from domain.bots.decision import SeatHistories, decision_for
from domain.errors import RuleViolation
from domain.table import DEFAULT_BUDGET_MS
from eventstore.handler import CommandHandler, Contention, IdempotencyKeyReused, StaleSeq, UnknownGame

from . import chain
from .metrics import BOT_TURN_SECONDS, MOVES
from .runtime import current_handler

# The seats' histories this process's bots have seen: a turn reads only the events since the last.
HISTORIES = SeatHistories()


def choose(handler: CommandHandler, game_id: str, state, seat: int, seq: int, bot: str | None = None) -> dict | None:
    """The seat's bot's command. ``random`` needs only the legal commands; the others decide from
    the seat's view and its redacted history (``domain.bots.decision``), a search within the
    seat's playouts, its wall time capped by the seat's ``budget_ms`` on this process's clock.
    ``bot``: another kind than the seat's (a time-out's)."""
    bot = bot or handler.table.bot_for(state, seat) or "random"
    rng_seed = f"{game_id}:{seq}:{seat}"  # replaying a game's bot turns gives the same moves
    if bot == "random":
        return random_bot.choose(handler.table.legal_commands(state, seat), game_id, seq, seat)
    if not handler.table.legal_commands(state, seat):
        return None
    # The seat's playouts are its budget (None: a game from before they were recorded, or a clock's
    # bot for an abandoned human seat: the game's default); budget_ms only caps the wall time.
    budget_ms = state.seats[seat].budget_ms or DEFAULT_BUDGET_MS
    deadline = time.monotonic() + budget_ms / 1000
    history = HISTORIES.history(game_id, seat, seq, lambda after: [
        e.to_domain() for e in handler.store.read(game_id, after=after, until=seq)])
    decision = decision_for(handler.table, state, None, seat, random.Random(rng_seed),
                            lambda: time.monotonic() >= deadline, budget_ms, history=history,
                            playouts=state.seats[seat].playouts)
    return policy(bot, state.game.name)(decision)


def play_bot_turn(game_id: str, seat: int, seq: int, handler: CommandHandler | None = None) -> str:
    think_ms = 0
    if handler is None:  # an RQ job in a worker process
        handler = current_handler()
        think_ms = int(os.environ.get("STICH_BOT_THINK_MS", "0"))
    try:
        loaded = handler.load(game_id)
        if think_ms and loaded.seq == seq:
            # A pause so humans can follow the bots' moves; only for a turn still due, so stale
            # and duplicate jobs do not hold a worker for the whole pause. Then look again.
            time.sleep(think_ms / 1000)
            loaded = handler.load(game_id)
    except UnknownGame:
        return "unknown game"
    if loaded.seq != seq:
        return "moved on"
    if seat not in handler.table.to_act(loaded.state) or handler.table.bot_for(loaded.state, seat) is None:
        return "not due"
    # With a think pause every move is a job of its own, so each waits its pause.
    with chain.running(game_id, 1 if think_ms else chain.max_moves(), chain.max_seconds()) as run:
        while True:
            run.played += 1
            outcome = play(handler, loaded, seat)
            if isinstance(outcome, str):
                return outcome if run.played == 1 else "played"
            record_move(loaded.state.game.name, queued=run.played == 1)
            if not run.goes_on(handler.table, outcome.loaded):
                return "played"
            loaded = outcome.loaded  # the handler's fold after our move: nothing to reload
            seat = min(handler.table.to_act(loaded.state))  # every seat to act is a bot's (goes_on)


def play(handler: CommandHandler, loaded, seat: int):
    """``seat``'s bot's move in ``loaded`` through the command handler: its ``Outcome``, or why not."""
    command = choose(handler, loaded.game_id, loaded.state, seat, loaded.seq)
    if command is None:
        return "no legal command"
    try:
        outcome = handler.execute(loaded.game_id, seat, command, expected_seq=loaded.seq,
                                  idempotency_key=f"bot-{loaded.seq}")
    except (StaleSeq, Contention, IdempotencyKeyReused):  # another attempt at this turn got there first
        return "moved on"
    except RuleViolation as exc:  # would be a bug in legal_commands; leave it to the sweeper/logs
        return f"rejected: {exc.code}"
    if outcome.duplicate:  # that attempt appended it (and its listeners ran): it carries the game on
        return "moved on"
    return outcome


def record_move(game: str, queued: bool = True) -> None:
    """``queued``: the job's first move, which waited in the queue (a run's later moves did not)."""
    MOVES.labels(game).inc()
    job = get_current_job() if queued else None  # None when played inline (tests, single process): no queue to wait in
    if job is not None and job.enqueued_at is not None:
        waited = datetime.now(timezone.utc) - job.enqueued_at.replace(tzinfo=timezone.utc)
        BOT_TURN_SECONDS.labels(game).observe(max(waited.total_seconds(), 0.0))
