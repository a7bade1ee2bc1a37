import pytest

from domain import errors
from tests.domain.scharwenzel.helpers import GAME, Driver, of_type

# Anna 3 hearts; Ben 4 spades; Carla 4 clubs; Dan 2 of everything.
BIDDING_EXAMPLE = [
    ["AH", "KH", "QH", "QC", "QS", "JC", "JS", "7D"],
    ["AS", "KS", "10S", "9S", "JH", "JD", "8D", "9D"],
    ["AC", "KC", "10C", "9C", "10H", "9H", "10D", "KD"],
    ["8C", "7C", "8S", "7S", "8H", "7H", "AD", "QD"],
]


def bidding_table():
    driver = Driver(4, presets=[{"hands": BIDDING_EXAMPLE, "dealer": 3}])
    driver.deal()
    return driver


def test_rulebook_bidding_example():
    d = bidding_table()
    assert d.state.forehand == 0
    d.do(0, {"type": "bid", "value": 3})
    d.do(1, {"type": "bid", "value": 4})
    assert {"type": "bid", "value": 4, "besser": True} in GAME.legal_commands(d.state, 2)
    d.do(2, {"type": "bid", "value": 4, "besser": True})
    assert GAME.legal_commands(d.state, 3) == [{"type": "pass"}]
    events = d.do(3, {"type": "pass"})
    assert [e.type for e in events] == ["Passed", "TrumpsNamed"]
    assert events[1].data == {"seat": 2, "suit": "C", "after_all_passed": False,
                              "bid": {"value": 4, "besser": True}}
    assert d.state.trumps == "C" and d.state.phase == "tout"


def test_bid_that_overstates_the_hand_is_rejected():
    d = bidding_table()
    with pytest.raises(errors.IllegalChoice, match="exactly 4 cards"):
        d.do(0, {"type": "bid", "value": 4})
    with pytest.raises(errors.IllegalChoice, match="exactly 3 clubs"):
        d.do(0, {"type": "bid", "value": 3, "besser": True})


def test_a_bid_must_beat_the_standing_bid():
    d = bidding_table()
    d.do(0, {"type": "bid", "value": 3})
    d.do(1, {"type": "bid", "value": 4})
    with pytest.raises(errors.IllegalChoice, match="does not beat"):
        d.do(2, {"type": "bid", "value": 4})
    assert GAME.legal_commands(d.state, 2) == [{"type": "pass"}, {"type": "bid", "value": 4, "besser": True}]


def test_besser_does_not_beat_besser_of_the_same_number():
    d = bidding_table()
    d.do(0, {"type": "pass"})
    d.do(1, {"type": "pass"})
    d.do(2, {"type": "bid", "value": 4, "besser": True})
    # Dan has only two of every suit anyway; the ordering itself:
    from domain.scharwenzel.bidding import Bid, beats
    assert not beats(4, True, Bid(2, 4, True))
    assert beats(5, False, Bid(2, 4, True))


def test_a_hand_without_three_of_a_suit_can_only_pass():
    d = bidding_table()
    for seat in (0, 1, 2):
        d.do(seat, {"type": "pass"})
    with pytest.raises(errors.IllegalChoice, match="at least 3"):
        d.do(3, {"type": "bid", "value": 2})


def test_all_pass_means_clubs_after_all_passed():
    d = bidding_table()
    events = d.bids(None, None, None, None)
    named = of_type(events, "TrumpsNamed")[0]
    assert named.data == {"seat": None, "suit": "C", "after_all_passed": True, "bid": None}


def test_highest_plain_bidder_names_a_suit_of_exactly_that_length():
    d = bidding_table()
    d.bids({"type": "bid", "value": 3}, None, None, None)
    assert d.state.phase == "naming"
    assert GAME.to_act(d.state) == {0}
    assert GAME.legal_commands(d.state, 0) == [{"type": "name_trumps", "suit": "H"}]
    with pytest.raises(errors.IllegalChoice):
        d.do(0, {"type": "name_trumps", "suit": "D"})
    d.do(0, {"type": "name_trumps", "suit": "H"})
    assert d.state.trumps == "H" and not d.state.after_all_passed


def test_out_of_turn_and_wrong_phase():
    d = bidding_table()
    with pytest.raises(errors.NotYourTurn):
        d.do(1, {"type": "pass"})
    with pytest.raises(errors.WrongPhase):
        d.do(0, {"type": "play", "card": "AH"})
    with pytest.raises(errors.UnknownCommand):
        d.do(0, {"type": "double"})
    with pytest.raises(errors.InvalidCommand):
        d.do(0, {"type": "pass", "loud": True})
