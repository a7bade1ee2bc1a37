"""Players (api/players.py, eventstore/players.py): a handle registered once whatever its case, player tokens
with scopes that act at every table the player sits at, revocable one by one; a seat taken as a player is
recorded publicly; a rated game moves its players' ratings, which recompute from scratch to the same
numbers; a player's finished games are a history to filter and export."""
from __future__ import annotations

import json
import random
import secrets
import time

import pytest

from domain.audit import verify_text

from .play import auth, play_to_end

SCHOTEN = {"game": "scharfe-schoten", "players": 3, "rules": {"rounds": 1}}


def handle(prefix: str = "p") -> str:
    return f"{prefix}{secrets.token_hex(5)}"


def register(client, name: str | None = None) -> tuple[str, str]:
    name = name or handle()
    answer = client.post("/v1/players", json={"handle": name})
    assert answer.status_code == 201, answer.get_json()
    body = answer.get_json()
    assert body["token"].startswith("pt_") and body["token_info"]["scopes"] == ["account", "organise", "play"]
    return body["handle"], body["token"]


def test_a_handle_is_registered_once_whatever_its_case_and_bad_ones_are_named(client):
    name, _ = register(client)
    again = client.post("/v1/players", json={"handle": name.upper()})
    assert again.status_code == 409 and again.get_json()["code"] == "handle_taken"
    for bad in ("ab", "-ab", "a" * 25, "a b", "bot:search", ""):
        refused = client.post("/v1/players", json={"handle": bad})
        assert refused.status_code == 422 and "handle" in refused.get_json()["errors"], bad
    profile = client.get(f"/v1/players/{name.upper()}").get_json()
    assert profile["handle"] == name and profile["ratings"] == {} and profile["recent"] == []
    assert client.get("/v1/players/nobody-here").get_json()["code"] == "unknown_player"


def test_a_player_token_takes_a_seat_as_its_player_and_plays_there_without_a_seat_token(client):
    name, token = register(client)
    game = client.post("/v1/games", json={**SCHOTEN, "seats": [{"kind": "human"}, {"kind": "bot"},
                                                               {"kind": "bot"}]}).get_json()["id"]
    taken = client.post(f"/v1/games/{game}/seats/0", headers=auth(token))
    assert taken.status_code == 201, taken.get_json()
    assert taken.get_json()["player"] == name and "token" not in taken.get_json()
    # Public: who sits where
    assert client.get(f"/v1/games/{game}").get_json()["seats"][0]["player"] == name
    [taken_event] = [e for e in client.get(f"/v1/games/{game}/events").get_json()["events"]
                     if e["type"] == "SeatTaken" and e["data"]["seat"] == 0]
    assert taken_event["data"]["player"] == name
    # Its own seat again: 200, nothing appended
    seq = client.get(f"/v1/games/{game}").get_json()["seq"]
    assert client.post(f"/v1/games/{game}/seats/0", headers=auth(token)).status_code == 200
    assert client.get(f"/v1/games/{game}").get_json()["seq"] == seq
    view = client.get(f"/v1/games/{game}/view", headers=auth(token)).get_json()
    assert view["viewer"] == 0 and view["legal"]
    play_to_end(client, game, {0: token}, rng=random.Random(1))
    export = client.get(f"/v1/games/{game}/export").get_data(as_text=True)
    report = verify_text(client.application.extensions["stich"].handler.table, export)
    assert report.ok, report.lines()


def test_a_player_token_reaches_no_other_players_seat(client):
    alice, alice_token = register(client)
    bob, bob_token = register(client)
    game = client.post("/v1/games", json={**SCHOTEN, "seats": [{"kind": "human", "handle": alice},
                                                               {"kind": "human"}, {"kind": "bot"}]}).get_json()["id"]
    assert client.get("/v1/games?status=waiting&limit=200").get_json()["games"][0]["open_seats"] == [1]
    for headers in ({}, auth(bob_token)):
        refused = client.post(f"/v1/games/{game}/seats/0", headers=headers)
        assert refused.status_code == 403 and refused.get_json()["code"] == "player_seat", refused.get_json()
    assert client.post(f"/v1/games/{game}/seats/1", headers=auth(bob_token)).status_code == 201
    # Bob sits at seat 1 now: not at seat 0 too, and his token reads only his seat
    assert client.post(f"/v1/games/{game}/seats/0", headers=auth(bob_token)).get_json()["code"] == "player_seat"
    assert client.post(f"/v1/games/{game}/seats/0", headers=auth(alice_token)).status_code == 201
    assert client.get(f"/v1/games/{game}/view", headers=auth(bob_token)).get_json()["viewer"] == 1
    elsewhere = client.post("/v1/games", json={**SCHOTEN, "seats": [{"kind": "human"}, {"kind": "bot"},
                                                                    {"kind": "bot"}]}).get_json()["id"]
    refused = client.get(f"/v1/games/{elsewhere}/view", headers=auth(bob_token))
    assert refused.status_code == 403 and refused.get_json()["code"] == "invalid_token"
    unknown = client.post("/v1/games", json={**SCHOTEN, "seats": [{"kind": "human", "handle": "nobody-x1"},
                                                                  {"kind": "bot"}, {"kind": "bot"}]})
    assert unknown.status_code == 422 and "seats[0].handle" in unknown.get_json()["errors"]


