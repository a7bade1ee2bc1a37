"""The immutable game state: frozen dataclasses of tuples, so snapshots pickle and replays compare."""
from __future__ import annotations

from dataclasses import dataclass

from ..trick import Trick

PHASES = ("dealing", "predicting", "playing", "taking", "finished")


@dataclass(frozen=True)
class PresetDeal:
    """A validated preset: hands per seat, cupboard in take order, numbers in colour order."""

    hands: tuple[tuple[str, ...], ...]
    cupboard: tuple[str, ...]
    numbers: tuple[int, ...]
    starter: int | None = None


@dataclass(frozen=True)
class Prediction:
    most: str
    fewest: str

    def to_json(self) -> dict:
        return {"most": self.most, "fewest": self.fewest}


@dataclass(frozen=True)
class State:
    # The ruleset, fixed at creation.
    players: int
    rounds: int
    first_starter: int | None = None
    presets: tuple[PresetDeal, ...] = ()

    # Where the game is. ``deal`` is the current deal, or the one pending while dealing.
    phase: str = "dealing"
    deal: int = 0

    # The current round (deal k is round k + 1).
    starter: int | None = None
    numbers: tuple[int, ...] = ()  # paired numbers, colour order R G Y B
    hands: tuple[tuple[str, ...], ...] = ()
    cupboard: tuple[str, ...] = ()  # hidden values, in take order
    predictions: tuple[Prediction | None, ...] = ()
    revealed: bool = False
    trick: Trick | None = None
    last_trick: Trick | None = None
    last_winner: int | None = None
    taker: int | None = None  # the trick winner who must now take from the cupboard
    collections: tuple[tuple[str, ...], ...] = ()

    # Across rounds.
    round_points: tuple[tuple[int, ...], ...] = ()
    totals: tuple[int, ...] = ()
    ranking: tuple[int, ...] | None = None
