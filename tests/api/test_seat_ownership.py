"""Seats belong to their holders: a tournament table's seats are its participants' (taken, and
taken again once abandoned, only through the participant route); a token superseded by a new
holder gets nothing more, not even on a stream or long poll it opened before; a duplicate
round keeps its results and its tables' exports to itself until it has finished; a stream's
quota slot is given back when its client hangs up."""
from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from api.feed import superseded_at
from domain import audit
from domain.clock import iso, millis
from workers.deadline import time_out_turn

from .play import auth, create as create_game, play_to_end, take

CLOCK = {"per_move_s": 1, "abandon_after": 1}


@pytest.fixture
def now(app, monkeypatch):
    """The handler's clock and the time-out job's, set by the test."""
    ms = [2_100_000_000_000]
    monkeypatch.setattr(app.extensions["stich"].handler, "clock", lambda: iso(ms[0]))
    monkeypatch.setattr("workers.deadline.time.time", lambda: ms[0] / 1000)
    return ms


def abandon(app, client, game_id: str, seat: int, now) -> None:
    """Time the seat out until it is abandoned (its clock's bot then plays it)."""
    handler = app.extensions["stich"].handler
    for _ in range(10):
        game = handler.load(game_id)
        if game.state.clocks[seat].abandoned:
            return
        deadline = client.get(f"/v1/games/{game_id}").get_json()["clock"]["seats"][seat]["deadline_at"]
        assert deadline, "the seat is not on the clock"
        now[0] = max(now[0], millis(deadline))
        time_out_turn(game_id, seat, game.seq, handler=handler)
    raise AssertionError("the seat was not abandoned")


def tournament(client, participants, **extra) -> tuple[str, dict[int, str], str]:
    """Created, every human joined, started: (id, {participant: token}, organizer token)."""
    created = client.post("/v1/tournaments", json={"game": "scharfe-schoten", "players": 3, "rounds": 1,
                                                   "deals_per_table": 1, "participants": participants, **extra})
    assert created.status_code == 201, created.get_json()
    tid = created.get_json()["id"]
    tokens = {}
    for p, entry in enumerate(participants):
        if entry["kind"] == "human":
            tokens[p] = client.post(f"/v1/tournaments/{tid}/participants/{p}").get_json()["token"]
    started = client.post(f"/v1/tournaments/{tid}/start", headers=auth(created.get_json()["token"]))
    assert started.status_code == 200, started.get_json()
    return tid, tokens, created.get_json()["token"]


def seat_of(client, tid: str, participant: int, token: str) -> dict:
    taken = client.post(f"/v1/tournaments/{tid}/participants/{participant}/seat", headers=auth(token))
    assert taken.status_code == 201, taken.get_json()
    return taken.get_json()


# -- a tournament table's seats are its participants' -----------------------------------------

def test_a_tournament_tables_seats_are_not_open_to_anyone_but_its_participants(client):
    tid, tokens, organizer = tournament(client, [{"kind": "human"}] + [{"kind": "bot"}] * 5, duplicate=True)
    table = next(t for t in client.get(f"/v1/tournaments/{tid}").get_json()["schedule"][0]["tables"]
                 if 0 in t["participants"])
    seat = table["participants"].index(0)
    # The list does not offer the participant's seat
    listed = client.get("/v1/games?status=waiting&game=scharfe-schoten&limit=1000").get_json()["games"]
    entry = next(e for e in listed if e["id"] == table["game_id"])
    assert entry["open_seats"] == []
    # Nobody takes it through the game's seat route: no token, a participant's, the organizer's
    for headers in ({}, auth(tokens[0]), auth(organizer)):
        refused = client.post(f"/v1/games/{table['game_id']}/seats/{seat}", headers=headers)
        assert refused.status_code == 403 and refused.mimetype == "application/problem+json"
        body = refused.get_json()
        assert body["code"] == "tournament_seat" and f"/v1/tournaments/{tid}/participants/" in body["detail"]
        assert body["tournament_id"] == tid
    # ... nor a bot's seat, nor one out of range: a table's seats are not the game route's at all
    assert client.post(f"/v1/games/{table['game_id']}/seats/9").status_code == 403
    # The participant's own route still hands it out
    mine = seat_of(client, tid, 0, tokens[0])
    assert mine["game_id"] == table["game_id"] and mine["seat"] == seat
    view = client.get(f"/v1/games/{table['game_id']}/view", headers=auth(mine["token"]))
    assert view.status_code == 200 and view.get_json()["viewer"] == seat


