"""`views=true` on the event stream: the seat's view whenever it is its turn, for one-request moves."""
from __future__ import annotations

import json

from .play import auth, new_game


def messages(client, game_id, headers, query="views=true&timeout=0.05"):
    body = client.get(f"/v1/games/{game_id}/events/stream?{query}", headers=headers).get_data(as_text=True)
    out = []
    for block in body.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":"))
        if "data" in fields:
            out.append((fields.get("event", "message"), fields.get("id"), json.loads(fields["data"])))
    return out


def test_a_seat_on_its_turn_gets_its_view_after_the_events(client):
    game_id, tokens = new_game(client, game="scharfe-schoten", players=3, humans=(0,), rules={"rounds": 1})
    got = messages(client, game_id, auth(tokens[0]))
    kinds = [kind for kind, _, _ in got]
    assert kinds[-1] == "view" and kinds.count("view") == 1 and set(kinds[:-1]) == {"message"}
    view = got[-1][2]
    expected = client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[0])).get_json()
    assert view == expected and view["legal"] and got[-1][1] is None  # no id: resuming is unaffected
    # One request per move: post from the pushed view's legal with If-Match on its seq.
    answer = client.post(f"/v1/games/{game_id}/commands", json=view["legal"][0],
                         headers={**auth(tokens[0]), "If-Match": f'"{view["seq"]}"', "Prefer": "return=minimal"})
    assert answer.status_code == 200 and "view" not in answer.get_json() and answer.get_json()["events"]
    assert answer.headers["Preference-Applied"] == "return=minimal"


def test_no_view_when_it_is_not_the_seats_turn_and_none_without_asking(client):
    game_id, tokens = new_game(client, game="schafkopf", players=4, humans=(0, 1), rules={"deals": 1})
    state = client.get(f"/v1/games/{game_id}").get_json()
    waiting = next(s for s in (0, 1) if s not in state["to_act"])
    assert all(kind == "message" for kind, _, _ in messages(client, game_id, auth(tokens[waiting])))
    acting = next(s for s in (0, 1) if s in state["to_act"]) if set(state["to_act"]) & {0, 1} else None
    if acting is not None:
        plain = messages(client, game_id, auth(tokens[acting]), query="timeout=0.05")
        assert all(kind == "message" for kind, _, _ in plain)


def test_a_command_answer_carries_the_view_unless_asked_not_to(client):
    game_id, tokens = new_game(client, game="scharfe-schoten", players=3, humans=(0,))
    legal = client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[0])).get_json()["legal"]
    answer = client.post(f"/v1/games/{game_id}/commands", json=legal[0],
                         headers={**auth(tokens[0]), "Prefer": "respond-async, wait=5"})
    assert answer.status_code == 200 and answer.get_json()["view"]["viewer"] == 0
    assert "Preference-Applied" not in answer.headers


def test_views_need_a_seat_and_a_boolean(client):
    game_id, _ = new_game(client, game="scharfe-schoten", players=3, humans=(0,))
    assert client.get(f"/v1/games/{game_id}/events/stream?views=true").status_code == 422
    assert client.get(f"/v1/games/{game_id}/events/stream?views=yes").status_code == 422
