"""A table's state: the game, its seats and where it stands, folded from its events by
``Table.evolve`` (``domain/table.py``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .clock import Clock, SeatClock
from .game import Game, Setup
from .limits import Limits
from .seat import Seat


@dataclass(frozen=True)
class TableState:
    game: Game | None = None
    setup: Setup | None = None
    seats: tuple[Seat, ...] = ()
    status: str = "new"  # new | waiting | active | finished
    seed_sha256: str = ""
    seed: str | None = None  # hex, once revealed
    inner: Any = None  # the game's own state once started
    limits: Limits | None = None
    events: int = 0  # events folded so far (the seq of the last one)
    cut_short: str | None = None  # the ceiling that ended the game, if one did
    clock: Clock | None = None  # turn deadlines, if the game has them (domain/clock.py)
    clocks: tuple[SeatClock, ...] = ()  # one per seat when the game has a clock
    start_at_ms: int | None = None  # GameCreated.start_at: the game starts then, by the system's ``start``
    paused: bool = False  # GamePaused .. GameResumed: nobody acts, no clock runs
    paused_ms: int | None = None  # when it was paused (a timed fold's): resuming gives the clocks that time back
    hints: bool = False  # GameCreated.hints: every seat may ask for the search's suggestion (api/hints.py)
    rated: bool = False  # GameCreated.rated: its result moves its players' ratings; its human seats are players'
    last_at: str | None = None  # the time of the last event folded (``max_idle_s`` counts from it)

    @property
    def players(self) -> int:
        return len(self.seats)

    @property
    def entropy(self) -> str:
        return ",".join(seat.entropy for seat in self.seats)
