"""Schafkopf with every house rule switched on, through the HTTP API: one human, three random bots.

The all-pass options exclude each other, so each gets its own session; all
other options are on in every session. The session must end, its totals
plus the pot must sum to zero, and the ruleset recorded must be the complete
one that was asked for.
"""
from __future__ import annotations

import random

import pytest

from .play import auth, new_game, play_to_end

EVERYTHING = {
    "deals": 6,
    "allowed_games": ["sie", "solo_tout", "wenz_tout", "farbwenz_tout", "geier_tout", "farbgeier_tout",
                      "solo", "wenz", "farbwenz", "geier", "farbgeier", "bettel", "rufspiel"],
    "stoss": 4,
    "doppeln": "all",
    "stock_winner": "declarer",
    "stock_lone_games": True,
    "ramsch_durchmarsch": "all_points",
    "ramsch_jungfrau": "double_individually",
    "bettel_stichzwang": True,
    "renonce": True,
    "hochzeit": True,
    "thrown_in_counts": True,
}


@pytest.mark.parametrize("all_pass", ["redeal", "redeal_double", "stock", "stock_double", "muss", "ramsch"])
def test_a_session_with_every_house_rule_plays_to_the_end(client, all_pass):
    rules = dict(EVERYTHING, all_pass=all_pass)
    game_id, tokens = new_game(client, game="schafkopf", players=4, rules=rules)
    view = client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[0])).get_json()
    recorded = view["rules"]
    assert all(recorded[key] == value for key, value in rules.items())
    assert recorded["preset"] == "standard" and "tariffs" in recorded
    play_to_end(client, game_id, tokens, rng=random.Random(len(all_pass)))
    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert summary["status"] == "finished" and summary["scores"]["ranking"]
    scores = summary["scores"]
    assert sum(scores["totals"]) + scores["stock"] == 0
    assert scores["totals"] == [sum(d[i] for d in scores["deals"]) for i in range(4)]


def test_the_tournament_preset_short_deck_through_the_api(client):
    rules = {"preset": "tournament", "deck": "short", "deals": 4,
             "allowed_games": ["solo", "wenz", "rufspiel"]}
    game_id, tokens = new_game(client, game="schafkopf", players=4, rules=rules)
    play_to_end(client, game_id, tokens, rng=random.Random(5))
    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert summary["status"] == "finished" and summary["rules"]["stoss"] == 0
    assert all(abs(p) <= 4 * 21 for deal in summary["scores"]["deals"] for p in deal)


@pytest.mark.parametrize("rules,field", [
    ({"deck": "short", "all_pass": "ramsch"}, "rules.all_pass"),
    ({"preset": "pub"}, "rules.preset"),
    ({"stoss": 9}, "rules.stoss"),
])
def test_invalid_house_rules_are_a_422_naming_the_field(client, rules, field):
    body = {"game": "schafkopf", "players": 4, "rules": rules,
            "seats": [{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * 3}
    response = client.post("/v1/games", json=body)
    assert response.status_code == 422
    assert field in str(response.get_json())
