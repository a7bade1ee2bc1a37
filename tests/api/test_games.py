"""The core HTTP resources: creation, seats, views, commands, errors, retries."""
from __future__ import annotations

import json

from .play import auth, create, new_game, play_to_end, take


def problem(response, status, code):
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.get_json(force=True)
    assert body["code"] == code, body
    assert body["status"] == status and body["detail"]
    return body


def seq_of(client, game_id):
    return client.get(f"/v1/games/{game_id}").get_json()["seq"]


class TestCreate:
    def test_created_game_waits_for_its_human_seats(self, client):
        response = client.post("/v1/games", json={"game": "scharfe-schoten", "players": 3})
        assert response.status_code == 201
        body = response.get_json()
        assert response.headers["Location"] == f"/v1/games/{body['id']}"
        assert response.headers["ETag"] == f'"{body["seq"]}"'
        assert body["status"] == "waiting" and len(body["seed_sha256"]) == 64
        assert body["rules"]["rounds"] == 3  # defaults are filled in and recorded

    def test_all_bot_game_plays_to_the_end_at_once(self, client):
        game_id = create(client, humans=())
        summary = client.get(f"/v1/games/{game_id}").get_json()
        assert summary["status"] == "finished" and summary["seed"]
        assert sorted(summary["scores"]["ranking"])[0] == 1

    def test_unknown_rule_option_is_named(self, client):
        body = problem(client.post("/v1/games", json={"game": "scharfe-schoten", "players": 3,
                                                      "rules": {"roundz": 2}}), 422, "invalid_setup")
        assert any("roundz" in key or "roundz" in json.dumps(v) for key, v in body["errors"].items())

    def test_unknown_game_and_bad_player_count(self, client):
        problem(client.post("/v1/games", json={"game": "skat", "players": 3}), 422, "invalid_setup")
        problem(client.post("/v1/games", json={"game": "scharfe-schoten", "players": 5}), 422, "invalid_setup")

    def test_wrong_types_and_unknown_fields(self, client):
        problem(client.post("/v1/games", json={"game": "scharfe-schoten", "players": "3"}), 422, "validation_error")
        problem(client.post("/v1/games", json={"game": "scharfe-schoten", "players": 3, "colour": 1}),
                422, "validation_error")

    def test_malformed_json_and_oversized_body(self, client):
        problem(client.post("/v1/games", data="{nope", content_type="application/json"), 400, "malformed_json")
        big = json.dumps({"game": "scharfe-schoten", "players": 3, "rules": {"x": "y" * 100_000}})
        problem(client.post("/v1/games", data=big, content_type="application/json"), 413, "body_too_large")

    def test_list_filters_by_status_and_game(self, client):
        waiting = create(client)
        finished = create(client, humans=())
        ids = {g["id"] for g in client.get("/v1/games?status=waiting").get_json()["games"]}
        assert waiting in ids and finished not in ids
        listed = client.get("/v1/games?status=finished&game=scharfe-schoten").get_json()["games"]
        assert finished in {g["id"] for g in listed}
        problem(client.get("/v1/games?status=paused"), 422, "validation_error")


class TestSeats:
    def test_taking_the_last_seat_starts_the_game(self, client):
        game_id = create(client, humans=(0, 1))
        take(client, game_id, 0)
        assert client.get(f"/v1/games/{game_id}").get_json()["status"] == "waiting"
        take(client, game_id, 1)
        assert client.get(f"/v1/games/{game_id}").get_json()["status"] == "active"

    def test_a_seat_is_taken_once(self, client):
        game_id = create(client, humans=(0, 1))
        take(client, game_id, 0)
        before = seq_of(client, game_id)
        problem(client.post(f"/v1/games/{game_id}/seats/0"), 409, "seat_taken")
        problem(client.post(f"/v1/games/{game_id}/seats/2"), 409, "seat_taken")  # a bot's seat
        problem(client.post(f"/v1/games/{game_id}/seats/7"), 404, "unknown_seat")
        assert seq_of(client, game_id) == before

    def test_token_is_long_random_and_never_in_the_events(self, client):
        game_id, tokens = new_game(client)
        token = tokens[0]
        assert len(token) >= 32
        raw = client.get(f"/v1/games/{game_id}/events", headers=auth(token)).get_data(as_text=True)
        assert token not in raw

    def test_unknown_game(self, client):
        problem(client.get("/v1/games/doesnotexist"), 404, "unknown_game")
        problem(client.post("/v1/games/doesnotexist/seats/0"), 404, "unknown_game")


