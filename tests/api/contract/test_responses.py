"""4. Real responses validated against the spec's response schemas with ``jsonschema``."""
from __future__ import annotations

import copy
import json
import time

import pytest

from .spec import (
    SPEC,
    UNKNOWN_ID,
    bearer,
    create,
    game_named,
    take,
    validate_response,
    validate_schema,
)

# --------------------------------------------------------------------------- 4. explicit conformance


def test_create_game_is_201_game_summary(client):
    response = client.post("/v1/games", json={"game": "scharfe-schoten", "players": 3,
                                              "seats": [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}]})
    validate_response(response, "/v1/games", "post")
    body = response.get_json()
    assert response.status_code == 201
    assert response.headers["Location"] == f"/v1/games/{body['id']}"
    assert response.headers["ETag"] == f'"{body["seq"]}"'
    assert body["status"] == "waiting"
    validate_schema(body["rules"], "ScharfeSchotenRules")


def test_create_game_with_preset_deal(client):
    from domain.scharfe_schoten.cards import SPICE_DECK

    deck = list(SPICE_DECK)
    preset = {"hands": [deck[0:12], deck[12:24], deck[24:36]], "cupboard": deck[36:48],
              "numbers": {"R": 3, "G": 7, "Y": 12, "B": 1}, "starter": 1}
    validate_schema(preset, "ScharfeSchotenPresetDeal")
    body = {"game": "scharfe-schoten", "players": 3, "rules": {"rounds": 1}, "preset_deals": [preset]}
    validate_schema(body, "CreateGame")
    response = client.post("/v1/games", json=body)
    validate_response(response, "/v1/games", "post")
    assert response.status_code == 201

    bad = copy.deepcopy(body)
    bad["preset_deals"][0]["hands"][0][1] = "R1"  # R1 twice, R2 missing
    response = client.post("/v1/games", json=bad)
    validate_response(response, "/v1/games", "post")
    assert response.status_code == 422 and response.get_json()["code"] == "invalid_setup"
    assert any(key.startswith("preset_deals[0]") for key in response.get_json()["errors"])


def test_take_seat_is_201_seat_granted(client):
    game_id = create(client, seats=[{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}])
    response = client.post(f"/v1/games/{game_id}/seats/0", json={"entropy": "abc_123"})
    validate_response(response, "/v1/games/{id}/seats/{seat}", "post")
    body = response.get_json()
    assert response.status_code == 201 and body["seat"] == 0 and body["status"] == "active"
    assert response.headers["ETag"] == f'"{body["seq"]}"'

    again = client.post(f"/v1/games/{game_id}/seats/0")  # no body at all is fine too
    validate_response(again, "/v1/games/{id}/seats/{seat}", "post")
    assert again.status_code == 409 and again.get_json()["code"] == "seat_taken"
    missing = client.post(f"/v1/games/{game_id}/seats/7")
    validate_response(missing, "/v1/games/{id}/seats/{seat}", "post")
    assert missing.status_code == 404 and missing.get_json()["code"] == "unknown_seat"


def test_view_with_and_without_token(client, games):
    # A game of its own: the fuzzer walks the shared "active" game forward and may finish it.
    game_id = create(client, seats=[{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}], rules={"rounds": 2})
    tokens = {0: take(client, game_id, 0)}
    spectator = client.get(f"/v1/games/{game_id}/view")
    validate_response(spectator, "/v1/games/{id}/view", "get")
    body = spectator.get_json()
    assert body["viewer"] is None and body["legal"] == [] and body["game_state"]["hand"] is None

    seat = client.get(f"/v1/games/{game_id}/view", headers=bearer(tokens[0]))
    validate_response(seat, "/v1/games/{id}/view", "get")
    body = seat.get_json()
    assert body["viewer"] == 0 and isinstance(body["game_state"]["hand"], list)
    validate_schema(body["game_state"], "ScharfeSchotenGameState")
    assert seat.headers["ETag"] == f'"{body["seq"]}"'

    waiting = create(client)  # its own too: the fuzzer may take the shared waiting game's seats
    response = client.get(f"/v1/games/{waiting}/view")
    validate_response(response, "/v1/games/{id}/view", "get")
    assert response.get_json()["game_state"] is None