def test_a_withdrawn_participant_gets_no_token_for_the_seat_its_bot_plays(client):
    """Withdrawn before the start, a participant's seat is its bot's from round 1: the seat route
    hands out no token for it (a token would let the withdrawn player race the bot for its moves)."""
    created = client.post("/v1/tournaments", json={
        "game": "scharfe-schoten", "players": 3, "rounds": 1, "deals_per_table": 1,
        "participants": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot"}]}).get_json()
    tid, organizer = created["id"], created["token"]
    withdrawn = client.post(f"/v1/tournaments/{tid}/participants/0").get_json()["token"]
    stays = client.post(f"/v1/tournaments/{tid}/participants/1").get_json()["token"]
    assert client.post(f"/v1/tournaments/{tid}/participants/0/withdraw", headers=auth(organizer),
                       json={"bot": "random"}).status_code == 200
    assert client.post(f"/v1/tournaments/{tid}/start", headers=auth(organizer)).status_code == 200
    table = next(t for t in client.get(f"/v1/tournaments/{tid}").get_json()["schedule"][0]["tables"]
                 if 0 in t["participants"])
    seat = table["participants"].index(0)
    before = client.get(f"/v1/games/{table['game_id']}").get_json()
    assert before["seats"][seat]["kind"] == "bot"
    refused = client.post(f"/v1/tournaments/{tid}/participants/0/seat", headers=auth(withdrawn))
    assert refused.status_code == 409 and refused.get_json()["code"] == "seat_taken"
    assert "withdrawn" in refused.get_json()["detail"]
    # The one who stays still takes its own seat
    assert seat_of(client, tid, 1, stays)["seat"] != seat


def test_a_withdrawn_slot_cannot_be_joined(client):
    """A slot withdrawn before anyone joined it is its bot's: nobody joins in its place."""
    created = client.post("/v1/tournaments", json={
        "game": "scharfe-schoten", "players": 3, "rounds": 1, "deals_per_table": 1,
        "participants": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot"}]}).get_json()
    tid, organizer = created["id"], created["token"]
    assert client.post(f"/v1/tournaments/{tid}/participants/0/withdraw", headers=auth(organizer),
                       json={"bot": "random"}).status_code == 200
    seq = client.get(f"/v1/tournaments/{tid}").get_json()["seq"]
    refused = client.post(f"/v1/tournaments/{tid}/participants/0")
    assert refused.status_code == 409 and refused.get_json()["code"] == "seat_taken"
    assert "withdrawn" in refused.get_json()["detail"]
    after = client.get(f"/v1/tournaments/{tid}").get_json()
    assert after["seq"] == seq and not after["participants"][0]["joined"]
    # ... and its credential was not kept: a second try is refused the same way, not as joined already
    again = client.post(f"/v1/tournaments/{tid}/participants/0")
    assert again.status_code == 409 and "withdrawn" in again.get_json()["detail"]


def test_an_abandoned_tournament_seat_is_taken_again_only_by_its_participant(app, client, now):
    # Two humans at one clocked table, so the game waits for the one who stays
    tid, tokens, organizer = tournament(client, [{"kind": "human"}, {"kind": "human"}, {"kind": "bot"}], clock=CLOCK)
    first = seat_of(client, tid, 0, tokens[0])
    game_id, seat = first["game_id"], first["seat"]
    abandon(app, client, game_id, seat, now)
    assert client.get(f"/v1/games/{game_id}").get_json()["status"] == "active"
    # Before: an anonymous POST .../seats/{n} reclaimed it and locked the participant out
    for headers in ({}, auth(first["token"]), auth(organizer)):
        refused = client.post(f"/v1/games/{game_id}/seats/{seat}", headers=headers)
        assert refused.status_code == 403 and refused.get_json()["code"] == "tournament_seat"
    assert app.extensions["stich"].handler.load(game_id).state.clocks[seat].abandoned  # nothing changed
    # The participant takes it again through its own route, with a new token
    again = seat_of(client, tid, 0, tokens[0])
    assert again["game_id"] == game_id and again["token"] != first["token"]
    assert client.get(f"/v1/games/{game_id}/view", headers=auth(again["token"])).get_json()["viewer"] == seat
    superseded = client.get(f"/v1/games/{game_id}/view", headers=auth(first["token"]))
    assert superseded.status_code == 401 and superseded.get_json()["code"] == "token_superseded"
    assert "WWW-Authenticate" in superseded.headers
    # Not abandoned now: asking again is a 409, and the other participant's token does not take it
    assert client.post(f"/v1/tournaments/{tid}/participants/0/seat", headers=auth(tokens[0])).status_code == 409
    assert client.post(f"/v1/tournaments/{tid}/participants/0/seat", headers=auth(tokens[1])).status_code == 403


def test_tournament_401s_and_403s_name_the_token_the_route_means(client):
    created = client.post("/v1/tournaments", json={"game": "scharfe-schoten", "players": 3, "deals_per_table": 1,
                                                   "participants": [{"kind": "human"}, {"kind": "bot"},
                                                                    {"kind": "bot"}]}).get_json()
    tid = created["id"]
    missing = client.post(f"/v1/tournaments/{tid}/start")
    assert missing.status_code == 401 and "organizer's token" in missing.get_json()["detail"]
    assert "seat token" not in missing.get_json()["detail"]
    wrong = client.post(f"/v1/tournaments/{tid}/start", headers=auth("st_nope"))
    assert wrong.status_code == 403 and "organizer's token" in wrong.get_json()["detail"]
    missing = client.post(f"/v1/tournaments/{tid}/participants/0/seat")
    assert missing.status_code == 401 and "participant token" in missing.get_json()["detail"]
    wrong = client.post(f"/v1/tournaments/{tid}/participants/0/seat", headers=auth(created["token"]))
    assert wrong.status_code == 403 and "participant token" in wrong.get_json()["detail"]
    # a game's own routes still ask for the seat token
    game_id = create_game(client)
    assert "seat token" in client.post(f"/v1/games/{game_id}/commands", json={}).get_json()["detail"]


# -- a superseded token gets nothing more ---------------------------------------------------

def abandoned_game(app, client, now) -> tuple[str, str]:
    """A clocked game whose seat 0 was abandoned (seat 1, a human too, keeps it waiting): (id, old token)."""
    response = client.post("/v1/games", json={"game": "scharfe-schoten", "players": 3, "clock": CLOCK,
                                              "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot"}]})
    game_id = response.get_json()["id"]
    old = take(client, game_id, 0)
    take(client, game_id, 1)
    abandon(app, client, game_id, 0, now)
    return game_id, old


def frames(text: str) -> list[dict]:
    """The SSE messages: their fields by name."""
    out = []
    for block in text.split("\n\n"):
        fields = {}
        for line in block.splitlines():
            if line.startswith(":"):
                continue
            name, _, value = line.partition(": ")
            fields[name] = value
        if fields:
            out.append(fields)
    return out


def test_an_open_stream_ends_when_its_token_is_superseded(app, client, now):
    game_id, old = abandoned_game(app, client, now)
    seq = client.get(f"/v1/games/{game_id}").get_json()["seq"]
    stream = client.get(f"/v1/games/{game_id}/events/stream?views=true&timeout=20&after={seq}",
                        headers=auth(old), buffered=False)
    assert stream.status_code == 200
    chunks = iter(stream.response)
    assert next(chunks).startswith(b"retry:")
    new = take(client, game_id, 0)  # taken again: its new holder plays on
    started = time.monotonic()
    text = b"".join(chunks).decode()  # the stream ends by itself
    assert time.monotonic() - started < 10
    sent = frames(text)
    reclaimed = next(e["seq"] for e in client.get(f"/v1/games/{game_id}/events", headers=auth(new)).get_json()["events"]
                     if e["type"] == "SeatReclaimed")
    assert all(int(f["id"]) < reclaimed for f in sent if "id" in f)  # nothing from the new holder's time
    assert not any(f.get("event") == "view" for f in sent)
    assert sent[-1]["event"] == "error"
    problem = json.loads(sent[-1]["data"])
    assert problem["status"] == 401 and problem["code"] == "token_superseded"
    stream.close()
    assert client.application.extensions["stich.quotas"]._open == {}


def test_a_waiting_long_poll_of_a_superseded_token_is_a_401(app, client, now):
    game_id, old = abandoned_game(app, client, now)
    seq = client.get(f"/v1/games/{game_id}").get_json()["seq"]
    answer = {}

    def poll():
        answer["response"] = app.test_client().get(f"/v1/games/{game_id}/events?after={seq}&wait=10",
                                                   headers=auth(old))

    waiter = threading.Thread(target=poll)
    waiter.start()
    time.sleep(0.5)  # the poll waits
    take(client, game_id, 0)
    waiter.join(15)
    response = answer["response"]
    assert response.status_code == 401 and response.get_json()["code"] == "token_superseded"
    assert "HandsDealt" not in response.get_data(as_text=True)


def test_superseded_at_finds_only_a_later_holder_of_the_seat():
    from domain.event import PUBLIC
    from eventstore.codec import StoredEvent

    def event(seq, seat, generation):
        return StoredEvent(seq, "SeatReclaimed", 1, {"seat": seat, "generation": generation}, "", "system", PUBLIC)

    events = [event(5, 1, 1), event(6, 0, 1), event(7, 0, 2)]
    assert superseded_at(events, 0, 0) == 1
    assert superseded_at(events, 0, 1) == 2
    assert superseded_at(events, 0, 2) is None
    assert superseded_at(events, None, None) is None


# -- a duplicate round keeps its secret -----------------------------------------------------

def play_table(client, game_id: str, tokens: dict[int, str]) -> None:
    play_to_end(client, game_id, tokens)


def test_a_duplicate_rounds_results_and_exports_wait_for_the_round(client):
    tid, tokens, _ = tournament(client, [{"kind": "human"}] * 6, duplicate=True)
    seats = {p: seat_of(client, tid, p, token) for p, token in tokens.items()}
    tables: dict[str, dict[int, str]] = {}
    for taken in seats.values():
        tables.setdefault(taken["game_id"], {})[taken["seat"]] = taken["token"]
    (early, early_tokens), (late, late_tokens) = tables.items()
    play_table(client, early, early_tokens)
    assert client.get(f"/v1/games/{early}", headers=auth(early_tokens[0])).get_json()["status"] == "finished"
    # The finished table's results are nowhere public while the other table plays the same deals
    summary = client.get(f"/v1/tournaments/{tid}").get_json()
    finished = next(t for t in summary["schedule"][0]["tables"] if t["game_id"] == early)
    assert finished["finished"] and finished["results"] is None
    assert all(row["points"] == 0 and row["rounds_played"] == 0 for row in summary["standings"])
    feed = client.get(f"/v1/tournaments/{tid}/events").get_json()["events"]
    table_finished = [e for e in feed if e["type"] == "TableFinished"]
    assert len(table_finished) == 1 and table_finished[0]["redacted"]
    assert "results" not in table_finished[0]["data"] and table_finished[0]["data"]["game_id"] == early
    streamed = client.get(f"/v1/tournaments/{tid}/events/stream?timeout=0.2").get_data(as_text=True)
    assert '"TableFinished"' in streamed and '"results"' not in streamed
    # ... and not even its own seats take it away as a document
    for path in ("/export", "/transcript"):
        refused = client.get(f"/v1/games/{early}{path}", headers=auth(early_tokens[0]))
        assert refused.status_code == 403 and refused.get_json()["code"] == "embargoed", path
    # An export named after the table is not imported (here: a finished game's, relabelled)
    other = create_game(client, humans=(0,))
    play_to_end(client, other, {0: take(client, other, 0)})
    lines = client.get(f"/v1/games/{other}/export").get_data(as_text=True).splitlines()
    header = json.loads(lines[0])
    assert header["format"] == audit.FORMAT
    header["game_id"] = early
    upload = "\n".join([json.dumps(header)] + lines[1:]) + "\n"
    refused = client.post("/v1/imports", data=upload, content_type="application/x-ndjson")
    assert refused.status_code == 403 and refused.get_json()["code"] == "embargoed"
    # ... nor the table's own events, as its seat reads them, under a header that names another game:
    # the table is known by the seed commitment of its GameCreated, which no header can relabel
    events = client.get(f"/v1/games/{early}/events?limit=500", headers=auth(early_tokens[0])).get_json()["events"]
    relabelled = {**header, "game_id": other, "events": len(events)}
    assembled = "\n".join([json.dumps(relabelled)] + [json.dumps(event) for event in events]) + "\n"
    refused = client.post("/v1/imports", data=assembled, content_type="application/x-ndjson")
    assert refused.status_code == 403 and refused.get_json()["code"] == "embargoed", refused.get_json()
    # When the round is over, everything is public
    play_table(client, late, late_tokens)
    summary = client.get(f"/v1/tournaments/{tid}").get_json()
    assert summary["status"] == "finished"
    assert all(t["results"] for t in summary["schedule"][0]["tables"])
    feed = client.get(f"/v1/tournaments/{tid}/events").get_json()["events"]
    assert all("results" in e["data"] for e in feed if e["type"] == "TableFinished")
    assert client.get(f"/v1/games/{early}/export").status_code == 200
    assert client.post("/v1/imports", data=upload, content_type="application/x-ndjson").status_code == 201


def test_a_finished_rounds_results_show_on_the_stream_the_running_rounds_do_not(client):
    tid, tokens, _ = tournament(client, [{"kind": "human"}] + [{"kind": "bot"}] * 5, duplicate=True, rounds=2)
    taken = seat_of(client, tid, 0, tokens[0])
    play_table(client, taken["game_id"], {taken["seat"]: taken["token"]})
    summary = client.get(f"/v1/tournaments/{tid}").get_json()
    assert summary["round"] == 2 and summary["status"] == "active"  # round 2's bots' table may have finished
    streamed = client.get(f"/v1/tournaments/{tid}/events/stream?timeout=0.5").get_data(as_text=True)
    finished = [json.loads(f["data"]) for f in frames(streamed) if "id" in f]
    by_round = {}
    for event in finished:
        if event["type"] == "TableFinished":
            by_round.setdefault(event["data"]["round"], []).append(event)
    assert len(by_round[1]) == 2 and all(e["data"]["results"] and not e["redacted"] for e in by_round[1])
    assert all("results" not in e["data"] and e["redacted"] for e in by_round.get(2, []))
    assert by_round.get(2), "round 2's bots' table finishes at once"


# -- a stream's slot is free when its client hangs up ---------------------------------------

def test_a_hung_up_stream_gives_its_slot_back_within_a_couple_of_seconds(redis_url):
    from api import create_app
    from api.quotas import Quotas

    client = create_app(redis_url, bots="inline", quotas=Quotas(streams=1)).test_client()
    client.environ_base["REMOTE_ADDR"] = "10.251.0.7"
    game_id = create_game(client)
    server_side, client_side = socket.socketpair()
    try:
        stream = client.get(f"/v1/games/{game_id}/events/stream?timeout=60", buffered=False,
                            environ_overrides={"gunicorn.socket": server_side})
        assert stream.status_code == 200
        chunks = iter(stream.response)
        assert next(chunks).startswith(b"retry:")
        keeper = client.application.extensions["stich.quotas"]
        assert keeper._open == {"10.251.0.7": 1}
        client_side.close()  # the client hangs up
        started = time.monotonic()
        rest = b"".join(chunks)  # the stream notices and ends, before any keep-alive was due
        assert time.monotonic() - started < 3 and b"keep-alive" not in rest
        assert keeper._open == {}
        stream.close()
    finally:
        server_side.close()


# -- a bulk pairing's named seat is its player's -----------------------------------------------

def bulk_paired(client, player: str, games: int = 1, **extra) -> dict:
    """A bulk pairing whose seat 0 in each game is ``player``'s, and seat 1 a human whose token is in the
    answer (who does not move, so the game waits rather than being played to its end by bots)."""
    body = {"games": [{"game": "scharfe-schoten", "players": 3, "rules": {"rounds": 1},
                       "seats": [{"kind": "human", "player": player}, {"kind": "human"}, {"kind": "bot"}],
                       **extra}
                      for _ in range(games)]}
    created = client.post("/v1/games/bulk", json=body, headers={"Idempotency-Key": f"k-{time.time_ns()}"})
    assert created.status_code == 201, created.get_json()
    return created.get_json()


def test_a_named_players_abandoned_seat_is_taken_again_only_through_its_claim(app, client, now):
    paired = bulk_paired(client, "frank", clock=CLOCK)
    game_id = paired["games"][0]["id"]
    [claim] = paired["claims"]
    # Before and after the unredeemed seat is abandoned, the game's seat route refuses everyone
    assert client.post(f"/v1/games/{game_id}/seats/0").get_json()["code"] == "claimed_seat"
    abandon(app, client, game_id, 0, now)
    stranger = client.post(f"/v1/games/{game_id}/seats/0")
    assert stranger.status_code == 403 and stranger.get_json()["code"] == "claimed_seat", stranger.get_json()
    assert client.get(f"/v1/games/{game_id}").get_json()["seats"][0]["taken"]
    # Frank's claim takes it again: a token of the seat's next holder, which reads its hand
    redeemed = client.post(claim["url"])
    assert redeemed.status_code == 201, redeemed.get_json()
    [seat] = redeemed.get_json()["seats"]
    view = client.get(f"/v1/games/{game_id}/view", headers=auth(seat["token"])).get_json()
    assert view.get("viewer") == 0 and view["game_state"]["hand"], view
    assert not client.get(f"/v1/games/{game_id}").get_json()["clock"]["seats"][0]["abandoned"]
    # Abandoned again (once the other human has moved and it is its turn), the claim takes it again
    # once more: the earlier token is superseded
    other = auth(paired["games"][0]["seats"][1]["token"])
    while 0 not in client.get(f"/v1/games/{game_id}").get_json()["to_act"]:
        legal = client.get(f"/v1/games/{game_id}/view", headers=other).get_json()["legal"]
        assert client.post(f"/v1/games/{game_id}/commands", json=legal[0], headers=other).status_code == 200
    abandon(app, client, game_id, 0, now)
    again = client.post(claim["url"])
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    [newer] = again.get_json()["seats"]
    assert newer["token"] != seat["token"]
    assert client.get(f"/v1/games/{game_id}/view", headers=auth(seat["token"])).get_json()["code"] == \
        "token_superseded"
    assert client.get(f"/v1/games/{game_id}/view", headers=auth(newer["token"])).get_json()["viewer"] == 0
    # And every later answer holds that same token
    assert client.post(claim["url"]).get_json()["seats"] == again.get_json()["seats"]


def test_concurrent_redemptions_of_one_claim_all_hold_the_same_seats_and_one_is_the_redemption(app):
    client = app.test_client()
    paired = bulk_paired(client, "gina", games=8)
    [claim] = paired["claims"]
    answers, barrier = [], threading.Barrier(8)

    def redeem():
        mine = app.test_client()
        barrier.wait()
        answer = mine.post(claim["url"])
        answers.append((answer.status_code, answer.get_json()))

    threads = [threading.Thread(target=redeem) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(status for status, _ in answers) == [200] * 7 + [201], [a for _, a in answers]
    seat_sets = {json.dumps(body["seats"], sort_keys=True) for _, body in answers}
    assert len(seat_sets) == 1  # one set of seats, every answer
    [seats] = [body["seats"] for _, body in answers[:1]]
    assert len(seats) == 8 and {s["game_id"] for s in seats} == {g["id"] for g in paired["games"]}
    for seat in seats:
        view = client.get(f"/v1/games/{seat['game_id']}/view", headers=auth(seat["token"])).get_json()
        assert view["viewer"] == 0, view
    # A retry long after (a lost answer) holds the same tokens
    assert client.post(claim["url"]).get_json()["seats"] == seats
