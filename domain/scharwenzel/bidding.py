"""Bidding for trumps (SW-3).

Each player bids once, from forehand, or passes. A bid is a number n >= 3 and
the bidder must hold a printed suit of exactly n cards (not counting QC, QS and
the Jacks). A bid must beat the standing bid; a "besser" bid (clubs, the bidder
holds exactly n clubs) also beats a plain bid of the same number. Bids order
as (n, besser): "4" < "4 besser" < "5".
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import errors
from .cards import SUIT_NAMES, SUITS, suit_counts

MIN_BID = 3


@dataclass(frozen=True)
class Bid:
    seat: int
    value: int | None  # None: passed
    besser: bool = False

    @property
    def passed(self) -> bool:
        return self.value is None

    def key(self) -> tuple[int, bool]:
        return (self.value or 0, self.besser)

    def to_json(self) -> dict:
        return {"seat": self.seat, "passed": self.passed, "value": self.value, "besser": self.besser}


def describe(value: int, besser: bool) -> str:
    return f"{value} besser" if besser else str(value)


def highest(bids) -> Bid | None:
    best = None
    for bid in bids:
        if not bid.passed and (best is None or bid.key() > best.key()):
            best = bid
    return best


def beats(value: int, besser: bool, standing: Bid | None) -> bool:
    return standing is None or (value, besser) > standing.key()


def supports(hand, value: int, besser: bool) -> bool:
    counts = suit_counts(hand)
    if besser:
        return counts["C"] == value
    return value in counts.values()


def bid_options(hand, standing: Bid | None) -> list[tuple[int, bool]]:
    """Every (value, besser) this hand may bid over ``standing``, lowest first."""
    counts = suit_counts(hand)
    out = []
    for value in sorted({n for n in counts.values() if n >= MIN_BID}):
        for besser in (False, True):
            if besser and counts["C"] != value:
                continue
            if beats(value, besser, standing):
                out.append((value, besser))
    return out


def check_bid(hand, value, besser: bool, standing: Bid | None) -> None:
    """Raise IllegalChoice unless the bid is allowed; the detail says why."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise errors.InvalidCommand("value must be a whole number of cards")
    if value < MIN_BID:
        raise errors.IllegalChoice(f"a bid is at least {MIN_BID}; with no suit longer than 2 you can only pass")
    counts = suit_counts(hand)
    if besser and counts["C"] != value:
        raise errors.IllegalChoice(
            f"'{value} besser' needs exactly {value} clubs in your hand (not counting QC, QS and the Jacks); "
            f"you hold {counts['C']}")
    if not besser and value not in counts.values():
        held = ", ".join(f"{counts[s]} {SUIT_NAMES[s]}" for s in SUITS)
        raise errors.IllegalChoice(
            f"a bid of {value} needs a suit of exactly {value} cards (not counting QC, QS and the Jacks); "
            f"you hold {held}")
    if not beats(value, besser, standing):
        raise errors.IllegalChoice(
            f"'{describe(value, besser)}' does not beat the standing bid "
            f"'{describe(standing.value, standing.besser)}'")


def trump_options(hand, bid: Bid) -> list[str]:
    """The suits the highest bidder may name: clubs after besser, else any suit of exactly n."""
    if bid.besser:
        return ["C"]
    counts = suit_counts(hand)
    return [suit for suit in SUITS if counts[suit] == bid.value]
