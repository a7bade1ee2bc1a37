"""Cards, decks and the trump order (SW-1, SW-2).

Codes are rank + suit: ``QC``, ``7H``, ``10S``, ``JD``; suits C S H D.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

SUITS = ("C", "S", "H", "D")
SUIT_NAMES = {"C": "clubs", "S": "spades", "H": "hearts", "D": "diamonds"}
RANKS = ("A", "K", "Q", "J", "10", "9", "8", "7", "6")
# Always trumps, whatever the trump suit: the black Queens and the four Jacks.
PERMANENT = ("QC", "QS", "JC", "JS", "JH", "JD")
JACKS = ("JC", "JS", "JH", "JD")
TRUMP = "T"  # the effective suit of every trump when following


def ranks_for(players: int) -> tuple[str, ...]:
    """7–A for 4 and 8 players, 6–A for 6 players."""
    return RANKS if players == 6 else RANKS[:-1]


@lru_cache(maxsize=None)
def deck(players: int) -> tuple[str, ...]:
    """The canonical deck order: suits C S H D, each A K Q J 10 9 8 7 (6)."""
    return tuple(rank + suit for suit in SUITS for rank in ranks_for(players))


def hand_size(players: int) -> int:
    return len(deck(players)) // players


def rank_of(card: str) -> str:
    return card[:-1]


def suit_of(card: str) -> str:
    """The printed suit."""
    return card[-1]


@lru_cache(maxsize=None)
def trump_order(trumps: str, players: int) -> tuple[str, ...]:
    """All trumps, best first: QC, the Nillje, QS, the Jacks, then A K (Q) 10 9 8 (6)."""
    top = ("QC", "7" + trumps, "QS") + JACKS
    rest = tuple(rank + trumps for rank in ranks_for(players)
                 if rank + trumps not in top and rank + trumps not in PERMANENT)
    return top + rest


@lru_cache(maxsize=None)
def plain_order(suit: str, trumps: str, players: int) -> tuple[str, ...]:
    """A plain suit best first: A K (Q) 10 9 8 7 (6), without the Jack (and the black Queen)."""
    return tuple(rank + suit for rank in ranks_for(players) if rank + suit not in PERMANENT)


@dataclass(frozen=True)
class Ranking:
    """How the cards of one deal rank once ``trumps`` is known."""

    trumps: str
    players: int

    @property
    def trump_rank(self) -> dict[str, int]:
        return _trump_rank(self.trumps, self.players)

    def is_trump(self, card: str) -> bool:
        return card in self.trump_rank

    def follow_suit(self, card: str) -> str:
        """The suit a card belongs to for following: ``T`` for every trump."""
        return TRUMP if card in self.trump_rank else suit_of(card)

    def strength(self, card: str, led: str) -> tuple[int, int]:
        """Higher wins: any trump, then the led suit, then nothing."""
        if card in self.trump_rank:
            return (2, -self.trump_rank[card])
        if suit_of(card) == led:
            return (1, -_plain_rank(self.players)[card])
        return (0, 0)


@lru_cache(maxsize=None)
def _trump_rank(trumps: str, players: int) -> dict[str, int]:
    return {card: i for i, card in enumerate(trump_order(trumps, players))}


@lru_cache(maxsize=None)
def _plain_rank(players: int) -> dict[str, int]:
    out: dict[str, int] = {}
    for suit in SUITS:
        for i, card in enumerate(plain_order(suit, "", players)):
            out[card] = i
    return out


def matador_order(trumps: str) -> tuple[str, ...]:
    """The cards that count as matadors, in order (7 at most)."""
    return ("QC", "7" + trumps, "QS") + JACKS


def suit_counts(hand) -> dict[str, int]:
    """Cards per printed suit, not counting QC, QS and the Jacks (SW-3)."""
    counts = {suit: 0 for suit in SUITS}
    for card in hand:
        if card not in PERMANENT:
            counts[suit_of(card)] += 1
    return counts


def sort_hand(hand, players: int) -> tuple[str, ...]:
    """Canonical deck order, for showing a hand."""
    index = {card: i for i, card in enumerate(deck(players))}
    return tuple(sorted(hand, key=index.__getitem__))
