"""The bot-turn job: re-read the game, and if the bot is still due, move.

Job arguments are ids, never objects. A job that finds the game has moved on
(another seq, or the seat no longer to act) exits quietly, so duplicate or
late jobs are harmless; the append's expected seq and the idempotency key
``bot-<seq>`` make a double move impossible.
"""
from __future__ import annotations

import os
import random
import time
from datetime import datetime, timezone

from rq import get_current_job

from domain.bots import policy, random_bot
from domain.bots.decision import decision_for
from domain.errors import RuleViolation
from domain.table import DEFAULT_BUDGET_MS
from eventstore.handler import CommandHandler, Contention, IdempotencyKeyReused, StaleSeq, UnknownGame

from .metrics import BOT_TURN_SECONDS, MOVES
from .runtime import current_handler


def choose(handler: CommandHandler, game_id: str, state, seat: int, seq: int, bot: str | None = None) -> dict | None:
    """The seat's bot's command. ``random`` needs only the legal commands; the others decide from
    the seat's view and its redacted history (``domain.bots.decision``), a search within the
    seat's budget, timed by this process's clock. ``bot``: another kind than the seat's (a time-out's)."""
    bot = bot or handler.table.bot_for(state, seat) or "random"
    rng_seed = f"{game_id}:{seq}:{seat}"  # replaying a game's bot turns gives the same moves
    if bot == "random":
        return random_bot.choose(handler.table.legal_commands(state, seat), game_id, seq, seat)
    if not handler.table.legal_commands(state, seat):
        return None
    budget_ms = state.seats[seat].budget_ms or DEFAULT_BUDGET_MS
    deadline = time.monotonic() + budget_ms / 1000
    events = [e.to_domain() for e in handler.store.read(game_id, until=seq)]
    decision = decision_for(handler.table, state, events, seat, random.Random(rng_seed),
                            lambda: time.monotonic() >= deadline, budget_ms)
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
    state = loaded.state
    if loaded.seq != seq:
        return "moved on"
    if seat not in handler.table.to_act(state) or handler.table.bot_for(state, seat) is None:
        return "not due"
    command = choose(handler, game_id, state, seat, seq)
    if command is None:
        return "no legal command"
    try:
        handler.execute(game_id, seat, command, expected_seq=seq, idempotency_key=f"bot-{seq}")
    except (StaleSeq, Contention, IdempotencyKeyReused):  # another attempt at this turn got there first
        return "moved on"
    except RuleViolation as exc:  # would be a bug in legal_commands; leave it to the sweeper/logs
        return f"rejected: {exc.code}"
    record_move(state.game.name)
    return "played"


def record_move(game: str) -> None:
    MOVES.labels(game).inc()
    job = get_current_job()  # None when played inline (tests, single process): no queue to wait in
    if job is not None and job.enqueued_at is not None:
        waited = datetime.now(timezone.utc) - job.enqueued_at.replace(tzinfo=timezone.utc)
        BOT_TURN_SECONDS.labels(game).observe(max(waited.total_seconds(), 0.0))
