"""Scharwenzel's bots beyond ``random``: ``heuristic`` (rules) and ``search`` (PIMC over the heuristic)."""
from __future__ import annotations

from . import heuristic, search

BOTS = {"heuristic": heuristic.policy, "search": search.policy}
