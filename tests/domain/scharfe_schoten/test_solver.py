"""The Scharfe Schoten solvers (``domain/scharfe_schoten/bots/solver.py``) against brute force,
and the search that solves its late sampled deals.

* Given a position of a seeded game (3 or 4 players; at a trick boundary, inside a trick or at a
  cupboard take) with at most three cards in the hand to move, when the paranoid solver values
  each legal move for the seat to move, then every value equals plain paranoid minimax's (every
  legal move tried, no table, no merging); and max-n's equals plain max-n's with the same
  preference.
* Given a budget too small for a position, then the solver says so (``OutOfNodes``).
* Given a late decision, when the solving search decides, then its command is legal, the same
  again with the same seed, and it came from solved deals; with too few nodes for one deal it
  plays out instead, exactly its playouts.
"""
from __future__ import annotations

import dataclasses
import random

import pytest

from domain.bitmask import members
from domain.bots import match
from domain.scharfe_schoten.bots import heuristic, search
from domain.scharfe_schoten.bots.solver import MaxN, OutOfNodes, paranoid_solver, preference, solvable
from domain.scharfe_schoten.game import ScharfeSchoten
from domain.scharfe_schoten.simulator import from_state
from tests.domain.agreement import drive
from tests.domain.harness import new_table
from tests.domain.solving_checks import assert_legal_and_repeatable

GAME = ScharfeSchoten()


class Positions:
    """Every position of the driven rounds after the predictions, as simulators."""

    def __init__(self):
        self.deals, self.found = 0, []

    def step(self, state, seat, legal, command, events, after):
        if after.phase in ("playing", "taking"):
            self.found.append(from_state(after))
        self.deals += sum(event.type == "RoundScored" for event in events)


def late_positions(players: int, seed: int, cards: int) -> list:
    seen = Positions()
    drive(GAME, players, {"rounds": 1}, seed, 4, seen)
    return [sim for sim in seen.found if solvable(sim) and sim.hands[sim.to_move()].bit_count() <= cards]


def paranoid(sim, seat: int) -> int:
    """Plain minimax on ``seat``'s points, every other seat minimising: every legal move."""
    if sim.is_over():
        return sim.points()[seat]
    values = []
    for move in members(sim.legal()):
        child = sim.copy()
        child.apply(move)
        values.append(paranoid(child, seat))
    return max(values) if sim.to_move() == seat else min(values)


def max_n(sim, seat: int) -> tuple[int, ...]:
    """Plain max-n: every legal move, the mover's ``preference``."""
    if sim.is_over():
        return tuple(sim.points())
    mover = sim.to_move()
    endings = []
    for move in members(sim.legal()):
        child = sim.copy()
        child.apply(move)
        endings.append(max_n(child, seat))
    return max(endings, key=lambda points: preference(points, mover, seat))


@pytest.mark.parametrize("players", [3, 4])
def test_the_solvers_agree_with_brute_force_on_the_last_three_cards(players):
    checked, kinds = 0, set()
    for sim in late_positions(players, seed=36 + players, cards=3)[::2]:
        seat = sim.to_move()
        moves = members(sim.legal())
        by_paranoid = paranoid_solver(seat, 10 ** 6).values(sim, moves)
        by_max_n = MaxN(seat, 10 ** 6).values(sim, moves)
        for move in moves:
            child = sim.copy()
            child.apply(move)
            assert by_paranoid[move] == paranoid(child, seat)
            assert by_max_n[move] == max_n(child, seat)[seat]
        kinds.add("take" if sim.taking() else "inside" if sim.trick else "boundary")
        checked += 1
    assert checked >= 20
    assert kinds == {"take", "inside", "boundary"}


def test_a_budget_too_small_is_reported():
    sim = late_positions(4, seed=3, cards=3)[0]
    moves = members(sim.legal())
    for solver in (paranoid_solver(sim.to_move(), 5), MaxN(sim.to_move(), 5)):
        with pytest.raises(OutOfNodes):
            solver.values(sim, moves)
        assert solver.nodes == 6


def late_decisions(players: int, seed: int) -> list:
    """The decisions with a choice of a heuristic round once the seat holds ``SOLVE_CARDS`` cards."""
    seen = []

    def keep(decision):
        game = decision.view["game_state"]
        if len(decision.legal) > 1 and game["phase"] != "predicting" and len(game["hand"]) <= search.SOLVE_CARDS:
            seen.append(decision)
        return heuristic.policy(decision)

    table = new_table(GAME, players, {"rounds": 1})[0]
    match.play(table, GAME.name, players, {"rounds": 1}, [keep] * players, f"{seed:064x}")
    return seen


@pytest.mark.parametrize("solving", sorted(search.SOLVERS))
def test_the_solving_search_decides_late_from_solved_deals(solving, monkeypatch):
    policy = search.make_search(infer=False, solving=solving)
    solved, played = [], []
    real_solve, real_playout = search.solve, search.playout
    monkeypatch.setattr(search, "solve", lambda *args: solved.append(1) or real_solve(*args))
    monkeypatch.setattr(search, "playout", lambda *args: played.append(1) or real_playout(*args))
    decisions = late_decisions(4, 21) + late_decisions(3, 22)
    assert len(decisions) >= 10
    assert_legal_and_repeatable(policy, decisions)
    assert solved and not played


def test_with_too_few_nodes_for_one_deal_the_search_plays_out(monkeypatch):
    policy = search.make_search(infer=False, solving="max-n")
    played = []
    real_playout = search.playout
    monkeypatch.setattr(search, "playout", lambda *args: played.append(1) or real_playout(*args))
    monkeypatch.setattr(search, "NODES_PER_PLAYOUT", 1)
    decision = next(d for d in late_decisions(4, 21) if len(d.view["game_state"]["hand"]) == search.SOLVE_CARDS)
    assert policy(dataclasses.replace(decision, rng=random.Random(0), playouts=6)) in decision.legal
    assert len(played) == 6
