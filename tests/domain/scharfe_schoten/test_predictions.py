"""Simultaneous, hidden predictions (SS-6)."""
import pytest

from domain import errors
from domain.event import redact_data
from tests.domain.harness import event_types, given, when

from .support import GAME, dealt, fill_deal, preset


def fresh(players=3):
    state, _ = dealt(players, [preset(*fill_deal(players), starter=0)])
    return state


def predict(state, seat, most, fewest):
    events = when(GAME, state, seat, {"type": "predict", "most": most, "fewest": fewest})
    return given(GAME, events, state), events


def test_every_seat_predicts_at_once_with_twelve_choices():
    state = fresh(4)
    assert GAME.to_act(state) == {0, 1, 2, 3}
    legal = GAME.legal_commands(state, 2)
    assert len(legal) == 12
    assert {"type": "predict", "most": "Y", "fewest": "B"} in legal
    assert all(c["most"] != c["fewest"] for c in legal)
    state, _ = predict(state, 2, "Y", "B")
    assert GAME.to_act(state) == {0, 1, 3}
    assert GAME.legal_commands(state, 2) == []


def test_prediction_is_hidden_from_other_seats_until_revealed():
    state = fresh()
    state, events = predict(state, 1, "G", "R")
    made = events[0]
    assert event_types(events) == ["PredictionMade"]
    assert redact_data(made.data, made.visibility, 1)[0] == {"seat": 1, "most": "G", "fewest": "R"}
    assert redact_data(made.data, made.visibility, 0)[0] == {"seat": 1}
    assert redact_data(made.data, made.visibility, None)[0] == {"seat": 1}

    assert GAME.view(state, 1)["predictions"][1] == {"made": True, "most": "G", "fewest": "R"}
    for viewer in (0, 2, None):
        predictions = GAME.view(state, viewer)["predictions"]
        assert predictions[1] == {"made": True}
        assert predictions[0] == {"made": False}


def test_last_prediction_reveals_all_in_the_same_decision():
    state = fresh()
    state, _ = predict(state, 0, "R", "G")
    state, _ = predict(state, 2, "B", "Y")
    state, events = predict(state, 1, "G", "R")
    assert event_types(events) == ["PredictionMade", "PredictionsRevealed"]
    revealed = events[1]
    assert revealed.visibility.scope == "public"
    assert revealed.data == {"predictions": [{"most": "R", "fewest": "G"}, {"most": "G", "fewest": "R"},
                                             {"most": "B", "fewest": "Y"}]}
    assert GAME.view(state, None)["predictions"][2] == {"made": True, "most": "B", "fewest": "Y"}
    assert state.phase == "playing" and GAME.to_act(state) == {0}


def test_second_prediction_is_rejected():
    state, _ = predict(fresh(), 0, "R", "G")
    with pytest.raises(errors.AlreadyDone):
        when(GAME, state, 0, {"type": "predict", "most": "B", "fewest": "Y"})
    with pytest.raises(errors.AlreadyDone):
        when(GAME, state, 0, {"type": "predict", "most": "R", "fewest": "G"})


def test_most_and_fewest_must_differ():
    with pytest.raises(errors.IllegalChoice):
        when(GAME, fresh(), 0, {"type": "predict", "most": "R", "fewest": "R"})


def test_prediction_needs_two_colours():
    with pytest.raises(errors.InvalidCommand):
        when(GAME, fresh(), 0, {"type": "predict", "most": "X", "fewest": "R"})
    with pytest.raises(errors.InvalidCommand):
        when(GAME, fresh(), 0, {"type": "predict", "most": "R"})


def test_no_card_is_played_before_all_have_predicted():
    state, _ = predict(fresh(), 0, "R", "G")
    with pytest.raises(errors.WrongPhase):
        when(GAME, state, 0, {"type": "play", "card": state.hands[0][0]})
