"""Taking from the spice cupboard after a trick (SS-7)."""
import pytest

from domain import errors
from domain.event import redact_data
from tests.domain.harness import event_types, given, when

from .support import GAME, dealt, default_predictions, fill_deal, play_first_legal, predict_all, preset


def after_first_trick(players, cupboard_first):
    hands, cupboard = fill_deal(players, cupboard=cupboard_first)
    state, _ = dealt(players, [preset(hands, cupboard, starter=0)])
    state, _ = predict_all(state, default_predictions(players))
    return play_first_legal(state, until=lambda s: s.phase == "taking")


def test_trick_winner_chooses_a_colour_and_takes_its_first_cupboard_card():
    # Cupboard order: B5 is the first black card, so taking black takes B5.
    state, events = after_first_trick(3, ["Y3", "B5", "B1"])
    winner = events[-1].data["winner"]
    assert GAME.to_act(state) == {winner}
    colours = [c["colour"] for c in GAME.legal_commands(state, winner)]
    assert colours == [c for c in "RGYB" if any(card[0] == c for card in state.cupboard)]
    taken = when(GAME, state, winner, {"type": "take", "colour": "B"})
    assert event_types(taken) == ["CupboardCardTaken"]
    assert taken[0].data == {"seat": winner, "colour": "B", "card": "B5"}
    state = given(GAME, taken, state)
    assert "B5" in state.collections[winner] and state.phase == "playing"
    assert GAME.view(state, winner)["collections"][winner]["B"] >= 1


def test_taken_card_value_is_hidden_from_everyone():
    state, events = after_first_trick(3, ["Y3", "B5"])
    winner = events[-1].data["winner"]
    taken = when(GAME, state, winner, {"type": "take", "colour": "Y"})[0]
    for viewer in (0, 1, 2, None):
        assert redact_data(taken.data, taken.visibility, viewer)[0] == {"seat": winner, "colour": "Y"}


def test_take_errors():
    state, events = after_first_trick(3, ["Y3", "B5"])
    winner = events[-1].data["winner"]
    other = (winner + 1) % 3
    with pytest.raises(errors.NotYourTurn):
        when(GAME, state, other, {"type": "take", "colour": "Y"})
    with pytest.raises(errors.WrongPhase):
        when(GAME, state, winner, {"type": "play", "card": state.hands[winner][0]})
    with pytest.raises(errors.InvalidCommand):
        when(GAME, state, winner, {"type": "take", "colour": "P"})


def test_only_colours_left_in_the_cupboard_may_be_taken():
    # 3 players: the cupboard holds 12 cards; make them all yellow.
    yellows = [f"Y{v}" for v in range(1, 13)]
    state, events = after_first_trick(3, yellows)
    winner = events[-1].data["winner"]
    # Even with one colour left the take is an explicit command.
    assert GAME.legal_commands(state, winner) == [{"type": "take", "colour": "Y"}]
    with pytest.raises(errors.IllegalChoice):
        when(GAME, state, winner, {"type": "take", "colour": "R"})


def test_three_players_take_after_every_trick():
    state, _ = after_first_trick(3, [])
    state, events = play_first_legal(state)
    # The first take is still due in ``state``; 11 more tricks follow.
    assert event_types(events).count("CupboardCardTaken") == 12
    assert event_types(events).count("TrickTaken") == 11


def test_four_players_empty_cupboard_means_no_take_in_the_last_two_tricks():
    hands, cupboard = fill_deal(4)
    state, _ = dealt(4, [preset(hands, cupboard, starter=0)])
    state, _ = predict_all(state, default_predictions(4))
    state, events = play_first_legal(state)
    types = event_types(events)
    assert types.count("TrickTaken") == 10 and types.count("CupboardCardTaken") == 8
    # After the 8th take, tricks 9 and 10 go straight on to the next lead.
    ninth = [i for i, t in enumerate(types) if t == "TrickTaken"][8]
    assert types[ninth + 1] == "CardPlayed"
    assert types[-3:] == ["TrickTaken", "RoundScored", "GameEnded"]
