"""Heuristic and search bots through the API: seats name them (a search bot with its budget),
the bot turns play them, and a game of each game runs to its end."""
from __future__ import annotations

import random

import pytest

from .play import auth, play_to_end


@pytest.mark.parametrize("game,players,rules", [("schafkopf", 4, {"deals": 1}), ("scharwenzel", 4, {"deals": 1}),
                                                ("scharfe-schoten", 4, {"rounds": 1})])
def test_a_game_with_heuristic_and_search_bots_runs_to_the_end(client, game, players, rules):
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "heuristic"}, {"kind": "bot", "bot": "search", "budget_ms": 20},
             {"kind": "bot", "bot": "search"}][:players]
    created = client.post("/v1/games", json={"game": game, "players": players, "rules": rules, "seats": seats})
    assert created.status_code == 201, created.get_json()
    body = created.get_json()
    assert [s.get("bot") for s in body["seats"]] == [None, "heuristic", "search", "search"][:players]
    assert [s.get("budget_ms") for s in body["seats"]] == [None, None, 20, 150][:players]  # 150: the default
    game_id = body["id"]
    token = client.post(f"/v1/games/{game_id}/seats/0").get_json()["token"]
    play_to_end(client, game_id, {0: token}, rng=random.Random(1))
    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert summary["status"] == "finished" and len(summary["scores"]["totals"]) == players
    moves = [e for e in client.get(f"/v1/games/{game_id}/events?limit=500", headers=auth(token)).get_json()["events"]
             if isinstance(e["actor"], int) and e["actor"] > 0]
    assert moves  # the bots moved


@pytest.mark.parametrize("seat,field", [
    ({"kind": "bot", "bot": "heuristic", "budget_ms": 100}, "seats[1].budget_ms"),
    ({"kind": "bot", "bot": "search", "budget_ms": 5}, "seats"),  # the schema's range: errors nested by seat
    ({"kind": "bot", "bot": "clever"}, "seats"),
])
def test_a_bad_bot_seat_is_a_422_naming_it(client, seat, field):
    body = {"game": "scharfe-schoten", "players": 3, "seats": [{"kind": "human"}, seat, {"kind": "bot"}]}
    response = client.post("/v1/games", json=body)
    assert response.status_code == 422
    assert any(key.startswith(field) for key in response.get_json()["errors"]), response.get_json()
