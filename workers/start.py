"""A set start: a game created with ``start_at`` (bulk pairing, api/bulk.py) starts then.

The game waits with every seat taken and nobody to act. Its creator records
``start|<game id>|0`` in the due-time index (``eventstore/schedule.py``), scored
with ``start_at``; the sweeper that claims the entry once it is due sends the
system command ``start`` through the one command handler. The table decides it
*at* the time its events are stamped with and refuses it before ``start_at``,
so a sweeper whose clock runs ahead appends nothing: the entry comes due again
a moment later. ``GameStarted`` is then stamped with that time and the seats'
clocks start from it. The idempotency key ``start`` makes a doubled start one.
"""
from __future__ import annotations

import logging

from domain.errors import RuleViolation
from eventstore.handler import CommandHandler, Contention, UnknownGame
from eventstore.schedule import Entry, Schedule

log = logging.getLogger("stich.start")

KIND = "start"  # its entries in the due-time index
RETRY_S = 1.0  # a start refused as early (clocks of two machines) is tried again this much later


def schedule_start(schedule: Schedule | None, game_id: str, start_at_ms: int) -> None:
    """Record the game's start (idempotent: an entry already there, perhaps leased, stays)."""
    if schedule is not None:
        schedule.add(Entry(KIND, game_id, 0), start_at_ms / 1000)


def start_game(handler: CommandHandler, game_id: str) -> str:
    """Send ``start`` if the game still waits for it; what happened, in a word or two."""
    try:
        loaded = handler.load(game_id)
    except UnknownGame:
        return "unknown game"
    if loaded.state.status != "waiting" or loaded.state.start_at_ms is None:
        return "not waiting"
    try:
        handler.execute(game_id, None, {"type": "start"}, idempotency_key="start")
    except Contention:
        return "busy"
    except RuleViolation as exc:
        return f"rejected: {exc.code}"
    return "started"


def settle_start(sweeper, entry: Entry, now: float) -> int:
    """A claimed ``start`` entry: start the game if it is due (the entry goes), else write it again for then."""
    try:
        loaded = sweeper.handler.load(entry.game_id)
    except UnknownGame:
        sweeper.schedule.drop(entry)
        return 0
    state = loaded.state
    if state.status != "waiting" or state.start_at_ms is None:
        sweeper.schedule.drop(entry)
        return 0
    if now * 1000 < state.start_at_ms:
        sweeper.schedule.redue(entry, state.start_at_ms / 1000)
        return 0
    outcome = start_game(sweeper.handler, entry.game_id)
    if outcome == "started" or outcome == "not waiting":
        sweeper.schedule.drop(entry)
        log.info("game %s started at its set time", entry.game_id)
        return 1
    sweeper.schedule.redue(entry, now + RETRY_S)
    return 0
