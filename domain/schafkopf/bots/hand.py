"""Judging a hand: which game it could win, and how sure that is.

Each game gets a *margin*: positive when the hand is worth playing it, the
larger the safer. The rules are the rules of thumb of the card table:

* Rufspiel: five trumps, or four with an Ober and another Ober/Unter, or four
  with two free Aces. The called suit is the shortest callable one (one card:
  the partner's Ace then takes a trick and the declarer is soon free of it).
* Solo: six trumps with two Obers, seven trumps, or five strong trumps (two
  Obers, four Obers/Unters) with two Aces outside; the suit with most trumps.
* Wenz: three Unters and two Aces, two Unters (Eichel among them) and three
  Aces, or four Unters and an Ace.
* Geier/Farbwenz/Farbgeier count as Wenz/Solo with their own trumps; Bettel
  only with nothing above a Nine outside Unters and Tens (its order is A K O U 10 ...).
* Tout: every card a trump and the top Obers, or four Unters with every suit
  headed by its Ace (Wenz Tout). Sie: always.
* Marrying a Hochzeit: a Rufspiel hand one trump short (the offered trump comes).
"""
from __future__ import annotations

from functools import lru_cache

from ..cards import SUITS, points, rank_of, suit_of
from ..game_types import OBERS, UNTERS, order, outranks


@lru_cache(maxsize=None)
def _trump_set(game: str, suit: str | None) -> frozenset[str]:
    return frozenset(order(game, suit).trumps)


def trumps_of(hand, game: str, suit: str | None) -> list[str]:
    trumps = _trump_set(game, suit)
    return [card for card in hand if card in trumps]


def free_aces(hand, game: str, suit: str | None) -> int:
    trumps = _trump_set(game, suit)
    return sum(1 for card in hand if card[1:] == "A" and card not in trumps)


def _suit_headed(hand, game: str) -> bool:
    """Every plain suit held is held from its Ace down without a gap (a Wenz Tout's side suits)."""
    rules_order = order(game, None)
    for suit in SUITS:
        held = [rank_of(c) for c in hand if suit_of(c) == suit and not rules_order.is_trump(c)]
        top = [r for r in rules_order.plain_ranks][:len(held)]
        if held and sorted(held) != sorted(top):
            return False
    return True


def margin(hand, game: str, suit: str | None) -> float:
    """How playable ``game`` is with ``hand`` (positive: play it)."""
    return _margin(tuple(hand), game, suit)


# A whole-deal search asks again and again about the same hands (each candidate's playouts, the
# announcement then the naming): a pure function of the cards, so kept.
@lru_cache(maxsize=1 << 16)
def _margin(hand: tuple[str, ...], game: str, suit: str | None) -> float:
    trumps = trumps_of(hand, game, suit)
    t = len(trumps)
    obers = sum(1 for c in trumps if c in OBERS)
    unters = sum(1 for c in trumps if c in UNTERS)
    aces = free_aces(hand, game, suit)
    size = len(hand)
    if game == "sie":
        return 100.0
    if game == "rufspiel":
        if t >= 5 or (t == 4 and obers >= 1 and obers + unters >= 2) or (t == 4 and aces >= 2):
            return t + 0.5 * obers + 0.3 * aces - 3.5
        return t + 0.5 * obers + 0.3 * aces - 6.0
    if game == "hochzeit":
        return _margin(hand, "rufspiel", None) if t >= 3 else -5.0
    if game in ("solo", "farbwenz", "farbgeier"):
        high = obers if game in ("solo", "farbgeier") else unters
        strong = (t >= 6 and high >= 2) or t >= 7 or (t >= 5 and high >= 2 and obers + unters >= 4 and aces >= 2)
        if game != "solo":  # fewer trumps in the deck: one fewer is as good
            strong = strong or (t >= 5 and high >= 2 and aces >= 1)
        return (t + high + 0.5 * aces - 7.0) if strong else (t + high + 0.5 * aces - 11.0)
    if game in ("wenz", "geier"):
        high = unters if game == "wenz" else obers
        top = ("EU" if game == "wenz" else "EO") in hand
        strong = (high >= 3 and aces >= 2) or (high == 2 and top and aces >= 3) or (high == 4 and aces >= 1)
        return (high + aces - 4.0) if strong else (high + aces - 7.0)
    if game == "bettel":
        high = [c for c in hand if rank_of(c) in ("A", "K", "O")]
        return 1.0 if not high else -5.0
    if game in ("solo_tout", "farbwenz_tout", "farbgeier_tout"):
        rules_order = order(game, suit)
        top = set(rules_order.trumps[:3])
        return 5.0 if t == size and top <= set(hand) else -5.0
    if game in ("wenz_tout", "geier_tout"):
        high = unters if game == "wenz_tout" else obers
        return 5.0 if high == 4 and _suit_headed(hand, game) else -5.0
    return -10.0


def best(hand, options) -> tuple[tuple[str, str | None] | None, float]:
    """The highest-ranking playable (game, suit) of ``options`` (precedence first, then margin)."""
    chosen, chosen_margin = None, float("-inf")
    for game, suit in options:
        value = margin(hand, game, suit)
        if value <= 0:
            continue
        same = chosen is not None and game == chosen[0]
        better_call = (same and value == chosen_margin and game == "rufspiel"
                       and call_preference(hand, suit) < call_preference(hand, chosen[1]))
        if chosen is None or outranks(game, chosen[0]) or (same and value > chosen_margin) or better_call:
            chosen, chosen_margin = (game, suit), value
    return chosen, chosen_margin


def least_bad(hand, options) -> tuple[str, str | None]:
    """When a game must be named: the one with the best margin."""
    return max(options, key=lambda option: margin(hand, *option))


def call_preference(hand, suit: str) -> tuple:
    """Rufspiel: the shortest suit first; with equal length the one holding more points, which
    the partner's Ace then takes home in the first round of the suit (lower sorts first)."""
    rules_order = order("rufspiel", suit)
    held = [c for c in hand if suit_of(c) == suit and not rules_order.is_trump(c)]
    return (len(held), -sum(points(c) for c in held))
