"""GET /v1/socket against a real server (`stich serve`: gunicorn's gevent workers, a bot worker) on the
suite's Redis, so that a test can set a game up or change it in-process (a seat timed out and taken
again) while the server pushes it.

The server runs with small bounds, so the bounds are reached within a test: a send queue of 64 KiB
that may stay full 1.5 s, a ping every 1.5 s, 4 sockets per address. Each test speaks from an address
of its own (``X-Forwarded-For``; the server trusts one proxy). The last test checks every message
sent and received here against asyncapi.yaml (``socket_client.TRAFFIC``).
"""
from __future__ import annotations

import json
import random
import secrets
import socket
import threading
import time
from pathlib import Path

import jsonschema
import pytest
import requests
import yaml
from wsproto.events import BytesMessage, Ping, TextMessage

from domain.clock import iso, millis
from workers.deadline import time_out_turn

from ..api.test_authorization_matrix import MATRIX
from ..api.test_hidden_information import KINDS, leaks
from .own_server import start_server, stop_server
from .socket_client import TRAFFIC, Refused, SocketClient, handshake
from ..addresses import fresh_address

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
SLOW_S = 1.5
PING_S = 1.5


@pytest.fixture(scope="module")
def port(tmp_path_factory, redis_url):
    process, port = start_server(tmp_path_factory.mktemp("socket"), ["--http-workers", "1"], extra_env={
        "REDIS_URL": redis_url, "STICH_SOCKETS_LIMIT": "4", "STICH_SOCKET_QUEUE_BYTES": str(64 * 1024),
        "STICH_SOCKET_SLOW_S": str(SLOW_S), "STICH_SOCKET_PING_S": str(PING_S)})
    yield port
    stop_server(process)


def address() -> dict:
    return {"X-Forwarded-For": fresh_address()}


def connect(port, headers=None) -> SocketClient:
    client = SocketClient(port, headers or address())
    welcome = client.receive()
    assert welcome["type"] == "welcome", welcome
    return client


def new_game(client, game: str, players: int, rules: dict, seats=None, **extra) -> tuple[str, dict[int, str]]:
    seats = seats or [{"kind": "human"}] * players
    body = client.post("/v1/games", json={"game": game, "players": players, "rules": rules, "seats": seats, **extra})
    assert body.status_code == 201, body.get_json()
    game_id = body.get_json()["id"]
    tokens = {s: client.post(f"/v1/games/{game_id}/seats/{s}").get_json()["token"]
              for s, seat in enumerate(seats) if seat["kind"] == "human"}
    return game_id, tokens


# --------------------------------------------------------------------------- the three games

def chunks_until_closed(sock, closed: list | None = None):
    """The bytes ``sock`` receives until the server closes it (then ``closed`` gets True), it is reset,
    or nothing comes for 5 s."""
    sock.settimeout(5)
    while True:
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, socket.timeout):
            return
        if not chunk:
            if closed is not None:
                closed.append(True)
            return
        yield chunk


