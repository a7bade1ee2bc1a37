"""Hochzeit (house rule ``hochzeit``): offered with one trump, accepted by swapping a card."""
from __future__ import annotations

import pytest

from domain import errors
from domain.event import redact_data
from tests.domain.harness import event_types, when

from .helpers import GAME, announce, complete, dealt_state, play_out, settled, step

# Seat 1 holds a single trump (the Herz Seven); seat 0 has plain cards to give.
HANDS = complete({1: ["H7", "EA", "E10", "EK", "GA", "G10", "SA", "S10"],
                  0: ["EO", "GO", "HO", "SO", "EU", "E9", "G9", "S9"]})
RULES = {"hochzeit": True, "stoss": 0}


def offered():
    state = dealt_state(HANDS, RULES)
    assert state.phase == "hochzeit" and GAME.to_act(state) == frozenset({1})
    events, state = step(state, 1, {"type": "hochzeit", "offer": True})
    assert events[0].data["call"] == "Ich biete eine Hochzeit an"
    return state


def test_only_a_player_with_exactly_one_trump_may_offer():
    state = dealt_state(HANDS, RULES)
    assert GAME.legal_commands(state, 1) == [{"type": "hochzeit", "offer": True},
                                             {"type": "hochzeit", "offer": False}]
    with pytest.raises(errors.NotYourTurn):
        when(GAME, state, 0, {"type": "hochzeit", "offer": True})
    _, state = step(state, 1, {"type": "hochzeit", "offer": False})
    assert state.phase == "announce" and state.hochzeit is None
    assert dealt_state(HANDS, {}).phase == "announce"  # off by default


def test_another_player_marries_by_naming_the_hochzeit():
    married()


def married():
    state = offered()
    assert state.phase == "announce" and GAME.view(state, 3)["hochzeit"] == 1
    state = announce(state, plays=(0,))
    assert {"type": "name_game", "game": "hochzeit"} in GAME.legal_commands(state, 0)
    events, state = step(state, 0, {"type": "name_game", "game": "hochzeit"})
    assert events[-1].data == {"declarer": 0, "game": "hochzeit", "suit": None, "called_ace": None,
                               "partner": 1}
    assert state.phase == "exchange" and GAME.to_act(state) == frozenset({0})
    legal = GAME.legal_commands(state, 0)
    assert legal == [{"type": "give_card", "card": c} for c in ("E9", "G9", "S9")]
    with pytest.raises(errors.IllegalChoice):
        when(GAME, state, 0, {"type": "give_card", "card": "EO"})
    return state


def test_the_swap_is_private_to_giver_and_receiver():
    state = married()
    events, state = step(state, 0, {"type": "give_card", "card": "G9"})
    assert event_types(events) == ["HochzeitCardGiven", "HochzeitCardReceived"]
    given, received = events
    assert redact_data(given.data, given.visibility, 0)[0]["received"] == "H7"
    for viewer in (None, 1, 2, 3):
        assert redact_data(given.data, given.visibility, viewer)[0] == {"seat": 0, "to": 1}
    assert redact_data(received.data, received.visibility, 1)[0]["card"] == "G9"
    for viewer in (None, 0, 2, 3):
        assert redact_data(received.data, received.visibility, viewer)[0] == {"seat": 1, "from": 0}
    assert "H7" in state.hands[0] and "G9" in state.hands[1]
    assert GAME.view(state, 0)["swap"] == {"from": 0, "to": 1, "gave": "G9", "received": "H7"}
    assert GAME.view(state, 1)["swap"] == {"from": 0, "to": 1, "gave": "H7", "received": "G9"}
    assert GAME.view(state, 2)["swap"] == {"from": 0, "to": 1}
    assert GAME.view(state, 2)["partner"] == 1  # the partners are known to all
    assert state.phase == "play"
    result = settled(play_out(state)[0])
    assert result["game"] == "hochzeit" and result["declarers"] == [0, 1]
    assert abs(result["payments"][0]) == result["value"] and result["value"] >= 20


def test_hochzeit_ranks_like_a_rufspiel_and_below_a_solo():
    state = announce(offered(), plays=(0, 2))
    events, state = step(state, 0, {"type": "name_game", "game": "hochzeit"})
    assert event_types(events) == ["GameNamed"]
    legal = GAME.legal_commands(state, 2)
    assert not [c for c in legal if c.get("game") in ("hochzeit", "rufspiel")]
    assert [c for c in legal if c.get("game") == "solo"]
    events, state = step(state, 2, {"type": "name_game", "game": "solo", "suit": "E"})
    assert events[-1].data["declarer"] == 2 and state.phase == "play"


def test_the_offerer_cannot_marry_himself():
    state = announce(offered(), plays=(1,))
    assert {"type": "name_game", "game": "hochzeit"} not in GAME.legal_commands(state, 1)
    with pytest.raises(errors.IllegalChoice):
        when(GAME, state, 1, {"type": "name_game", "game": "hochzeit"})
