"""SK-11 Ramsch (``all_pass: "ramsch"``): most points loses; ties; Durchmarsch; Jungfrau."""
from __future__ import annotations

from domain.schafkopf.game import Schafkopf
from domain.schafkopf.ramsch import ramsch_settlement, settle_ramsch
from domain.schafkopf.ruleset import config_from_rules, validate_rules
from domain.trick import Trick

from .helpers import GAME, dealt_state, play_out, settled, step
from .test_all_pass import all_pass
from .test_called_ace import HANDS


def config(**rules):
    return config_from_rules(validate_rules(dict({"all_pass": "ramsch"}, **rules)))


def trick(leader, *cards):
    return Trick(leader, tuple(((leader + i) % 4, c) for i, c in enumerate(cards)))


def test_all_pass_plays_a_ramsch_with_rufspiel_trumps_and_no_stoss():
    state = dealt_state(HANDS, {"all_pass": "ramsch"})
    events, state = all_pass(state)
    assert events[-1].type == "GameDeclared" and events[-1].data["game"] == "ramsch"
    assert events[-1].data["declarer"] is None
    assert GAME.to_act(state) == frozenset({0})
    seen_stoss = False
    while state.phase == "play":
        seat = next(iter(GAME.to_act(state)))
        legal = GAME.legal_commands(state, seat)
        seen_stoss |= {"type": "stoss"} in legal
        new, state = step(state, seat, legal[0])
        if state.phase != "play":
            result = settled(new)
    assert not seen_stoss
    assert result["game"] == "ramsch" and sum(result["seat_points"]) == 120
    loser = result["declarers"][0]
    assert result["seat_points"][loser] == max(result["seat_points"])
    assert result["payments"][loser] == -60 and sum(result["payments"]) == 0


# Eight tricks with known winners (Rufspiel trump order).
def tricks_for(winners_cards):
    return [(w, trick(w, *cards)) for w, cards in winners_cards]


BASE = [
    (0, ["EO", "E7", "E8", "E9"]),    # seat 0: 3
    (1, ["GO", "G7", "G8", "G9"]),    # seat 1: 3
    (2, ["HA", "H7", "H8", "H9"]),    # seat 2: 11
    (3, ["EA", "E10", "EK", "SU"]),   # seat 3: 11 + 10 + 4 + 2 = 27
    (3, ["GA", "G10", "GK", "GU"]),   # seat 3: 27 more -> 54
    (2, ["SA", "S10", "SK", "S9"]),   # seat 2: 25 -> 36
    (1, ["HO", "H10", "HK", "HU"]),   # seat 1: 19 -> 22
    (0, ["SO", "EU", "S8", "S7"]),    # seat 0: 5 -> 8
]


def test_most_points_loses_and_pays_each_other_player():
    result = settle_ramsch(0, tricks_for(BASE), 3, config())
    assert result.seat_points == (8, 22, 36, 54)
    assert result.declarers == (3,) and result.payments == (20, 20, 20, -60)
    assert not result.durchmarsch and result.stock == 0


def test_tie_on_points_more_tricks_loses():
    tricks = [(0, trick(0, "EA", "E7", "E8", "E9")), (0, trick(0, "E10", "EK", "GK", "SK")),
              (1, trick(1, "GA", "G7", "G8", "G9")), (1, trick(1, "G10", "EU", "S8", "S9")),
              (1, trick(1, "S10", "S7", "H7", "H8")), (2, trick(2, "HA", "H10", "HK", "H9")),
              (3, trick(3, "EO", "GO", "HO", "SO")), (3, trick(3, "SA", "GU", "HU", "SU"))]
    result = settle_ramsch(0, tricks, 3, config())
    assert result.seat_points == (33, 33, 25, 29)
    assert result.declarers == (1,) and result.tricks == (3, 5)  # three tricks to two
    assert result.payments == (20, -60, 20, 20)


