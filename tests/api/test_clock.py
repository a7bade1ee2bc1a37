"""Turn deadlines through the API: a clocked game shows each seat's time, a seat that times
out is played by the clock's bot, an abandoned seat is taken again with a new token that
alone plays it, and the export of a game with time-outs verifies offline.

Time is the handler's clock, set by the test: the time-outs are the system commands a
worker sends (``workers/deadline.py``), sent here at chosen times.
"""
from __future__ import annotations

import json

import pytest

from domain import audit
from domain.clock import iso, millis
from domain.registry import all_games
from domain.table import Table
from workers.deadline import time_out_turn

from .contract.spec import validate_response
from .play import auth

T0 = 1_900_000_000_000
CLOCK = {"per_move_s": 5, "bank_s": 3, "abandon_after": 2, "bot": "heuristic"}


class FakeTime:
    def __init__(self, ms):
        self.ms = ms

    def __call__(self):
        return iso(self.ms)


@pytest.fixture
def now(app, monkeypatch):
    """The handler stamps (and times) events with this clock; the time-out job reads it too."""
    fake = FakeTime(T0)
    monkeypatch.setattr(app.extensions["stich"].handler, "clock", fake)
    monkeypatch.setattr("workers.deadline.time.time", lambda: fake.ms / 1000)
    return fake


def clocked_game(client, humans=(0,), game="schafkopf", players=4):
    seats = [{"kind": "human"} if i in humans else {"kind": "bot", "bot": "random"} for i in range(players)]
    response = client.post("/v1/games", json={"game": game, "players": players, "seats": seats, "clock": CLOCK})
    validate_response(response, "/v1/games", "post")
    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    assert body["clock"]["per_move_s"] == 5 and body["clock"]["bank_s"] == 3
    tokens = {}
    for seat in humans:
        taken = client.post(f"/v1/games/{body['id']}/seats/{seat}")
        assert taken.status_code == 201
        tokens[seat] = taken.get_json()["token"]
    return body["id"], tokens


def summary(client, game_id):
    response = client.get(f"/v1/games/{game_id}")
    validate_response(response, "/v1/games/{id}", "get")
    return response.get_json()


def time_out(app, game_id, seat):
    handler = app.extensions["stich"].handler
    return time_out_turn(game_id, seat, handler.load(game_id).seq, handler=handler)


def test_a_bad_clock_is_a_422_naming_the_field(client):
    response = client.post("/v1/games", json={"game": "schafkopf", "players": 4, "clock": {"per_move_s": 0}})
    validate_response(response, "/v1/games", "post")
    assert response.status_code == 422
    assert "clock.per_move_s" in response.get_json()["errors"]


def test_the_view_shows_each_seats_time(client, now):
    game_id, tokens = clocked_game(client)
    response = client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[0]))
    validate_response(response, "/v1/games/{id}/view", "get")
    clock = response.get_json()["clock"]
    seat0 = clock["seats"][0]
    if response.get_json()["legal"]:  # seat 0 is to act: its clock runs from the deal
        assert seat0["turn_started_at"] == iso(T0) and seat0["deadline_at"] == iso(T0 + 8_000)
    assert all(s["deadline_at"] is None for s in clock["seats"][1:])  # bots have no clock


def play_until_seat_to_act(client, game_id, seat, tokens):
    """The bots move inline; our other human seats play their first legal command."""
    for _ in range(200):
        state = summary(client, game_id)
        if state["status"] == "finished" or seat in state["to_act"]:
            return state
        other = next(s for s in state["to_act"] if s in tokens and s != seat)
        legal = client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[other])).get_json()["legal"]
        moved = client.post(f"/v1/games/{game_id}/commands", json=legal[0], headers=auth(tokens[other]))
        assert moved.status_code == 200, moved.get_json()
    raise AssertionError("seat never came to act")


