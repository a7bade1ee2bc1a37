"""examples/bot_client.py, the external bot, against a real `stich serve`: a whole game from the
command line over the socket (Scharfe Schoten, and a Scharwenzel deal); two tables on one socket cut
mid-game and resumed from the last seq, with no command posted; two tables behind a proxy that
refuses the upgrade, played over SSE and POST; a stream cut mid-game (a Schafkopf deal) and resumed
with Last-Event-ID, a retried command that lands once."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from .refusing_proxy import RefusingProxy

pytestmark = pytest.mark.e2e

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bot_client.py"


def load_example():
    spec = importlib.util.spec_from_file_location("bot_client", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bot_client = load_example()


def call(server, method, path, body=None):
    request = urllib.request.Request(server["url"] + path, method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def new_game(server, game="scharfe-schoten", players=3, rules=None):
    seats = [{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * (players - 1)
    return call(server, "POST", "/v1/games", {"game": game, "players": players, "rules": rules or {"rounds": 1},
                                              "seats": seats})["id"]


def all_events(server, game_id):
    return call(server, "GET", f"/v1/games/{game_id}/events")["events"]


def test_the_bot_plays_a_whole_game_from_the_command_line(server):
    game_id = new_game(server)
    run = subprocess.run([sys.executable, str(EXAMPLE), "--server", server["url"], "--game", game_id, "--seat", "0"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert f"took seat 0 of game {game_id}" in run.stdout and f"game over: {game_id}: totals" in run.stdout
    assert "played over the socket (1 table(s) on one connection)" in run.stdout, run.stdout
    summary = call(server, "GET", f"/v1/games/{game_id}")
    assert summary["status"] == "finished" and summary["seats"][0]["kind"] == "human"
    events = all_events(server, game_id)
    mine = [e for e in events if e["actor"] == 0]
    # The seat made all its moves: one prediction, its twelve cards, and nothing else but its seat.
    assert [e["type"] for e in mine if e["type"] == "PredictionMade"] == ["PredictionMade"]
    played = [e["data"]["card"] for e in mine if e["type"] == "CardPlayed"]
    dealt = next(e for e in events if e["type"] == "HandsDealt")["data"]["hands"][0]
    assert sorted(played) == sorted(dealt) and len(played) == 12
    assert f"game over: {game_id}: totals {summary['scores']['totals']}" in run.stdout


def test_the_bot_plays_a_whole_scharwenzel_deal_from_the_command_line(server):
    game_id = new_game(server, "scharwenzel", 4, {"deals": 1})  # one deal: the shortest game the rules allow
    run = subprocess.run([sys.executable, str(EXAMPLE), "--server", server["url"], "--game", game_id, "--seat", "0"],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    assert f"took seat 0 of game {game_id}" in run.stdout and "played over the socket" in run.stdout
    summary = call(server, "GET", f"/v1/games/{game_id}")
    assert summary["status"] == "finished" and summary["seats"][0]["kind"] == "human"
    assert f"game over: {game_id}: totals {summary['scores']['totals']}" in run.stdout
    events = all_events(server, game_id)
    mine = [e for e in events if e["actor"] == 0]
    # The seat made all its moves: one bid or pass in the bidding, then its eight cards.
    assert len([e for e in mine if e["type"] in ("BidMade", "Passed")]) == 1
    played = [e["data"]["card"] for e in mine if e["type"] == "CardPlayed"]
    dealt = next(e for e in events if e["type"] == "HandsDealt")["data"]["hands"][0]
    assert sorted(played) == sorted(dealt) and len(played) == 8
    assert [e["type"] for e in events if e["type"] in ("TrumpsNamed", "DealScored", "GameEnded")] == [
        "TrumpsNamed", "DealScored", "GameEnded"]
    assert events[-1]["type"] == bot_client.FINAL_EVENT


def posted_commands(client) -> list:
    """Wraps the client's HTTP requests to record its POSTs of a command."""
    posted, request = [], client.request

    def recording(method, path, *args, **kwargs):
        if method == "POST" and path == "/commands":
            posted.append(args)
        return request(method, path, *args, **kwargs)

    client.request = recording
    return posted


