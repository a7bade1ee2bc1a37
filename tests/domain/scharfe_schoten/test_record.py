"""A finished Scharfe Schoten game for the history and the ratings (``domain/scharfe_schoten/record.py``).

Given a game played at a table, When the history reads the served events, Then each round is a record —
every seat for itself, its round's points, its predictions and how they came out — and the game one
match of every seat for itself, ranked by the totals as the table ranks them.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from domain import audit
from domain.record import EVEN, LOST, PLAYER, WON, Match
from domain.table import Table, TableState
from tests.domain.harness import new_table, random_playout, run_system
from tests.domain.record_checks import check_game_match, check_match, check_records, read, table_ranking

from .support import GAME

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "exports"
SEED = "e1" * 32
PREDICTIONS = [("R", "Y"), ("G", "B"), ("B", "R"), ("Y", "G")]


def playing(players: int, rules: dict, until=lambda inner: False):
    """Seat s predicts PREDICTIONS[s]; cards and cupboard colours by a seeded random choice."""
    rng = random.Random(11)
    table, state, events = new_table(GAME, players, rules, seed_hex=SEED)
    while state.status == "active" and not until(state.inner):
        seat = min(table.to_act(state))
        legal = table.legal_commands(state, seat)
        most, fewest = PREDICTIONS[seat]
        command = {"type": "predict", "most": most, "fewest": fewest} if legal[0]["type"] == "predict" \
            else rng.choice(legal)
        new = table.decide(state, seat, command)
        state = table.fold(state, new)
        events, state = run_system(table, state, events + new, SEED)
    return table, state, events


def check_game(table, state, events, players):
    records, matches = read(GAME, events)
    check_records(records, players)
    scored = [e.data for e in events if e.type == "RoundScored"]
    assert [r.deal for r in records] == [d["deal"] for d in scored]
    assert [list(r.results) for r in records] == [d["points"] for d in scored]
    assert [sum(r.results[s] for r in records) for s in range(players)] == GAME.scores(state.inner)["totals"]
    for record in records:
        assert record.roles == (PLAYER,) * players and record.game_type == "round"
        best = max(record.results)
        assert all((o == WON) == (p == best and min(record.results) < best) for o, p in zip(record.outcomes, record.results))
    if records:
        check_match(matches[0], players)
        check_game_match(matches, table_ranking(table, state))
    return records, matches


@pytest.mark.parametrize("players", [3, 4])
def test_each_round_is_a_record_of_every_seats_prediction_and_how_it_came_out(players):
    table, state, events = playing(players, {"rounds": players})
    records, [match] = check_game(table, state, events, players)
    assert len(records) == players
    for record, event in zip(records, [e for e in events if e.type == "RoundScored"]):
        assert record.details["round"] == record.deal + 1
        for seat, prediction in enumerate(record.details["predictions"]):
            result = event.data["results"][seat]
            assert (prediction["most"], prediction["fewest"]) == PREDICTIONS[seat]
            assert (prediction["most_result"], prediction["fewest_result"], prediction["bonus"]) == (
                result["most"], result["fewest"], result["bonus"])
        assert record.details["counts"] == event.data["counts"]
    starters = [e.data["starter"] for e in events if e.type == "HandsDealt"]
    assert [r.details["starter"] for r in records] == starters
    assert match.teams == tuple((s,) for s in range(players))


def stored(name: str) -> list[dict]:
    return audit.parse_lines((FIXTURES / f"{name}.ndjson").read_text())[1:]


def test_the_stored_game_reads_round_by_round_and_ranks_by_the_totals():
    events = stored("scharfe-schoten")
    records, matches = GAME.deal_records(events), GAME.rating_matches(events)
    assert [r.results for r in records] == [(12, 5, 0), (12, 6, 5)]
    assert [r.outcomes for r in records] == [(WON, LOST, LOST), (WON, LOST, LOST)]
    assert matches == [Match(teams=((0,), (1,), (2,)), ranks=(1, 2, 3))]


def test_a_round_every_seat_scored_alike_is_even_and_equal_totals_tie():
    events = stored("scharfe-schoten-preset")
    [record], matches = GAME.deal_records(events), GAME.rating_matches(events)
    assert record.results == (6, 6, 6) and record.outcomes == (EVEN,) * 3
    assert matches == [Match(teams=((0,), (1,), (2,)), ranks=(1, 1, 1))]


def cut(table: Table, state: TableState, events: list):
    new = table.decide(state, None, {"type": "end_game", "reason": "aborted"})
    state = table.fold(state, new)
    return run_system(table, state, events + new, SEED)


def test_a_game_cut_short_is_ranked_by_the_rounds_scored_so_far():
    table, state, events = playing(3, {"rounds": 3}, until=lambda inner: inner.deal == 1 and inner.phase == "playing")
    events, state = cut(table, state, events)
    assert state.cut_short == "aborted"
    records, matches = check_game(table, state, events, 3)
    assert [r.deal for r in records] == [0] and len(matches) == 1


def test_a_game_cut_short_before_a_round_was_scored_has_no_records_and_no_match():
    table, state, events = playing(4, {"rounds": 2}, until=lambda inner: inner.phase == "playing")
    events, state = cut(table, state, events)
    assert read(GAME, events) == ([], [])


def test_a_game_that_never_started_has_no_records():
    table = Table({GAME.name: GAME})
    events = table.create(GAME.name, 3, {}, None, None, "00" * 32)
    events += table.decide(table.fold(TableState(), events), None, {"type": "end_game", "reason": "aborted"})
    assert read(GAME, events) == ([], [])


@pytest.mark.parametrize("players", [3, 4])
def test_random_games_read_into_records_that_add_up_to_the_totals(players):
    for seed in range(10):
        table, state, events = random_playout(GAME, players, seed, rules={"rounds": 1 + seed % players})
        check_game(table, state, events, players)
