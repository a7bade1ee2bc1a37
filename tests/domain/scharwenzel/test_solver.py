"""The Scharwenzel solver (``domain/scharwenzel/bots/solver.py``) against plain minimax.

* Given a position of a seeded game (4, 6 or 8 players, tout now and then, the Bock valued
  either way) with at most two tricks left, or three at 4 players (at a trick boundary or
  inside a trick), when the solver values each legal card for the seat to move, then every
  value equals plain minimax's: every legal card tried, no table, no merging, no bounds.
* Given positions of seeded games at every trick boundary, when the solver has a budget of
  nodes, then it solves them exactly (a solver without the heuristic's ordering agrees) or
  says it ran out; the last three tricks it always solves.
"""
from __future__ import annotations

import pytest

from domain.bitmask import members
from domain.scharwenzel.bots.outcome import side_value
from domain.game_tree import INFINITY
from domain.scharwenzel.bots.solver import OutOfNodes, ScharwenzelPosition, Solver, solvable, solver_for
from domain.scharwenzel.game import Scharwenzel
from domain.scharwenzel.simulator import from_state
from tests.domain.agreement import drive

from .test_simulator import choose

GAME = Scharwenzel()
SETS = {
    "4_players": (4, {"deals": 40}, 3),
    "6_players_bock_matadors": (6, {"deals": 40, "bock_value": "game_and_matadors"}, 2),
    "8_players": (8, {"deals": 40}, 2),
}


class Positions:
    """Every card-play position of the driven deals, as simulators."""

    def __init__(self):
        self.deals, self.found = 0, []

    def step(self, state, seat, legal, command, events, after):
        if after.phase == "playing":
            self.found.append(from_state(after))
        self.deals += sum(event.type == "DealScored" for event in events)


def positions(players: int, rules: dict, seed: int, deals: int) -> list:
    seen = Positions()
    drive(GAME, players, rules, seed, deals, seen, choose=choose)
    return seen.found


def minimax(sim, side: int) -> int:
    """Plain minimax on the side's value: every legal card, nothing cut."""
    if sim.is_over():
        return side_value(sim.score(), side)
    values = []
    for card in members(sim.legal()):
        child = sim.copy()
        child.apply(card)
        values.append(minimax(child, side))
    return max(values) if sim.to_move() % 2 == side else min(values)


@pytest.mark.parametrize("name", sorted(SETS))
def test_the_solver_agrees_with_plain_minimax_on_the_last_tricks(name):
    players, rules, tricks = SETS[name]
    checked = 0
    for sim in positions(players, rules, seed=36, deals=10):
        if not solvable(sim) or sim.rules.total - sim.done > tricks:
            continue
        seat = sim.to_move()
        cards = list(members(sim.legal()))
        got = solver_for(sim, seat, limit=10 ** 6).values(sim, cards)
        for card in cards:
            child = sim.copy()
            child.apply(card)
            assert got[card] == minimax(child, seat % 2), (name, sim.done, card)
        checked += 1
    assert checked >= 40


@pytest.mark.parametrize("players", [4, 6, 8])
def test_every_trick_boundary_of_seeded_games_is_solved_or_out_of_budget(players):
    solved = 0
    for sim in positions(players, {"deals": 40}, seed=7, deals=4):
        if sim.trick or not solvable(sim):
            continue
        seat = sim.to_move()
        try:
            value = solver_for(sim, seat, limit=20_000).value(sim.copy())
        except OutOfNodes:
            assert sim.rules.total - sim.done > 3
            continue
        assert solver_for(sim, seat, limit=10 ** 6, order_by_heuristic=False).value(sim.copy()) == value
        solved += 1
    assert solved >= 8


class Unbounded(ScharwenzelPosition):
    """The position without its cheap bounds: the search alone decides."""

    def bounds(self, sim):
        return -INFINITY, INFINITY


def test_the_bounds_change_no_value_while_the_first_tricks_are_open():
    # Given 6-player positions with 3 of 6 tricks left: the fourth, the last of the first
    # majority, is still to be played.
    checked = 0
    for sim in positions(6, {"deals": 40, "bock_value": "game_and_matadors"}, seed=11, deals=16):
        if sim.trick or not solvable(sim) or sim.done != 3:
            continue
        seat = sim.to_move()
        # When it is solved with and without them, then the values agree.
        bounded = solver_for(sim, seat, limit=10 ** 6).value(sim.copy())
        assert Solver(Unbounded(sim, seat), 10 ** 6).value(sim.copy()) == bounded
        checked += 1
    assert checked >= 10
