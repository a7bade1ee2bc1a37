"""Every game ends, through the API: the reported endless game is refused, and a game whose deals
never count is cut short at its ceiling with the standings it reached."""
from __future__ import annotations

from .play import auth, new_game

ENDLESS = {"game": "schafkopf", "players": 4, "seats": [{"kind": "bot", "bot": "random"}] * 4,
           "rules": {"allowed_games": ["sie"], "thrown_in_counts": False, "deals": 1}}


def test_the_reported_endless_game_is_a_422_that_creates_nothing(client):
    before = client.get("/v1/games?limit=1").get_json()["games"]
    answer = client.post("/v1/games", json=ENDLESS)
    assert answer.status_code == 422 and answer.mimetype == "application/problem+json"
    problem = answer.get_json()
    assert problem["code"] == "invalid_setup"
    assert {"rules.allowed_games", "rules.thrown_in_counts", "rules.all_pass"} <= set(problem["errors"])
    assert client.get("/v1/games?limit=1").get_json()["games"] == before


def test_a_game_whose_deals_never_count_is_cut_short(client):
    rules = {"allowed_games": ["rufspiel"], "thrown_in_counts": False, "deals": 1}
    game_id, tokens = new_game(client, game="schafkopf", players=4, humans=(0, 1, 2, 3), rules=rules)
    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert summary["limits"] == {"max_deals": 20, "max_events": 3100, "max_idle_s": 21600} and summary["cut_short"] is None
    for _ in range(1000):  # everybody passes, every time: no deal is ever played
        summary = client.get(f"/v1/games/{game_id}").get_json()
        if summary["status"] == "finished":
            break
        seat = summary["to_act"][0]
        answer = client.post(f"/v1/games/{game_id}/commands", json={"type": "announce", "intent": "pass"},
                             headers=auth(tokens[seat]))
        assert answer.status_code == 200, answer.get_json()
    assert summary["status"] == "finished" and summary["cut_short"] == "max_deals"
    assert summary["scores"]["ranking"] == [1, 1, 1, 1] and "seed" in summary
    events = client.get(f"/v1/games/{game_id}/events").get_json()["events"]
    types = [e["type"] for e in events]
    assert types.count("HandsDealt") == 20 and types[-2:] == ["GameCutShort", "SeedRevealed"]
    assert events[-2]["data"]["reason"] == "max_deals" and events[-2]["visibility"]["scope"] == "public"
    refused = client.post(f"/v1/games/{game_id}/commands", json={"type": "announce", "intent": "pass"},
                          headers=auth(tokens[0]))
    assert refused.status_code == 409


def test_a_creator_sets_the_ceilings_and_bad_ones_are_named(client):
    game_id, _ = new_game(client, game="scharfe-schoten", players=3)
    assert client.get(f"/v1/games/{game_id}").get_json()["limits"] == {"max_deals": 6, "max_events": 1000, "max_idle_s": 21600}
    answer = client.post("/v1/games", json={"game": "scharfe-schoten", "players": 3,
                                            "limits": {"max_deals": 0, "max_moves": 5}})
    assert answer.status_code == 422
    assert {"limits", "limits.max_deals"} <= set(answer.get_json()["errors"])
    answer = client.post("/v1/games", json={"game": "scharfe-schoten", "players": 3, "limits": {"max_events": 50}})
    assert answer.status_code == 201 and answer.get_json()["limits"] == {"max_deals": 6, "max_events": 50, "max_idle_s": 21600}
