"""Cards of the long deck (SK-1): codes, card points and the canonical order.

A code is suit + rank: ``EO`` (Eichel Ober), ``H10``, ``S7``. The canonical
deck order, which the keyed shuffle starts from, is suit by suit E, G, H, S
and within a suit A 10 K O U 9 8 7::

    EA E10 EK EO EU E9 E8 E7 GA G10 ... S8 S7
"""
from __future__ import annotations

SUITS = ("E", "G", "H", "S")
RANKS = ("A", "10", "K", "O", "U", "9", "8", "7")
DECK = tuple(suit + rank for suit in SUITS for rank in RANKS)
DECK_SET = frozenset(DECK)
HAND_SIZE = 8
HALF = 4  # the deal comes in two halves of four (Doppeln/Kontra refer to them)
PLAYERS = 4

RANK_POINTS = {"A": 11, "10": 10, "K": 4, "O": 3, "U": 2, "9": 0, "8": 0, "7": 0}


def suit_of(card: str) -> str:
    return card[0]


def rank_of(card: str) -> str:
    return card[1:]


def points(card: str) -> int:
    return RANK_POINTS[rank_of(card)]


def total_points(cards) -> int:
    return sum(points(card) for card in cards)


def sort_hand(hand) -> tuple[str, ...]:
    """Canonical order, so a hand reads the same way in every view."""
    return tuple(sorted(hand, key=DECK.index))
