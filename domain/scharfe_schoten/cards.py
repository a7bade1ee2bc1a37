"""Card codes, the per-deal ranking and who wins a trick (rulings SS-1 to SS-4)."""
from __future__ import annotations

from functools import lru_cache
from typing import Iterable, Mapping, Sequence

from ..trick import best_play, cards_following

# Canonical order everywhere: colours, the spice deck and the number deck.
COLOURS = ("R", "G", "Y", "B")
COLOUR_NAMES = {"R": "red", "G": "green", "Y": "yellow", "B": "black"}
VALUES = tuple(range(1, 13))
SPICE_DECK = tuple(f"{colour}{value}" for colour in COLOURS for value in VALUES)
NUMBER_DECK = tuple(str(value) for value in VALUES)
_SPICE = frozenset(SPICE_DECK)


def is_spice(code: object) -> bool:
    return isinstance(code, str) and code in _SPICE


def colour_of(card: str) -> str:
    return card[0]


def value_of(card: str) -> int:
    return int(card[1:])


def sort_cards(cards: Iterable[str]) -> tuple[str, ...]:
    """Cards in canonical deck order (hands are shown sorted, never in dealt order)."""
    return tuple(sorted(cards, key=SPICE_DECK.index))


def colour_counts(cards: Iterable[str]) -> dict[str, int]:
    counts = {colour: 0 for colour in COLOURS}
    for card in cards:
        counts[colour_of(card)] += 1
    return counts


def numbers_dict(numbers: Sequence[int]) -> dict[str, int]:
    """State keeps the pairing as a tuple in colour order; JSON shows it by colour."""
    return dict(zip(COLOURS, numbers))


def numbers_tuple(numbers: Mapping[str, int]) -> tuple[int, ...]:
    return tuple(int(numbers[colour]) for colour in COLOURS)


def colour_ranking(numbers: Sequence[int]) -> tuple[str, ...]:
    """Colours high to low: the colour paired with the highest number first (SS-2).

    The four numbers are distinct, so there are no ties to break.
    """
    return _ranking(tuple(numbers))


def super_trumps(numbers: Sequence[int]) -> tuple[str, ...]:
    """The four super trumps high to low: each colour's card with its paired number."""
    return _super_trumps(tuple(numbers))


# A deal's numbers are fixed for the whole deal, and trick play asks for its ranking at every
# card (the bots' playouts thousands of times a decision): computed once per set of numbers.
@lru_cache(maxsize=256)
def _ranking(numbers: tuple[int, ...]) -> tuple[str, ...]:
    paired = numbers_dict(numbers)
    return tuple(sorted(COLOURS, key=lambda colour: -paired[colour]))


@lru_cache(maxsize=256)
def _super_trumps(numbers: tuple[int, ...]) -> tuple[str, ...]:
    paired = numbers_dict(numbers)
    return tuple(f"{colour}{paired[colour]}" for colour in _ranking(numbers))


def card_strength(card: str, numbers: Sequence[int]) -> tuple[int, ...]:
    """A sort key: any super trump above every other card, then colour rank, then value.

    The led colour is deliberately absent (SS-3): it only decides following.
    """
    trumps = super_trumps(numbers)
    if card in trumps:
        return (1, len(trumps) - trumps.index(card))
    ranking = colour_ranking(numbers)
    return (0, len(ranking) - ranking.index(colour_of(card)), value_of(card))


def trick_winner(plays: Sequence[tuple[int, str]], numbers: Sequence[int]) -> int:
    """The seat whose card is strongest; cards are distinct, so never a tie."""
    seat, _ = best_play(plays, lambda card: card_strength(card, numbers))
    return seat


def playable_cards(hand: Iterable[str], led: str | None) -> list[str]:
    """Must follow the led colour if possible; super trumps follow their own colour (SS-4)."""
    return cards_following(hand, colour_of(led) if led else None, colour_of)
