"""Schafkopf's bots: ``heuristic`` (rules of thumb) and ``search`` (determinization + PIMC)."""
from __future__ import annotations

from . import heuristic, search

BOTS = {"heuristic": heuristic.policy, "search": search.policy}
