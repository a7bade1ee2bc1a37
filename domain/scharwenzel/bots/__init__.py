"""Scharwenzel's bots beyond ``random``: ``heuristic`` (rules) and ``search`` (PIMC over the heuristic,
with inference from the bidding and the cards played, the late sampled deals solved exactly), and
the arena-only steps between them (``search.py`` says what each leaves out; ``search-solving``
is ``search`` without inference, the step that measures the inference over the solving search)."""
from __future__ import annotations

from . import heuristic, search

BOTS = {"heuristic": heuristic.policy, "search": search.policy,
        "search-cards": search.make_search(deal=False, infer=False),
        "search-deal": search.make_search(deal=True, infer=False),
        "search-rollout": search.make_search(),
        "search-solving": search.make_search(infer=False, solving=True)}