def test_a_seat_that_times_out_is_played_abandoned_and_taken_again(app, client, now):
    # Seat 1 is a human too, so the game waits for it once the bots have played seat 0's turns
    game_id, tokens = clocked_game(client, humans=(0, 1))
    old = tokens[0]
    play_until_seat_to_act(client, game_id, 0, tokens)
    # Before the deadline the job does nothing
    now.ms = T0 + 7_999
    assert time_out(app, game_id, 0) == "not due"
    # At the deadline (5 s + 3 s of bank) the clock's bot moves for the seat
    now.ms = T0 + 8_000
    assert time_out(app, game_id, 0) == "timed out"
    events = client.get(f"/v1/games/{game_id}/events", headers=auth(old)).get_json()["events"]
    timed = [e for e in events if e["type"] == "TurnTimedOut"]
    assert len(timed) == 1 and timed[0]["actor"] == "system"
    assert timed[0]["data"]["seat"] == 0 and timed[0]["data"]["timeouts"] == 1 and "move" in timed[0]["data"]
    # Another seat, and a spectator, do not see the move made for seat 0
    for headers in (auth(tokens[1]), {}):
        seen = client.get(f"/v1/games/{game_id}/events", headers=headers).get_json()["events"]
        assert "move" not in next(e for e in seen if e["type"] == "TurnTimedOut")["data"]
    state = play_until_seat_to_act(client, game_id, 0, tokens)
    assert state["status"] == "active"
    # The second time-out in a row (the bank is spent: 5 s) abandons the seat; its bot then plays it
    seat0 = state["clock"]["seats"][0]
    assert seat0["bank_ms"] == 0 and seat0["timeouts"] == 1
    now.ms = millis(seat0["deadline_at"])
    assert now.ms == millis(seat0["turn_started_at"]) + 5_000
    assert time_out(app, game_id, 0) == "timed out"
    state = summary(client, game_id)
    assert state["clock"]["seats"][0]["abandoned"] is True
    assert state["status"] == "active" and 0 not in state["to_act"]  # the bots played on inline, to seat 1
    # The old token no longer plays the seat (the bot does)
    view = client.get(f"/v1/games/{game_id}/view", headers=auth(old)).get_json()
    refused = client.post(f"/v1/games/{game_id}/commands", json={"type": "pass"}, headers=auth(old))
    assert refused.status_code == 409 and refused.get_json()["code"] == "seat_reclaimed", view
    # Taking the seat again gives a new token; the old one is refused from then on
    now.ms += 1_000
    retaken = client.post(f"/v1/games/{game_id}/seats/0")
    validate_response(retaken, "/v1/games/{id}/seats/{seat}", "post")
    assert retaken.status_code == 201
    new = retaken.get_json()["token"]
    assert new != old
    state = summary(client, game_id)
    assert state["clock"]["seats"][0]["abandoned"] is False
    superseded = client.get(f"/v1/games/{game_id}/view", headers=auth(old))
    assert superseded.status_code == 401 and superseded.get_json()["code"] == "token_superseded"
    mine = client.get(f"/v1/games/{game_id}/view", headers=auth(new))
    assert mine.status_code == 200 and mine.get_json()["viewer"] == 0
    # Nobody takes it twice
    assert client.post(f"/v1/games/{game_id}/seats/0").status_code == 409


def test_an_export_with_time_outs_verifies_and_a_forged_time_out_does_not(app, client, now):
    # Given a game whose only human never moves: it times out, is abandoned, and its bot finishes the game
    game_id, _ = clocked_game(client, game="scharfe-schoten", players=3)
    for _ in range(10):
        state = summary(client, game_id)
        if state["status"] == "finished":
            break
        deadline = state["clock"]["seats"][0]["deadline_at"]
        now.ms = millis(deadline)
        assert time_out(app, game_id, 0) == "timed out"
    state = summary(client, game_id)
    assert state["status"] == "finished"
    export = client.get(f"/v1/games/{game_id}/export").get_data(as_text=True)
    table = Table(all_games())
    report = audit.verify_text(table, export)
    assert report.ok, report.lines()
    # When a time-out is moved to before its seat's deadline (and the chain is made to fit)
    records = [json.loads(line) for line in export.splitlines()]
    forged = next(r for r in records[1:] if r["type"] == "TurnTimedOut")
    for record in records[1:]:
        if record["seq"] >= forged["seq"] and record["at"] == forged["at"]:
            record["at"] = iso(millis(forged["at"]) - 1_000)
    rechain(records)
    report = audit.verify(table, records)
    # Then the verifier names that event: the seat still had time
    assert not report.ok and report.problem.seq == forged["seq"]
    assert "has time until" in report.problem.message


def rechain(records):
    from domain import chain

    seed = records[-1]["data"]["seed"]
    previous = chain.GENESIS
    for record in records[1:]:
        body = {k: v for k, v in record.items() if k not in ("hash", "redacted")}
        record["hash"] = previous = chain.link(previous, body, seed)
    records[0]["head"] = previous
