"""Doppeln (house rule ``doppeln``): doubling after the first half of the cards."""
from __future__ import annotations

import pytest

from domain import errors
from domain.event import redact_data
from tests.domain.harness import event_types, new_table, when

from .helpers import GAME, declared_state, dealt_state, play_out, settled, step
from .test_called_ace import HANDS

RULES = {"doppeln": "all"}


def test_the_first_half_is_picked_up_and_the_second_waits_hidden():
    # Given a table with Doppeln, When the system deals
    table, state, events = new_table(GAME, 4, RULES, preset_deals=[{"hands": HANDS, "dealer": 3}])
    dealt = [e for e in events if e.type in ("HandsDealt", "SecondHalfHeld")]
    # Then each seat sees only its first four cards; the second halves are hidden from everybody
    assert [e.type for e in dealt] == ["HandsDealt", "SecondHalfHeld"]
    assert dealt[0].data["hands"][1] == HANDS[1][:4]
    for viewer in (None, 0, 1, 2, 3):
        assert redact_data(dealt[1].data, dealt[1].visibility, viewer)[0] == {"deal": 0}
    view = table.view(state, 1)
    assert view["game_state"]["phase"] == "doppeln" and sorted(view["game_state"]["hand"]) == sorted(HANDS[1][:4])
    assert view["game_state"]["hand_sizes"] == [4, 4, 4, 4]
    assert view["legal"] == [] and view["to_act"] == [0]
    assert table.view(state, 0)["legal"] == [{"type": "doppeln", "double": True},
                                             {"type": "doppeln", "double": False}]


def test_every_seat_speaks_in_turn_then_the_second_half_is_picked_up():
    state = dealt_state(HANDS, RULES)
    assert GAME.to_act(state) == frozenset({0})
    events, state = step(state, 0, {"type": "doppeln", "double": True})
    assert events[0].data == {"seat": 0, "double": True, "call": "Ich dopple"}
    _, state = step(state, 1, {"type": "doppeln", "double": False})
    _, state = step(state, 2, {"type": "doppeln", "double": False})
    with pytest.raises(errors.NotYourTurn):
        when(GAME, state, 0, {"type": "doppeln", "double": True})
    events, state = step(state, 3, {"type": "doppeln", "double": True})
    assert event_types(events) == ["DoppelnDeclared", "SecondHalfDealt"]
    assert events[1].visibility.scope == "per_seat" and events[1].data["hands"][2] == HANDS[2][4:]
    assert state.phase == "announce" and state.hands[2] == tuple(HANDS[2])
    view = GAME.view(state, 0)
    assert view["multiplier"] == 4 and view["doppeln"][0] == {"seat": 0, "double": True}


def test_not_dealer_leaves_the_dealer_out():
    state = dealt_state(HANDS, {"doppeln": "not_dealer"})
    for seat in (0, 1, 2):
        assert GAME.to_act(state) == frozenset({seat})
        _, state = step(state, seat, {"type": "doppeln", "double": False})
    assert state.phase == "announce"


def test_doppeln_needs_a_boolean_and_its_phase():
    state = dealt_state(HANDS, RULES)
    with pytest.raises(errors.InvalidCommand):
        when(GAME, state, 0, {"type": "doppeln", "double": "yes"})
    with pytest.raises(errors.WrongPhase):
        when(GAME, state, 0, {"type": "announce", "intent": "pass"})
    with pytest.raises(errors.WrongPhase):
        when(GAME, dealt_state(HANDS), 0, {"type": "doppeln", "double": True})


def test_each_doubling_doubles_the_price():
    plain = settled(play_out(declared_state(HANDS, 0, "rufspiel", "E", rules={"stoss": 0}))[0])
    doubled = settled(play_out(declared_state(HANDS, 0, "rufspiel", "E", rules={"stoss": 0, "doppeln": "all"},
                                              doublers=(1, 3)))[0])
    assert doubled["multiplier"] == 4
    assert doubled["value"] == 4 * plain["value"]
    assert doubled["payments"] == [4 * p for p in plain["payments"]]