def sse_reader(port, game_id, token, into: list):
    """The seat's SSE stream with views, as a list of ("event", data) and ("view", data), to its end."""
    def read():
        with requests.get(f"http://127.0.0.1:{port}/v1/games/{game_id}/events/stream?views=true", stream=True,
                          headers={"Authorization": f"Bearer {token}"}, timeout=60) as response:
            kind = "event"
            for line in response.iter_lines(decode_unicode=True):
                if line.startswith("event: "):
                    kind = line[7:]
                elif line.startswith("data: "):
                    into.append((kind, json.loads(line[6:])))
                    kind = "event"
    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def test_a_game_of_each_kind_played_on_one_socket_with_a_reconnect(port, app):
    """Every seat of three games (one seat of Scharfe Schoten a bot, played by the server's worker) on one
    socket, each seat's views bringing its commands; the socket is dropped mid-way and a new one
    resumes each subscription after the last seq it saw. Each seat gets every event exactly once, in
    order; seat 0 of Scharfe Schoten gets what its SSE stream gets; no seat, and no spectator, is shown a
    card it may not see."""
    client_http = app.test_client()
    rng = random.Random(37)
    games = {}
    for kind, players, rules, seats in (
            ("scharfe-schoten", 3, {"rounds": 1}, [{"kind": "human"}] * 2 + [{"kind": "bot", "bot": "random"}]),
            ("schafkopf", 4, {"deals": 1}, None), ("scharwenzel", 4, {"deals": 1}, None)):
        game_id, tokens = new_game(client_http, kind, players, rules, seats)
        games[game_id] = (kind, players, tokens)
    schoten = next(g for g, (kind, _, _) in games.items() if kind == "scharfe-schoten")
    sse: list = []
    sse_thread = sse_reader(port, schoten, games[schoten][2][0], sse)
    # Every human seat, and a spectator (seat None) of each game.
    seen: dict[tuple[str, int | None], list[dict]] = {(g, s): [] for g, (_, _, tokens) in games.items()
                                                      for s in [*tokens, None]}
    views: dict[tuple[str, int], dict[int, dict]] = {key: {} for key in seen}
    finished: set = set()
    moves = 0
    reconnected = False
    socket_ = connect(port)
    headers = address()

    def subscribe_all(ws):
        for (game_id, seat) in seen:
            if (game_id, seat) in finished:
                continue
            after = seen[(game_id, seat)][-1]["seq"] if seen[(game_id, seat)] else 0
            token = {"token": games[game_id][2][seat], "views": True} if seat is not None else {}
            ws.send({"type": "subscribe", "id": f"{game_id}/{seat}", "game": game_id, "after": after, **token})

    subscribe_all(socket_)
    deadline = time.monotonic() + 60
    while len(finished) < len(seen):
        assert time.monotonic() < deadline, f"unfinished: {set(seen) - finished}"
        message = socket_.receive(15)
        assert message is not None, "the socket closed"
        kind = message["type"]
        if kind == "event":
            seen[(message["game"], message["seat"])].append(message["event"])
            assert message["seq"] == message["event"]["seq"]
        elif kind == "view":
            key = (message["game"], message["seat"])
            views[key][message["seq"]] = message["view"]
            legal = message["view"]["legal"]
            if legal:
                socket_.send({"type": "command", "id": f"m{moves}", "game": key[0], "token": games[key[0]][2][key[1]],
                              "command": rng.choice(legal), "expected_seq": message["seq"],
                              "idempotency_key": secrets.token_hex(8), "view": False})
                moves += 1
        elif kind == "result":
            # Another seat of a phase everyone plays at once may have moved first: a new view follows.
            assert message["status"] in (200, 409, 412), message
            if message["status"] == 200:
                assert "view" not in message["body"] and message["body"]["seq"] >= 1
        elif kind == "unsubscribed":
            assert message["reason"] == "finished", message
            finished.add((message["game"], message["seat"]))
        else:
            assert kind == "subscribed", message
        if moves == 25 and not reconnected:  # the client's connection fails: a new socket resumes
            reconnected = True
            socket_.sock.shutdown(socket.SHUT_RDWR)
            socket_.close()
            socket_ = connect(port, headers)
            subscribe_all(socket_)
    socket_.close()
    handler = app.extensions["stich"].handler
    store = app.extensions["stich"].store
    states: dict = {}
    for (game_id, seat), events in seen.items():
        total = handler.load(game_id).seq
        assert [e["seq"] for e in events] == list(range(1, total + 1)), (game_id, seat)
        assert_no_leaks(handler, store, game_id, seat, events, views[(game_id, seat)], games[game_id][0], states)
    sse_thread.join(30)
    sse_events = [data for kind, data in sse if kind == "event"]
    assert sse_events == seen[(schoten, 0)]
    # The views: the same where both sent one at a seq (a view is made from the process's fold when its
    # events are pushed, so in a phase every seat plays at once two followers may catch it a seq apart).
    sse_views = {data["seq"]: data for kind, data in sse if kind == "view"}
    both = set(sse_views) & set(views[(schoten, 0)])
    assert both and all(sse_views[seq] == views[(schoten, 0)][seq] for seq in both)


