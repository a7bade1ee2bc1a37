"""The Schafkopf search solves its sampled worlds late in the deal (``search.solve``).

* Given late card decisions of seeded heuristic games, when ``search`` (solving) decides, then
  its worlds were solved and its command is legal and the same again with the same rng.
* Given a sampled world, when ``search.solve`` values the cards, then each value is the
  solver's; and a world the node budget cannot hold is not solved (None).
* ``search-rollout`` is today's search: it never solves; ``search-solving`` (no inference) solves.
"""
from __future__ import annotations

import dataclasses
import random

from domain.bots import match
from tests.domain.solving_checks import assert_legal_and_repeatable, counting_solves
from domain.schafkopf.bots import BOTS, heuristic, search, solver
from domain.schafkopf.bots.knowledge import read
from domain.schafkopf.simulator import INDEX
from tests.domain.schafkopf.test_search import TABLE, seed

RULES = {"deals": 1}


def late_decisions(number: int) -> list:
    """Card decisions with a choice of cards and at most three cards in hand."""
    found = []

    def recording(decision):
        game_state = decision.view["game_state"]
        plays = [c for c in decision.legal if c["type"] == "play"]
        if game_state["phase"] == "play" and len(plays) > 1 and len(game_state["hand"]) <= 3:
            found.append(decision)
        return heuristic.policy(decision)

    match.play(TABLE, "schafkopf", 4, RULES, [recording] * 4, seed(number), rng_seed=number)
    return found


def test_late_decisions_are_solved_legal_and_repeatable(monkeypatch):
    calls = counting_solves(monkeypatch, solver)
    decisions = [d for number in range(3) for d in late_decisions(number)]
    assert len(decisions) >= 6
    assert_legal_and_repeatable(BOTS["search"], decisions)
    assert calls


def test_search_solving_solves_without_inference(monkeypatch):
    calls = counting_solves(monkeypatch, solver)
    assert_legal_and_repeatable(BOTS["search-solving"], late_decisions(2))
    assert calls
    assert BOTS["search-solving"] is search.solving_policy and search.solving_policy is not search.policy


def test_search_rollout_never_solves(monkeypatch):
    calls = counting_solves(monkeypatch, solver)
    for decision in late_decisions(1):
        assert BOTS["search-rollout"](dataclasses.replace(decision, rng=random.Random(5), playouts=30)) \
            in decision.legal
    assert not calls


def test_a_world_is_solved_card_by_card_or_not_at_all():
    decision = next(d for number in range(3) for d in late_decisions(number)
                    if read(d).contract["game"] != "ramsch")
    world = search.World.prepare(decision, read(decision)).sample(random.Random(1))
    sim = search.from_state(world.inner)
    cards = [c["card"] for c in decision.legal if c["type"] == "play"]
    got = search.solve(sim, decision.seat, cards, limit=10 ** 6)
    exact = solver.solver_for(sim, decision.seat, 10 ** 6).values(sim, [INDEX[c] for c in cards])
    assert got == {card: exact[INDEX[card]] for card in cards}
    assert search.solve(sim, decision.seat, cards, limit=1) is None
