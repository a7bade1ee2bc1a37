"""The analysis is exact where the seat's knowledge fixes every hidden card (issue 36 item 5).

* Given the card decisions of seeded heuristic games, when ``World.fixed`` says whether the seat's
  knowledge fixes every hidden card's holder, then it agrees with counting every way to deal the
  unseen cards within the hand sizes, the voids and the cards placed (done by brute force where
  there are at most 3^8 ways to try), and the true deal is always one of those ways.
* Given each such decision that is fixed, when the analysis's evaluation values its cards, then the
  values are ``exact``, from one world with no spread, and each equals plain minimax's payment for
  the seat on the true deal (``test_solver.minimax``: every card tried, nothing cut).
"""
from __future__ import annotations

import itertools

import pytest

from domain.schafkopf.bots import evaluation
from domain.schafkopf.bots.determinize import World
from domain.schafkopf.bots.knowledge import read
from domain.schafkopf.bots.solver import solver_for
from domain.schafkopf.cards import PLAYERS
from domain.schafkopf.simulator import INDEX, from_state
from tests.domain.analysis_games import card_decisions

from .test_solver import minimax

SEEDS = range(1, 13)
RULES = {"deals": 12, "allowed_games": ["rufspiel", "solo", "wenz"]}


@pytest.fixture(scope="module")
def decisions():
    """Card decisions in card play with no Stoß open (a Stoß decision is judged apart)."""
    return [(state, decision, played) for state, decision, played in card_decisions("schafkopf", SEEDS, RULES)
            if decision.view["game_state"]["phase"] == "play" and {"type": "stoss"} not in decision.legal]


def ways(know, me: int) -> int | None:
    """How many ways there are to deal the unseen cards within the constraints, by brute force
    (None: too many to try)."""
    others = [s for s in range(PLAYERS) if s != me]
    gone = know.played | set(know.hand) | set(know.holds)
    unseen = [c for c in know.deck if c not in gone]
    if len(unseen) > 8:
        return None
    count = 0
    for seats in itertools.product(others, repeat=len(unseen)):
        hands = {s: [c for c, h in know.holds.items() if h == s] for s in others}
        for card, seat in zip(unseen, seats):
            hands[seat].append(card)
        if all(len(hands[s]) == know.hand_sizes[s] for s in others) and \
                not any(c in know.forbidden.get(s, ()) for s in others for c in hands[s]):
            count += 1
    return count


def test_fixed_agrees_with_counting_every_deal_that_fits(decisions):
    counted = fixed = 0
    for state, decision, _ in decisions:
        know = read(decision)
        truth = {s: set(state.inner.hands[s]) for s in range(PLAYERS)}
        for card, seat in know.holds.items():  # the knowledge is sound: what it places is there
            assert card in truth[seat]
        for seat, cards in know.forbidden.items():
            if seat != decision.seat:
                assert not cards & truth[seat], (seat, cards & truth[seat])
        count = ways(know, decision.seat)
        if count is None:
            continue
        assert count >= 1  # the true deal fits
        assert World.prepare(decision, know).fixed() == (count == 1)
        counted += 1
        fixed += count == 1
    assert counted >= 300 and fixed >= 5, (counted, fixed)


def test_where_the_deal_is_fixed_the_values_are_exact_and_agree_with_minimax(decisions):
    checked = 0
    for state, decision, played in decisions:
        know = read(decision)
        if not World.prepare(decision, know).fixed():
            continue
        got = evaluation.values(decision, played, playouts=8)
        sim = from_state(state.inner)
        if sim.rules.kind == "ramsch":
            continue
        assert got is not None and got.exact and got.worlds == 1
        side = solver_for(sim, decision.seat, limit=10).position.side
        for i, command in enumerate(got.commands):
            child = sim.copy()
            child.apply(INDEX[command["card"]])
            assert got.mean(i) == minimax(child, decision.seat, side), command
            assert got.spread(i) == 0.0
        checked += 1
    assert checked >= 5