def test_two_tables_on_one_socket_cut_mid_game_resume_from_the_last_seq(server):
    games = [new_game(server), new_game(server, "schafkopf", 4, {"deals": 1})]
    lines = []
    clients = [bot_client.SeatClient(server["url"], game_id, log=lines.append) for game_id in games]
    posted = [posted_commands(client) for client in clients]
    for client in clients:
        client.take_seat(0)
    line = bot_client.TableSocket(server["url"])
    cut = []

    def policy(view):
        # The socket cut under the bot's feet once both tables have had events, as a network failure would.
        if not cut and all(client.seen for client in clients):
            cut.append([client.seen[-1] for client in clients])
            line.drop()
        for command in view["legal"]:
            if command.get("intent") == "play":  # say "Ich spiele", so a deal is played out
                return command
        return view["legal"][0]

    bot_client.play_on_socket(clients, policy, line)
    assert cut and line.opens == 2, lines  # one socket for both tables, opened again once
    assert any(line.startswith("socket dropped (") for line in lines), lines
    for client, at_cut, sent in zip(clients, cut[0], posted):
        events = all_events(server, client.game_id)
        assert events[-1]["type"] == bot_client.FINAL_EVENT and client.finished
        # Every event once, in order: the second subscription resumed after the last one received.
        assert client.seen == [e["seq"] for e in events]
        assert client.resumed_from[0] == 0 and client.resumed_from[1] >= at_cut and len(client.resumed_from) == 2
        assert sent == [], sent  # every move went on the socket
        assert any(e["actor"] == 0 and e["type"] in ("CardPlayed", "PredictionMade", "Announced") for e in events)
    played = [e for e in all_events(server, games[0]) if e["type"] == "CardPlayed" and e["data"]["seat"] == 0]
    assert len(played) == 12  # each move landed once, the one cut off too


def test_behind_a_proxy_refusing_the_socket_the_bot_plays_over_sse_and_post(server):
    proxy = RefusingProxy(int(server["url"].rsplit(":", 1)[1]))
    try:
        games = [new_game(server), new_game(server)]
        run = subprocess.run([sys.executable, str(EXAMPLE), "--server", proxy.url, "--game", games[0], "--seat", "0",
                              "--game", games[1], "--seat", "0"], capture_output=True, text=True, timeout=120)
    finally:
        proxy.close()
    assert run.returncode == 0, run.stderr
    assert proxy.refused == 1
    assert "the socket could not be opened (the upgrade was answered 403); playing over SSE and POST" in run.stdout
    for game_id in games:
        summary = call(server, "GET", f"/v1/games/{game_id}")
        assert summary["status"] == "finished" and f"game over: {game_id}: totals {summary['scores']['totals']}" in run.stdout
        played = [e for e in all_events(server, game_id) if e["type"] == "CardPlayed" and e["data"]["seat"] == 0]
        assert len(played) == 12


def test_a_dropped_stream_is_resumed_with_last_event_id_and_misses_nothing(server):
    game_id = new_game(server, "schafkopf", 4, {"deals": 1})
    lines = []
    client = bot_client.SeatClient(server["url"], game_id, log=lines.append)
    client.retry_s = 0.1
    client.take_seat(0)
    start = client.view()["seq"]
    dropped = []

    def policy(view):
        # Once the stream is open, cut it under the bot's feet, as a network failure would.
        if client.resumed_from and not dropped:
            dropped.append(client.seen[-1] if client.seen else start)
            client.drop_stream()
        for command in view["legal"]:
            if command.get("intent") == "play":  # say "Ich spiele", so a deal is played out
                return command
        return view["legal"][0]

    final = bot_client.play_over_http(client, policy)
    assert final["status"] == "finished"
    assert dropped, "the stream was never open while the bot had to move"
    # The second connection resumed from the last event received: the one the bot had when the
    # stream was cut, or a later one the client had already buffered when the cut reached it.
    # The first connection starts from the bot's own first view, which bots may have moved past
    # since the test's view (``start``).
    assert len(client.resumed_from) == 2 and client.resumed_from[0] >= start
    first, resumed = client.resumed_from
    assert resumed >= dropped[0] and (resumed == first or resumed in client.seen)
    assert any(line.startswith((f"stream dropped after event {resumed} ", f"stream ended after event {resumed};"))
               for line in lines), lines
    events = all_events(server, game_id)
    # Every event after the bot's first view arrived once, in order, the final one last.
    assert client.seen == [e["seq"] for e in events if e["seq"] > first]
    assert events[-1]["type"] == bot_client.FINAL_EVENT
    assert sum(1 for e in events if e["type"] == "CardPlayed" and e["data"]["seat"] == 0) == 8


def test_a_retried_command_lands_once(server):
    game_id = new_game(server)
    client = bot_client.SeatClient(server["url"], game_id)
    client.take_seat(0)
    view = client.view()
    for _ in range(100):  # until the bots have predicted too, so nobody moves the game meanwhile
        if view["to_act"] == [0]:
            break
        time.sleep(0.05)
        view = client.view()
    command = view["legal"][0]
    first = client.send(command, view["seq"], key="retry-of-one-move")
    again = client.send(command, view["seq"], key="retry-of-one-move")  # as after a lost answer
    assert first["duplicate"] is False and again["duplicate"] is True
    assert again["seq"] == first["seq"] and again["events"] == first["events"]
    predictions = [e for e in all_events(server, game_id) if e["type"] == "PredictionMade" and e["actor"] == 0]
    assert len(predictions) == 1
    with pytest.raises(bot_client.Problem) as stale:  # a new move against the old view
        client.send(command, view["seq"])
    assert stale.value.status in (409, 412)