def assert_no_leaks(handler, store, game_id, seat, events, views, kind, states: dict):
    """Before the final event, nothing the seat got names a card hidden from it then (neither in its hand
    nor played), nor the seed (tests/api/test_hidden_information.py's scan)."""
    _, _, deck, public = KINDS[kind]
    loaded = handler.load(game_id)
    full_deck = deck(len(loaded.state.seats))
    seed = store.load_secret(game_id)
    played = set()
    # The final event reveals everything, and with it the events of its own append (a batch is shown
    # whole once it holds the final event, as on SSE): those share its time.
    ending = events[-1]["at"]
    for event in [e for e in events if e["at"] != ending]:
        if event["type"] == "CardPlayed":
            played.add(event["data"]["card"])
        state = states.get((game_id, event["seq"])) or handler.load_at(game_id, event["seq"]).state
        states[(game_id, event["seq"])] = state
        hand = set((handler.table.view(state, seat)["game_state"] or {}).get("hand") or ())
        secret = full_deck - played - hand
        found = leaks(event, secret, public) + ([seed] if seed and seed in json.dumps(event) else [])
        view = views.get(event["seq"])
        if view is not None:
            found += leaks(view, secret, public)
        assert not found, f"seat {seat} of {game_id} at seq {event['seq']}: {found}"


# --------------------------------------------------------------------------- trust

def test_a_superseded_token_loses_its_subscription_and_its_commands(port, app):
    """Seat 0 times out, is abandoned and taken again: its first token's subscription ends with a 401
    token_superseded and sees nothing of the new holder's time; subscribing or moving with it again is
    a 401 too (the stream's and the command route's own answers)."""
    handler = app.extensions["stich"].handler
    client = app.test_client()
    now = [int(millis(handler.clock()))]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(handler, "clock", lambda: iso(now[0]))
        patch.setattr("workers.deadline.time.time", lambda: now[0] / 1000)
        game_id, tokens = new_game(client, "scharfe-schoten", 3, {"rounds": 1},
                                   [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}],
                                   clock={"per_move_s": 600, "abandon_after": 1})
        ws = connect(port)
        ws.send({"type": "subscribe", "game": game_id, "token": tokens[0]})
        subscribed = ws.until(lambda m: m["type"] == "subscribed")
        assert subscribed["seat"] == 0
        seat0 = client.get(f"/v1/games/{game_id}").get_json()["clock"]["seats"][0]
        now[0] = millis(seat0["deadline_at"])
        assert time_out_turn(game_id, 0, handler.load(game_id).seq, handler=handler) == "timed out"
        now[0] += 1000
        assert client.post(f"/v1/games/{game_id}/seats/0").status_code == 201
    got = []
    while True:
        message = ws.receive()
        got.append(message)
        if message["type"] == "unsubscribed":
            break
    error = got[-2]
    assert error["type"] == "error" and error["game"] == game_id and error["seat"] == 0, got
    assert (error["problem"]["status"], error["problem"]["code"]) == (401, "token_superseded")
    assert got[-1]["reason"] == "error"
    assert not any(m["type"] == "event" and m["event"]["type"] == "SeatReclaimed" for m in got), \
        "the old token was shown the new holder's taking of the seat"
    ws.send({"type": "subscribe", "id": "again", "game": game_id, "token": tokens[0]})
    again = ws.until(lambda m: m.get("id") == "again")
    assert (again["type"], again["problem"]["code"]) == ("error", "token_superseded")
    ws.send({"type": "command", "id": "move", "game": game_id, "token": tokens[0],
             "command": {"type": "predict", "most": "R", "fewest": "G"}})
    result = ws.until(lambda m: m.get("id") == "move")
    assert (result["type"], result["status"], result["body"]["code"]) == ("result", 401, "token_superseded")
    ws.close()


