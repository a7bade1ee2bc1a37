"""The analysis values a card as the ``search`` bot weighs it (issue 36 item 5: judged by the solving
search, from what the seat knew).

Given the card decisions of seeded heuristic games (a Solo or Wenz among them, whose talk inference
reads), when the analysis's evaluation values a decision's cards and the served search values the
same cards from the same seeded generator, then each card's value is the same: the analysis draws its
worlds by the bot's inference (``search._sampler`` with ``inference``), not uniformly over what fits.
"""
from __future__ import annotations

import copy

import pytest

from domain.schafkopf.bots import evaluation, search
from domain.schafkopf.bots.determinize import World
from domain.schafkopf.bots.knowledge import read
from tests.domain.analysis_games import card_decisions

SEEDS = range(1, 2)
RULES = {"deals": 4, "allowed_games": ["rufspiel", "solo", "wenz"]}
PLAYOUTS = 24


@pytest.fixture(scope="module")
def decisions():
    """Card decisions with no Stoß open that are not fixed: those the analysis samples worlds for."""
    out = []
    for _, decision, played in card_decisions("schafkopf", SEEDS, RULES):
        if decision.view["game_state"]["phase"] != "play" or {"type": "stoss"} in decision.legal:
            continue
        know = read(decision)
        if not World.prepare(decision, know).fixed():
            out.append((decision, played))
    return out


def agreeing(decision, played, inference: bool) -> bool:
    """Whether the analysis's card values equal the search's, from the same generator state, over the
    search's worlds with or without ``inference``."""
    bots = copy.deepcopy(decision)  # the same generator state for both
    got = evaluation.values(decision, played, PLAYOUTS)
    know = read(bots)
    cards = [c["card"] for c in got.commands]
    averages = search.search(bots, know, cards, max(PLAYOUTS, len(cards)), search.ROLLOUTS["heuristic"],
                             search._sampler(bots, know, inference=inference), solving=True)
    return [round(got.mean(i), 9) for i in range(len(cards))] == [round(averages[c], 9) for c in cards]


def test_a_cards_value_is_the_search_bots_weighing_of_the_same_worlds(decisions):
    assert len(decisions) >= 40
    for decision, played in decisions:
        assert agreeing(decision, played, inference=True)


def test_the_uniform_worlds_value_some_card_differently(decisions):
    """The check above can fail: uniform worlds (what the analysis drew before) give other values."""
    differs = sum(not agreeing(decision, played, inference=False) for decision, played in decisions)
    assert differs >= len(decisions) // 4
