import pytest

from domain.scharwenzel.cards import Ranking, deck, hand_size, plain_order, suit_counts, trump_order
from domain.scharwenzel.deal import deal_packets

TOP = lambda t: ["QC", "7" + t, "QS", "JC", "JS", "JH", "JD"]  # noqa: E731


@pytest.mark.parametrize("players, size", [(4, 32), (6, 36), (8, 32)])
def test_deck_sizes(players, size):
    assert len(deck(players)) == size == len(set(deck(players)))
    assert hand_size(players) * players == size
    assert ("6C" in deck(players)) == (players == 6)


@pytest.mark.parametrize("trumps, rest32, rest36", [
    ("C", ["AC", "KC", "10C", "9C", "8C"], ["AC", "KC", "10C", "9C", "8C", "6C"]),
    ("S", ["AS", "KS", "10S", "9S", "8S"], ["AS", "KS", "10S", "9S", "8S", "6S"]),
    ("H", ["AH", "KH", "QH", "10H", "9H", "8H"], ["AH", "KH", "QH", "10H", "9H", "8H", "6H"]),
    ("D", ["AD", "KD", "QD", "10D", "9D", "8D"], ["AD", "KD", "QD", "10D", "9D", "8D", "6D"]),
])
def test_trump_order_for_each_suit_and_deck(trumps, rest32, rest36):
    for players in (4, 8):
        assert list(trump_order(trumps, players)) == TOP(trumps) + rest32
    assert list(trump_order(trumps, 6)) == TOP(trumps) + rest36


@pytest.mark.parametrize("players", [4, 6, 8])
def test_every_card_is_a_trump_or_in_one_plain_suit(players):
    for trumps in "CSHD":
        plain = [c for s in "CSHD" if s != trumps for c in plain_order(s, trumps, players)]
        assert sorted(plain + list(trump_order(trumps, players))) == sorted(deck(players))


def test_plain_suits_rank_without_jack_and_black_queen():
    assert list(plain_order("C", "H", 4)) == ["AC", "KC", "10C", "9C", "8C", "7C"]
    assert list(plain_order("S", "H", 6)) == ["AS", "KS", "10S", "9S", "8S", "7S", "6S"]
    assert list(plain_order("D", "H", 4)) == ["AD", "KD", "QD", "10D", "9D", "8D", "7D"]


def test_permanent_trumps_follow_as_trumps():
    ranking = Ranking("H", 4)
    assert ranking.follow_suit("QS") == ranking.follow_suit("JD") == ranking.follow_suit("7H") == "T"
    assert ranking.follow_suit("7S") == "S"
    assert ranking.strength("QC", "S") > ranking.strength("7H", "S") > ranking.strength("QS", "S")
    assert ranking.strength("8H", "S") > ranking.strength("AS", "S") > ranking.strength("AD", "S")


def test_bid_counts_leave_out_black_queens_and_jacks():
    assert suit_counts(["QC", "JC", "7C", "AC", "QS", "QH", "JH", "AH"]) == {"C": 2, "S": 0, "H": 2, "D": 0}


@pytest.mark.parametrize("players, packets", [(4, (3, 2, 3)), (6, (2, 2, 2)), (8, (2, 2))])
def test_deal_packets_go_clockwise_from_forehand(players, packets):
    cards = list(deck(players))
    dealer = 1
    hands = deal_packets(cards, dealer, players)
    forehand = (dealer + 1) % players
    assert hands[forehand][:packets[0]] == cards[:packets[0]]
    assert hands[dealer][:packets[0]] == cards[packets[0] * (players - 1):packets[0] * players]
    assert sorted(c for h in hands for c in h) == sorted(cards)
    assert all(len(h) == hand_size(players) for h in hands)