def test_the_socket_answers_each_caller_as_the_stream_and_command_routes_do(port, redis_url):
    """The authorization matrix's rows for `streamEvents` and `postCommand`, cell by cell, over the
    socket: a caller's bearer token is the message's token (an operator key is a header of the
    upgrade; `malformed`, an Authorization header of another scheme, has no socket form)."""
    from api import create_app
    from api.quotas import Quotas

    from ..api.callers import CALLERS, OPERATOR_KEY, build_world
    from ..api.test_authorization_matrix import command as legal_command

    keyed = create_app(redis_url, bots="inline", quotas=Quotas(api_keys=frozenset({OPERATOR_KEY})))
    client = keyed.test_client()
    world = build_world(keyed, client)
    streams, commands = MATRIX[("GET", "/v1/games/{id}/events/stream")], MATRIX[("POST", "/v1/games/{id}/commands")]
    failures, cells = [], 0
    for caller in CALLERS:
        if caller == "malformed":
            continue
        headers = world.headers(caller)
        token = headers.get("Authorization", "").removeprefix("Bearer ") or None
        upgrade = {**address(), **({"X-API-Key": headers["X-API-Key"]} if "X-API-Key" in headers else {})}
        ws = connect(port, upgrade)
        game_id = world.game_of(caller)
        ws.send({"type": "subscribe", "id": "s", "game": game_id, **({"token": token} if token else {})})
        answer = ws.until(lambda m: m.get("id") == "s")
        problem = answer.get("problem") or {}
        got = (200, None) if answer["type"] == "subscribed" else (problem["status"], problem["code"])
        wanted = streams.row[caller]
        if got != (wanted.status, wanted.code):
            failures.append(f"subscribe as {caller}: expected {wanted}, got {got}")
        body = legal_command(client, world, caller)["json"]
        ws.send({"type": "command", "id": "c", "game": game_id, **({"token": token} if token else {}),
                 "command": body})
        result = ws.until(lambda m: m.get("id") == "c")
        got = (result["status"], result["body"].get("code") if result["status"] >= 400 else None)
        wanted = commands.row[caller]
        if got != (wanted.status, wanted.code):
            failures.append(f"command as {caller}: expected {wanted}, got {got}")
        ws.close()
        cells += 2
    assert not failures, "\n".join(failures)
    assert cells == 2 * (len(CALLERS) - 1)


