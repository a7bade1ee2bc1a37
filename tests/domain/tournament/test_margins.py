"""Duplicate margins (``domain/tournament/margins.py``): the holders of the same cards, deal by deal.

Given a duplicate round's tables and each table game's deal records, When they are compared, Then each
base hand of each deal held at two tables or more gives every holder its result and its margin over
the mean, and a rating match of the holders by result, on the round's seats.
"""
from __future__ import annotations

import random

import pytest

from domain.record import PLAYER, WON, DealRecord, Match
from domain.registry import all_games
from domain.tournament.duplicate import deal_count
from domain.tournament.margins import Comparison, Holding, compare, round_seat
from domain.tournament.standings import round_points
from domain.tournament.state import Result, RoundState, TableSlot
from tests.domain.harness import new_table, run_system, served

from .test_tournament import T, started

GAMES = all_games()


def record(deal: int, results, **details) -> DealRecord:
    return DealRecord(deal=deal, game_type="round", roles=(PLAYER,) * len(results), results=tuple(results),
                      outcomes=(WON,) * len(results), details=details)


# -- hand-made records ---------------------------------------------------------------------------

def test_each_holder_of_a_hand_gets_its_margin_over_the_mean_and_a_rank():
    # Three tables of three: hand h is held at table t by seat (h + t) mod 3.
    tables = {0: [record(0, [9, 0, 3])], 1: [record(0, [1, 6, 0])], 2: [record(0, [4, 4, 4])]}
    by_hand = {c.hand: c for c in compare(tables, players=3, deals=1)}
    # Hand 0: table 0 seat 0 (9), table 1 seat 1 (6), table 2 seat 2 (4): mean 19/3.
    assert by_hand[0] == Comparison(0, 0, (Holding(0, 0, 9, 8 / 3), Holding(1, 1, 6, -1 / 3),
                                           Holding(2, 2, 4, -7 / 3)),
                                    Match(teams=((0,), (4,), (8,)), ranks=(1, 2, 3), deal=0))
    # Hand 1: table 0 seat 1 (0), table 1 seat 2 (0), table 2 seat 0 (4): the two zeros tie.
    assert [h.result for h in by_hand[1].holdings] == [0, 0, 4] and by_hand[1].match.ranks == (2, 2, 1)
    for comparison in by_hand.values():
        assert abs(sum(h.margin for h in comparison.holdings)) < 1e-9
        assert comparison.match.teams == tuple((round_seat(h.table, h.seat, 3),) for h in comparison.holdings)


def test_only_the_rounds_preset_deals_dealt_as_they_are_are_compared():
    tables = {
        0: [record(0, [1, -1]), record(1, [2, -2]), record(2, [5, -5])],
        1: [record(0, [3, -3]), record(1, [0, 0], schieberrunde=True), record(2, [7, -7])],
    }
    comparisons = compare(tables, players=2, deals=2)
    # Deal 2 lies beyond the round's two preset deals: each table dealt it from its own seed.
    # Deal 1 was a Schieberrunde at table 1 (other hands): table 0 alone holds its cards, nobody to compare.
    assert [(c.deal, c.hand) for c in comparisons] == [(0, 0), (0, 1)]
    # Hand 0: table 0's seat 0 made 1, table 1's seat 1 made -3: the mean is -1.
    assert [(h.table, h.seat, h.result, h.margin) for h in comparisons[0].holdings] == [(0, 0, 1, 2.0),
                                                                                        (1, 1, -3, -2.0)]


def test_a_table_that_never_reached_a_deal_is_left_out_of_it():
    tables = {0: [record(0, [2, -2]), record(1, [4, -4])], 1: [record(0, [0, 0])], 2: [record(0, [1, -1]),
                                                                                          record(1, [6, -6])]}
    comparisons = compare(tables, players=2, deals=4)
    deal_one = [c for c in comparisons if c.deal == 1]
    assert [[h.table for h in c.holdings] for c in deal_one] == [[0, 2], [0, 2]]
    assert all(len(c.holdings) == 3 for c in comparisons if c.deal == 0)


def test_a_comparison_is_plain_json():
    [comparison, _] = compare({0: [record(0, [3, -3])], 1: [record(0, [1, -1])]}, players=2, deals=1)
    assert comparison.to_json() == {"deal": 0, "hand": 0, "holdings": [
        {"table": 0, "seat": 0, "result": 3, "margin": 2.0}, {"table": 1, "seat": 1, "result": -1, "margin": -2.0}],
        "match": {"teams": [[0], [3]], "ranks": [1, 2], "deal": 0}}


# -- a duplicate round played by the domain ------------------------------------------------------