def test_tokens_have_scopes_and_a_revoked_one_works_nowhere(client):
    name, token = register(client)
    issued = client.post(f"/v1/players/{name}/tokens", json={"scopes": ["organise"], "label": "my league"},
                         headers=auth(token))
    assert issued.status_code == 201, issued.get_json()
    organise = issued.get_json()["token"]
    listed = client.get(f"/v1/players/{name}/tokens", headers=auth(token)).get_json()["tokens"]
    assert {t["label"] for t in listed} == {"registration", "my league"}
    # Without 'account' it manages no tokens; without 'play' it takes no seat
    assert client.get(f"/v1/players/{name}/tokens", headers=auth(organise)).get_json()["code"] == "insufficient_scope"
    game = client.post("/v1/games", json={**SCHOTEN, "seats": [{"kind": "human"}, {"kind": "bot"},
                                                               {"kind": "bot"}]}).get_json()["id"]
    refused = client.post(f"/v1/games/{game}/seats/0", headers=auth(organise))
    assert refused.status_code == 403 and refused.get_json()["code"] == "insufficient_scope"
    # Another player's token manages nothing of this one's
    _, other = register(client)
    assert client.get(f"/v1/players/{name}/tokens", headers=auth(other)).get_json()["code"] == "invalid_token"
    # Revoked: at once in this process
    token_id = issued.get_json()["token_info"]["id"]
    assert client.delete(f"/v1/players/{name}/tokens/{token_id}", headers=auth(token)).status_code == 204
    assert client.post(f"/v1/players/{name}/tokens", json={"scopes": ["play"]},
                       headers=auth(organise)).get_json()["code"] == "invalid_token"
    assert client.delete(f"/v1/players/{name}/tokens/{token_id}", headers=auth(token)).status_code == 404


def test_a_rated_game_takes_players_only_and_moves_their_ratings(client):
    names, tokens = zip(*(register(client) for _ in range(3)))
    created = client.post("/v1/games", json={**SCHOTEN, "rated": True})
    assert created.status_code == 201, created.get_json()
    game = created.get_json()["id"]
    anonymous = client.post(f"/v1/games/{game}/seats/0")
    assert anonymous.status_code == 403 and anonymous.get_json()["code"] == "player_required"
    for seat, token in enumerate(tokens):
        assert client.post(f"/v1/games/{game}/seats/{seat}", headers=auth(token)).status_code == 201
    play_to_end(client, game, dict(enumerate(tokens)), rng=random.Random(2))
    summary = client.get(f"/v1/games/{game}").get_json()
    places = summary["scores"]["ranking"]
    ratings = [client.get(f"/v1/players/{name}").get_json()["ratings"]["scharfe-schoten"] for name in names]
    best = places.index(min(places))
    assert all(r["matches"] == 1 and r["provisional"] for r in ratings)
    if places.count(1) == 1:  # a clear winner gains the most
        assert ratings[best]["mu"] == max(r["mu"] for r in ratings) and ratings[best]["mu"] > 25
    changes = client.get(f"/v1/players/{names[0]}/ratings/scharfe-schoten").get_json()["changes"]
    assert [c["game_id"] for c in changes] == [game]
    history = client.get(f"/v1/players/{names[0]}/games").get_json()
    assert history["games"][0]["game_id"] == game and history["games"][0]["rated"]


