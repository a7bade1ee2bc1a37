"""Dealing: how the shuffled deck becomes hands, and the second half under Doppeln.

The deck is dealt in two halves (4 + 4 cards, the short deck 3 + 3), each
half going round from the seat left of the dealer. Without Doppeln one
``HandsDealt`` carries the whole hands. With Doppeln the players pick up the
first half only: ``HandsDealt`` carries the first halves, the second halves
wait in ``SecondHalfHeld`` (hidden from everybody) and are picked up with
``SecondHalfDealt`` (each seat sees its own) once everybody has spoken.
"""
from __future__ import annotations

from typing import Mapping

from .. import errors
from ..event import Event, nobody, per_seat
from . import schieberrunde
from .cards import PLAYERS
from .state import State

SEAT_DECK = tuple(str(seat) for seat in range(PLAYERS))


def hands_from_deck(cards, dealer: int, half: int = 4) -> list[list[str]]:
    """Two halves, each half going round from the seat left of the dealer.

    Shuffled position p (0-based), with n = 4 * half cards a round: half
    h = p // n, then the (p % n) // half-th seat counted from the dealer's
    left neighbour gets it, as card half*h + p % half of that hand (a hand's
    first ``half`` cards are its first half).
    """
    hands: list[list[str]] = [[] for _ in range(PLAYERS)]
    for h in range(2):
        for j in range(PLAYERS):
            seat = (dealer + 1 + j) % PLAYERS
            start = h * half * PLAYERS + j * half
            hands[seat].extend(cards[start:start + half])
    return hands


def first_dealer(state: State) -> int:
    return (state.dealer + 1) % PLAYERS if state.dealer >= 0 else 0


def decide_deal(state: State, command: Mapping) -> list[Event]:
    config = state.config
    k = command.get("deal")
    if k != state.next_deal:
        raise errors.InvalidCommand(f"deal {state.next_deal} is due, not {k!r}")
    dealer = first_dealer(state)
    if k < len(state.presets):
        hands, preset_dealer = state.presets[k]
        hands = [list(hand) for hand in hands]
        if preset_dealer is not None:
            dealer = preset_dealer
    else:
        decks = command.get("decks") or {}
        cards = list(decks.get("cards") or ())
        if len(cards) != len(config.cards) or set(cards) != set(config.cards):
            raise errors.InvalidCommand(f"decks.cards must be the {len(config.cards)} cards of the {config.deck} deck")
        if k == 0:
            seats = list(decks.get("seats") or ())
            if sorted(seats) != list(SEAT_DECK):
                raise errors.InvalidCommand("deal 0 needs decks.seats, the four seat numbers")
            dealer = int(seats[0])
        hands = hands_from_deck(cards, dealer, config.half)
    if state.schieber_due:  # after a won Herz-Solo: Vorhand gets EO and GO first
        deck = schieberrunde.deck_from_hands(hands, dealer, config.half)
        hands = schieberrunde.hands_from_deck(deck, dealer, config.half)
        return [Event("HandsDealt", {"deal": k, "dealer": dealer, "hands": hands, "schieberrunde": True},
                      per_seat("hands"))]
    if config.doppeln == "off":
        return [Event("HandsDealt", {"deal": k, "dealer": dealer, "hands": hands}, per_seat("hands"))]
    half = config.half
    return [Event("HandsDealt", {"deal": k, "dealer": dealer, "hands": [h[:half] for h in hands]},
                  per_seat("hands")),
            Event("SecondHalfHeld", {"deal": k, "hands": [h[half:] for h in hands]}, nobody("deal"))]


def second_half(state: State) -> Event:
    return Event("SecondHalfDealt", {"deal": state.deal, "hands": [list(h) for h in state.held]},
                 per_seat("hands"))
