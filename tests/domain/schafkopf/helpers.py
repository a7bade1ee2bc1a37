"""Shared Given-builders for the Schafkopf tests."""
from __future__ import annotations

from domain.event import Event, per_seat, redact_data
from domain.schafkopf.game import Schafkopf
from domain.schafkopf.game_types import PRECEDENCE
from tests.domain.harness import given, when

GAME = Schafkopf()
ALL_GAMES = list(PRECEDENCE)


def fresh(rules: dict | None = None, presets: list | None = None):
    return GAME.initial_state(GAME.setup(4, rules or {}, presets))


def dealt_state(hands_list, rules: dict | None = None, dealer: int = 3):
    """Given preset deals (one list of hands per deal, each dealt by ``dealer``): the first is dealt."""
    if hands_list and isinstance(hands_list[0][0], str):
        hands_list = [hands_list]
    presets = [{"hands": [list(h) for h in hands], "dealer": dealer} for hands in hands_list]
    state = fresh(rules, presets)
    return deal_next(state)


def deal_next(state):
    """The system deals the next (preset) deal."""
    events = when(GAME, state, None, {"type": "deal", "deal": state.next_deal, "decks": {}})
    return given(GAME, events, state)


def say_doppeln(state, doublers=()):
    """Every Doppeln speaker in turn: those in ``doublers`` double."""
    while state.phase == "doppeln":
        seat = next(iter(GAME.to_act(state)))
        _, state = step(state, seat, {"type": "doppeln", "double": seat in doublers})
    return state


def announce(state, plays=()):
    """Every seat in turn announces: ``play`` if in ``plays``, else ``pass``."""
    state = say_doppeln(state)
    while state.phase == "announce":
        seat = next(iter(GAME.to_act(state)))
        _, state = step(state, seat, {"type": "announce", "intent": "play" if seat in plays else "pass"})
    return state


def dealt(hands, dealer: int = 3, deal: int = 0) -> Event:
    return Event("HandsDealt", {"deal": deal, "dealer": dealer, "hands": [list(h) for h in hands]},
                 per_seat("hands"))


def step(state, actor, command):
    """When ``command``; return (events, state after them)."""
    events = when(GAME, state, actor, command)
    return events, given(GAME, events, state)


def declared_state(hands, declarer: int, game: str, suit: str | None = None, rules: dict | None = None,
                   doublers=()):
    """Given: hands dealt by seat 3, ``declarer`` alone says "Ich spiele" and names ``game``."""
    rules = rules or {"allowed_games": ALL_GAMES}
    state = say_doppeln(dealt_state(hands, rules), doublers)
    state = announce(state, plays=(declarer,))
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
        cards = [c["card"] for c in GAME.legal_commands(state, seat) if c["type"] == "play"]
        card = policy(state, seat, cards) if policy else cards[0]
        new, state = step(state, seat, {"type": "play", "card": card})
        events += new
    return events, state


def settled(events) -> dict:
    return next(e.data for e in events if e.type == "DealSettled")


def complete(fixed: dict[int, list[str]], deck=None):
    """Hands for every seat: the ``fixed`` ones, the rest of the deck dealt in order to the others."""
    from domain.schafkopf.cards import DECK
    deck = deck or DECK
    size = len(deck) // 4
    rest = [c for c in deck if not any(c in hand for hand in fixed.values())]
    hands = []
    for seat in range(4):
        if seat in fixed:
            hands.append(list(fixed[seat]))
        else:
            hands.append(rest[:size])
            rest = rest[size:]
    return hands


def public_record(hands, rules, choose, observers=(None,)) -> list[dict]:
    """Deal ``hands`` and play by ``choose(state, seat)`` up to the declared game (or the next deal).

    After each step, what each of ``observers`` (seats, None = a spectator) is shown: who is to act,
    the new events as it receives them (type, redacted data), and its view. Two deals that should
    look alike to an observer must give equal records.
    """
    state = dealt_state(hands, rules)
    record = []
    while state.phase in ("doppeln", "announce", "naming"):
        seat = next(iter(GAME.to_act(state)))
        events, state = step(state, seat, choose(state, seat))
        record.append({
            "to_act": sorted(GAME.to_act(state)),
            "events": {viewer: [(e.type, redact_data(e.data, e.visibility, viewer)) for e in events]
                       for viewer in observers},
            "views": {viewer: GAME.view(state, viewer) for viewer in observers},
        })
    return record
