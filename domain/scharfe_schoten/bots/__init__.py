"""Scharfe Schoten's own bots: ``heuristic`` (rules, see ``heuristic``) and ``search``
(determinization + PIMC over the heuristic, see ``search``)."""
from __future__ import annotations

from . import heuristic, search

BOTS = {"heuristic": heuristic.policy, "search": search.policy}
