"""Schafkopf's bots: ``heuristic`` (rules of thumb) and ``search`` (determinization + PIMC over the
whole deal, with inference, the sampled worlds solved late in the deal); ``search-cards``,
``search-deal`` and ``search-rollout`` (every world played out) are the arena's steps between;
``search-solving`` is ``search`` without inference, for measuring the inference over the solving search."""
from __future__ import annotations

from . import heuristic, search

BOTS = {"heuristic": heuristic.policy, "search": search.policy, "search-cards": search.cards_policy,
        "search-deal": search.deal_policy, "search-rollout": search.rollout_policy,
        "search-solving": search.solving_policy}
