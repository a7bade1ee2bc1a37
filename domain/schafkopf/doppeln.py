"""Doppeln ("Klopfen", house rule ``doppeln``): doubling after the first half.

Right after picking up the first half of the cards, each permitted seat in
turn from the dealer's left says ``{"type": "doppeln", "double": true}``
("Ich dopple") or ``false`` ("Weiter"). Each doubling doubles the price of
the deal's game (and a Stock paid in when all pass). Who may double:
``all`` (every seat) or ``not_dealer`` (everybody but the dealer). After
the last speaker the second half is picked up.
"""
from __future__ import annotations

from typing import Mapping

from .. import errors
from ..event import Event
from ..trick import seats_from
from .cards import PLAYERS
from .deal import second_half
from .state import State


def speakers(state: State) -> list[int]:
    order = seats_from((state.dealer + 1) % PLAYERS, PLAYERS)
    if state.config.doppeln == "not_dealer":
        order = [seat for seat in order if seat != state.dealer]
    return order


def speaker(state: State) -> int:
    return speakers(state)[len(state.doppeln)]


def commands() -> list[dict]:
    return [{"type": "doppeln", "double": True}, {"type": "doppeln", "double": False}]


def decide(state: State, seat: int, command: Mapping) -> list[Event]:
    double = command.get("double")
    if not isinstance(double, bool):
        raise errors.InvalidCommand("double must be true or false")
    events = [Event("DoppelnDeclared", {"seat": seat, "double": double,
                                        "call": "Ich dopple" if double else "Weiter"})]
    if len(state.doppeln) + 1 == len(speakers(state)):
        events.append(second_half(state))
    return events
