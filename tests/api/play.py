"""Helpers for API tests: create a game, take seats, play legal commands."""
from __future__ import annotations

import random


def create(client, game="scharfe-schoten", players=3, humans=(0,), rules=None, preset_deals=None):
    seats = [{"kind": "human"} if i in humans else {"kind": "bot", "bot": "random"} for i in range(players)]
    body = {"game": game, "players": players, "seats": seats, "rules": rules or {}}
    if preset_deals is not None:
        body["preset_deals"] = preset_deals
    response = client.post("/v1/games", json=body)
    assert response.status_code == 201, response.get_json()
    return response.get_json()["id"]


def take(client, game_id, seat, entropy=""):
    response = client.post(f"/v1/games/{game_id}/seats/{seat}", json={"entropy": entropy} if entropy else None)
    assert response.status_code == 201, response.get_json()
    return response.get_json()["token"]


def auth(token):
    return {"Authorization": f"Bearer {token}"}


def new_game(client, **kwargs):
    """A created game with every human seat taken: (game_id, {seat: token})."""
    humans = kwargs.get("humans", (0,))
    game_id = create(client, **kwargs)
    return game_id, {seat: take(client, game_id, seat) for seat in humans}


def play_to_end(client, game_id, tokens, rng=None, max_moves=5000):
    """Every human posts a random legal command until the game ends; returns moves made."""
    rng = rng or random.Random(0)
    moves = 0
    while moves < max_moves:
        progressed = False
        for seat, token in tokens.items():
            view = client.get(f"/v1/games/{game_id}/view", headers=auth(token)).get_json()
            if view["status"] == "finished":
                return moves
            if view["legal"]:
                command = rng.choice(view["legal"])
                response = client.post(f"/v1/games/{game_id}/commands", json=command, headers=auth(token))
                assert response.status_code == 200, response.get_json()
                moves += 1
                progressed = True
        if not progressed:
            summary = client.get(f"/v1/games/{game_id}").get_json()
            if summary["status"] == "finished":
                return moves
            raise AssertionError(f"nobody can move: {summary}")
    raise AssertionError("game did not finish")
