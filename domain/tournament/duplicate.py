"""A duplicate round's deals: drawn once from the tournament's seed, played at every table.

Deal k of round r shuffles each deck it needs with the keyed shuffle
(``domain/shuffle.py``) under the key
``HMAC-SHA256(seed, "stich-tournament-v1|<r>|deal|<k>|<deck>")``, from the
deck's canonical order as the game lists it, and cuts it into hands: seat i
gets cards ``[i*h, (i+1)*h)`` (h = the hand size), and in Scharfe Schoten the
rest is the cupboard and the first four of the shuffled ``numbers`` deck are
R, G, Y, B's numbers. Seat 0 deals first in Schafkopf and Scharwenzel (the
deal then passes left) and starts first in Scharfe Schoten.

**Rotation.** Table t plays these deals turned by t seats: the hand of seat i
goes to seat (i + t) mod n, and so do the dealer and the starter, so every
table plays the same game from the cards' point of view, and with at least n
tables each hand is held from each seat. A round's deals cover the first
``deals_per_table`` deals in Scharfe Schoten, and twice that (plus four) in
Schafkopf and Scharwenzel, whose thrown-in deals take deal numbers too; a game
that needs more deals than that deals them from its own seed.
"""
from __future__ import annotations

from typing import Any

from ..schafkopf.cards import DECKS as SCHAFKOPF_DECKS
from ..scharfe_schoten.cards import COLOURS, NUMBER_DECK, SPICE_DECK
from ..scharfe_schoten.deal import hand_size as schoten_hand_size
from ..scharwenzel.cards import deck as scharwenzel_deck
from ..shuffle import keyed_shuffle
from .seating import tournament_key


def deal_count(game: str, deals: int) -> int:
    return deals if game == "scharfe-schoten" else 2 * deals + 4


def base_deals(seed: bytes, round_: int, game: str, players: int, rules: dict, deals: int) -> list[dict]:
    """The round's deals as seen from table 0."""
    out = []
    for k in range(deal_count(game, deals)):
        def shuffle(name: str, cards, k: int = k) -> list[str]:
            return keyed_shuffle(list(cards), tournament_key(seed, round_, f"deal|{k}|{name}"))

        if game == "scharfe-schoten":
            size = schoten_hand_size(players)
            spice = shuffle("spice", SPICE_DECK)
            numbers = shuffle("numbers", NUMBER_DECK)
            deal: dict[str, Any] = {"hands": cut(spice, players, size), "cupboard": spice[players * size:],
                                    "numbers": {c: int(n) for c, n in zip(COLOURS, numbers)}}
            if k == 0:
                deal["starter"] = 0
        else:
            cards = SCHAFKOPF_DECKS[rules["deck"]] if game == "schafkopf" else scharwenzel_deck(players)
            shuffled = shuffle("cards", cards)
            deal = {"hands": cut(shuffled, players, len(shuffled) // players)}
            if game == "schafkopf":
                deal["dealer"] = k % players  # every deal names its dealer: thrown-in deals stay aligned
            elif k == 0:
                deal["dealer"] = 0  # Scharwenzel names only the first; then the deal passes left
        out.append(deal)
    return out


def cut(cards: list[str], players: int, size: int) -> list[list[str]]:
    return [cards[i * size:(i + 1) * size] for i in range(players)]


def rotated(deals: list[dict] | tuple, table: int, players: int) -> list[dict]:
    """The deals as table ``table`` plays them: every seat-bound fact turned by ``table`` seats."""
    turn = table % players
    out = []
    for deal in deals:
        hands = deal["hands"]
        moved = dict(deal)
        moved["hands"] = [list(hands[(seat - turn) % players]) for seat in range(players)]
        for key in ("dealer", "starter"):
            if key in deal:
                moved[key] = (deal[key] + turn) % players
        out.append(moved)
    return out
