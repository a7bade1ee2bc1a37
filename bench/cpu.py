"""Server CPU per request, in this process: the app called as a WSGI function, no sockets.

The throughput phases share two cores with their load generator and
whatever else runs on the machine, so their ratios move with the noise.
This phase times the same requests as process CPU time instead: baseline A,
baseline B, and a move's view and command (the polling cycle's two
requests; the SSE cycle's command with ``Prefer: return=minimal``), in
rounds that alternate them, keeping each figure's quietest round. What the
HTTP server adds per request (gunicorn's parser, gevent, the socket) is the
same for all of them and is not in these figures.

``view_core`` and ``command_core`` are the same two requests' own calls
without the HTTP layer (no Flask, hooks, schemas, headers, metrics or request
log): what a leaner request path could at best get down to (``moves_over_b_core``).
They make the same calls as the routes (the process's view cache, the same JSON
encoder), and every figure is the app's own call (``Caller.spent``): building the
environ and parsing the answer are the caller's work, not the server's.
``view_layer_over_a`` and ``command_layer_over_a`` are issue 24's figures: what the
request layer adds to each route, in bare Flask requests (target ≤ 1.5).

The ratios are the throughput targets' ratios in the code's own terms:
``moves_over_b`` = B ÷ (view + command), the polling cycle's moves per B
request if the server did nothing else (target ≥ 0.5: stich's two requests
costing no more than two of B's, a schema check and one XADD each), and
``sse_moves_over_b_at_most`` = B ÷ the minimal command, the SSE cycle's
(target ≥ 0.8) before the pushes to the three seats' streams, which would
lower it. The server's shared cost per request raises both throughput
ratios towards 1 ÷ (requests per move): the code's own ratios are lower.
"""
from __future__ import annotations

import io
import json
import random
import sys
import time

ROUNDS, CALLS = 5, 300


class Caller:
    """Calls the app as a WSGI server would, with a minimal environ."""

    BASE = {"SERVER_NAME": "127.0.0.1", "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1",
            "wsgi.url_scheme": "http", "wsgi.errors": sys.stderr, "wsgi.multithread": False,
            "wsgi.multiprocess": True, "wsgi.run_once": False, "wsgi.version": (1, 0),
            "REMOTE_ADDR": "127.0.0.1", "SCRIPT_NAME": "", "QUERY_STRING": "", "HTTP_HOST": "127.0.0.1"}

    def __init__(self, app):
        self.app = app
        self.spent = 0.0  # CPU seconds of the last call inside the app: the server's part, not the caller's


    def __call__(self, method: str, path: str, body=None, headers: dict | None = None) -> tuple[int, dict | None]:
        environ = dict(self.BASE, REQUEST_METHOD=method, PATH_INFO=path)
        data = json.dumps(body).encode() if body is not None else b""
        environ["wsgi.input"], environ["CONTENT_LENGTH"] = io.BytesIO(data), str(len(data))
        if body is not None:
            environ["CONTENT_TYPE"] = "application/json"
        for name, value in (headers or {}).items():
            environ["HTTP_" + name.upper().replace("-", "_")] = value
        status = []
        started = time.process_time()
        raw = b"".join(self.app(environ, lambda s, h, exc=None: status.append(s)))
        self.spent = time.process_time() - started
        return int(status[0][:3]), (json.loads(raw) if raw else None)


