"""Turn deadlines: a clock per human seat, kept from the events' own times.

A game created with a ``clock`` gives every human seat ``per_move_s`` for each
decision and, like a chess clock, a ``bank_s`` it draws on when a decision
takes longer. When a seat's time is up the system plays for it with the
clock's ``bot`` and records ``TurnTimedOut``; after ``abandon_after``
consecutive time-outs the seat is abandoned and that bot plays it at once,
until somebody takes the seat again (``SeatReclaimed``, with a new token).

**Time is data here, never read.** Each stored event carries ``at``, the
server's time when it was appended (one time for all events of one command).
The table folds those times: a seat's clock starts at the event after which it
is to act, and a move of the seat stops it and charges whatever went past
``per_move_s`` to the bank. A time-out is a system command decided *at* a
time (the one its events are stamped with), so the verifier checks every
``TurnTimedOut`` against the recorded times, as it checks every card.

Times are whole milliseconds since the Unix epoch.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Mapping

from . import errors

CLOCK_FIELDS = ("per_move_s", "bank_s", "bot", "abandon_after")
PER_MOVE_S = (1, 3600)
BANK_S = (0, 36_000)
ABANDON_AFTER = (1, 100)
DEFAULT_CLOCK_BOT = "heuristic"
DEFAULT_ABANDON_AFTER = 3


@dataclass(frozen=True)
class Clock:
    """The clock a game was created with (``GameCreated.clock``)."""

    per_move_s: int
    bank_s: int = 0
    bot: str = DEFAULT_CLOCK_BOT
    abandon_after: int = DEFAULT_ABANDON_AFTER

    def to_json(self) -> dict:
        return {"per_move_s": self.per_move_s, "bank_s": self.bank_s, "bot": self.bot,
                "abandon_after": self.abandon_after}


@dataclass(frozen=True)
class SeatClock:
    """One seat's clock: its bank, when its current decision started (None: not running)."""

    bank_ms: int
    since_ms: int | None = None
    timeouts: int = 0  # consecutive time-outs; a move of the seat's own resets it
    abandoned: bool = False


def validate_clock(raw: Any, bot_kinds: tuple[str, ...]) -> Clock | None:
    """The creator's clock (raises InvalidSetup naming each bad field); None: no clock."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise errors.InvalidSetup({"clock": ["must be an object with per_move_s (and bank_s, bot, abandon_after)"]})
    problems: dict[str, list[str]] = {}
    for key in sorted(set(raw) - set(CLOCK_FIELDS)):
        problems.setdefault("clock", []).append(f"unknown field {key!r}; one of {list(CLOCK_FIELDS)}")
    values: dict[str, Any] = {}
    for name, (low, high), default in (("per_move_s", PER_MOVE_S, None), ("bank_s", BANK_S, 0),
                                       ("abandon_after", ABANDON_AFTER, DEFAULT_ABANDON_AFTER)):
        value = raw.get(name, default)
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            problems[f"clock.{name}"] = [f"must be a whole number {low}..{high}"
                                         + (" (required)" if default is None else "")]
        values[name] = value
    bot = raw.get("bot", DEFAULT_CLOCK_BOT)
    if bot not in bot_kinds:
        problems["clock.bot"] = [f"unknown bot {bot!r}; one of {list(bot_kinds)}"]
    if problems:
        raise errors.InvalidSetup(problems)
    return Clock(bot=bot, **values)


def millis(at: str) -> int:
    """An event's ``at`` (ISO 8601 UTC, e.g. ``2026-12-01T12:00:00.123Z``) in milliseconds."""
    return round(datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp() * 1000)


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def deadline_ms(clock: Clock, seat: SeatClock) -> int | None:
    """When the seat's running decision times out (None: its clock is not running)."""
    if seat.since_ms is None:
        return None
    return seat.since_ms + clock.per_move_s * 1000 + seat.bank_ms


def charge(clock: Clock, seat: SeatClock, now_ms: int) -> SeatClock:
    """The seat decided at ``now_ms``: its clock stops; time past ``per_move_s`` comes off the bank.

    Only a move of the seat's own resets its time-outs. An abandoned seat's moves are its clock's
    bot's, so its count stays as the last ``TurnTimedOut`` said (a reclaim starts it afresh)."""
    timeouts = seat.timeouts if seat.abandoned else 0
    if seat.since_ms is None:
        return SeatClock(seat.bank_ms, None, timeouts, seat.abandoned)
    over = max(0, now_ms - seat.since_ms - clock.per_move_s * 1000)
    return SeatClock(max(0, seat.bank_ms - over), None, timeouts, seat.abandoned)


def time_out(clock: Clock, seat: SeatClock) -> SeatClock:
    """The seat's time ran out: the bank is spent, and enough time-outs in a row abandon the seat."""
    timeouts = seat.timeouts + 1
    return SeatClock(0, None, timeouts, seat.abandoned or timeouts >= clock.abandon_after)


def seat_json(clock: Clock, number: int, seat: SeatClock, stopped: bool = False) -> dict:
    """``stopped``: the game is paused, so no deadline runs (the decision's start shows where it was)."""
    due = None if stopped else deadline_ms(clock, seat)
    return {
        "seat": number,
        "bank_ms": seat.bank_ms,
        "turn_started_at": None if seat.since_ms is None else iso(seat.since_ms),
        "deadline_at": None if due is None else iso(due),
        "timeouts": seat.timeouts,
        "abandoned": seat.abandoned,
    }
