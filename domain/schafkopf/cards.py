"""Cards of the long and the short deck (SK-1): codes, card points, canonical order.

A code is suit + rank: ``EO`` (Eichel Ober), ``H10``, ``S7``. The canonical
deck order, which the keyed shuffle starts from, is suit by suit E, G, H, S
and within a suit A 10 K O U 9 8 7::

    EA E10 EK EO EU E9 E8 E7 GA G10 ... S8 S7

The short deck (house rule ``deck: "short"``) drops every 8 and 7: 24 cards
in the same order, 6 a hand, dealt in halves of 3. The card points still
total 120 (Sevens and Eights are worth nothing).
"""
from __future__ import annotations

SUITS = ("E", "G", "H", "S")
RANKS = ("A", "10", "K", "O", "U", "9", "8", "7")
DECK = tuple(suit + rank for suit in SUITS for rank in RANKS)
DECK_SET = frozenset(DECK)
INDEX = {card: i for i, card in enumerate(DECK)}  # a card's place in DECK: its bit in the simulator's hands
SHORT_DECK = tuple(card for card in DECK if card[1:] not in ("8", "7"))
DECKS = {"long": DECK, "short": SHORT_DECK}
HAND_SIZE = 8
HALF = 4  # the long deck comes in two halves of four (Doppeln refers to them)
PLAYERS = 4

RANK_POINTS = {"A": 11, "10": 10, "K": 4, "O": 3, "U": 2, "9": 0, "8": 0, "7": 0}


def hand_size(deck: str) -> int:
    return len(DECKS[deck]) // PLAYERS


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
