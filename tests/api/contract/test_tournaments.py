"""4. Real tournament responses, from creation to the final standings, match openapi.yaml."""
from __future__ import annotations

from .spec import validate_response

BASE = "/v1/tournaments/{tournament_id}"


def test_a_tournament_with_a_human_conforms_from_creation_to_the_end(client):
    created = client.post("/v1/tournaments", json={
        "game": "scharfe-schoten", "players": 3, "rounds": 1, "deals_per_table": 1, "duplicate": True,
        "participants": [{"kind": "human"}] + [{"kind": "bot", "bot": "heuristic"}] * 5})
    validate_response(created, "/v1/tournaments", "post")
    tid, organizer = created.get_json()["id"], created.get_json()["token"]
    early = client.post(f"/v1/tournaments/{tid}/start", headers={"Authorization": f"Bearer {organizer}"})
    validate_response(early, BASE + "/start", "post")
    joined = client.post(f"/v1/tournaments/{tid}/participants/0")
    validate_response(joined, BASE + "/participants/{participant}", "post")
    token = joined.get_json()["token"]
    validate_response(client.post(f"/v1/tournaments/{tid}/participants/0"), BASE + "/participants/{participant}",
                      "post")
    started = client.post(f"/v1/tournaments/{tid}/start", headers={"Authorization": f"Bearer {organizer}"})
    validate_response(started, BASE + "/start", "post")
    seat = client.post(f"/v1/tournaments/{tid}/participants/0/seat", headers={"Authorization": f"Bearer {token}"})
    validate_response(seat, BASE + "/participants/{participant}/seat", "post")
    validate_response(client.get(f"/v1/tournaments/{tid}"), BASE, "get")
    validate_response(client.get(f"/v1/tournaments/{tid}/events"), BASE + "/events", "get")
    game, seat_token = seat.get_json()["game_id"], seat.get_json()["token"]
    auth = {"Authorization": f"Bearer {seat_token}"}
    for _ in range(200):
        view = client.get(f"/v1/games/{game}/view", headers=auth).get_json()
        if view["status"] == "finished":
            break
        client.post(f"/v1/games/{game}/commands", json=view["legal"][0], headers=auth)
    finished = client.get(f"/v1/tournaments/{tid}")
    validate_response(finished, BASE, "get")
    assert finished.get_json()["status"] == "finished"
    validate_response(client.get(f"/v1/tournaments/{tid}/standings"), BASE + "/standings", "get")
    validate_response(client.get(f"/v1/tournaments/{tid}/standings?format=csv"), BASE + "/standings", "get")
    validate_response(client.get(f"/v1/tournaments/{tid}/events"), BASE + "/events", "get")
    validate_response(client.get("/v1/tournaments/t000000000000000"), BASE, "get")