def test_finished_game_view_and_summary(client, games):
    game_id, _ = game_named(games, "finished")
    view = client.get(f"/v1/games/{game_id}/view")
    validate_response(view, "/v1/games/{id}/view", "get")
    body = view.get_json()
    assert body["status"] == "finished" and "seed" in body and "hands" in body["game_state"]
    summary = client.get(f"/v1/games/{game_id}")
    validate_response(summary, "/v1/games/{id}", "get")
    assert summary.get_json()["scores"]["ranking"]


@pytest.mark.parametrize("name,state_schema", [("schafkopf", "SchafkopfGameState"),
                                               ("scharwenzel", "ScharwenzelGameState")])
def test_other_games_views_and_legal_commands(client, games, name, state_schema):
    if not any(g["name"] == name for g in games.values()):
        pytest.skip(f"{name} is not installed in this tree")
    game_id, tokens = game_named(games, name)
    for headers in ({}, bearer(tokens[0])):
        response = client.get(f"/v1/games/{game_id}/view", headers=headers)
        validate_response(response, "/v1/games/{id}/view", "get")
        body = response.get_json()
        validate_schema(body["game_state"], state_schema)
        validate_schema(body["rules"], state_schema.replace("GameState", "Rules"))
    # Walk a few moves with the seat's legal commands: each is a documented Command and accepted.
    for _ in range(6):
        body = client.get(f"/v1/games/{game_id}/view", headers=bearer(tokens[0])).get_json()
        if not body["legal"]:
            break
        command = body["legal"][0]
        validate_schema(command, state_schema.replace("GameState", "Command"))
        response = client.post(f"/v1/games/{game_id}/commands", json=command, headers=bearer(tokens[0]))
        validate_response(response, "/v1/games/{id}/commands", "post")
        assert response.status_code == 200, response.get_json()


def test_legal_command_is_200_command_accepted(client):
    game_id = create(client, seats=[{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}])
    token = take(client, game_id, 0)
    view = client.get(f"/v1/games/{game_id}/view", headers=bearer(token)).get_json()
    command = view["legal"][0]
    validate_schema(command, "Command")
    response = client.post(f"/v1/games/{game_id}/commands", json=command,
                           headers={**bearer(token), "If-Match": f'"{view["seq"]}"', "Idempotency-Key": "k-1"})
    validate_response(response, "/v1/games/{id}/commands", "post")
    body = response.get_json()
    assert response.status_code == 200 and body["duplicate"] is False and body["events"]
    assert body["events"][0]["type"] == "PredictionMade" and body["events"][0]["actor"] == 0

    retry = client.post(f"/v1/games/{game_id}/commands", json=command,
                        headers={**bearer(token), "Idempotency-Key": "k-1"})
    validate_response(retry, "/v1/games/{id}/commands", "post")
    assert retry.get_json()["duplicate"] is True
    assert [e["seq"] for e in retry.get_json()["events"]] == [e["seq"] for e in body["events"]]


def test_illegal_command_is_409_problem_with_legal(client, games):
    game_id = create(client, seats=[{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}])
    token = take(client, game_id, 0)
    response = client.post(f"/v1/games/{game_id}/commands", json={"type": "predict", "most": "R", "fewest": "R"},
                           headers=bearer(token))
    validate_response(response, "/v1/games/{id}/commands", "post")
    body = response.get_json()
    assert response.status_code == 409 and body["code"] == "illegal_choice"
    assert body["legal"] and body["current_seq"] >= 1
    assert response.headers["ETag"] == f'"{body["current_seq"]}"'

    wrong = client.post(f"/v1/games/{game_id}/commands", json={"type": "play", "card": "R9"}, headers=bearer(token))
    validate_response(wrong, "/v1/games/{id}/commands", "post")
    assert wrong.status_code == 409 and wrong.get_json()["code"] == "wrong_phase"

    finished, tokens = game_named(games, "finished")
    over = client.post(f"/v1/games/{finished}/commands", json={"type": "take", "colour": "G"},
                       headers=bearer(tokens[0]))
    validate_response(over, "/v1/games/{id}/commands", "post")
    assert over.status_code == 409 and over.get_json()["code"] == "game_finished"


