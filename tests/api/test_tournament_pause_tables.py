"""A paused tournament stops its open tables (workers/tournament.py, domain/table.py's GamePaused): no seat
and no bot moves there and no clock runs until the resume, which gives the clocks their time back."""
from __future__ import annotations

from workers.bot_turn import play_bot_turn

from .test_tournaments import bearer, create

PLAYERS = [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]


def test_a_paused_tournaments_table_stops_its_bots_seats_and_clock_and_the_resume_restarts_them(app, client):
    handler = app.extensions["stich"].handler
    created = create(client, game="scharfe-schoten", players=3, rounds=1, deals_per_table=1,
                     participants=PLAYERS, clock={"per_move_s": 60})
    tid, organizer = created["id"], bearer(created["token"])
    participant = client.post(f"/v1/tournaments/{tid}/participants/0").get_json()["token"]
    assert client.post(f"/v1/tournaments/{tid}/start", headers=organizer).status_code == 200
    seat = client.post(f"/v1/tournaments/{tid}/participants/0/seat", headers=bearer(participant)).get_json()
    url, auth = f"/v1/games/{seat['game_id']}", bearer(seat["token"])
    before = client.get(url).get_json()
    left_ms = handler.table.deadlines(handler.load(seat["game_id"]).state)[seat["seat"]]
    assert client.post(f"/v1/tournaments/{tid}/pause", json={"reason": "break"}, headers=organizer).status_code == 200

    paused = client.get(url).get_json()
    assert paused["paused"] is True and paused["to_act"] == [] and paused["seq"] == before["seq"] + 1
    assert all(c["deadline_at"] is None for c in paused["clock"]["seats"])
    view = client.get(f"{url}/view", headers=auth).get_json()
    assert view["legal"] == []
    refused = client.post(f"{url}/commands", json={"type": "predict", "most": "R", "fewest": "G"}, headers=auth)
    assert refused.status_code == 409 and refused.get_json()["code"] == "wrong_phase"
    bots = [n for n, s in enumerate(paused["seats"]) if s["kind"] == "bot"]
    for bot in bots:  # a bot job that runs now (queued before, or re-driven) makes no move
        play_bot_turn(seat["game_id"], bot, paused["seq"], handler=handler)
    assert client.get(url).get_json()["seq"] == paused["seq"]

    assert client.post(f"/v1/tournaments/{tid}/resume", headers=organizer).status_code == 200
    resumed = client.get(url).get_json()
    assert "paused" not in resumed and resumed["to_act"]
    # The human's decision has the time it had left: its deadline moved on by the pause's length.
    assert handler.table.deadlines(handler.load(seat["game_id"]).state)[seat["seat"]] >= left_ms
    types = [e["type"] for e in client.get(f"{url}/events").get_json()["events"]]
    assert types.count("GamePaused") == 1 and types.index("GamePaused") < types.index("GameResumed")
    view = client.get(f"{url}/view", headers=auth).get_json()
    assert client.post(f"{url}/commands", json=view["legal"][0], headers=auth).status_code == 200
