"""The analysis of finished games (domain/bots/analysis.py): each game's decisions judged by its
search, deterministic, bounded, and built from what each seat knew, never another hand."""
from __future__ import annotations

import json

import pytest

from domain.bots import analysis
from domain.bots.analysis import Budget, analyse, mark_of, moments
from tests.api.test_hidden_information import KINDS, leaks

from .analysis_games import GAMES, finished_game

HEAD = "ab" * 32
SMALL = Budget(playouts=12)  # a few worlds a decision: enough to judge, a second or two a game


@pytest.fixture(scope="module", params=sorted(GAMES))
def game(request):
    return request.param, *finished_game(request.param)


def test_every_seat_command_is_a_decision_in_order(game):
    name, table, events = game
    found = list(moments(table, events))
    seat_events = sum(1 for e in events if isinstance(e.actor, int))
    assert found and len(found) <= seat_events
    assert [m.seq for m in found] == sorted(m.seq for m in found)
    for moment in found:  # the command found decides exactly the events stored at its seq
        decided = table.decide(moment.state, moment.seat, moment.command)
        assert events[moment.seq - 1:moment.seq - 1 + len(decided)] == decided
        assert events[moment.seq - 1].actor == moment.seat


def test_an_analysis_judges_decisions_and_sums_them_up_per_seat(game):
    name, table, events = game
    result = analyse(table, events, HEAD, SMALL)
    judged = [d for d in result["decisions"] if d["loss"] is not None]
    assert result["status"] == "done" and result["head"] == HEAD
    assert judged, f"{name}: no decision judged"
    assert result["progress"] == {"done": len(result["decisions"]), "total": len(result["decisions"])}
    limits = analysis.thresholds(name)
    assert result["unit"] == {"schafkopf": "payment units per seat",
                              "scharwenzel": "points for the seat's side (a hook is 24)",
                              "scharfe-schoten": "points of the round for the seat"}[name]
    for d in judged:
        assert d["best"]["value"] >= d["played"]["value"]
        assert d["loss"] == pytest.approx(d["best"]["value"] - d["played"]["value"], abs=0.002)
        # Marked by the threshold, and only where the loss stands clear of its spread.
        clear = (d["exact"] or d["worlds"] > 1) and d["loss"] > analysis.SPREADS * d["loss_spread"]
        assert d["mark"] == (mark_of(d["loss"], limits) if clear else None)
        assert d["worlds"] >= 1 and d["played"]["spread"] >= 0 and d["best"]["spread"] >= 0
        if d["exact"]:
            assert d["worlds"] == 1 and d["loss_spread"] == 0 == d["played"]["spread"]
    assert any(d["loss_spread"] > 0 for d in judged), f"{name}: no spread measured"
    for row in result["seats"]:
        mine = [d for d in judged if d["seat"] == row["seat"]]
        summary = row["summary"]
        assert summary["decisions"] == len(mine)
        assert summary["blunders"] == sum(d["mark"] == "blunder" for d in mine)
        assert summary["mistakes"] == sum(d["mark"] == "mistake" for d in mine)
        assert summary["inaccuracies"] == sum(d["mark"] == "inaccuracy" for d in mine)
        if mine:
            assert summary["average_loss"] == pytest.approx(sum(d["loss"] for d in mine) / len(mine), abs=0.002)


def test_the_same_game_and_head_give_the_same_analysis(game):
    name, table, events = game
    assert analyse(table, events, HEAD, Budget(playouts=4)) == analyse(table, events, HEAD, Budget(playouts=4))


def test_a_decision_is_judged_from_what_its_seat_saw(game, monkeypatch):
    """Every Decision the evaluation gets passes the bots' hidden-card scan (test_bot_decision.py)."""
    name, table, events = game
    _counts, _rules, deck, public = KINDS[name]
    evaluation = analysis.evaluation_of(name)
    seen = []
    real = evaluation.values

    def spy(decision, played, playouts):
        seen.append(decision)
        return real(decision, played, playouts)

    monkeypatch.setattr(evaluation, "values", spy)
    analyse(table, events, HEAD, Budget(playouts=2))
    assert seen
    for decision in seen:
        played = {e["data"]["card"] for e in decision.history if e["type"] == "CardPlayed"}
        hand = set(decision.view["game_state"].get("hand") or ())
        secrets = deck(decision.players) - played - hand
        found = leaks({"view": dict(decision.view), "history": list(decision.history)}, secrets, public)
        assert not found, f"seat {decision.seat} of {name}: {found[:5]}"
        for event in decision.history:
            if event["type"] == "PredictionMade" and event["data"].get("seat") != decision.seat:
                assert "most" not in event["data"], event
        assert all(e["seq"] < len(events) for e in decision.history)  # never the future


def test_the_budget_caps_decisions_and_progress_counts_them(game):
    name, table, events = game
    calls = []
    result = analyse(table, events, HEAD, Budget(playouts=2, max_decisions=3), lambda done, total: calls.append((done, total)))
    assert calls == [(1, 3), (2, 3), (3, 3)]
    assert result["progress"] == {"done": 3, "total": 3}
    assert all(d["loss"] is None for d in result["decisions"][3:])
    with pytest.raises(ValueError):
        Budget(playouts=analysis.MAX_PLAYOUTS + 1)


def test_the_marks_follow_the_thresholds():
    limits = {"inaccuracy": 1.0, "mistake": 2.0, "blunder": 4.0}
    assert [mark_of(x, limits) for x in (None, 0.0, 0.99, 1.0, 2.5, 4.0, 99)] == \
        [None, None, None, "inaccuracy", "mistake", "blunder", "blunder"]


def test_the_events_are_not_touched(game):
    name, table, events = game
    before = json.dumps([(e.type, e.data) for e in events], sort_keys=True)
    analyse(table, events, HEAD, Budget(playouts=2))
    assert json.dumps([(e.type, e.data) for e in events], sort_keys=True) == before
