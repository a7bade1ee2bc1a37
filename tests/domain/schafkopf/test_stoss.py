"""SK-10 Stoß: Kontra, Re, Supra, Resupra — who, when, and that each doubles."""
from __future__ import annotations

import pytest

from domain import errors
from tests.domain.harness import event_types, when

from .helpers import GAME, declared_state, play_out, play_tricks, settled, step
from .test_called_ace import HANDS  # seat 0 calls the Eichel Ace, held by seat 2

STOSS = {"type": "stoss"}


def can_stoss(state, seat):
    return STOSS in GAME.legal_commands(state, seat)


def test_a_defender_may_give_kontra_before_his_first_card():
    # Given a Herz-Solo of seat 0, who leads
    state = declared_state(HANDS, 0, "solo", "H")
    assert not can_stoss(state, 0)  # the declarer cannot give Kontra
    _, state = play_tricks(state, [["HK"]])
    # When seat 1, a defender who has not played yet, gives Kontra
    assert can_stoss(state, 1)
    events, state = step(state, 1, STOSS)
    # Then it is recorded, public, and it is still seat 1's turn to play
    assert events[0].type == "StossGiven" and events[0].data == {"seat": 1, "level": 1, "call": "Kontra"}
    assert GAME.to_act(state) == frozenset({1}) and not can_stoss(state, 1)
    view = GAME.view(state, 3)
    assert view["stoss"] == [{"seat": 1, "call": "Kontra"}] and view["multiplier"] == 2


def test_kontra_is_closed_once_the_defender_has_played_his_first_card():
    state = declared_state(HANDS, 0, "solo", "H")
    _, state = play_tricks(state, [["HK", "H7", "HU", "H8"]])  # seat 2 takes it and leads
    assert GAME.to_act(state) == frozenset({2})
    assert not can_stoss(state, 2)
    with pytest.raises(errors.IllegalChoice):
        when(GAME, state, 2, STOSS)


def test_re_by_the_declaring_side_until_one_card_later():
    state = declared_state(HANDS, 0, "solo", "H")
    _, state = play_tricks(state, [["HK"]])
    _, state = step(state, 1, STOSS)  # Kontra
    _, state = play_tricks(state, [["H7", "HU", "H8"]])  # seat 2 wins; seat 0 has played once
    _, state = play_tricks(state, [["EA"]])
    assert not can_stoss(state, 3)  # Supra needs a Re first
    _, state = play_tricks(state, [["E9"]])
    assert can_stoss(state, 0)  # the declarer before his second card
    events, state = step(state, 0, STOSS)
    assert events[0].data == {"seat": 0, "level": 2, "call": "Re"}
    _, state = play_tricks(state, [["E7"], ["E8"]])
    assert GAME.view(state, None)["multiplier"] == 4


def test_re_is_closed_after_the_declarers_second_card():
    state = declared_state(HANDS, 0, "solo", "H")
    _, state = play_tricks(state, [["HK"]])
    _, state = step(state, 1, STOSS)
    _, state = play_tricks(state, [["H7", "HU", "H8"], ["EA", "E9", "E7", "E8"]])
    _, state = play_tricks(state, [["G8", "SU", "GA"]])  # seat 2 leads, seat 0 plays his third card
    assert not can_stoss(state, 0) and not can_stoss(state, 1)


def test_the_rufspiel_partner_may_give_re():
    state = declared_state(HANDS, 0, "rufspiel", "E")
    _, state = play_tricks(state, [["HK"]])
    _, state = step(state, 1, STOSS)
    _, state = play_tricks(state, [["H7"]])
    assert can_stoss(state, 2)  # he holds the called Ace: the declaring side
    events, _ = step(state, 2, STOSS)
    assert events[0].data["call"] == "Re"


def test_four_stoesse_at_most_and_each_doubles_the_price():
    state = declared_state(HANDS, 0, "solo", "H")
    _, state = play_tricks(state, [["HK"]])
    _, state = step(state, 1, STOSS)  # Kontra
    _, state = play_tricks(state, [["H7", "HU", "H8"], ["EA", "E9"]])
    _, state = step(state, 0, STOSS)  # Re (the declarer before his second card)
    _, state = play_tricks(state, [["E7"]])
    _, state = step(state, 1, STOSS)  # Supra (seat 1 has played one card, fewer than three)
    _, state = play_tricks(state, [["E8"]])
    _, state = play_tricks(state, [["G8", "SU"]])
    _, state = step(state, 0, STOSS)  # Resupra before the declarer's third card
    assert [e["call"] for e in GAME.view(state, 0)["stoss"]] == ["Kontra", "Re", "Supra", "Resupra"]
    _, state = play_tricks(state, [["GA"]])
    assert not any(can_stoss(state, s) for s in range(4))  # four at most
    rest, _ = play_out(state)
    result = settled(rest)
    # The same cards without any Stoß: the price is 2**4 times lower.
    cards = ["HK", "H7", "HU", "H8", "EA", "E9", "E7", "E8", "G8", "SU", "GA"]
    cards += [e.data["card"] for e in rest if e.type == "CardPlayed"]
    plain = settled(play_tricks(declared_state(HANDS, 0, "solo", "H"), [cards])[0])
    assert result["multiplier"] == 16 and result["value"] == plain["value"] * 16
    assert result["payments"] == [p * 16 for p in plain["payments"]]


@pytest.mark.parametrize("limit", [0, 1])
def test_the_ruleset_limits_the_stoesse(limit):
    state = declared_state(HANDS, 0, "solo", "H", rules={"stoss": limit})
    _, state = play_tricks(state, [["HK"]])
    assert can_stoss(state, 1) == (limit >= 1)
    if limit:
        _, state = step(state, 1, STOSS)
        _, state = play_tricks(state, [["H7", "HU", "H8"], ["EA", "E9"]])
        assert not can_stoss(state, 0)


def test_stoss_is_only_accepted_in_play():
    from .helpers import dealt_state
    state = dealt_state(HANDS)
    with pytest.raises(errors.WrongPhase):
        when(GAME, state, 0, STOSS)
    assert event_types([]) == []
