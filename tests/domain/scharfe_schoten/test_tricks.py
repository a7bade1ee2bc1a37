"""Ranking from the number pairing, the trick winner (SS-2, SS-3) and following (SS-4)."""
import pytest

from domain import errors
from domain.scharfe_schoten.cards import (colour_ranking, numbers_tuple, playable_cards, super_trumps,
                                          trick_winner)
from tests.domain.harness import event_types, given, when

from .support import EXAMPLE_NUMBERS, GAME, dealt, default_predictions, fill_deal, predict_all, preset

EXAMPLE = numbers_tuple(EXAMPLE_NUMBERS)


def trick_example_state():
    """4 players, ranking G10 > B9 > R2 > Y1; seat 0 leads red 9, seat 1 holds no red."""
    hands, cupboard = fill_deal(4, fixed={0: ["R9"], 1: ["B8", "B9"], 2: ["R11"], 3: ["R2"]},
                                avoid={1: "R"})
    state, _ = dealt(4, [preset(hands, cupboard, EXAMPLE_NUMBERS, starter=0)])
    state, _ = predict_all(state, default_predictions(4))
    return state


def play(state, seat, card):
    events = when(GAME, state, seat, {"type": "play", "card": card})
    return given(GAME, events, state), events


def test_ranking_comes_from_the_number_pairing():
    assert colour_ranking(EXAMPLE) == ("G", "B", "R", "Y")
    assert super_trumps(EXAMPLE) == ("G10", "B9", "R2", "Y1")


def test_deal_records_pairing_ranking_and_super_trumps():
    _, events = dealt(4, [preset(*fill_deal(4), EXAMPLE_NUMBERS)])
    data = events[0].data
    assert data["numbers"] == EXAMPLE_NUMBERS
    assert data["ranking"] == ["G", "B", "R", "Y"]
    assert data["super_trumps"] == ["G10", "B9", "R2", "Y1"]


def test_rulebook_trick_example():
    state = trick_example_state()
    state, _ = play(state, 0, "R9")
    # Black ranks above red: black 8 beats red 9 although red was led.
    assert trick_winner([(0, "R9"), (1, "B8")], EXAMPLE) == 1
    state, _ = play(state, 1, "B8")
    # The next two hold red and must follow with it.
    with pytest.raises(errors.MustFollowSuit):
        when(GAME, state, 2, {"type": "play", "card": next(c for c in state.hands[2] if c[0] != "R")})
    assert trick_winner([(0, "R9"), (1, "B8"), (2, "R11")], EXAMPLE) == 1
    state, _ = play(state, 2, "R11")
    # Super trump red 2 is the most valuable card in the trick.
    state, events = play(state, 3, "R2")
    assert event_types(events) == ["CardPlayed", "TrickTaken"]
    assert events[1].data == {"winner": 3, "leader": 0, "cards": ["R9", "B8", "R11", "R2"]}
    assert GAME.to_act(state) == {3} and state.phase == "taking"


def test_rulebook_trick_example_variant_black_9_super_trump_wins():
    state = trick_example_state()
    for seat, card in ((0, "R9"), (1, "B9"), (2, "R11")):
        state, _ = play(state, seat, card)
    state, events = play(state, 3, "R2")
    # Black 9 is the higher super trump, so it beats red 2.
    assert events[1].data["winner"] == 1


def test_higher_colour_beats_higher_value_and_led_colour_does_not_matter():
    # Ranking G > B > R > Y: yellow 12 led loses to any green or black card.
    assert trick_winner([(0, "Y12"), (1, "R3"), (2, "G4")], EXAMPLE) == 2
    assert trick_winner([(0, "Y12"), (1, "Y11"), (2, "R3")], EXAMPLE) == 2
    # Within a colour the higher value wins.
    assert trick_winner([(0, "B3"), (1, "B12"), (2, "B4")], EXAMPLE) == 1
    # The lowest super trump (yellow 1) beats the best plain card (green 12).
    assert trick_winner([(0, "G12"), (1, "Y1"), (2, "G11")], EXAMPLE) == 1


def test_must_follow_led_colour():
    assert playable_cards(("R3", "G5", "Y7"), "G1") == ["G5"]
    # Without the led colour any card may be played.
    assert playable_cards(("R3", "Y7"), "G1") == ["R3", "Y7"]


def test_super_trumps_follow_their_own_colour():
    # Red 2 is a super trump but, for following, simply red.
    assert playable_cards(("R2", "Y5", "Y7"), "Y1") == ["Y5", "Y7"]
    assert playable_cards(("R2", "Y5"), "R9") == ["R2"]
    assert playable_cards(("R2", "R5", "G3"), "G10") == ["G3"]


def test_must_follow_in_the_game():
    state = trick_example_state()
    state, _ = play(state, 0, "R9")
    # Seat 1 holds no red: every card is legal.
    assert [c["card"] for c in GAME.legal_commands(state, 1)] == list(state.hands[1])
    state, _ = play(state, 1, "B8")
    reds = [c for c in state.hands[2] if c[0] == "R"]
    assert GAME.legal_commands(state, 2) == [{"type": "play", "card": c} for c in reds]
    with pytest.raises(errors.MustFollowSuit):
        when(GAME, state, 2, {"type": "play", "card": state.hands[2][-1]})


def test_play_errors():
    state = trick_example_state()
    with pytest.raises(errors.NotYourTurn):
        when(GAME, state, 1, {"type": "play", "card": state.hands[1][0]})
    with pytest.raises(errors.UnknownCard):
        when(GAME, state, 0, {"type": "play", "card": "X9"})
    with pytest.raises(errors.CardNotInHand):
        when(GAME, state, 0, {"type": "play", "card": "R2"})
    with pytest.raises(errors.UnknownCommand):
        when(GAME, state, 0, {"type": "pass"})
    with pytest.raises(errors.WrongPhase):
        when(GAME, state, 0, {"type": "take", "colour": "R"})
    with pytest.raises(errors.WrongPhase):
        when(GAME, state, 0, {"type": "predict", "most": "R", "fewest": "G"})
