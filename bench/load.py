"""The load generator: simulated clients in separate processes, threads within.

Each phase runs the same number of clients for the same time against the same
server, so the figures can be compared as ratios.
"""
from __future__ import annotations

import http.client
import json
import random
import socket
import threading
import time

from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, Ping, Request, TextMessage

from .http_client import Client


def _baseline_a(client: Client, deadline: float, record) -> None:
    while time.monotonic() < deadline:
        status, _, elapsed = client.request("GET", "/bench/a")
        record(status == 200, elapsed)


def _baseline_b(client: Client, deadline: float, record) -> None:
    body = {"type": "play", "card": "R9"}
    while time.monotonic() < deadline:
        status, _, elapsed = client.request("POST", "/bench/b", body)
        record(status == 200, elapsed)


def _moves(client: Client, deadline: float, record, rng: random.Random) -> None:
    """Play whole Scharfe Schoten games, every seat human: view → command."""
    while time.monotonic() < deadline:
        _, game, _ = client.request("POST", "/v1/games", {"game": "scharfe-schoten", "players": 3})
        game_id = game["id"]
        tokens = [client.request("POST", f"/v1/games/{game_id}/seats/{s}")[1]["token"] for s in range(3)]
        to_act = client.request("GET", f"/v1/games/{game_id}")[1]["to_act"]
        while to_act and time.monotonic() < deadline:
            seat = rng.choice(to_act)
            headers = {"Authorization": f"Bearer {tokens[seat]}"}
            _, view, _ = client.request("GET", f"/v1/games/{game_id}/view", headers=headers)
            command = rng.choice(view["legal"])
            status, answer, elapsed = client.request("POST", f"/v1/games/{game_id}/commands", command, headers)
            record(status == 200, elapsed)
            if status != 200:
                break
            to_act = answer["view"]["to_act"] if answer["view"]["status"] == "active" else []


def _sse_moves(client: Client, deadline: float, record, rng: random.Random) -> None:
    """Play whole Scharfe Schoten games as a streaming client does: one thread per seat follows
    the game's stream with ``views=true`` and, when its view arrives, posts a command from its
    ``legal`` with ``If-Match`` - one request per move, the other seats told by the stream. The
    answer needs no view (``Prefer: return=minimal``): the next one comes on the stream."""
    _games_a_thread_a_seat(client, deadline, record, rng, _play_seat)


def _games_a_thread_a_seat(client: Client, deadline: float, record, rng: random.Random, play_seat) -> None:
    """Three-seat Scharfe Schoten games one after another until ``deadline``, each seat played by
    ``play_seat`` in a thread of its own (the SSE and the socket cycles)."""
    while time.monotonic() < deadline:
        _, game, _ = client.request("POST", "/v1/games", {"game": "scharfe-schoten", "players": 3})
        game_id = game["id"]
        tokens = [client.request("POST", f"/v1/games/{game_id}/seats/{s}")[1]["token"] for s in range(3)]
        seats = [threading.Thread(target=play_seat, daemon=True,
                                  args=(client.host, client.port, game_id, token, deadline, record,
                                        random.Random(rng.random())))
                 for token in tokens]
        for seat in seats:
            seat.start()
        for seat in seats:
            seat.join()


def _play_seat(host: str, port: int, game_id: str, token: str, deadline: float, record, rng) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    commands = Client(host, port)
    stream = http.client.HTTPConnection(host, port, timeout=1.0)  # short reads: the deadline is checked
    try:
        stream.request("GET", f"/v1/games/{game_id}/events/stream?views=true", headers=headers)
        response = stream.getresponse()
        event, data = "message", None
        while time.monotonic() < deadline:
            try:
                line = response.readline()
            except (socket.timeout, TimeoutError):
                continue
            if not line:
                return  # the game's final event ended the stream
            line = line.decode().rstrip("\n")
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                data = line[6:]
            elif not line:
                if event == "view" and data:
                    view = json.loads(data)
                    if view["legal"]:
                        status, _, elapsed = commands.request(
                            "POST", f"/v1/games/{game_id}/commands", rng.choice(view["legal"]),
                            {**headers, "If-Match": f'"{view["seq"]}"', "Prefer": "return=minimal"})
                        # 412: another seat moved first (predictions are simultaneous); a newer view follows.
                        if status != 412:
                            record(status == 200, elapsed)
                event, data = "message", None
    finally:
        stream.close()
        commands.conn.close()


def _socket_moves(client: Client, deadline: float, record, rng: random.Random) -> None:
    """The SSE cycle's games with each seat's client on a socket (GET /v1/socket) instead: it
    subscribes to the game with ``views``, and when its view arrives sends a command from its
    ``legal`` on the same socket, with ``expected_seq``, answered without a view."""
    _games_a_thread_a_seat(client, deadline, record, rng, _play_seat_on_socket)


def _play_seat_on_socket(host: str, port: int, game_id: str, token: str, deadline: float, record, rng) -> None:
    sock = socket.create_connection((host, port), timeout=1.0)  # short reads: the deadline is checked
    ws = WSConnection(ConnectionType.CLIENT)
    sock.sendall(ws.send(Request(host=host, target="/v1/socket")))
    sent: dict[str, float] = {}
    parts: list[str] = []
    try:
        while time.monotonic() < deadline:
            try:
                data = sock.recv(65536)
            except (socket.timeout, TimeoutError):
                continue
            if not data:
                return
            ws.receive_data(data)
            out = b""
            for event in ws.events():
                if isinstance(event, AcceptConnection):
                    out += ws.send(TextMessage(data=json.dumps({"type": "subscribe", "game": game_id, "token": token,
                                                                "views": True})))
                elif isinstance(event, Ping):
                    out += ws.send(event.response())
                elif isinstance(event, TextMessage):
                    parts.append(event.data)
                    if not event.message_finished:
                        continue
                    message = json.loads("".join(parts))
                    parts.clear()
                    if message["type"] == "view" and message["view"]["legal"]:
                        name = str(len(sent))
                        sent[name] = time.perf_counter()
                        out += ws.send(TextMessage(data=json.dumps({
                            "type": "command", "id": name, "game": game_id, "token": token,
                            "command": rng.choice(message["view"]["legal"]), "expected_seq": message["seq"],
                            "view": False})))
                    elif message["type"] == "result":
                        # 412: another seat moved first (predictions are simultaneous); a newer view follows.
                        if message["status"] != 412:
                            record(message["status"] == 200, time.perf_counter() - sent[message["id"]])
                    elif message["type"] == "unsubscribed":
                        return  # the game's final event ended the subscription
            if out:
                sock.sendall(out)
    finally:
        sock.close()


PHASES = {"a": _baseline_a, "b": _baseline_b, "moves": _moves, "sse_moves": _sse_moves,
          "socket_moves": _socket_moves}


def run(phase: str, host: str, port: int, threads: int, duration: float, seed: int) -> dict:
    """Run ``threads`` clients for ``duration`` seconds in this process."""
    latencies: list[float] = []
    failures = [0]
    lock = threading.Lock()

    def record(ok: bool, elapsed: float) -> None:
        with lock:
            if ok:
                latencies.append(elapsed)
            else:
                failures[0] += 1

    deadline = time.monotonic() + duration
    workers = []
    for i in range(threads):
        client = Client(host, port)
        args = (client, deadline, record) + ((random.Random(seed * 1000 + i),) if phase.endswith("moves") else ())
        workers.append(threading.Thread(target=PHASES[phase], args=args, daemon=True))
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(duration + 60)
    return {"latencies": latencies, "failures": failures[0]}
