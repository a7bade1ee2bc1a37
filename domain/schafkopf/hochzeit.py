"""Hochzeit (house rule ``hochzeit``, rulebook "Marriage"): a partnership through one trump.

Before the announcement, every player holding exactly one trump (Rufspiel
trumps), in speaking order, may offer a marriage:
``{"type": "hochzeit", "offer": true}`` (the trump is laid out face down;
the first offer ends the offering) or ``false``. With an offer standing,
any other player holding a non-trump card may, instead of calling an Ace,
say "Ich spiele" and name ``{"type": "name_game", "game": "hochzeit"}``. It
ranks like a Rufspiel (on equal rank the earlier seat wins). Declared, the
marrying player (the game-maker) gives one of his non-trump cards face down
(``{"type": "give_card", "card": ...}``) and takes the offered trump: the
two are partners, known to all. Each sees only his own side of the swap.
Priced with ``tariffs.hochzeit``; Laufende are counted from the hands after
the swap.
"""
from __future__ import annotations

from typing import Mapping

from .. import errors
from ..event import Event, only_seat
from ..trick import seats_from
from .cards import PLAYERS
from .game_types import order
from .state import State

TRUMPS = frozenset(order("hochzeit", None).trumps)


def trumps_in(hand) -> list[str]:
    return [card for card in hand if card in TRUMPS]


def offerers(state: State) -> list[int]:
    """Seats that may offer, in speaking order (exactly one trump)."""
    return [seat for seat in seats_from((state.dealer + 1) % PLAYERS, PLAYERS)
            if len(trumps_in(state.hands[seat])) == 1]


def opens(state: State) -> bool:
    return state.config.hochzeit and bool(offerers(state))


def speaker(state: State) -> int:
    return offerers(state)[len(state.hochzeit_spoken)]


def commands() -> list[dict]:
    return [{"type": "hochzeit", "offer": True}, {"type": "hochzeit", "offer": False}]


def decide_offer(state: State, seat: int, command: Mapping) -> list[Event]:
    offer = command.get("offer")
    if not isinstance(offer, bool):
        raise errors.InvalidCommand("offer must be true or false")
    last = len(state.hochzeit_spoken) + 1 == len(offerers(state))
    return [Event("HochzeitSpoken", {"seat": seat, "offer": offer,
                                     "call": "Ich biete eine Hochzeit an" if offer else "Weiter",
                                     "last": offer or last})]


def may_marry(state: State, seat: int) -> bool:
    return (state.hochzeit is not None and seat != state.hochzeit
            and len(trumps_in(state.hands[seat])) < len(state.hands[seat]))


def give_commands(state: State, seat: int) -> list[dict]:
    return [{"type": "give_card", "card": card} for card in state.hands[seat] if card not in TRUMPS]


def decide_give(state: State, seat: int, command: Mapping) -> list[Event]:
    card = command.get("card")
    if {"type": "give_card", "card": card} not in give_commands(state, seat):
        raise errors.IllegalChoice(f"give one of your non-trump cards, not {card!r}")
    partner = state.hochzeit
    trump = trumps_in(state.hands[partner])[0]
    return [
        Event("HochzeitCardGiven", {"seat": seat, "to": partner, "card": card, "received": trump},
              only_seat(seat, "seat", "to")),
        Event("HochzeitCardReceived", {"seat": partner, "from": seat, "card": card, "gave": trump},
              only_seat(partner, "seat", "from")),
    ]
