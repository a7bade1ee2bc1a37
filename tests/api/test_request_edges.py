"""Request edge cases: the body limit (with and without Content-Length) and a reused Idempotency-Key."""
from __future__ import annotations

import io
import json

from .play import auth, new_game

LIMIT = 64 * 1024


def padded_create_body(size: int) -> bytes:
    body = json.dumps({"game": "scharfe-schoten", "players": 3}).encode()
    return body + b" " * (size - len(body))  # trailing whitespace keeps it valid JSON


def test_a_body_at_the_limit_is_read_and_one_byte_more_is_413(client):
    assert client.post("/v1/games", data=padded_create_body(LIMIT), content_type="application/json").status_code == 201
    over = client.post("/v1/games", data=padded_create_body(LIMIT + 1), content_type="application/json")
    assert over.status_code == 413 and over.get_json()["code"] == "body_too_large"


def test_a_chunked_body_over_the_limit_is_413_not_a_truncated_read(client):
    """Without Content-Length the server reads up to the limit: a body cut there would
    parse as malformed JSON (400); it must be the 413 it is."""
    def chunked(size: int):
        return client.post("/v1/games", input_stream=io.BytesIO(padded_create_body(size)),
                           headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"},
                           environ_overrides={"wsgi.input_terminated": True})
    assert chunked(LIMIT).status_code == 201
    over = chunked(3 * LIMIT)
    assert over.status_code == 413 and over.get_json()["code"] == "body_too_large"


def test_an_idempotency_key_reused_for_another_command_is_422_and_appends_nothing(client, app):
    game_id, tokens = new_game(client, players=3, humans=(0, 1, 2))
    legal = client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[0])).get_json()["legal"]
    first, other = legal[0], legal[1]
    headers = {**auth(tokens[0]), "Idempotency-Key": "move-1"}
    accepted = client.post(f"/v1/games/{game_id}/commands", json=first, headers=headers)
    assert accepted.status_code == 200 and accepted.get_json()["duplicate"] is False
    seq = accepted.get_json()["seq"]

    reused = client.post(f"/v1/games/{game_id}/commands", json=other, headers=headers)
    assert reused.status_code == 422, reused.get_json()
    assert reused.get_json()["code"] == "idempotency_key_reused"
    assert app.extensions["stich"].store.seq(game_id) == seq

    retried = client.post(f"/v1/games/{game_id}/commands", json=first, headers=headers)
    assert retried.status_code == 200 and retried.get_json()["duplicate"] is True
    assert retried.get_json()["events"] == accepted.get_json()["events"]

    # Keys belong to a seat: another seat may use the same key for its own command.
    other_seat = client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[1])).get_json()["legal"][0]
    theirs = client.post(f"/v1/games/{game_id}/commands", json=other_seat,
                         headers={**auth(tokens[1]), "Idempotency-Key": "move-1"})
    assert theirs.status_code == 200 and theirs.get_json()["duplicate"] is False
