"""The push path's shared work (issue 24): a seat's view of a moment is made once per process and
shared by the command's answer, the seat's stream and GET view, never across viewers or token
generations; a stream's push is one write of pre-rendered bytes; a command's shape is checked once
per distinct body and game."""
from __future__ import annotations

import json
from types import SimpleNamespace

from api.view_cache import ViewCache
from eventstore.handler import Loaded

from .play import auth, new_game


def views_of(app) -> ViewCache:
    return app.extensions["stich.views"]


def test_a_view_is_made_once_and_shared_by_the_answer_the_stream_and_get(app, client):
    game_id, tokens = new_game(client, game="scharfe-schoten", players=3, humans=(0, 1, 2))
    views = views_of(app)
    seat = client.get(f"/v1/games/{game_id}").get_json()["to_act"][0]
    made = views.made
    first = client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[seat])).get_json()
    again = client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[seat])).get_json()
    assert first == again and views.made == made + 1  # the second GET made nothing

    answer = client.post(f"/v1/games/{game_id}/commands", json=first["legal"][0], headers=auth(tokens[seat]))
    assert answer.status_code == 200, answer.get_json()
    after = answer.get_json()
    made = views.made
    got = client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[seat])).get_json()
    if got["seq"] == after["seq"]:  # no system event followed: the answer's view is the GET's
        assert views.made == made
        assert {k: v for k, v in got.items() if k not in ("id", "seq", "tournament")} == after["view"]

    # The next seat's stream pushes its view; its GET then shares it.
    nxt = client.get(f"/v1/games/{game_id}").get_json()["to_act"][0]
    body = client.get(f"/v1/games/{game_id}/events/stream?views=true&timeout=1&after={got['seq']}",
                      headers=auth(tokens[nxt])).get_data(as_text=True)
    pushed = json.loads(body.split("event: view\ndata: ", 1)[1].split("\n", 1)[0])
    made = views.made
    viewed = client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[nxt])).get_json()
    assert views.made == made and pushed["seq"] == viewed["seq"] and pushed["game_state"] == viewed["game_state"]


def test_each_viewer_gets_its_own_view_of_the_same_moment(app, client):
    game_id, tokens = new_game(client, game="scharfe-schoten", players=3, humans=(0, 1, 2))
    views = views_of(app)
    made = views.made
    seen = {seat: client.get(f"/v1/games/{game_id}/view", headers=auth(token)).get_json()
            for seat, token in tokens.items()}
    seen[None] = client.get(f"/v1/games/{game_id}/view").get_json()
    assert views.made == made + 4  # none was handed another's
    assert {seat: view["viewer"] for seat, view in seen.items()} == {0: 0, 1: 1, 2: 2, None: None}
    states = [json.dumps(view["game_state"], sort_keys=True) for view in seen.values()]
    assert len(set(states)) == 4  # each seat sees its own hand only, the spectator none


def loaded(seq: int, clock=None, game_id: str = "g") -> Loaded:
    return Loaded(game_id, SimpleNamespace(clock=clock), seq)


def test_the_key_holds_the_viewer_and_the_tokens_generation_and_a_clock_is_never_kept():
    cache, calls = ViewCache(), []

    def make(tag):
        return lambda: calls.append(tag) or {"tag": tag}

    assert cache.view(loaded(5), 0, 0, make("seat 0")) == {"tag": "seat 0"}
    assert cache.view(loaded(5), 0, 0, make("again")) == {"tag": "seat 0"}
    assert cache.view(loaded(5), 0, 1, make("new holder")) == {"tag": "new holder"}  # the seat taken again
    assert cache.view(loaded(5), None, None, make("spectator")) == {"tag": "spectator"}
    assert cache.view(loaded(6), 0, 0, make("next seq")) == {"tag": "next seq"}
    assert cache.view(loaded(5, game_id="h"), 0, 0, make("other game")) == {"tag": "other game"}
    ticking = loaded(5, clock={"turn_ms": 1000})
    cache.view(ticking, 0, 0, make("clocked"))
    cache.view(ticking, 0, 0, make("clocked"))
    assert calls == ["seat 0", "new holder", "spectator", "next seq", "other game", "clocked", "clocked"]


def test_the_cache_is_bounded():
    cache = ViewCache(size=2)
    for seq in (1, 2, 3):
        cache.view(loaded(seq), 0, 0, lambda: {})
    made = cache.made
    cache.view(loaded(1), 0, 0, lambda: {})  # the least recently used went first
    cache.view(loaded(3), 0, 0, lambda: {})
    assert cache.made == made + 1 and len(cache._views) == 2


def test_a_push_is_one_write_of_its_events_and_the_view(app, client):
    game_id, tokens = new_game(client, game="scharfe-schoten", players=3, humans=(0, 1, 2))
    seat = client.get(f"/v1/games/{game_id}").get_json()["to_act"][0]
    response = client.get(f"/v1/games/{game_id}/events/stream?views=true&timeout=1",
                          headers=auth(tokens[seat]), buffered=False)
    chunks = [c for c in response.response if c]
    response.close()
    [push] = [c for c in chunks if b"event: view" in c]
    assert isinstance(push, bytes) and push.startswith(b"id: 1\n")  # the events and the view together
    assert push.index(b"event: view") > push.rindex(b"id: ")


def test_a_streams_frames_are_rendered_once_per_viewer(app, client):
    game_id, tokens = new_game(client, game="scharfe-schoten", players=3, humans=(0, 1, 2))
    watcher = app.extensions["stich.watcher"]
    with watcher.watching(game_id) as watch:
        events = app.extensions["stich"].store.read(game_id, 0)
        watch.publish(events[-1].seq, events)
        for event in events:
            for viewer in (None, 0, 1):
                frame = watch.frame(event, viewer, False)
                assert frame == f"id: {event.seq}\ndata: {watch.render(event, viewer, False)}\n\n".encode()
                assert watch.frame(event, viewer, False) is frame


def test_a_commands_shape_is_checked_by_its_own_games_schema_each_time_it_differs(client):
    ss_game, ss_tokens = new_game(client, game="scharfe-schoten", players=3, humans=(0, 1, 2))
    seat = client.get(f"/v1/games/{ss_game}").get_json()["to_act"][0]
    legal = client.get(f"/v1/games/{ss_game}/view", headers=auth(ss_tokens[seat])).get_json()["legal"][0]
    body = json.dumps(legal)
    headers = {**auth(ss_tokens[seat]), "Content-Type": "application/json"}
    assert client.post(f"/v1/games/{ss_game}/commands", data=body, headers=headers).status_code == 200
    sk_game, sk_tokens = new_game(client, game="schafkopf", players=4, humans=(0,))
    refused = client.post(f"/v1/games/{sk_game}/commands", data=body,
                          headers={**auth(sk_tokens[0]), "Content-Type": "application/json"})
    assert refused.status_code == 422, refused.get_json()  # Scharfe Schoten's command is no Schafkopf command
    # Remembered or not, a bad shape is a 422 and the same bytes stay the same command.
    bad = json.dumps({**legal, "unexpected": 1})
    for _ in range(2):
        assert client.post(f"/v1/games/{ss_game}/commands", data=bad, headers=headers).status_code == 422
