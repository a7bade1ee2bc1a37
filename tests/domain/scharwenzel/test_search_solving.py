"""The Scharwenzel search solves its sampled deals late in the deal (``search.solve``).

* Given late card decisions of seeded heuristic games (4 and 6 players), when ``search``
  (solving) decides, then its deals were solved and its command is legal and the same again
  with the same rng.
* ``search-rollout`` is today's search: it never solves.
* A deal the node budget cannot hold is not solved (None).
"""
from __future__ import annotations

import dataclasses
import random

from domain.bots import match
from tests.domain.solving_checks import assert_legal_and_repeatable, counting_solves
from domain.scharwenzel.bots import BOTS, heuristic, search, solver
from domain.scharwenzel.bots.determinize import TABLE, prefix_state, sample_hands, sampled_state
from domain.scharwenzel.bots.knowledge import read
from tests.domain.scharwenzel.test_search import seeds


def late_decisions(seed_hex: str, players: int) -> list:
    """Card decisions with a choice and at most three cards in hand."""
    found = []

    def recording(decision):
        if len(decision.legal) > 1 and decision.legal[0]["type"] == "play" and len(read(decision).hand) <= 3:
            found.append(decision)
        return heuristic.policy(decision)

    match.play(TABLE, "scharwenzel", players, {"deals": 1}, [recording] * players, seed_hex)
    return found


def test_late_decisions_are_solved_legal_and_repeatable(monkeypatch):
    calls = counting_solves(monkeypatch, solver)
    decisions = [d for players in (4, 6) for s in seeds(2, f"solving-{players}") for d in late_decisions(s, players)]
    assert len(decisions) >= 6
    assert_legal_and_repeatable(BOTS["search"], decisions)
    assert calls


def test_search_rollout_never_solves(monkeypatch):
    calls = counting_solves(monkeypatch, solver)
    for decision in late_decisions(seeds(1, "rollout")[0], 4):
        assert BOTS["search-rollout"](dataclasses.replace(decision, rng=random.Random(5), playouts=30)) \
            in decision.legal
    assert not calls


def test_a_deal_beyond_the_budget_is_not_solved():
    decision = late_decisions(seeds(1, "budget")[0], 4)[0]
    known = read(decision)
    hands = sample_hands(known, random.Random(1))
    sim = search.from_state(sampled_state(decision, known, prefix_state(decision, known), hands).inner)
    legal = [c for c in decision.legal if c["type"] == "play"]
    assert search.solve(sim, decision.seat, legal, limit=10 ** 6) is not None
    assert search.solve(sim, decision.seat, legal, limit=1) is None