class TestCommands:
    def test_legal_command_is_accepted_and_echoed_redacted(self, client):
        game_id, tokens = new_game(client)
        view = client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[0])).get_json()
        command = view["legal"][0]
        response = client.post(f"/v1/games/{game_id}/commands", json=command, headers=auth(tokens[0]))
        assert response.status_code == 200
        body = response.get_json()
        assert body["duplicate"] is False and body["events"]
        assert response.headers["ETag"] == f'"{body["seq"]}"'

    def test_missing_and_foreign_tokens(self, client):
        game_id, _ = new_game(client)
        other_id, other_tokens = new_game(client)
        command = {"type": "predict", "most": "R", "fewest": "G"}
        problem(client.post(f"/v1/games/{game_id}/commands", json=command), 401, "missing_token")
        problem(client.post(f"/v1/games/{game_id}/commands", json=command, headers=auth(other_tokens[0])),
                403, "invalid_token")
        problem(client.post(f"/v1/games/{game_id}/commands", json=command, headers={"Authorization": "Basic x"}),
                401, "missing_token")

    def test_rule_violation_lists_legal_commands_and_appends_nothing(self, client):
        game_id, tokens = new_game(client)
        before = seq_of(client, game_id)
        body = problem(client.post(f"/v1/games/{game_id}/commands", json={"type": "predict", "most": "R", "fewest": "R"},
                                   headers=auth(tokens[0])), 409, "illegal_choice")
        assert body["legal"] and all(c["type"] == "predict" for c in body["legal"])
        assert seq_of(client, game_id) == before

    def test_out_of_turn_command(self, client):
        game_id, tokens = new_game(client)
        before = seq_of(client, game_id)
        body = problem(client.post(f"/v1/games/{game_id}/commands", json={"type": "play", "card": "R1"},
                                   headers=auth(tokens[0])), 409, "wrong_phase")
        assert seq_of(client, game_id) == before and body["current_seq"] == before

    def test_bad_shapes_are_422(self, client):
        game_id, tokens = new_game(client)
        h = auth(tokens[0])
        problem(client.post(f"/v1/games/{game_id}/commands", json={"type": "fly"}, headers=h), 422, "unknown_command")
        problem(client.post(f"/v1/games/{game_id}/commands", json={"type": "predict", "most": "R"}, headers=h),
                422, "validation_error")
        problem(client.post(f"/v1/games/{game_id}/commands", json={"type": "predict", "most": "R", "fewest": "G",
                                                                   "extra": 1}, headers=h), 422, "validation_error")
        problem(client.post(f"/v1/games/{game_id}/commands", json=[1, 2], headers=h), 422, "validation_error")
        problem(client.post(f"/v1/games/{game_id}/commands", data="{", content_type="application/json", headers=h),
                400, "malformed_json")

    def test_stale_if_match_is_412_and_appends_nothing(self, client):
        game_id, tokens = new_game(client)
        seq = seq_of(client, game_id)
        command = {"type": "predict", "most": "R", "fewest": "G"}
        headers = {**auth(tokens[0]), "If-Match": f'"{seq - 1}"'}
        body = problem(client.post(f"/v1/games/{game_id}/commands", json=command, headers=headers), 412, "stale_seq")
        assert body["current_seq"] == seq and seq_of(client, game_id) == seq
        headers["If-Match"] = f'"{seq}"'
        assert client.post(f"/v1/games/{game_id}/commands", json=command, headers=headers).status_code == 200

    def test_retry_with_idempotency_key_returns_first_answer_and_appends_nothing(self, client):
        game_id, tokens = new_game(client)
        command = {"type": "predict", "most": "R", "fewest": "G"}
        headers = {**auth(tokens[0]), "Idempotency-Key": "move-1"}
        first = client.post(f"/v1/games/{game_id}/commands", json=command, headers=headers).get_json()
        after_first = seq_of(client, game_id)
        again = client.post(f"/v1/games/{game_id}/commands", json=command, headers=headers).get_json()
        assert again["duplicate"] is True
        assert [e["seq"] for e in again["events"]] == [e["seq"] for e in first["events"]]
        assert seq_of(client, game_id) == after_first

    def test_a_retry_after_other_seats_moved_answers_as_the_first_try_did(self, client):
        game_id, tokens = new_game(client, humans=(0, 1, 2))  # predictions are simultaneous
        command = {"type": "predict", "most": "R", "fewest": "G"}
        headers = {**auth(tokens[0]), "Idempotency-Key": "move-1"}
        first = client.post(f"/v1/games/{game_id}/commands", json=command, headers=headers)
        other = {"type": "predict", "most": "G", "fewest": "R"}
        assert client.post(f"/v1/games/{game_id}/commands", json=other, headers=auth(tokens[1])).status_code == 200
        assert seq_of(client, game_id) > first.get_json()["seq"]
        again = client.post(f"/v1/games/{game_id}/commands", json=command, headers=headers)
        assert again.get_json()["duplicate"] is True
        assert again.get_json()["seq"] == first.get_json()["seq"] and again.headers["ETag"] == first.headers["ETag"]
        assert again.get_json()["events"] == first.get_json()["events"]
        assert again.get_json()["view"] == first.get_json()["view"]

    def test_commands_after_the_game_ended(self, client):
        game_id, tokens = new_game(client, rules={"rounds": 1})
        play_to_end(client, game_id, tokens)
        problem(client.post(f"/v1/games/{game_id}/commands", json={"type": "play", "card": "R1"},
                            headers=auth(tokens[0])), 409, "game_finished")


class TestFullGame:
    def test_one_human_and_two_random_bots_play_to_the_final_scores(self, client):
        game_id, tokens = new_game(client)
        moves = play_to_end(client, game_id, tokens)
        summary = client.get(f"/v1/games/{game_id}").get_json()
        assert summary["status"] == "finished" and moves > 0
        assert len(summary["scores"]["totals"]) == 3 and summary["scores"]["ranking"]
        events = client.get(f"/v1/games/{game_id}/events?limit=500").get_json()["events"]
        assert events[0]["type"] == "GameCreated" and events[-1]["type"] == "SeedRevealed"
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
        assert not any(e["redacted"] for e in events)  # everything is public after the end