class Players:
    """Whole Scharfe Schoten games of three human seats, as the polling cycle plays them."""

    def __init__(self, call: Caller, seed: int = 0):
        self.call, self.rng = call, random.Random(seed)
        self.game_id, self.tokens, self.to_act = "", [], []

    def _new_game(self) -> None:
        _, game = self.call("POST", "/v1/games", {"game": "scharfe-schoten", "players": 3})
        self.game_id = game["id"]
        self.tokens = [self.call("POST", f"/v1/games/{self.game_id}/seats/{s}")[1]["token"] for s in range(3)]
        self.to_act = self.call("GET", f"/v1/games/{self.game_id}")[1]["to_act"]

    def _seat(self) -> tuple[int, str]:
        if not self.to_act:
            self._new_game()
        seat = self.rng.choice(self.to_act)
        return seat, self.tokens[seat]

    def core_move(self, app) -> tuple[float, float]:
        """One move without the HTTP layer: the calls the two routes make to answer (load, the
        token's seat, the view and its JSON; the command handler, the events and view for the
        seat and their JSON), with no Flask, hooks, schemas, headers, metrics or request log.
        (CPU seconds of the view's part, of the command's part.)"""
        from api.http import json_bytes

        runtime, credentials = app.extensions["stich"], app.extensions["stich.credentials"]
        handler, views = runtime.handler, app.extensions["stich.views"]
        table = handler.table
        _, token = self._seat()
        started = time.process_time()
        loaded = handler.load(self.game_id)
        seat, generation = credentials.seat(self.game_id, token)
        # The same calls as the routes: their view cache and their JSON encoder.
        view = {"id": self.game_id, **views.view(loaded, seat, generation, lambda: table.view(loaded.state, seat)),
                "seq": loaded.seq}
        json_bytes(view)
        viewed = time.process_time()
        command = self.rng.choice(view["legal"])
        commanding = time.process_time()
        after = handler.execute(self.game_id, seat, dict(command), generation=generation)
        state = after.loaded
        answer = {"id": self.game_id, "game": state.state.game.name, "duplicate": after.duplicate,
                  "events": [e.for_viewer(seat, False) for e in after.events],
                  "view": views.view(state, seat, generation, lambda: table.view(state.state, seat)),
                  "seq": state.seq}
        json_bytes(answer)
        commanded = time.process_time()
        self.to_act = answer["view"]["to_act"] if answer["view"]["status"] == "active" else []
        return viewed - started, commanded - commanding

    def move(self, minimal: bool) -> tuple[float, float]:
        """One move: (CPU seconds of the view, of the command)."""
        _, token = self._seat()
        headers = {"Authorization": f"Bearer {token}"}
        path = f"/v1/games/{self.game_id}"
        _, view = self.call("GET", path + "/view", headers=headers)
        viewed = self.call.spent
        command = self.rng.choice(view["legal"])
        if minimal:
            headers.update({"If-Match": f'"{view["seq"]}"', "Prefer": "return=minimal"})
        status, answer = self.call("POST", path + "/commands", command, headers)
        commanded = self.call.spent
        if status != 200:
            raise RuntimeError(f"a move was refused: {status} {answer}")
        if minimal:
            self.to_act = self.call("GET", path)[1]["to_act"]
        else:
            self.to_act = answer["view"]["to_act"] if answer["view"]["status"] == "active" else []
        return viewed, commanded


def run(redis_url: str, rounds: int = ROUNDS, calls: int = CALLS) -> dict:
    from .app import build

    app = build(redis_url)
    call = Caller(app)
    players = Players(call)
    for _ in range(50):  # warm the caches and the schemas
        call("GET", "/bench/a")
        call("POST", "/bench/b", {"type": "play", "card": "R9"})
        players.move(minimal=False)
    samples: dict[str, list[float]] = {"a": [], "b": [], "view": [], "command": [], "command_minimal": [],
                                       "view_core": [], "command_core": []}
    for _ in range(rounds):
        spent = 0.0
        for _ in range(calls):
            call("GET", "/bench/a")
            spent += call.spent
        samples["a"].append(spent / calls)
        spent = 0.0
        for _ in range(calls):
            call("POST", "/bench/b", {"type": "play", "card": "R9"})
            spent += call.spent
        samples["b"].append(spent / calls)
        moves = [players.move(minimal=False) for _ in range(calls)]
        samples["view"].append(sum(v for v, _ in moves) / calls)
        samples["command"].append(sum(c for _, c in moves) / calls)
        samples["command_minimal"].append(sum(c for _, c in (players.move(minimal=True) for _ in range(calls))) / calls)
        moves = [players.core_move(app) for _ in range(calls)]
        samples["view_core"].append(sum(v for v, _ in moves) / calls)
        samples["command_core"].append(sum(c for _, c in moves) / calls)
    us = {name: round(min(values) * 1e6, 1) for name, values in samples.items()}
    return {"rounds": rounds, "calls_per_round": calls, "us_per_request": us,
            "ratios": {"b_over_a": round(us["b"] / us["a"], 2),
                       "moves_over_b": round(us["b"] / (us["view"] + us["command"]), 2),
                       "moves_over_b_core": round(us["b"] / (us["view_core"] + us["command_core"]), 2),
                       "sse_moves_over_b_at_most": round(us["b"] / us["command_minimal"], 2),
                       # issue 24's: what the request layer adds to each route, in bare Flask requests
                       "view_layer_over_a": round((us["view"] - us["view_core"]) / us["a"], 2),
                       "command_layer_over_a": round((us["command"] - us["command_core"]) / us["a"], 2)}}


def table_rows(cpu: dict) -> list[tuple[str, str, str]]:
    us, ratios = cpu["us_per_request"], cpu["ratios"]
    return [("CPU per request (in process)", f"A {us['a']:.0f} / B {us['b']:.0f} us",
             f"view {us['view']:.0f}, command {us['command']:.0f}, minimal command {us['command_minimal']:.0f} us"),
            ("CPU without the HTTP layer", f"view {us['view_core']:.0f} us",
             f"command {us['command_core']:.0f} us (no Flask, hooks, schemas, headers); moves / B "
             f"{ratios['moves_over_b_core']:.2f}"),
            ("CPU: request layer / A", f"view {ratios['view_layer_over_a']:.2f}",
             f"command {ratios['command_layer_over_a']:.2f} ((route - its own calls) / A; target <= 1.5)"),
            ("CPU: moves / B, polling", f"{ratios['moves_over_b']:.2f}",
             f"SSE at most {ratios['sse_moves_over_b_at_most']:.2f} (B / minimal command, before the pushes)")]
