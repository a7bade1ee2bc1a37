"""SK-11 Ramsch Jungfrau (``ramsch_jungfrau``, a house rule) and 120 points without every trick.

Given: preset hands dealt by seat 3, everybody says "Weiter" (``all_pass:
"ramsch"``), and every trick but the last card is played. When: the last
card. Then: the trick and ``DealSettled``. The Ramsch price is 20.

The rulebook: "whoever has collected the most points loses ... If a player
takes every trick — a "Durchmarsch" — the other three players have lost and
that player alone has won." So 120 points without every trick is a loss
unless the table counts 120 points as a Durchmarsch (``all_points``).
"""
from __future__ import annotations

import pytest

from tests.domain.harness import event_types

from .helpers import GAME, announce, dealt_state, play_tricks, step

# Seat 0 takes all 120 in the seven trump tricks; the last trick (four cards
# worth nothing) goes to seat 1, so seats 2 and 3 take no trick.
TWO_JUNGFRAUEN = [
    ["EO", "GO", "HO", "SO", "EU", "GU", "HU", "E7"],
    ["SU", "HA", "H10", "HK", "H9", "H8", "H7", "E9"],
    ["EA", "E10", "EK", "GA", "G10", "GK", "E8", "G9"],
    ["SA", "S10", "SK", "S9", "S8", "S7", "G8", "G7"],
]
TWO_JUNGFRAUEN_TRICKS = [
    ["EO", "SU", "EA", "SA"], ["GO", "HA", "E10", "S10"], ["HO", "H10", "EK", "SK"],
    ["SO", "HK", "GA", "S9"], ["EU", "H9", "G10", "S8"], ["GU", "H8", "GK", "S7"],
    ["HU", "H7", "G9", "G8"], ["E7", "E9", "E8", "G7"],  # seat 1 wins with the Eichel 9: 0 points
]

# Seat 0 takes all 120 in six trump tricks; seat 1 and seat 2 each take a
# trick worth nothing; seat 3 alone takes none.
ONE_JUNGFRAU = [
    ["EO", "GO", "HO", "SO", "EU", "GU", "E7", "G7"],
    ["HU", "SU", "HA", "H10", "HK", "H9", "E9", "G8"],
    ["H8", "EA", "E10", "EK", "GA", "G10", "E8", "G9"],
    ["H7", "SA", "S10", "SK", "S9", "GK", "S7", "S8"],
]
ONE_JUNGFRAU_TRICKS = [
    ["EO", "HU", "H8", "H7"], ["GO", "SU", "EA", "SA"], ["HO", "HA", "E10", "S10"],
    ["SO", "H10", "EK", "SK"], ["EU", "HK", "GA", "GK"], ["GU", "H9", "G10", "S9"],
    ["E7", "E9", "E8", "S7"],  # seat 1 wins with the Eichel 9: 0 points
    ["G8", "G9", "S8", "G7"],  # seat 2 wins with the Gras 9: 0 points
]

# Seat 0 holds every Ober and Unter and leads them all: every trick, 120
# points; seats 1, 2 and 3 take none.
THREE_JUNGFRAUEN = [
    ["EO", "GO", "HO", "SO", "EU", "GU", "HU", "SU"],
    ["HA", "H10", "HK", "H9", "H8", "H7", "E9", "E7"],
    ["EA", "E10", "EK", "GA", "G10", "GK", "E8", "G9"],
    ["SA", "S10", "SK", "S9", "S8", "S7", "G8", "G7"],
]
THREE_JUNGFRAUEN_TRICKS = [
    ["EO", "HA", "EA", "SA"], ["GO", "H10", "E10", "S10"], ["HO", "HK", "EK", "SK"],
    ["SO", "H9", "GA", "S9"], ["EU", "H8", "G10", "S8"], ["GU", "H7", "GK", "S7"],
    ["HU", "E9", "E8", "G8"], ["SU", "E7", "G9", "G7"],
]


def last_card(hands, tricks, durchmarsch: str, jungfrau: str):
    """Given the Ramsch played to its last card; When that card is played: the events."""
    state = announce(dealt_state(hands, {"all_pass": "ramsch", "ramsch_durchmarsch": durchmarsch,
                                         "ramsch_jungfrau": jungfrau}))
    assert state.contract.game == "ramsch"
    *played, last = tricks
    _, state = play_tricks(state, played + [last[:-1]])
    events, _ = step(state, next(iter(GAME.to_act(state))), {"type": "play", "card": last[-1]})
    assert event_types(events) == ["CardPlayed", "TrickTaken", "DealSettled"]
    return events[1].data, events[2].data


@pytest.mark.parametrize("durchmarsch", ["all_tricks", "off"])
def test_120_points_without_every_trick_is_no_durchmarsch_and_double_all_doubles_per_jungfrau(durchmarsch):
    """"Jungfrau doubles", read per Jungfrau (openschafkopf's ``DoubleAll``): two Jungfrauen, x4."""
    trick, settled = last_card(TWO_JUNGFRAUEN, TWO_JUNGFRAUEN_TRICKS, durchmarsch, "double_all")
    assert trick["seat"] == 1 and trick["points"] == 0
    assert settled["seat_points"] == [120, 0, 0, 0] and settled["durchmarsch"] is False
    assert settled["declarers"] == [0] and settled["won"] is False
    assert settled["jungfrauen"] == [2, 3]
    assert settled["payments"] == [-240, 80, 80, 80]  # 3 x 20, doubled twice


