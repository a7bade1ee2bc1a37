"""SK-6: the called Ace, davonlaufen, the last-trick exception, and the partner reveal."""
from __future__ import annotations

import pytest

from domain import errors
from tests.domain.harness import event_types, when

from .helpers import GAME, declared_state, play_tricks, step


def legal_cards(state, seat):
    return [c["card"] for c in GAME.legal_commands(state, seat) if c["type"] == "play"]


# Seat 0 calls the Eichel Ace; seat 2 holds it with E10 and EK.
HANDS = [
    ["EO", "GO", "E7", "GA", "G7", "SA", "S7", "HK"],
    ["HO", "SO", "E8", "G10", "G9", "S10", "S9", "H7"],
    ["EA", "E10", "EK", "G8", "GK", "SK", "S8", "HU"],
    ["EU", "GU", "SU", "HA", "H10", "H9", "H8", "E9"],
]


def test_called_ace_must_be_played_when_its_suit_is_first_led():
    state = declared_state(HANDS, 0, "rufspiel", "E")
    _, state = play_tricks(state, [["E7", "E8"]])
    assert legal_cards(state, 2) == ["EA"]
    with pytest.raises(errors.IllegalCard):
        when(GAME, state, 2, {"type": "play", "card": "E10"})
    events, state = step(state, 2, {"type": "play", "card": "EA"})
    assert event_types(events) == ["CardPlayed", "PartnerRevealed"]
    assert events[1].data == {"seat": 2, "card": "EA"}
    assert GAME.view(state, 1)["partner"] == 2


def test_partner_is_private_until_the_ace_falls():
    state = declared_state(HANDS, 0, "rufspiel", "E")
    assert GAME.view(state, 0)["partner"] is None
    assert GAME.view(state, None)["partner"] is None
    assert GAME.view(state, 2)["partner"] == 2  # he knows: the Ace is in his own hand


def test_the_called_suit_is_led_only_with_the_ace():
    state = declared_state(HANDS, 0, "rufspiel", "E")
    _, state = play_tricks(state, [["HK", "H7", "HU", "H8"]])  # seat 2 takes it with the Unter
    assert next(iter(GAME.to_act(state))) == 2
    assert legal_cards(state, 2) == ["EA", "G8", "GK", "SK", "S8"]
    with pytest.raises(errors.IllegalCard):
        when(GAME, state, 2, {"type": "play", "card": "E10"})


def test_davonlaufen_with_the_ace_and_three_more():
    hands = [list(h) for h in HANDS]
    hands[2] = ["EA", "E10", "EK", "E9", "G8", "GK", "S8", "HU"]
    hands[3] = ["EU", "GU", "SU", "HA", "H10", "H9", "H8", "SK"]
    state = declared_state(hands, 0, "rufspiel", "E")
    _, state = play_tricks(state, [["HK", "H7", "HU", "H8"]])
    assert {"E10", "EK", "E9", "EA"} <= set(legal_cards(state, 2))
    events, state = play_tricks(state, [["E9", "SK", "E7", "E8"]])  # runs away; the Nine holds
    assert "PartnerRevealed" not in event_types(events)
    assert state.ace_free
    assert events[-1].data["seat"] == 2
    assert {"EA", "E10", "EK"} <= set(legal_cards(state, 2))  # the Ace is free from now on


# Seat 1 calls the Eichel Ace held by seat 2, who has no trumps: Eichel is
# never led until the last trick.
LATE = [
    ["EO", "GO", "HO", "SO", "HA", "H10", "HK", "S7"],
    ["EU", "GU", "HU", "SU", "H9", "H8", "H7", "E8"],
    ["EA", "GA", "G10", "GK", "G9", "G8", "G7", "SA"],
    ["E10", "EK", "E9", "E7", "S10", "SK", "S9", "S8"],
]


def test_called_ace_may_not_be_discarded_before_its_suit_was_led():
    state = declared_state(LATE, 1, "rufspiel", "E")
    _, state = play_tricks(state, [["EO", "EU"]])
    assert "EA" not in legal_cards(state, 2)
    assert len(legal_cards(state, 2)) == 7
    with pytest.raises(errors.IllegalCard):
        when(GAME, state, 2, {"type": "play", "card": "EA"})


def test_called_ace_may_be_discarded_in_the_last_trick():
    state = declared_state(LATE, 1, "rufspiel", "E")
    _, state = play_tricks(state, [
        ["EO", "EU", "GA", "S8"], ["GO", "GU", "G10", "S9"], ["HO", "HU", "GK", "SK"],
        ["SO", "SU", "G9", "S10"], ["HA", "H9", "G8", "E7"], ["H10", "H8", "G7", "E9"],
        ["HK", "H7"],
    ])
    assert legal_cards(state, 2) == ["SA"]  # trick 7: still held back
    _, state = play_tricks(state, [["SA", "EK"], ["S7", "E8"]])
    assert state.trick_number == 7
    assert legal_cards(state, 2) == ["EA"]  # the last trick: discarded on Schellen
    events, _ = step(state, 2, {"type": "play", "card": "EA"})
    assert event_types(events)[:2] == ["CardPlayed", "PartnerRevealed"]
