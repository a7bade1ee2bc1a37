"""Every moment of a game has a view: a past view (`?at=`) may fall inside one command's events.

A command's events are folded one by one, so between two of them a phase may be about to end
(every seat has announced, no namer is left, the last trick has been taken). The table must
still answer who acts (nobody, then), every seat's view and its legal commands, and a revealed
view shows every hand as it is at that moment.
"""
from __future__ import annotations

import pytest

from domain.registry import all_games
from domain.table import TableState

from .harness import random_playout, roundtrip

CONFIGS = [
    ("schafkopf", 4, {"deals": 6}), ("schafkopf", 4, {"deals": 6, "preset": "tournament"}),
    ("schafkopf", 4, {"deals": 6, "doppeln": "all"}),
    ("schafkopf", 4, {"deals": 8, "auction": True, "schieberrunde": True, "doppeln": "not_dealer"}),
    ("schafkopf", 4, {"deals": 8, "hochzeit": True, "renonce": True, "all_pass": "ramsch"}),
    ("schafkopf", 4, {"deals": 8, "all_pass": "stock", "stock_lone_games": True, "stoss": 2}),
    ("scharwenzel", 4, {"deals": 3}),
    ("scharwenzel", 6, {"threads": 1}), ("scharfe-schoten", 3, {"rounds": 3}), ("scharfe-schoten", 4, {"rounds": 2}),
]


@pytest.mark.parametrize("name,players,rules", CONFIGS)
def test_every_moment_between_two_events_has_a_view_for_every_seat(name, players, rules):
    for seed in range(4):
        table, _, events = random_playout(all_games()[name], players, seed=seed, rules=rules)
        state = TableState()
        for event in events:
            state = table.evolve(state, roundtrip(event))
            for seat in [None, *range(players)]:
                view = table.view(state, seat)
                revealed = table.view(state, seat, reveal=True)
                assert view["to_act"] == revealed["to_act"]
                if seat is not None:
                    assert all(seat in table.to_act(state) for _ in table.legal_commands(state, seat))
                if state.inner is not None and seat is None:
                    hands = revealed["game_state"].get("hands")
                    assert hands is not None and len(hands) == players, (event.type, revealed["game_state"])