def test_tie_on_points_and_tricks_the_higher_trump_loses():
    tricks = [(0, trick(0, "EO", "EA", "E7", "E8")),    # seat 0: 3 + 11 = 14, holds the Alte
              (1, trick(1, "GO", "GA", "G7", "G8")),    # seat 1: 14
              (2, trick(2, "E10", "EK", "E9", "S7")),   # seat 2: 14
              (3, trick(3, "G10", "GK", "G9", "S8")),   # seat 3: 14
              (2, trick(2, "HA", "H7", "H8", "H9")),    # seat 2: 25
              (3, trick(3, "SA", "S9", "SU", "EU")),    # seat 3: 15 -> 29
              (0, trick(0, "HO", "HK", "H10", "GU")),   # seat 0: 19 -> 33
              (1, trick(1, "SO", "S10", "SK", "HU"))]   # seat 1: 19 -> 33
    result = settle_ramsch(0, tricks, 3, config())
    assert result.seat_points == (33, 33, 25, 29)
    assert result.declarers == (0,)  # the Eichel Ober beats the Schellen Ober


def test_durchmarsch_all_tricks_wins_alone():
    tricks = [(0, t) for _, t in tricks_for(BASE)]
    result = settle_ramsch(0, tricks, 3, config())
    assert result.durchmarsch and result.won and result.declarers == (0,)
    assert result.payments == (60, -20, -20, -20)
    assert settle_ramsch(0, tricks, 3, config(ramsch_durchmarsch="off")).payments == (-60, 20, 20, 20)


def test_durchmarsch_all_points_needs_120_not_every_trick():
    tricks = [(0, t) for _, t in tricks_for(BASE)]
    tricks[0] = (1, trick(1, "E7", "E8", "E9", "S7"))  # a pointless trick to seat 1
    tricks[7] = (0, trick(0, "SO", "EU", "S8", "EO"))
    assert settle_ramsch(0, tricks, 3, config()).payments == (-60, 20, 20, 20)
    result = settle_ramsch(0, tricks, 3, config(ramsch_durchmarsch="all_points"))
    assert result.durchmarsch and result.payments == (60, -20, -20, -20)


def test_jungfrau_is_paid_double_individually_or_doubles_all():
    tricks = [(w if w != 2 else 3, t) for w, t in tricks_for(BASE)]  # seat 2 takes no trick
    plain = settle_ramsch(0, tricks, 3, config())
    assert plain.declarers == (3,) and plain.payments == (20, 20, 20, -60) and plain.jungfrauen == (2,)
    each = settle_ramsch(0, tricks, 3, config(ramsch_jungfrau="double_individually"))
    assert each.payments == (20, 20, 40, -80)
    for option in ("double_all", "double_all_once"):  # one Jungfrau doubles once under both
        assert settle_ramsch(0, tricks, 3, config(ramsch_jungfrau=option)).payments == (40, 40, 40, -120)


def test_double_all_doubles_every_payment_once_per_jungfrau_and_double_all_once_once():
    """The settlement the decider and the simulator share, from points and tricks alone."""
    points, taken = [0, 0, 120, 0], [0, 0, 7, 1]  # seats 0 and 1 are Jungfrauen

    def settle(option):
        return ramsch_settlement(0, config(ramsch_jungfrau=option), 1, points, taken, 8, lambda: 2)
    assert settle("double_all").jungfrauen == (0, 1)
    assert settle("double_all").payments == (80, 80, -240, 80)
    assert settle("double_all_once").payments == (40, 40, -120, 40)
    assert settle("off").payments == (20, 20, -60, 20)


def test_ramsch_price_follows_the_multiplier_and_leaves_the_stock():
    result = settle_ramsch(0, tricks_for(BASE), 3, config(tariffs={"ramsch": {"base": 5}}), multiplier=4)
    assert result.value == 20 and result.payments == (20, 20, 20, -60) and result.stock == 0
    assert isinstance(GAME, Schafkopf)
