"""Hochzeit (house rule ``hochzeit``, rulebook "Marriage"): a partnership through one trump.

The rulebook: "Before the announcement phase, a player who holds only a
single trump may lay it out [...] and say: 'I offer a marriage.' The other
three players then have the additional option, instead of calling an Ace, to
marry [...] A player who has no non-trump card to give up may not marry. The
Hochzeit has no precedence over a normal Rufspiel."

As built, nothing in the public record tells who *could* have offered:

* **The offer is an intent of the announcement** that every seat makes
  anyway: ``{"type": "announce", "intent": "hochzeit"}``, legal only for a
  seat holding exactly one trump (Rufspiel trumps) while no offer stands. A
  seat that could offer but says "Weiter" makes the same ``AnnouncementMade``
  as every other "Weiter". (Asking only the seats with one trump, in a phase
  of their own, told everybody who held exactly one trump.)
* **The offer comes before the announcement**: ``HochzeitOffered`` (public,
  the trump laid out face down: which card stays private) voids what was
  announced so far and the announcement begins again from Vorhand with the
  offer standing, so each of the other three has the marrying option. One
  offer per deal.
* **Marrying**: a seat with a non-trump card says "Ich spiele" and names
  ``{"type": "name_game", "game": "hochzeit"}``. It ranks like a Rufspiel (on
  equal rank the earlier seat wins). Declared, the marrying player (the
  game-maker) gives one of his non-trump cards face down (``{"type":
  "give_card", "card": ...}``) and takes the offered trump: the two are
  partners, known to all. Each sees only his own side of the swap. Priced
  with ``tariffs.hochzeit``; Laufende are counted from the hands after the
  swap.
"""
from __future__ import annotations

from typing import Mapping

from .. import errors
from ..event import Event, only_seat
from .game_types import order
from .state import State

TRUMPS = frozenset(order("hochzeit", None).trumps)
CALL = "Ich biete eine Hochzeit an"


def trumps_in(hand) -> list[str]:
    return [card for card in hand if card in TRUMPS]


def may_offer(state: State, seat: int) -> bool:
    """May ``seat`` offer now? Private: only the seat's own legal commands depend on it."""
    return (state.config.hochzeit and state.hochzeit is None
            and len(trumps_in(state.hands[seat])) == 1)


def decide_offer(state: State, seat: int) -> list[Event]:
    if not state.config.hochzeit:
        raise errors.IllegalChoice("no Hochzeit is played at this table")
    if state.hochzeit is not None:
        raise errors.IllegalChoice("a Hochzeit is already on offer this deal")
    if not may_offer(state, seat):
        raise errors.IllegalChoice("only a player holding exactly one trump may offer a Hochzeit")
    return [Event("HochzeitOffered", {"seat": seat, "call": CALL})]


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
