"""Each game, through the HTTP API, from creation to the final ranking."""
from __future__ import annotations

import random

import pytest

from .play import auth, new_game, play_to_end


def finished_summary(client, game_id):
    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert summary["status"] == "finished", summary
    assert summary["seed"] and summary["scores"]["ranking"]
    return summary


def test_schafkopf_one_human_and_three_random_bots_play_a_session_of_8_deals(client):
    game_id, tokens = new_game(client, game="schafkopf", players=4, rules={"deals": 8})
    moves = play_to_end(client, game_id, tokens, rng=random.Random(3))
    summary = finished_summary(client, game_id)
    assert moves >= 8  # at least one card a deal from the human
    deals = summary["scores"]["deals"]
    assert len(deals) == 8 and all(sum(payments) == 0 for payments in deals)
    assert summary["scores"]["totals"] == [sum(d[i] for d in deals) for i in range(4)]


@pytest.mark.parametrize("players", [4, 6, 8])
def test_scharwenzel_one_human_and_random_bots_play_to_the_end(client, players):
    game_id, tokens = new_game(client, game="scharwenzel", players=players, rules={"threads": 1})
    play_to_end(client, game_id, tokens, rng=random.Random(players))
    summary = finished_summary(client, game_id)
    assert len(summary["scores"]["totals"]) == players


def test_scharfe_schoten_four_players_two_humans(client):
    game_id, tokens = new_game(client, game="scharfe-schoten", players=4, humans=(0, 2), rules={"rounds": 2})
    play_to_end(client, game_id, tokens, rng=random.Random(4))
    assert len(finished_summary(client, game_id)["scores"]["totals"]) == 4


def test_preset_deals_are_dealt_as_given_and_hidden_until_the_end(client):
    deck = [f"{c}{v}" for c in "RGYB" for v in range(1, 13)]
    preset = {"hands": [deck[0:12], deck[12:24], deck[24:36]], "cupboard": deck[36:],
              "numbers": {"R": 2, "G": 10, "Y": 1, "B": 9}, "starter": 1}
    game_id, tokens = new_game(client, game="scharfe-schoten", players=3, rules={"rounds": 1},
                               preset_deals=[preset])
    view = client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[0])).get_json()
    assert sorted(view["game_state"]["hand"]) == sorted(deck[0:12])
    created = client.get(f"/v1/games/{game_id}/events", headers=auth(tokens[0])).get_json()["events"][0]
    assert created["data"]["preset"] is True and "preset_deals" not in created["data"]
    play_to_end(client, game_id, tokens)
    created = client.get(f"/v1/games/{game_id}/events").get_json()["events"][0]
    assert created["data"]["preset_deals"][0]["hands"][1] == deck[12:24]


def test_invalid_preset_is_a_422_naming_the_field(client):
    deck = [f"{c}{v}" for c in "RGYB" for v in range(1, 13)]
    preset = {"hands": [deck[0:12], deck[0:12], deck[24:36]], "cupboard": deck[36:],
              "numbers": {"R": 2, "G": 10, "Y": 1, "B": 9}}
    response = client.post("/v1/games", json={"game": "scharfe-schoten", "players": 3, "preset_deals": [preset]})
    assert response.status_code == 422
    assert any(key.startswith("preset_deals[0]") for key in response.get_json()["errors"])