@pytest.mark.parametrize("body,headers,status,code", [
    ({"type": "dance"}, {}, 422, "unknown_command"),
    ({"type": "play", "card": "Z99"}, {}, 422, "unknown_card"),
    ({"type": "play", "card": "R9", "extra": 1}, {}, 422, "validation_error"),
    ({"type": "predict", "most": "R", "fewest": "G"}, {"If-Match": '"1"'}, 412, "stale_seq"),
    ({"type": "predict", "most": "R", "fewest": "G"}, {"If-Match": "soon"}, 400, "bad_if_match"),
    ({"type": "predict", "most": "R", "fewest": "G"}, {"If-Match": "\u00b2"}, 400, "bad_if_match"),  # '²'.isdigit()
    ({"type": "predict", "most": "R", "fewest": "G"}, {"If-Match": "1" * 5000}, 400, "bad_if_match"),  # int() limit
    ({"type": "predict", "most": "R", "fewest": "G"}, {"Idempotency-Key": "x" * 129}, 400, "bad_idempotency_key"),
])
def test_command_errors(client, body, headers, status, code):
    game_id = create(client, seats=[{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}],
                     rules={"first_starter": 0})
    token = take(client, game_id, 0)
    if body["type"] == "play":  # the card is judged once it is seat 0's turn to play
        predicted = client.post(f"/v1/games/{game_id}/commands", json={"type": "predict", "most": "R", "fewest": "G"},
                                headers=bearer(token))
        assert predicted.get_json()["view"]["game_state"]["phase"] == "playing"
    response = client.post(f"/v1/games/{game_id}/commands", json=body, headers={**bearer(token), **headers})
    validate_response(response, "/v1/games/{id}/commands", "post")
    assert (response.status_code, response.get_json()["code"]) == (status, code)
    if status == 412:
        assert response.get_json()["current_seq"] > 1


def test_request_level_errors(client, games):
    game_id, tokens = game_named(games, "active")
    url = f"/v1/games/{game_id}/commands"
    cases = [
        (client.post(url, json={"type": "take", "colour": "G"}), 401, "missing_token"),
        (client.post(url, json={"type": "take", "colour": "G"}, headers=bearer("st_nope")), 403, "invalid_token"),
        (client.post(url, data="{not json", content_type="application/json", headers=bearer(tokens[0])),
         400, "malformed_json"),
        (client.post(url, data="type=take", content_type="text/plain", headers=bearer(tokens[0])),
         415, "unsupported_media_type"),
        (client.post(url, data=json.dumps({"type": "x" * 70000}), content_type="application/json",
                     headers=bearer(tokens[0])), 413, "body_too_large"),
        (client.post(url, data="[" * 30000 + "]" * 30000, content_type="application/json",
                     headers=bearer(tokens[0])), 400, "malformed_json"),  # too deep for the parser
        (client.post(f"/v1/games/{UNKNOWN_ID}/commands", json={}, headers=bearer(tokens[0])), 404, "unknown_game"),
    ]
    for response, status, code in cases:
        validate_response(response, "/v1/games/{id}/commands", "post")
        assert (response.status_code, response.get_json()["code"]) == (status, code)
    assert "WWW-Authenticate" in cases[0][0].headers

    listing = client.get("/v1/games?status=lost")
    validate_response(listing, "/v1/games", "get")
    assert listing.status_code == 422
    unknown = client.get(f"/v1/games/{UNKNOWN_ID}")
    validate_response(unknown, "/v1/games/{id}", "get")
    assert unknown.get_json()["code"] == "unknown_game"


def test_undocumented_method_is_405_with_allow(client, games):
    game_id, _ = game_named(games, "active")
    response = client.delete(f"/v1/games/{game_id}")
    assert response.status_code == 405 and response.mimetype == "application/problem+json"
    assert response.get_json()["code"] == "method_not_allowed"
    assert {m.strip() for m in response.headers["Allow"].split(",")} >= {"GET"}
    validate_schema(response.get_json(), "Problem")


def test_list_games(client, games):
    response = client.get("/v1/games?game=scharfe-schoten&limit=5")
    validate_response(response, "/v1/games", "get")
    assert 1 <= len(response.get_json()["games"]) <= 5


