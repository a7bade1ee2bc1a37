"""Checks the games' solving searches share (``tests/domain/<game>/test_search_solving.py``)."""
from __future__ import annotations

import dataclasses
import random


def counting_solves(monkeypatch, solver) -> list:
    """The calls of ``solver.solver_for`` from now on, in a list the caller reads afterwards."""
    calls = []
    real = solver.solver_for

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(solver, "solver_for", counted)
    return calls


def assert_legal_and_repeatable(search, decisions: list) -> None:
    """``search`` chooses a legal command at every decision, and the same one again with the same rng."""
    for decision in decisions:
        first = search(dataclasses.replace(decision, rng=random.Random(5), playouts=30))
        again = search(dataclasses.replace(decision, rng=random.Random(5), playouts=30))
        assert first in decision.legal and first == again
