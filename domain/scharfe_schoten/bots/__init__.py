"""Scharfe Schoten's own bots: ``heuristic`` (rules, see ``heuristic``) and ``search``
(determinization + PIMC over the heuristic, every decision searched, see ``search``). The arena
also plays ``search-cards`` (the heuristic predicts) and ``search-infer`` (the search with
inference from the predictions and the cards played). ``search`` is the search without
inference: on 100 duplicate deals of four players the inference measured -0.41 [-0.95, +0.12]
points a round against it (from the predictions alone, -0.50 [-1.02, +0.02]; see
docs/bots-and-arena.md), so a seat gets the bot not shown weaker; ``search-deal`` names the
same bot as in the other games' ladders. ``search-paranoid`` and ``search-maxn`` solve the
sampled deals of the last three cards (``solver``); over 300 duplicate deals they measured
-0.32 [-0.65, +0.00] and -0.19 [-0.52, +0.15] a round against ``search``, so ``search`` plays
every sample out."""
from __future__ import annotations

from . import heuristic, search

BOTS = {"heuristic": heuristic.policy, "search": search.deal_policy, "search-deal": search.deal_policy,
        "search-cards": search.cards_policy, "search-infer": search.infer_policy,
        "search-paranoid": search.paranoid_policy, "search-maxn": search.maxn_policy}
