"""The immutable state of a Scharwenzel game."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..trick import Trick
from .bidding import Bid, highest


@dataclass(frozen=True)
class Sheet:
    """The score sheet: running points, threads (lines) and hooks per side, and the Bock carried."""

    points: tuple[int, int] = (0, 0)
    threads: tuple[int, int] = (0, 0)
    hooks: tuple[int, int] = (0, 0)
    bock: int = 0

    @property
    def totals(self) -> tuple[int, int]:
        """Threads for the final reckoning: lines (Petersdorfers count two) plus hooks."""
        return (self.threads[0] + self.hooks[0], self.threads[1] + self.hooks[1])

    def to_json(self) -> dict:
        return {"points": list(self.points), "threads": list(self.threads), "hooks": list(self.hooks),
                "total_threads": list(self.totals), "bock_carried": self.bock}


@dataclass(frozen=True)
class Preset:
    hands: tuple[tuple[str, ...], ...]
    dealer: int | None = None


@dataclass(frozen=True)
class State:
    players: int
    deals: int | None
    threads: int | None
    announced_tout: bool
    bock_value: str
    presets: tuple[Preset, ...] = ()
    phase: str = "dealing"  # dealing | bidding | naming | tout | playing | finished
    deal: int = 0
    dealer: int | None = None  # None until the first dealer is drawn
    hands: tuple[tuple[str, ...], ...] = ()
    starting: tuple[tuple[str, ...], ...] = ()  # secret: for the matadors
    bids: tuple[Bid, ...] = ()
    trumps: str | None = None
    named_by: int | None = None
    after_all_passed: bool = False
    tout_asked: int = 0
    tout_by: int | None = None
    trick: Trick | None = None
    last_trick: Trick | None = None
    last_winner: int | None = None
    trick_sides: tuple[int, ...] = ()
    sheet: Sheet = field(default_factory=Sheet)
    last_score: Any = None  # the last DealScored data (JSON-shaped)
    winner: int | None = None  # the winning side once finished (None: tie)

    @property
    def forehand(self) -> int | None:
        return None if self.dealer is None else (self.dealer + 1) % self.players

    @property
    def high_bid(self) -> Bid | None:
        return highest(self.bids)

    @property
    def tout_side(self) -> int | None:
        return None if self.tout_by is None else self.tout_by % 2

    @property
    def finished(self) -> bool:
        return self.phase == "finished"
