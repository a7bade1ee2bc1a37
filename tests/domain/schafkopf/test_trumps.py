"""SK-2 trump orders for every game type, and trick winners that follow from them."""
from __future__ import annotations

import pytest

from domain.schafkopf.game_types import PRECEDENCE, order
from domain.schafkopf.play import trick_winner
from domain.schafkopf.state import Contract
from domain.trick import Trick

OBERS = ["EO", "GO", "HO", "SO"]
UNTERS = ["EU", "GU", "HU", "SU"]


def suit(s, ranks):
    return [s + r for r in ranks.split()]


EXPECTED = {
    ("rufspiel", "E"): OBERS + UNTERS + suit("H", "A 10 K 9 8 7"),
    ("rufspiel", "S"): OBERS + UNTERS + suit("H", "A 10 K 9 8 7"),  # the call does not change trumps
    ("sie", None): OBERS + UNTERS + suit("H", "A 10 K 9 8 7"),
    ("solo", "E"): OBERS + UNTERS + suit("E", "A 10 K 9 8 7"),
    ("solo", "G"): OBERS + UNTERS + suit("G", "A 10 K 9 8 7"),
    ("solo", "H"): OBERS + UNTERS + suit("H", "A 10 K 9 8 7"),
    ("solo", "S"): OBERS + UNTERS + suit("S", "A 10 K 9 8 7"),
    ("solo_tout", "S"): OBERS + UNTERS + suit("S", "A 10 K 9 8 7"),
    ("wenz", None): UNTERS,
    ("wenz_tout", None): UNTERS,
    ("farbwenz", "G"): UNTERS + suit("G", "A 10 K O 9 8 7"),
    ("farbwenz_tout", "H"): UNTERS + suit("H", "A 10 K O 9 8 7"),
    ("geier", None): OBERS,
    ("geier_tout", None): OBERS,
    ("farbgeier", "E"): OBERS + suit("E", "A 10 K U 9 8 7"),
    ("farbgeier_tout", "S"): OBERS + suit("S", "A 10 K U 9 8 7"),
    ("bettel", None): [],
}


@pytest.mark.parametrize("game,trump_suit", list(EXPECTED), ids=[f"{g}-{s}" for g, s in EXPECTED])
def test_trump_order(game, trump_suit):
    assert list(order(game, trump_suit).trumps) == EXPECTED[(game, trump_suit)]


def test_every_game_type_has_a_trump_order_test():
    assert {game for game, _ in EXPECTED} == set(PRECEDENCE)


def test_plain_suit_orders():
    assert order("rufspiel", "E").plain_ranks == ("A", "10", "K", "9", "8", "7")
    assert order("wenz", None).plain_ranks == ("A", "10", "K", "O", "9", "8", "7")
    assert order("geier", None).plain_ranks == ("A", "10", "K", "U", "9", "8", "7")
    assert order("bettel", None).plain_ranks == ("A", "K", "O", "U", "10", "9", "8", "7")


def winner(game, trump_suit, leader, cards, declarer=0):
    trick = Trick(leader, tuple(((leader + i) % 4, card) for i, card in enumerate(cards)))
    return trick_winner(trick, Contract(game, trump_suit, declarer))


def test_rufspiel_the_seven_of_hearts_beats_a_led_ace():
    assert winner("rufspiel", "E", 0, ["EA", "E10", "H7", "EK"]) == 2


def test_highest_trump_takes_a_trumped_trick():
    assert winner("rufspiel", "E", 1, ["GA", "SU", "HU", "G7"]) == 3  # seat 3 played HU


def test_a_discard_never_wins():
    assert winner("solo", "G", 0, ["E9", "SA", "HA", "E7"]) == 0


def test_wenz_ober_is_a_plain_card_below_the_king():
    assert winner("wenz", None, 0, ["EK", "EO", "E9", "E7"]) == 0
    assert winner("wenz", None, 0, ["EO", "E9", "SU", "E7"]) == 2  # an Unter trumps


def test_geier_unter_is_plain_and_ober_trumps():
    assert winner("geier", None, 0, ["GU", "G9", "SO", "GK"]) == 2
    assert winner("geier", None, 0, ["GU", "G9", "G8", "GK"]) == 3


def test_farbwenz_suit_trumps_below_the_unters():
    assert winner("farbwenz", "S", 0, ["S7", "SA", "SU", "EA"]) == 2
    assert winner("farbwenz", "S", 0, ["EA", "S7", "E10", "EK"]) == 1


def test_bettel_unter_beats_the_ten_and_hearts_are_plain():
    assert winner("bettel", None, 0, ["E10", "EU", "E9", "HA"]) == 1
    assert winner("bettel", None, 0, ["H9", "HU", "EO", "H10"]) == 1
