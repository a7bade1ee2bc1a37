"""Heuristic and search bots through the API: seats name them (a search bot with its playouts and
its safety net), the bot turns play them, and a game of each game runs to its end."""
from __future__ import annotations

import json
import random

import pytest

from domain import audit
from domain.bots import default_playouts
from domain.event import Event
from domain.registry import all_games
from domain.table import Table
from domain.table import DEFAULT_BUDGET_MS

from .play import auth, play_to_end


@pytest.mark.parametrize("game,players,rules", [("schafkopf", 4, {"deals": 1}), ("scharwenzel", 4, {"deals": 1}),
                                                ("scharfe-schoten", 4, {"rounds": 1})])
def test_a_game_with_heuristic_and_search_bots_runs_to_the_end(client, game, players, rules):
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "heuristic"}, {"kind": "bot", "bot": "search", "budget_ms": 20},
             {"kind": "bot", "bot": "search"}][:players]
    created = client.post("/v1/games", json={"game": game, "players": players, "rules": rules, "seats": seats})
    assert created.status_code == 201, created.get_json()
    body = created.get_json()
    assert [s.get("bot") for s in body["seats"]] == [None, "heuristic", "search", "search"][:players]
    assert [s.get("budget_ms") for s in body["seats"]] == [None, None, 20, DEFAULT_BUDGET_MS][:players]
    default = default_playouts(game)  # an omitted budget: the game's default, recorded
    assert [s.get("playouts") for s in body["seats"]] == [None, None, default, default][:players]
    game_id = body["id"]
    token = client.post(f"/v1/games/{game_id}/seats/0").get_json()["token"]
    play_to_end(client, game_id, {0: token}, rng=random.Random(1))
    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert summary["status"] == "finished" and len(summary["scores"]["totals"]) == players
    moves = [e for e in client.get(f"/v1/games/{game_id}/events?limit=500", headers=auth(token)).get_json()["events"]
             if isinstance(e["actor"], int) and e["actor"] > 0]
    assert moves  # the bots moved


@pytest.mark.parametrize("seat,field", [
    ({"kind": "bot", "bot": "heuristic", "budget_ms": 100}, "seats[1].budget_ms"),
    ({"kind": "bot", "bot": "search", "budget_ms": 5}, "seats"),  # the schema's range: errors nested by seat
    ({"kind": "bot", "bot": "clever"}, "seats"),
    ({"kind": "bot", "bot": "heuristic", "playouts": 100}, "seats[1].playouts"),
    ({"kind": "bot", "playouts": 100}, "seats[1].playouts"),  # a random bot, by default
    ({"kind": "human", "playouts": 100}, "seats[1].bot"),
    ({"kind": "bot", "bot": "search", "playouts": 7}, "seats"),  # below the schema's range
    ({"kind": "bot", "bot": "search", "playouts": 20_001}, "seats"),
    ({"kind": "bot", "bot": "search", "playouts": 16.5}, "seats"),  # not a whole number
    ({"kind": "bot", "bot": "search", "playouts": "16"}, "seats"),
    ({"kind": "bot", "bot": "search", "playouts": True}, "seats"),
])
def test_a_bad_bot_seat_is_a_422_naming_it(client, seat, field):
    body = {"game": "scharfe-schoten", "players": 3, "seats": [{"kind": "human"}, seat, {"kind": "bot"}]}
    response = client.post("/v1/games", json=body)
    assert response.status_code == 422
    assert any(key.startswith(field) for key in response.get_json()["errors"]), response.get_json()


def test_a_search_seats_playouts_are_recorded_in_game_created_and_shown_in_every_view(client):
    """A seat's playouts (and its safety net) go into GameCreated as given, so the game's bots play alike
    on any machine; the summary and each seat's view show them, and the bots play the game out."""
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "search", "playouts": 8, "budget_ms": 2000},
             {"kind": "bot", "bot": "search", "playouts": 20_000, "budget_ms": 10}]
    created = client.post("/v1/games", json={"game": "scharfe-schoten", "players": 3, "rules": {"rounds": 1},
                                             "seats": seats})
    assert created.status_code == 201, created.get_json()
    game_id = created.get_json()["id"]
    token = client.post(f"/v1/games/{game_id}/seats/0").get_json()["token"]
    events = client.get(f"/v1/games/{game_id}/events?limit=5", headers=auth(token)).get_json()["events"]
    assert events[0]["type"] == "GameCreated"
    recorded = [(s.get("playouts"), s.get("budget_ms")) for s in events[0]["data"]["seats"]]
    assert recorded == [(None, None), (8, 2000), (20_000, 10)]
    for shown in (client.get(f"/v1/games/{game_id}").get_json(),
                  client.get(f"/v1/games/{game_id}/view", headers=auth(token)).get_json()):
        assert [(s.get("playouts"), s.get("budget_ms")) for s in shown["seats"]] == recorded
    play_to_end(client, game_id, {0: token}, rng=random.Random(2))
    assert client.get(f"/v1/games/{game_id}").get_json()["status"] == "finished"


def test_a_game_created_before_playouts_were_recorded_plays_at_the_default_and_verifies(client, monkeypatch):
    """A GameCreated of before: search seats with budget_ms 150 and no playouts. It loads, its bots
    search at the game's default playouts (the decision says None: the default), and it verifies."""
    import workers.bot_turn

    handler = client.application.extensions["stich"].handler
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "search", "budget_ms": 150},
             {"kind": "bot", "bot": "search", "budget_ms": 150}]

    def as_before(commitment):
        created, *rest = handler.table.create("scharfe-schoten", 3, {"rounds": 1}, seats, None, commitment)
        data = {**created.data, "seats": [{k: v for k, v in seat.items() if k != "playouts"}
                                          for seat in created.data["seats"]]}
        return [Event(created.type, data, created.visibility, created.v), *rest]

    asked = []
    real = workers.bot_turn.decision_for
    monkeypatch.setattr(workers.bot_turn, "decision_for",
                        lambda *args, **kwargs: asked.append(kwargs.get("playouts")) or real(*args, **kwargs))
    game_id = handler.create_with(as_before).game_id
    assert [s.playouts for s in handler.load(game_id).state.seats] == [None, None, None]
    token = client.post(f"/v1/games/{game_id}/seats/0").get_json()["token"]
    play_to_end(client, game_id, {0: token}, rng=random.Random(3))
    assert client.get(f"/v1/games/{game_id}").get_json()["status"] == "finished"
    assert asked and set(asked) == {None}
    records = [json.loads(line) for line in client.get(f"/v1/games/{game_id}/export").data.decode().splitlines()]
    assert [s.get("playouts") for s in records[1]["data"]["seats"]] == [None, None, None]
    report = audit.verify(Table(all_games()), records)
    assert report.ok, report.lines()
