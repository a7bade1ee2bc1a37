"""Nothing revealed by asking: who is asked, and what a "Weiter" looks like, never depend on a hand.

A choice only some hands allow (offering a Hochzeit, As-Renonce) is an option
of a step every seat takes anyway. So a table where every seat always says
"Weiter" shows a spectator the same record, whatever the cards.
"""
from __future__ import annotations

import random

import pytest

from domain.schafkopf.cards import DECK
from domain.schafkopf.game_types import is_blocked
from domain.schafkopf.hochzeit import trumps_in

from .helpers import public_record

EVERY_ASKING_RULE = {"hochzeit": True, "renonce": True, "doppeln": "all", "all_pass": "stock"}


def everybody_says_weiter(state, seat):
    if state.phase == "doppeln":
        return {"type": "doppeln", "double": False}
    if state.phase == "announce":
        return {"type": "announce", "intent": "pass"}
    return {"type": "withdraw"}  # the Renonce round


def random_hands(seed: int) -> list[list[str]]:
    cards = list(DECK)
    random.Random(seed).shuffle(cards)
    return [cards[i * 8:(i + 1) * 8] for i in range(4)]


@pytest.mark.parametrize("rules", [EVERY_ASKING_RULE, dict(EVERY_ASKING_RULE, doppeln="not_dealer")],
                         ids=["doppeln_all", "doppeln_not_dealer"])
def test_a_table_that_always_says_weiter_looks_the_same_whatever_the_cards(rules):
    """Given: 40 random deals (some with a seat holding exactly one trump, some with blocked seats).
    When: every seat says "Weiter" at every step it is asked.
    Then: a spectator sees the same events, the same ``to_act`` and the same views in every deal."""
    deals = [random_hands(seed) for seed in range(40)]
    assert any(len(trumps_in(hand)) == 1 for hands in deals for hand in hands)  # could have offered
    assert any(not any(len(trumps_in(hand)) == 1 for hand in hands) for hands in deals)  # nobody could
    assert any(is_blocked(hand) for hands in deals for hand in hands)
    assert any(not any(is_blocked(hand) for hand in hands) for hands in deals)
    records = [public_record(hands, rules, everybody_says_weiter) for hands in deals]
    assert all(record == records[0] for record in records)
    assert records[0][-1]["events"][None][-1][0] == "DealThrownIn"