@pytest.mark.parametrize("durchmarsch", ["all_tricks", "off"])
def test_double_all_once_doubles_the_loss_once_with_two_jungfrauen(durchmarsch):
    """The house rule ``double_all_once`` (what ``double_all`` meant before GameCreated v2)."""
    _, settled = last_card(TWO_JUNGFRAUEN, TWO_JUNGFRAUEN_TRICKS, durchmarsch, "double_all_once")
    assert settled["durchmarsch"] is False and settled["jungfrauen"] == [2, 3]
    assert settled["payments"] == [-120, 40, 40, 40]  # 3 x 20, doubled once


@pytest.mark.parametrize("durchmarsch", ["all_tricks", "off"])
def test_120_points_without_every_trick_without_jungfrau_rule_is_a_plain_loss(durchmarsch):
    _, settled = last_card(TWO_JUNGFRAUEN, TWO_JUNGFRAUEN_TRICKS, durchmarsch, "off")
    assert settled["jungfrauen"] == [2, 3] and settled["payments"] == [-60, 20, 20, 20]


@pytest.mark.parametrize("jungfrau", ["off", "double_individually", "double_individually_multiple",
                                      "double_all", "double_all_once"])
def test_120_points_is_a_durchmarsch_with_all_points_and_no_jungfrau_counts(jungfrau):
    _, settled = last_card(TWO_JUNGFRAUEN, TWO_JUNGFRAUEN_TRICKS, "all_points", jungfrau)
    assert settled["durchmarsch"] is True and settled["won"] is True and settled["declarers"] == [0]
    assert settled["jungfrauen"] == [] and settled["payments"] == [60, -20, -20, -20]


def test_120_points_without_every_trick_double_individually_pays_each_jungfrau_double_once():
    _, settled = last_card(TWO_JUNGFRAUEN, TWO_JUNGFRAUEN_TRICKS, "all_tricks", "double_individually")
    assert settled["payments"] == [-100, 20, 40, 40]


def test_double_individually_multiple_two_jungfrauen_are_each_paid_four_times():
    _, settled = last_card(TWO_JUNGFRAUEN, TWO_JUNGFRAUEN_TRICKS, "all_tricks", "double_individually_multiple")
    assert settled["jungfrauen"] == [2, 3]
    assert settled["payments"] == [-180, 20, 80, 80]  # 20 + 4 x 20 + 4 x 20


def test_double_individually_multiple_one_jungfrau_is_paid_double_like_double_individually():
    for jungfrau in ("double_individually", "double_individually_multiple"):
        trick, settled = last_card(ONE_JUNGFRAU, ONE_JUNGFRAU_TRICKS, "all_tricks", jungfrau)
        assert trick["seat"] == 2 and trick["points"] == 0
        assert settled["seat_points"] == [120, 0, 0, 0] and settled["jungfrauen"] == [3]
        assert settled["payments"] == [-80, 20, 20, 40], jungfrau
    for jungfrau in ("double_all", "double_all_once"):  # one Jungfrau: once per Jungfrau is once
        _, settled = last_card(ONE_JUNGFRAU, ONE_JUNGFRAU_TRICKS, "all_tricks", jungfrau)
        assert settled["payments"] == [-120, 40, 40, 40], jungfrau


def test_double_individually_multiple_three_jungfrauen_without_durchmarsch_are_each_paid_eight_times():
    _, settled = last_card(THREE_JUNGFRAUEN, THREE_JUNGFRAUEN_TRICKS, "off", "double_individually_multiple")
    assert settled["tricks"] == {"declarers": 8, "defenders": 0} and settled["durchmarsch"] is False
    assert settled["jungfrauen"] == [1, 2, 3]
    assert settled["payments"] == [-480, 160, 160, 160]
    _, once = last_card(THREE_JUNGFRAUEN, THREE_JUNGFRAUEN_TRICKS, "off", "double_individually")
    assert once["payments"] == [-120, 40, 40, 40]


def test_double_all_three_jungfrauen_without_durchmarsch_double_every_payment_three_times():
    _, settled = last_card(THREE_JUNGFRAUEN, THREE_JUNGFRAUEN_TRICKS, "off", "double_all")
    assert settled["jungfrauen"] == [1, 2, 3] and settled["payments"] == [-480, 160, 160, 160]
    _, once = last_card(THREE_JUNGFRAUEN, THREE_JUNGFRAUEN_TRICKS, "off", "double_all_once")
    assert once["payments"] == [-120, 40, 40, 40]


def test_every_trick_is_a_durchmarsch_with_all_tricks_so_no_jungfrau_multiplies():
    _, settled = last_card(THREE_JUNGFRAUEN, THREE_JUNGFRAUEN_TRICKS, "all_tricks", "double_individually_multiple")
    assert settled["durchmarsch"] is True and settled["payments"] == [60, -20, -20, -20]
