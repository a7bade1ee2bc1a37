from dataclasses import replace

from domain.scharwenzel.scoring import matadors, score_deal
from domain.scharwenzel.state import Sheet
from tests.domain.scharwenzel.helpers import (MAJORITY_8, SCORING_EXAMPLE, TIE_8, TOUT_8, Driver, of_type,
                                              rotate)


def test_rulebook_scoring_example():
    d = Driver(4, rules={"deals": 1}, presets=[{"hands": SCORING_EXAMPLE, "dealer": 3}])
    d.deal()
    d.bids(None, None, None, {"type": "bid", "value": 3, "besser": True})
    assert d.state.trumps == "C" and not d.state.after_all_passed
    d.no_touts()
    events = d.play_script(SCORING_EXAMPLE)
    assert [e.data["side"] for e in of_type(events, "TrickTaken")] == [0, 0, 0, 0, 0, 1, 1, 1]
    score = of_type(events, "DealScored")[0].data
    assert score["game"] == 4 and score["first"] == 2
    assert score["matadors"] == 4 and score["matador_cards"] == ["QC", "7C", "QS", "JC"]
    assert score["points"] == [10, 0]
    assert d.state.sheet.points == (10, 0)
    assert of_type(events, "GameEnded")[0].data["winner"] is None  # no thread yet


def test_matadors_need_the_top_three_and_stop_at_a_gap():
    assert matadors({"QC", "7H", "JC"}, "H") == []
    assert matadors({"QC", "7H", "QS", "JS"}, "H") == ["QC", "7H", "QS"]
    assert len(matadors({"QC", "7H", "QS", "JC", "JS", "JH", "JD", "AH"}, "H")) == 7


def eight(presets, rules=None):
    return Driver(8, rules={"announced_tout": False, **(rules or {"deals": 3})}, presets=presets)


def play_passed_deal(d, hands):
    d.deal()
    events = d.bids(*[None] * 8)
    assert of_type(events, "TrumpsNamed")[0].data["after_all_passed"]
    d.no_touts()
    return d.play_script(hands)


def test_bock_carried_over_two_tied_deals():
    presets = [{"hands": TIE_8, "dealer": 7}, {"hands": rotate(TIE_8, 1)}, {"hands": rotate(MAJORITY_8, 2)}]
    d = eight(presets)
    first = of_type(play_passed_deal(d, TIE_8), "DealScored")[0].data
    assert first["bock"] and first["tricks"] == [2, 2] and first["points"] == [0, 0] and first["bock_out"] == 2
    second = of_type(play_passed_deal(d, rotate(TIE_8, 1)), "DealScored")[0].data
    assert second["bock"] and second["bock_in"] == 2 and second["bock_out"] == 4
    assert d.state.sheet == Sheet(bock=4)
    events = play_passed_deal(d, rotate(MAJORITY_8, 2))
    third = of_type(events, "DealScored")[0].data
    assert third["tricks"] == [3, 1] and third["winner"] == 0
    assert (third["game"], third["first"], third["matadors"], third["bock_in"]) == (2, 2, 0, 4)
    assert third["points"] == [8, 0] and third["bock_out"] == 0
    assert d.state.sheet.points == (8, 0) and d.state.sheet.bock == 0
    assert d.state.finished


def test_bock_value_house_rule_adds_matadors():
    out = score_deal(trumps="C", after_all_passed=False, starting_hands=[["QC", "7C", "QS"], ["JC"]],
                     trick_sides=[0, 1, 0, 1], tout_side=None, bock_in=1, bock_value="game_and_matadors")
    assert out["bock"] and out["bock_out"] == 1 + 4 + 3


def test_petersdorfer():
    d = eight([{"hands": MAJORITY_8, "dealer": 7}], rules={"threads": 5})
    d.state = replace(d.state, sheet=Sheet(points=(20, 0)))
    events = play_passed_deal(d, MAJORITY_8)
    assert of_type(events, "DealScored")[0].data["points"] == [4, 0]
    thread = of_type(events, "ThreadWon")[0].data
    assert thread == {"side": 0, "threads": 2, "petersdorfer": True, "points": [24, 0]}
    assert d.state.sheet.points == (0, 0) and d.state.sheet.threads == (2, 0)


def test_thread_without_petersdorfer_drops_the_surplus():
    d = eight([{"hands": MAJORITY_8, "dealer": 7}], rules={"threads": 5})
    d.state = replace(d.state, sheet=Sheet(points=(23, 5)))
    events = play_passed_deal(d, MAJORITY_8)
    assert of_type(events, "ThreadWon")[0].data == {"side": 0, "threads": 1, "petersdorfer": False,
                                                    "points": [27, 5]}
    assert d.state.sheet.points == (0, 0) and d.state.sheet.threads == (1, 0)


def test_tout_scores_game_points_and_a_hook():
    d = eight([{"hands": TOUT_8, "dealer": 7}], rules={"deals": 1})
    score = of_type(play_passed_deal(d, TOUT_8), "DealScored")[0].data
    assert score["tout"] and score["tricks"] == [4, 0]
    assert (score["game"], score["first"], score["matadors"]) == (2, 0, 0)  # no bonuses with a tout
    assert score["points"] == [2, 0] and score["hooks"] == [1, 0]
    assert d.state.sheet.totals == (1, 0) and d.state.winner == 0


def announced(hands, announcer):
    d = Driver(8, rules={"deals": 1}, presets=[{"hands": hands, "dealer": 7}])
    d.deal()
    d.bids(*[None] * 8)
    for seat in range(announcer):
        d.do(seat, {"type": "no_tout"})
    events = d.do(announcer, {"type": "announce_tout"})
    assert events[0].data == {"seat": announcer, "side": announcer % 2}
    assert d.state.phase == "playing"
    return of_type(d.play_script(hands), "DealScored")[0].data, d


def test_announced_tout_made_scores_two_hooks():
    score, d = announced(TOUT_8, 0)
    assert score["announced_tout"] == 0 and score["tout_made"] is True
    assert score["points"] == [2, 0] and score["hooks"] == [2, 0]


def test_announced_tout_failed_gives_the_opponents_four_hooks():
    score, d = announced(TOUT_8, 1)  # side 1 announces, side 0 takes every trick
    assert score["announced_tout"] == 1 and score["tout_made"] is False
    assert score["points"] == [0, 0] and score["hooks"] == [4, 0]
    score, d = announced(MAJORITY_8, 2)  # side 0 announces, takes only 3 of 4
    assert score["tout_made"] is False and score["hooks"] == [0, 4] and score["points"] == [0, 0]
    assert d.state.sheet.totals == (0, 4) and d.state.winner == 1


def test_unannounced_tout_that_fails_costs_nothing():
    d = eight([{"hands": MAJORITY_8, "dealer": 7}], rules={"deals": 1})
    score = of_type(play_passed_deal(d, MAJORITY_8), "DealScored")[0].data
    assert not score["tout"] and score["hooks"] == [0, 0] and score["points"] == [4, 0]