def play_table(game, setup: dict, seed: int, cut_after: int | None = None):
    """A table's game from its tournament's setup, every seat a random player; cut short (aborted)
    once ``cut_after`` deals have ended there."""
    rng = random.Random(seed)
    table, state, events = new_table(game, setup["players"], setup["rules"], preset_deals=setup["preset_deals"],
                                     seed_hex=f"{seed + 1:064x}")
    ended = ("DealSettled", "DealThrownIn", "SchieberrundePaid", "DealScored", "RoundScored")
    while state.status == "active":
        if cut_after is not None and sum(e.type in ended for e in events) >= cut_after:
            new = table.decide(state, None, {"type": "end_game", "reason": "aborted"})
        else:
            seat = min(table.to_act(state))
            new = table.decide(state, seat, rng.choice(table.legal_commands(state, seat)))
        state = table.fold(state, new)
        events, state = run_system(table, state, events + new, f"{seed + 1:064x}")
    return table, state, events


def held(events, deal: int) -> list[list[str]] | None:
    """The hands as dealt in deal ``deal`` (both halves with Doppeln)."""
    hands = None
    for event in events:
        if event.type == "HandsDealt" and event.data["deal"] == deal:
            hands = [sorted(h) for h in event.data["hands"]]
        elif event.type == "SecondHalfDealt" and hands is not None and event.data["deal"] == deal:
            hands = [sorted(h + half) for h, half in zip(hands, event.data["hands"])]
    return hands


@pytest.mark.parametrize("name,players", [("schafkopf", 4), ("scharwenzel", 4), ("scharfe-schoten", 3)])
def test_a_played_duplicate_round_compares_the_holders_of_the_same_cards(name, players):
    state = started(game=name, players=players, participants=[{"kind": "bot"}] * players * players,
                    duplicate=True, rounds=1, deals_per_table=2)
    base = state.current.deals
    assert len(base) == deal_count(name, 2)
    game, tables, played = GAMES[name], {}, {}
    for t in range(players):
        setup = T.table_setup(state, 1, t)
        # The last table is cut short after its first deal: it is left out of the deals after it.
        played[t] = play_table(game, setup, seed=t, cut_after=1 if t == players - 1 else None)
        tables[t] = game.deal_records(served(played[t][2]))
    comparisons = compare(tables, players, len(base))
    assert comparisons
    for c in comparisons:
        for h in c.holdings:  # every holder held base hand h of deal k, as the presets drew it
            assert held(played[h.table][2], c.deal)[h.seat] == sorted(base[c.deal]["hands"][c.hand])
        cut_table = players - 1
        assert (cut_table in [h.table for h in c.holdings]) == (c.deal == 0)
        assert abs(sum(h.margin for h in c.holdings)) < 1e-9
        results = [h.result for h in c.holdings]
        assert c.match.ranks == tuple(1 + sum(o > r for o in results) for r in results) and c.match.deal == c.deal
    deals = {c.deal for c in comparisons}
    assert deals == {r.deal for t in range(players - 1) for r in tables[t]}  # every deal the full tables played
    assert all(len([c for c in comparisons if c.deal == d]) == players for d in deals)  # every hand of each


@pytest.mark.parametrize("name,players", [("schafkopf", 4), ("scharfe-schoten", 3)])
def test_the_deal_margins_add_up_to_the_rounds_duplicate_points(name, players):
    # Where a table's total is the sum of its deals' results (Schafkopf's money, Scharfe Schoten's
    # points) and every table played every deal, a participant's duplicate points for the round are
    # its margins over the deals, each times the number of holders (standings.py).
    state = started(game=name, players=players, participants=[{"kind": "bot"}] * players * players,
                    duplicate=True, rounds=1, deals_per_table=2)
    slots, tables = [], {}
    for t, slot in enumerate(state.current.tables):
        table, end, events = play_table(GAMES[name], T.table_setup(state, 1, t), seed=10 + t)
        tables[t] = GAMES[name].deal_records(served(events))
        totals = table.summary(end)["scores"]["totals"]
        slots.append(TableSlot(t, slot.participants, "g", tuple(Result(p, s, totals[s], 1)
                                                                for s, p in enumerate(slot.participants))))
    points = round_points(RoundState(1, tuple(slots), finished=True), players, duplicate=True)
    margins: dict[int, float] = {}
    for c in compare(tables, players, len(state.current.deals)):
        for h in c.holdings:
            participant = slots[h.table].participants[h.seat]
            margins[participant] = margins.get(participant, 0) + len(c.holdings) * h.margin
    assert {p: round(m) for p, m in margins.items()} == points
    assert all(abs(m - round(m)) < 1e-6 for m in margins.values())