def test_a_rated_tournament_is_joined_and_played_as_players(client):
    names, tokens = zip(*(register(client) for _ in range(6)))
    body = {"game": "scharfe-schoten", "players": 3, "rounds": 2, "deals_per_table": 1, "rated": True,
            "participants": [{"kind": "human", "handle": names[0]}] + [{"kind": "human"}] * 5}
    created = client.post("/v1/tournaments", json=body, headers=auth(tokens[5]))  # organised by the sixth
    assert created.status_code == 201, created.get_json()
    tid = created.get_json()["id"]
    assert created.get_json()["organiser"] == names[5] and created.get_json()["rated"]
    # The kept slot is its player's; an anonymous join of a rated tournament is refused
    assert client.post(f"/v1/tournaments/{tid}/participants/0", headers=auth(tokens[1])).get_json()["code"] == \
        "player_seat"
    assert client.post(f"/v1/tournaments/{tid}/participants/1").get_json()["code"] == "player_required"
    for p, token in enumerate(tokens):
        joined = client.post(f"/v1/tournaments/{tid}/participants/{p}", headers=auth(token))
        assert joined.status_code == 201 and joined.get_json()["player"] == names[p], joined.get_json()
    assert client.post(f"/v1/tournaments/{tid}/participants/0",
                       headers=auth(tokens[0])).get_json()["code"] == "seat_taken"
    # The organiser's player token starts it (scope organise)
    started = client.post(f"/v1/tournaments/{tid}/start", headers=auth(tokens[5]))
    assert started.status_code == 200, started.get_json()
    for round_ in (1, 2):
        tables: dict[str, dict[int, str]] = {}
        for p, token in enumerate(tokens):
            seat = client.post(f"/v1/tournaments/{tid}/participants/{p}/seat", headers=auth(token))
            assert seat.status_code == 201, seat.get_json()
            assert seat.get_json()["player"] == names[p] and "token" not in seat.get_json()
            assert seat.get_json()["round"] == round_
            tables.setdefault(seat.get_json()["game_id"], {})[seat.get_json()["seat"]] = token
        for game_id, seated in tables.items():
            play_to_end(client, game_id, seated, rng=random.Random(round_))
    tournament = client.get(f"/v1/tournaments/{tid}").get_json()
    assert tournament["status"] == "finished", tournament["status"]
    assert [p["player"] for p in tournament["participants"]] == list(names)
    for name in names:
        profile = client.get(f"/v1/players/{name}").get_json()
        assert profile["ratings"]["scharfe-schoten"]["matches"] == 2, profile["ratings"]
        games = client.get(f"/v1/players/{name}/games?tournament={tid}").get_json()["games"]
        assert len(games) == 2 and all(g["tournament_id"] == tid for g in games)


def test_a_rated_duplicate_round_is_rated_by_its_margins_once_it_has_finished(client):
    names, tokens = zip(*(register(client) for _ in range(3)))
    body = {"game": "scharfe-schoten", "players": 3, "rounds": 1, "deals_per_table": 2, "rated": True,
            "duplicate": True, "participants": [{"kind": "human"}] * 3 + [{"kind": "bot", "bot": "heuristic"}] * 3}
    created = client.post("/v1/tournaments", json=body).get_json()
    tid, organizer = created["id"], auth(created["token"])
    for p, token in enumerate(tokens):
        assert client.post(f"/v1/tournaments/{tid}/participants/{p}", headers=auth(token)).status_code == 201
    client.post(f"/v1/tournaments/{tid}/start", headers=organizer)
    tables: dict[str, dict[int, str]] = {}
    for p, token in enumerate(tokens):
        seat = client.post(f"/v1/tournaments/{tid}/participants/{p}/seat", headers=auth(token)).get_json()
        tables.setdefault(seat["game_id"], {})[seat["seat"]] = token
    first, *rest = list(tables.items())
    play_to_end(client, first[0], first[1], rng=random.Random(9))
    if rest:  # a table of the round has finished, the round runs on: nothing recorded or rated yet
        assert client.get(f"/v1/players/{names[0]}").get_json()["ratings"] == {}
        assert client.get(f"/v1/players/{names[0]}/games").get_json()["games"] == []
    for game_id, seated in rest:
        play_to_end(client, game_id, seated, rng=random.Random(10))
    assert client.get(f"/v1/tournaments/{tid}").get_json()["status"] == "finished"
    for name in names:
        games = client.get(f"/v1/players/{name}/games").get_json()["games"]
        assert len(games) == 1 and games[0]["tournament_id"] == tid and not games[0]["rated"]  # not per table
        margins = [deal["margin"] for deal in games[0]["deals"]]
        assert len(margins) == 2 and all(isinstance(m, float) for m in margins)
        rating = client.get(f"/v1/players/{name}/ratings/scharfe-schoten").get_json()
        assert rating["rating"]["matches"] == 2  # one a deal: those who held the same cards, ranked
        assert all(change["unit"].endswith(f"|{tid}/1") for change in rating["changes"])
    bots = {row["identity"]: row for row in client.get("/v1/leaderboards/scharfe-schoten?limit=500").get_json()["entries"]}
    assert "bot:heuristic" in bots


