import pytest

from domain import errors
from tests.domain.scharwenzel.helpers import GAME, Driver

# Anna (0) deals, so Ben (1) is forehand. Dan bids 4 and names hearts.
TRICK_EXAMPLE = [
    ["QC", "QS", "QH", "JH", "8D", "7D", "8C", "7C"],  # Anna: no spades, her QS is a trump
    ["AS", "KS", "10S", "9S", "8S", "7S", "JS", "JC"],  # Ben
    ["JD", "AH", "KH", "AD", "KD", "QD", "10D", "9D"],  # Carla
    ["7H", "10H", "9H", "8H", "AC", "KC", "10C", "9C"],  # Dan
]


def hearts_table():
    d = Driver(4, presets=[{"hands": TRICK_EXAMPLE, "dealer": 0}])
    d.deal()
    d.bids(None, None, {"type": "bid", "value": 4}, None)
    d.do(3, {"type": "name_trumps", "suit": "H"})
    d.no_touts()
    return d


def test_rulebook_trick_example():
    d = hearts_table()
    assert d.state.trumps == "H" and GAME.to_act(d.state) == {1}
    d.do(1, {"type": "play", "card": "AS"})
    d.do(2, {"type": "play", "card": "JD"})
    d.do(3, {"type": "play", "card": "7H"})
    events = d.do(0, {"type": "play", "card": "QC"})
    assert [e.type for e in events] == ["CardPlayed", "TrickTaken"]
    assert events[1].data == {"seat": 0, "side": 0, "trick": 1, "cards": ["AS", "JD", "7H", "QC"]}
    assert GAME.to_act(d.state) == {0}


def test_anna_may_play_anything_on_spades_because_her_queen_is_a_trump():
    d = hearts_table()
    d.do(1, {"type": "play", "card": "AS"})
    d.do(2, {"type": "play", "card": "JD"})
    d.do(3, {"type": "play", "card": "7H"})
    assert len(GAME.legal_commands(d.state, 0)) == 8


def test_must_follow_suit_counting_permanent_trumps_as_trumps():
    d = hearts_table()
    d.do(1, {"type": "play", "card": "JS"})  # a trump lead
    # Carla holds JD, AH, KH: trumps only
    assert {c["card"] for c in GAME.legal_commands(d.state, 2)} == {"JD", "AH", "KH"}
    with pytest.raises(errors.MustFollowSuit):
        d.do(2, {"type": "play", "card": "AD"})
    with pytest.raises(errors.CardNotInHand):
        d.do(2, {"type": "play", "card": "QC"})
    with pytest.raises(errors.UnknownCard):
        d.do(2, {"type": "play", "card": "6H"})


def test_highest_of_the_led_suit_wins_without_trumps():
    d = hearts_table()
    d.do(1, {"type": "play", "card": "7S"})
    d.do(2, {"type": "play", "card": "AD"})   # void in spades, discards
    d.do(3, {"type": "play", "card": "AC"})
    events = d.do(0, {"type": "play", "card": "8D"})
    assert events[1].data["seat"] == 1
