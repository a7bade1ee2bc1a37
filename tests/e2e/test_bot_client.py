"""examples/bot_client.py, the external bot, against a real `stich serve`: a whole game from the
command line (Scharfe Schoten, and a Scharwenzel deal), a stream cut mid-game (a Schafkopf deal) and
resumed with Last-Event-ID, a retried command that lands once."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

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
    assert f"took seat 0 of game {game_id}" in run.stdout and "game over: totals" in run.stdout
    summary = call(server, "GET", f"/v1/games/{game_id}")
    assert summary["status"] == "finished" and summary["seats"][0]["kind"] == "human"
    events = all_events(server, game_id)
    mine = [e for e in events if e["actor"] == 0]
    # The seat made all its moves: one prediction, its twelve cards, and nothing else but its seat.
    assert [e["type"] for e in mine if e["type"] == "PredictionMade"] == ["PredictionMade"]
    played = [e["data"]["card"] for e in mine if e["type"] == "CardPlayed"]
    dealt = next(e for e in events if e["type"] == "HandsDealt")["data"]["hands"][0]
    assert sorted(played) == sorted(dealt) and len(played) == 12
    assert f"game over: totals {summary['scores']['totals']}" in run.stdout



def test_the_bot_plays_a_whole_scharwenzel_deal_from_the_command_line(server):
    game_id = new_game(server, "scharwenzel", 4, {"deals": 1})  # one deal: the shortest game the rules allow
    run = subprocess.run([sys.executable, str(EXAMPLE), "--server", server["url"], "--game", game_id, "--seat", "0"],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    assert f"took seat 0 of game {game_id}" in run.stdout and "game over: totals" in run.stdout
    summary = call(server, "GET", f"/v1/games/{game_id}")
    assert summary["status"] == "finished" and summary["seats"][0]["kind"] == "human"
    assert f"game over: totals {summary['scores']['totals']}" in run.stdout
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

    final = bot_client.play(client, policy)
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
