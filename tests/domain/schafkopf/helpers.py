"""Shared Given-builders for the Schafkopf tests."""
from __future__ import annotations

from domain.event import Event, per_seat
from domain.schafkopf.game import Schafkopf
from domain.schafkopf.game_types import PRECEDENCE
from tests.domain.harness import given, when

GAME = Schafkopf()
ALL_GAMES = list(PRECEDENCE)


def fresh(rules: dict | None = None):
    return GAME.initial_state(GAME.setup(4, rules or {}, None))


def dealt(hands, dealer: int = 3, deal: int = 0) -> Event:
    return Event("HandsDealt", {"deal": deal, "dealer": dealer, "hands": [list(h) for h in hands]},
                 per_seat("hands"))


def step(state, actor, command):
    """When ``command``; return (events, state after them)."""
    events = when(GAME, state, actor, command)
    return events, given(GAME, events, state)


def declared_state(hands, declarer: int, game: str, suit: str | None = None, rules: dict | None = None):
    """Given: hands dealt by seat 3, ``declarer`` alone says "Ich spiele" and names ``game``."""
    rules = rules or {"allowed_games": ALL_GAMES}
    state = given(GAME, [dealt(hands)], fresh(rules))
    for seat in range(4):
        _, state = step(state, seat, {"type": "announce", "intent": "play" if seat == declarer else "pass"})
    command = {"type": "name_game", "game": game}
    if suit:
        command["suit"] = suit
    _, state = step(state, declarer, command)
    return state


def play_tricks(state, tricks):
    """Play ``tricks``, each a list of cards starting with the leader; return (all events, state)."""
    events = []
    for cards in tricks:
        for card in cards:
            seat = next(iter(GAME.to_act(state)))
            new, state = step(state, seat, {"type": "play", "card": card})
            events += new
    return events, state


def play_out(state, policy=None):
    """Play to the end of the deal; ``policy(state, seat, legal_cards)`` picks (default: first)."""
    events = []
    while state.phase == "play":
        seat = next(iter(GAME.to_act(state)))
        cards = [c["card"] for c in GAME.legal_commands(state, seat)]
        card = policy(state, seat, cards) if policy else cards[0]
        new, state = step(state, seat, {"type": "play", "card": card})
        events += new
    return events, state


def settled(events) -> dict:
    return next(e.data for e in events if e.type == "DealSettled")