def test_events_page(client, games):
    game_id, tokens = game_named(games, "active")
    spectator = client.get(f"/v1/games/{game_id}/events")
    validate_response(spectator, "/v1/games/{id}/events", "get")
    body = spectator.get_json()
    assert [e["seq"] for e in body["events"]] == list(range(1, body["seq"] + 1))
    dealt = next(e for e in body["events"] if e["type"] == "HandsDealt")
    assert dealt["redacted"] and dealt["data"]["hands"] == [None] * 3

    mine = client.get(f"/v1/games/{game_id}/events?after=2&limit=10&wait=0", headers=bearer(tokens[0]))
    validate_response(mine, "/v1/games/{id}/events", "get")
    events = mine.get_json()["events"]
    assert events[0]["seq"] == 3 and len(events) <= 10
    dealt = next(e for e in client.get(f"/v1/games/{game_id}/events", headers=bearer(tokens[0])).get_json()["events"]
                 if e["type"] == "HandsDealt")
    assert dealt["data"]["hands"][0] and dealt["data"]["hands"][1] is None

    empty = client.get(f"/v1/games/{game_id}/events?after={body['seq'] + 100}&wait=0.05")
    validate_response(empty, "/v1/games/{id}/events", "get")
    assert empty.get_json()["events"] == []


def _sse_messages(raw: bytes) -> list[dict]:
    messages = []
    for block in raw.decode().split("\n\n"):
        fields: dict = {}
        for line in block.splitlines():
            if line.startswith(":") or not line:
                continue
            name, _, value = line.partition(": ")
            fields[name] = value
        if "data" in fields:
            messages.append(fields)
    return messages


def test_event_stream_of_a_finished_game_ends_by_itself(client, games):
    game_id, _ = game_named(games, "finished")
    started = time.monotonic()
    response = client.get(f"/v1/games/{game_id}/events/stream?timeout=30")
    raw = response.get_data()
    assert time.monotonic() - started < 10, "the stream should end after the last event"
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    assert str(response.status_code) in SPEC["paths"]["/v1/games/{id}/events/stream"]["get"]["responses"]
    assert raw.startswith(b"retry: 2000\n\n")
    messages = _sse_messages(raw)
    for message in messages:
        validate_schema(message, "ServerSentEvent")
        event = json.loads(message["data"])
        validate_schema(event, "Event")
        assert message["id"] == str(event["seq"]) and event["redacted"] is False
    seq = client.get(f"/v1/games/{game_id}").get_json()["seq"]
    assert [int(m["id"]) for m in messages] == list(range(1, seq + 1))
    assert json.loads(messages[-1]["data"])["type"] == "SeedRevealed"

    resumed = client.get(f"/v1/games/{game_id}/events/stream", headers={"Last-Event-ID": str(seq - 2)})
    assert [int(m["id"]) for m in _sse_messages(resumed.get_data())] == [seq - 1, seq]


def test_event_stream_of_a_running_game_times_out(client, games):
    game_id, _ = game_named(games, "waiting")
    response = client.get(f"/v1/games/{game_id}/events/stream?after=1&timeout=0.1")
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-cache"
    for message in _sse_messages(response.get_data()):
        validate_schema(json.loads(message["data"]), "Event")

    bad = client.get(f"/v1/games/{game_id}/events/stream", headers={"Last-Event-ID": "yesterday"})
    validate_response(bad, "/v1/games/{id}/events/stream", "get")
    assert bad.get_json()["code"] == "bad_last_event_id"
    for digits in ("9" * 25, "9" * 5000):  # beyond Redis stream ids; beyond int()'s digit limit
        too_big = client.get(f"/v1/games/{game_id}/events/stream", headers={"Last-Event-ID": digits})
        validate_response(too_big, "/v1/games/{id}/events/stream", "get")
        assert too_big.get_json()["code"] == "bad_last_event_id"
    superscript = client.get(f"/v1/games/{game_id}/events/stream", headers={"Last-Event-ID": "\u00b2"})
    validate_response(superscript, "/v1/games/{id}/events/stream", "get")
    assert superscript.get_json()["code"] == "bad_last_event_id"
    forbidden = client.get(f"/v1/games/{game_id}/events/stream?timeout=0", headers=bearer("st_nope"))
    validate_response(forbidden, "/v1/games/{id}/events/stream", "get")
    assert forbidden.status_code == 403


def test_health(client):
    response = client.get("/v1/health")
    validate_response(response, "/v1/health", "get")
    assert response.get_json() == {"status": "ok", "components": {
        "store": {"status": "up"}, "queue": {"status": "inline"}, "workers": {"status": "inline"},
        "analysis": {"status": "inline"}}}
