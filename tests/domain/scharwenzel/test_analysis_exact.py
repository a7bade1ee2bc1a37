"""The analysis is exact where the seat's knowledge fixes every hidden card (issue 36 item 5).

* Given the card decisions of seeded heuristic games, when ``determinize.fixed`` says whether the
  seat's knowledge fixes every hidden card's holder, then it agrees with counting every way to deal
  the unseen cards within the hand sizes and the voids (by brute force where there are at most 3^8
  ways to try), and the true deal is always one of those ways.
* Given each such decision that is fixed, when the analysis's evaluation values its cards, then the
  values are ``exact``, from one deal with no spread, and each equals plain minimax's value for the
  seat's side on the true deal (``test_solver.minimax``: every card tried, nothing cut).
"""
from __future__ import annotations

import itertools

import pytest

from domain.scharwenzel.bots import evaluation
from domain.scharwenzel.bots.determinize import fixed
from domain.scharwenzel.bots.heuristic import card_tables
from domain.scharwenzel.bots.knowledge import read
from domain.scharwenzel.scoring import side_of
from domain.scharwenzel.simulator import action_of, from_state
from tests.domain.analysis_games import card_decisions

from .test_solver import minimax

SEEDS = range(1, 13)
RULES = {"deals": 12}


@pytest.fixture(scope="module")
def decisions():
    return list(card_decisions("scharwenzel", SEEDS, RULES))


def ways(known) -> int | None:
    """How many ways there are to deal the unseen cards within the hand sizes and the voids, by
    brute force (None: too many to try)."""
    others = [s for s in range(known.players) if s != known.seat]
    unseen = sorted(known.unseen())
    if len(unseen) > 8 or known.ranking is None:
        return None
    follow = card_tables(known.ranking.trumps, known.ranking.players)[0]
    count = 0
    for seats in itertools.product(others, repeat=len(unseen)):
        held = {s: [c for c, h in zip(unseen, seats) if h == s] for s in others}
        if all(len(held[s]) == known.hand_sizes[s] for s in others) and \
                not any(follow[c] in known.voids.get(s, ()) for s in others for c in held[s]):
            count += 1
    return count


def test_fixed_agrees_with_counting_every_deal_that_fits(decisions):
    counted = found = 0
    for state, decision, _ in decisions:
        known = read(decision)
        count = ways(known)
        if count is None:
            continue
        assert count >= 1  # the true deal fits
        assert fixed(known) == (count == 1)
        counted += 1
        found += count == 1
    assert counted >= 200 and found >= 5, (counted, found)


def test_where_the_deal_is_fixed_the_values_are_exact_and_agree_with_minimax(decisions):
    checked = 0
    for state, decision, played in decisions:
        if not fixed(read(decision)):
            continue
        got = evaluation.values(decision, played, playouts=8)
        if got is None:  # every card alike: nothing to judge
            continue
        assert got.exact and got.worlds == 1
        sim = from_state(state.inner)
        for i, command in enumerate(got.commands):
            child = sim.copy()
            child.apply(action_of(command, decision.players))
            assert got.mean(i) == minimax(child, side_of(decision.seat)), command
            assert got.spread(i) == 0.0
        checked += 1
    assert checked >= 5
