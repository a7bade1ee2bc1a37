"""The bot layer is held to the same boundary as the API: a bot's Decision holds nothing its
seat may not see. At every step of random games, every seat's Decision (its view and its
redacted history, the only input a policy gets) is scanned for any card that is neither in
that seat's hand nor played yet, for other seats' hidden predictions, and for the seed.
"""
from __future__ import annotations

import json
import random

import pytest

from domain.bots.decision import decision_for
from domain.registry import all_games
from tests.api.test_hidden_information import KINDS, leaks

from .harness import new_table, run_system


@pytest.mark.parametrize("name", sorted(KINDS))
def test_a_decision_holds_nothing_its_seat_may_not_see(name):
    counts, rules, deck, public = KINDS[name]
    game = all_games()[name]
    for players in counts:
        for number in range(3):
            rng = random.Random(f"{name}-{players}-{number}")
            seed_hex = rng.randbytes(32).hex()
            table, state, events = new_table(game, players, rules, seed_hex=seed_hex)
            while state.status == "active":
                played = {e.data["card"] for e in events if e.type == "CardPlayed"}
                for seat in range(players):
                    decision = decision_for(table, state, events, seat, random.Random(0))
                    hand = set(decision.view["game_state"].get("hand") or ())
                    secrets = deck(players) - played - hand
                    found = leaks({"view": dict(decision.view), "history": list(decision.history)}, secrets, public)
                    assert not found, f"seat {seat} of {name}: {found[:5]}"
                    assert seed_hex not in json.dumps(decision.history) + json.dumps(decision.view)
                    for event in decision.history:
                        if event["type"] == "PredictionMade" and event["data"].get("seat") != seat:
                            assert "most" not in event["data"], event
                seat = rng.choice(sorted(table.to_act(state)))
                new = table.decide(state, seat, rng.choice(table.legal_commands(state, seat)))
                events += new
                state = table.fold(state, new)
                events, state = run_system(table, state, events, seed_hex)
            assert state.status == "finished"
