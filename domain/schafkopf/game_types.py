"""Game types: precedence (SK-3), trump orders (SK-2), goals and who may name them.

A *contract* is a game type plus its suit: the called Ace's suit for a
Rufspiel, the trump suit for a Solo, Farbwenz, Farbgeier and their Touts, and
no suit otherwise. Everything a trick needs (which cards are trump, how the
plain suits rank) follows from the contract alone.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from .cards import SUITS, suit_of, rank_of

# SK-3, high to low. The index is the rank used to resolve the naming round.
PRECEDENCE = (
    "sie", "solo_tout", "wenz_tout", "farbwenz_tout", "geier_tout", "farbgeier_tout",
    "solo", "wenz", "farbwenz", "geier", "farbgeier", "bettel", "rufspiel",
)
GAME_TYPES = frozenset(PRECEDENCE)
DEFAULT_ALLOWED = ("rufspiel", "solo", "wenz", "solo_tout", "wenz_tout", "sie")

# The game type whose tariff prices a Tout (the rulebook: "the Solo tariff is used
# as the base" of a Tout; a Wenz Tout is priced from the Wenz tariff) and a Sie.
TARIFF_OF = {
    "rufspiel": "rufspiel", "solo": "solo", "wenz": "wenz", "farbwenz": "farbwenz",
    "geier": "geier", "farbgeier": "farbgeier", "bettel": "bettel",
    "solo_tout": "solo", "wenz_tout": "wenz", "farbwenz_tout": "farbwenz",
    "geier_tout": "geier", "farbgeier_tout": "farbgeier", "sie": "solo", "hochzeit": "hochzeit",
}
# Games that name a suit; the Rufspiel's suit is the called Ace (E, G or S).
SUITED = frozenset({"rufspiel", "solo", "solo_tout", "farbwenz", "farbwenz_tout",
                    "farbgeier", "farbgeier_tout"})
CALLABLE_SUITS = ("E", "G", "S")
TOUTS = frozenset({"solo_tout", "wenz_tout", "farbwenz_tout", "geier_tout", "farbgeier_tout"})
# The auction's band (SK-3, rulebook "Order of Precedence"): the games "better
# than Bettel but lower than a Tout game". With ``rules.auction`` they share
# one rank and the higher bid of winning points decides between them.
BAND = ("solo", "wenz", "farbwenz", "geier", "farbgeier")
OBERS = ("EO", "GO", "HO", "SO")
UNTERS = ("EU", "GU", "HU", "SU")
SIE_HAND = frozenset(OBERS + UNTERS)


def goal(game: str) -> str:
    """How the deal is won (SK-7): ``points`` (61), ``all_tricks`` or ``no_tricks``."""
    if game == "bettel":
        return "no_tricks"
    if game in TOUTS or game == "sie":
        return "all_tricks"
    return "points"


# Each game's place in PRECEDENCE (a Hochzeit ranks like a Rufspiel): a lookup, as the simulator's
# naming round asks it for every game a hand could name.
_RANKS = {**{game: place for place, game in enumerate(PRECEDENCE)}, "hochzeit": PRECEDENCE.index("rufspiel")}


def _rank(game: str) -> int:
    return _RANKS[game]


def outranks(game: str, other: str) -> bool:
    return _rank(game) < _rank(other)


def beats(game: str, other: str, auction: bool = False) -> bool:
    """Precedence, except that with the auction two band games tie (the bids decide)."""
    if auction and game in BAND and other in BAND:
        return False
    return outranks(game, other)


def _base(game: str) -> str:
    return game[:-5] if game.endswith("_tout") else game


@dataclass(frozen=True)
class Order:
    """The trump order and the plain-suit rank order of one contract."""

    trumps: tuple[str, ...]  # high to low
    plain_ranks: tuple[str, ...]  # high to low, for suits' non-trump cards

    # Derived lookup table; not part of equality.
    _trump_index: dict = field(default=None, compare=False, hash=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "_trump_index", {card: i for i, card in enumerate(self.trumps)})

    def is_trump(self, card: str) -> bool:
        return card in self._trump_index

    def follow_key(self, card: str) -> str:
        """The 'suit' a card belongs to for following: trumps form their own suit ``T``."""
        return "T" if card in self._trump_index else suit_of(card)

    def strength(self, card: str, led_key: str) -> tuple[int, int]:
        """Higher wins: any trump beats the led suit, which beats discards."""
        trumps = self._trump_index
        if card in trumps:
            return (2, -trumps[card])
        if suit_of(card) == led_key:
            return (1, -self.plain_ranks.index(rank_of(card)))
        return (0, 0)


def _suit_run(suit: str, ranks: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(suit + rank for rank in ranks)


@lru_cache(maxsize=None)
def order(game: str, suit: str | None) -> Order:
    """SK-2. A Sie, a Ramsch and a Hochzeit are played with the Rufspiel's order."""
    base = _base(game)
    if base in ("rufspiel", "sie", "ramsch", "hochzeit"):
        return Order(OBERS + UNTERS + _suit_run("H", ("A", "10", "K", "9", "8", "7")),
                     ("A", "10", "K", "9", "8", "7"))
    if base == "solo":
        return Order(OBERS + UNTERS + _suit_run(suit, ("A", "10", "K", "9", "8", "7")),
                     ("A", "10", "K", "9", "8", "7"))
    if base in ("wenz", "farbwenz"):
        plain = ("A", "10", "K", "O", "9", "8", "7")
        return Order(UNTERS + (_suit_run(suit, plain) if base == "farbwenz" else ()), plain)
    if base in ("geier", "farbgeier"):
        plain = ("A", "10", "K", "U", "9", "8", "7")
        return Order(OBERS + (_suit_run(suit, plain) if base == "farbgeier" else ()), plain)
    if base == "bettel":
        return Order((), ("A", "K", "O", "U", "10", "9", "8", "7"))
    raise ValueError(f"unknown game {game!r}")


def callable_suits(hand) -> list[str]:
    """SK-5: a non-trump suit (E, G, S) with a card of it in hand but not its Ace."""
    plain = [c for c in hand if c not in SIE_HAND and suit_of(c) != "H"]
    return [s for s in CALLABLE_SUITS
            if any(suit_of(c) == s for c in plain) and s + "A" not in hand]


def is_blocked(hand) -> bool:
    return not callable_suits(hand)


def renonce_calls(hand) -> list[tuple[str, str]]:
    """As-Renonce (seed: Muss-Spiel, Renonce): (suit, called card) for a blocked hand.

    The Ace of a plain suit he holds no card of; if he holds all three Aces,
    a Ten he does not hold; with all Aces and Tens, a King he does not hold.
    """
    plain = [c for c in hand if c not in SIE_HAND and suit_of(c) != "H"]
    void = [s for s in CALLABLE_SUITS if not any(suit_of(c) == s for c in plain)]
    if void:
        return [(s, s + "A") for s in void]
    for rank in ("A", "10", "K"):
        missing = [(s, s + rank) for s in CALLABLE_SUITS if s + rank not in hand]
        if missing:
            return missing
    return []


def contracts_for(hand, allowed) -> list[tuple[str, str | None]]:
    """Every (game, suit) this hand may name at a table allowing ``allowed``, by precedence."""
    out: list[tuple[str, str | None]] = []
    for game in PRECEDENCE:
        if game not in allowed:
            continue
        if game == "sie":
            if SIE_HAND <= set(hand):
                out.append((game, None))
        elif game == "rufspiel":
            out.extend((game, s) for s in callable_suits(hand))
        elif game in SUITED:
            out.extend((game, s) for s in SUITS)
        else:
            out.append((game, None))
    return out