def test_a_slow_reader_is_dropped_without_delaying_anyone_and_never_gets_a_cut_frame(port, app):
    """A client that reads nothing subscribes to the whole history of twenty finished games (about a MB); meanwhile
    another client plays. The slow one's queue fills, it is disconnected within the bound, the player's
    commands are not held up, and what the slow one got is whole messages, in order."""
    client = app.test_client()
    finished = [new_game(client, "scharfe-schoten", 3, {"rounds": 3}, [{"kind": "bot", "bot": "random"}] * 3)[0]
                for _ in range(20)]
    game_id, tokens = new_game(client, "scharfe-schoten", 3, {"rounds": 2})
    sock, ws, _ = handshake(port, address(), rcvbuf=4096)
    for game in finished:
        sock.sendall(ws.send(TextMessage(data=json.dumps({"type": "subscribe", "game": game}))))
    player = connect(port)
    for seat in tokens:
        player.send({"type": "subscribe", "game": game_id, "token": tokens[seat], "views": True})
    rng = random.Random(5)
    slowest = 0.0
    sent: dict[str, float] = {}
    started = time.monotonic()
    while time.monotonic() - started < 3 * SLOW_S + 2:
        message = player.receive(10)
        assert message is not None
        if message["type"] == "view" and message["view"]["legal"]:
            name = f"m{len(sent)}"
            sent[name] = time.monotonic()
            player.send({"type": "command", "id": name, "game": game_id, "token": tokens[message["seat"]],
                         "command": rng.choice(message["view"]["legal"]), "expected_seq": message["seq"],
                         "view": False})
        elif message["type"] == "result":
            slowest = max(slowest, time.monotonic() - sent[message["id"]])
        elif message["type"] == "unsubscribed":
            break
    player.close()
    assert len(sent) > 20 and slowest < 1.0, (len(sent), slowest)
    time.sleep(max(0.0, started + 2 * SLOW_S + 1 - time.monotonic()))  # the slow one has read nothing yet
    # Now read what the slow reader was sent: whole messages, then the end of the connection.
    received, partial = [], []
    for chunk in chunks_until_closed(sock):
        ws.receive_data(chunk)
        for event in ws.events():
            if isinstance(event, TextMessage):
                partial.append(event.data)
                if event.message_finished:
                    received.append(json.loads("".join(partial)))
                    partial.clear()
    assert not partial, "the connection ended inside a frame"
    assert received[0]["type"] == "welcome"
    subscribed = [m for m in received if m["type"] == "subscribed"]
    events = [m for m in received if m["type"] == "event"]
    assert subscribed and events, received[:3]
    assert len(events) < sum(client.get(f"/v1/games/{g}").get_json()["seq"] for g in finished), \
        "the slow reader was sent everything: it was never dropped"
    for game in {m["game"] for m in events}:
        seqs = [m["seq"] for m in events if m["game"] == game]
        assert seqs == list(range(1, len(seqs) + 1)), game
    sock.close()


def test_unsubscribing_ends_the_subscription_at_once(port, app):
    game_id, tokens = new_game(app.test_client(), "scharfe-schoten", 3, {"rounds": 1})
    ws = connect(port)
    for attempt in range(2):  # the second subscription is a new one: the first has ended
        ws.send({"type": "subscribe", "id": f"s{attempt}", "game": game_id, "token": tokens[1]})
        assert ws.until(lambda m: m.get("id") == f"s{attempt}")["type"] == "subscribed"
        ws.send({"type": "unsubscribe", "id": f"u{attempt}", "game": game_id})
        answer = ws.until(lambda m: m.get("id") == f"u{attempt}")
        assert (answer["type"], answer["seat"], answer["reason"]) == ("unsubscribed", 1, "requested")
    ws.send({"type": "command", "id": "c", "game": game_id, "token": tokens[1],
             "command": {"type": "predict", "most": "R", "fewest": "G"}})
    result = ws.until(lambda m: m.get("id") == "c")
    assert result["status"] == 200 and result["body"]["view"]["viewer"] == 1
    time.sleep(0.3)
    late = []
    while not ws.messages.empty():
        late.append(ws.receive())
    assert not [m for m in late if m["type"] in ("event", "view")], late  # nothing after its unsubscribed
    ws.close()