def test_bulk_pairing_names_registered_players_whose_tokens_alone_play_their_seats(client):
    (ann, ann_token), (bob, bob_token) = register(client), register(client)
    paired = client.post("/v1/games/bulk", headers={"Idempotency-Key": secrets.token_hex(8)}, json={"games": [
        {**SCHOTEN, "seats": [{"kind": "human", "handle": ann.upper()}, {"kind": "human", "handle": bob},
                              {"kind": "bot"}]}]})
    assert paired.status_code == 201, paired.get_json()
    game = paired.get_json()["games"][0]
    assert paired.get_json()["claims"] == [] and [s.get("handle") for s in game["seats"]] == [ann, bob, None]
    assert all("token" not in seat for seat in game["seats"])
    summary = client.get(game["url"]).get_json()
    assert summary["status"] == "active" and [s.get("player") for s in summary["seats"]] == [ann, bob, None]
    assert client.get(f"{game['url']}/view", headers=auth(ann_token)).get_json()["viewer"] == 0
    _, stranger = register(client)
    assert client.get(f"{game['url']}/view", headers=auth(stranger)).get_json()["code"] == "invalid_token"
    unknown = client.post("/v1/games/bulk", headers={"Idempotency-Key": secrets.token_hex(8)}, json={"games": [
        {**SCHOTEN, "seats": [{"kind": "human", "handle": "nobody-zz"}, {"kind": "bot"}, {"kind": "bot"}]}]})
    assert unknown.status_code == 422 and "games[0].seats[0].handle" in unknown.get_json()["errors"]
    play_to_end(client, game["id"], {0: ann_token, 1: bob_token}, rng=random.Random(3))
    assert client.get(game["url"]).get_json()["status"] == "finished"


def test_ratings_and_histories_show_nothing_of_a_running_game(client):
    names, tokens = zip(*(register(client) for _ in range(3)))
    game = client.post("/v1/games", json={**SCHOTEN, "rated": True}).get_json()["id"]
    for seat, token in enumerate(tokens):
        client.post(f"/v1/games/{game}/seats/{seat}", headers=auth(token))
    hands = [client.get(f"/v1/games/{game}/view", headers=auth(t)).get_json()["game_state"]["hand"] for t in tokens]
    for name in names:
        for url in (f"/v1/players/{name}", f"/v1/players/{name}/games", f"/v1/players/{name}/ratings/scharfe-schoten",
                    "/v1/leaderboards/scharfe-schoten?limit=500"):
            text = client.get(url).get_data(as_text=True)
            assert game not in text, url  # not listed, not rated: it has not finished
            assert not any(f'"{card}"' in text for hand in hands for card in hand), url


def test_revoking_a_token_ends_the_streams_it_opened(client):
    name, token = register(client)
    streaming = client.post(f"/v1/players/{name}/tokens", json={"scopes": ["play"]}, headers=auth(token)).get_json()
    game = client.post("/v1/games", json={**SCHOTEN, "seats": [{"kind": "human"}, {"kind": "human"},
                                                               {"kind": "bot"}]}).get_json()["id"]
    client.post(f"/v1/games/{game}/seats/0", headers=auth(streaming["token"]))
    stream = client.get(f"/v1/games/{game}/events/stream?timeout=30", headers=auth(streaming["token"]),
                        buffered=False)
    frames = iter(stream.response)
    assert next(frames)  # it is open: the retry line
    revoked = client.delete(f"/v1/players/{name}/tokens/{streaming['token_info']['id']}", headers=auth(token))
    assert revoked.status_code == 204
    started = time.monotonic()
    rest = b"".join(part if isinstance(part, bytes) else part.encode() for part in frames)
    assert time.monotonic() - started < 5  # it ended, well before its timeout
    assert b"event: error" in rest and b"token_revoked" in rest
    stream.close()
