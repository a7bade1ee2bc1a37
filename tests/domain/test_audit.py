"""An auditor recomputes every deal from the revealed seed."""
from __future__ import annotations

from dataclasses import replace

import pytest

from domain.audit import verify_deals
from domain.registry import all_games

from .harness import random_playout, roundtrip


def game(name):
    return all_games()[name]


@pytest.mark.parametrize("name,players,rules", [
    ("scharfe-schoten", 3, {"rounds": 3}), ("scharfe-schoten", 4, {"rounds": 2}),
    ("schafkopf", 4, {"deals": 4}), ("scharwenzel", 6, {"deals": 3}),
])
def test_every_deal_of_a_finished_game_is_the_one_the_seed_gives(name, players, rules):
    table, state, events = random_playout(game(name), players, seed=7, rules=rules)
    assert sum(e.type == "HandsDealt" for e in events) >= 1
    assert verify_deals(table, [roundtrip(e) for e in events]) == []


def test_a_tampered_deal_is_found():
    table, state, events = random_playout(game("scharfe-schoten"), 4, seed=8, rules={"rounds": 1})
    dealt = next(i for i, e in enumerate(events) if e.type == "HandsDealt")
    hands = [list(h) for h in events[dealt].data["hands"]]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    events[dealt] = replace(events[dealt], data={**events[dealt].data, "hands": hands})
    assert any("deal 0" in p for p in verify_deals(table, events))


def test_a_wrong_seed_is_found():
    table, state, events = random_playout(game("scharfe-schoten"), 3, seed=9, rules={"rounds": 1})
    events[-1] = replace(events[-1], data={"seed": "11" * 32})
    assert "commitment" in verify_deals(table, events)[0]