def test_the_bounds_each_end_with_an_error_message(port):
    """A plain GET is a 426; past the sockets of one address, a 429; a malformed or unknown message is
    answered and the socket stays; a message too large or a flood of them is answered, then closed."""
    plain = requests.get(f"http://127.0.0.1:{port}/v1/socket")
    assert (plain.status_code, plain.json()["code"]) == (426, "upgrade_required")
    assert plain.headers["Upgrade"] == "websocket"
    crowd = address()
    held = [connect(port, crowd) for _ in range(4)]
    with pytest.raises(Refused) as refused:
        SocketClient(port, crowd)
    assert refused.value.status == 429 and json.loads(refused.value.body)["code"] == "socket_quota"
    for ws in held[1:]:
        ws.close()
    ws = held[0]
    ws.send_text("{not json")
    assert ws.receive()["problem"]["code"] == "malformed_json"
    ws.send({"type": "watch", "id": "x"})
    answer = ws.receive()
    assert (answer["id"], answer["problem"]["status"], answer["problem"]["errors"]) == (
        "x", 422, {"type": ["unknown message type"]})
    ws.send({"type": "unsubscribe", "id": "u", "game": "nothing"})
    assert ws.receive()["problem"]["code"] == "not_subscribed"
    ws.send({"type": "subscribe", "id": "g", "game": "no-such-game"})
    answer = ws.receive()
    assert (answer["id"], answer["game"], answer["problem"]["code"]) == ("g", "no-such-game", "unknown_game")
    ws.send_text(json.dumps({"type": "command", "id": "big", "game": "g", "command": {"type": "x" * 70_000}}))
    answer = ws.receive()
    assert (answer["type"], answer["problem"]["code"]) == ("error", "message_too_large")
    assert ws.receive() is None and ws.close_code == 1009
    binary = connect(port)
    binary._write(BytesMessage(data=b'{"type":"subscribe"}'))
    answer = binary.receive()
    assert (answer["problem"]["status"], answer["problem"]["code"]) == (400, "binary_message")
    assert binary.receive() is None and binary.close_code == 1003
    flood = connect(port)
    for n in range(400):
        flood.send_text('{"type":"unsubscribe","game":"x"}')
    codes = []
    while (message := flood.receive()) is not None:
        codes.append(message["problem"]["code"])
    assert codes[-1] == "too_many_messages" and flood.close_code == 1008, (codes[-3:], flood.close_code)
    assert len(codes) < 400


def test_a_socket_that_answers_no_ping_is_closed(port):
    """A client that completes the upgrade and then neither reads nor answers: pinged, then closed after
    two pings' time."""
    sock, ws, _ = handshake(port, address())
    time.sleep(2 * PING_S + 2)
    closed = []
    ws.receive_data(b"".join(chunks_until_closed(sock, closed)))
    kinds = [type(event) for event in ws.events()]
    assert Ping in kinds, kinds
    assert closed, "the server did not close the dead socket"
    sock.close()


# --------------------------------------------------------------------------- the contract

def test_the_asyncapi_document_is_valid_and_served(port):
    schema = json.loads((ROOT / "tests" / "fixtures" / "asyncapi-3.0.0.schema.json").read_text())
    document = yaml.safe_load((ROOT / "asyncapi.yaml").read_text())
    jsonschema.Draft7Validator(schema).validate(document)
    served = requests.get(f"http://127.0.0.1:{port}/v1/asyncapi.yaml")
    assert served.status_code == 200 and yaml.safe_load(served.text) == document


def test_every_message_sent_and_received_here_matches_asyncapi():
    """The traffic of this module's tests (every kind of message both ways), each message against
    the schema of its type, the direction's."""
    document = yaml.safe_load((ROOT / "asyncapi.yaml").read_text())
    schemas = document["components"]["schemas"]
    by_direction = {"out": {"subscribe": "Subscribe", "unsubscribe": "Unsubscribe", "command": "Command"},
                    "in": {"welcome": "Welcome", "subscribed": "Subscribed", "unsubscribed": "Unsubscribed",
                           "event": "Event", "view": "View", "result": "Result", "error": "Error"}}
    seen: set = set()
    for direction, message in TRAFFIC:
        name = by_direction[direction].get(message.get("type"))
        if name is None:
            assert direction == "out", message  # a client's unknown type, sent on purpose
            continue
        schema = {**schemas[name], "components": {"schemas": schemas}}
        validator = jsonschema.Draft7Validator(schema)
        errors = sorted(validator.iter_errors(message), key=str)
        assert not errors, f"{direction} {name}: {errors[0].message} in {json.dumps(message)[:400]}"
        seen.add((direction, name))
    assert seen == {(d, n) for d, names in by_direction.items() for n in names.values()}, seen
