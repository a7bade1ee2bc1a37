"""Quick play (api/pools.py, eventstore/pools.py, workers/matchmaker.py): players join a pool and are seated
first come, first seated, each exactly once; a rated game from a pool moves their ratings, which recompute
from scratch to the same values; bots fill the table of a player who waited; leaving is always possible;
a matcher that dies between a match and its game loses nobody."""
from __future__ import annotations

import random
import secrets
import time

import pytest
import sqlalchemy as sa

from eventstore.history import History, ratings
from eventstore.pools import POOL_WAIT_S, POOLS
from workers.rater import Rater
from workers.recorder import Recorder

from .play import auth, play_to_end


@pytest.fixture
def pool_app(redis_url, tmp_path):
    """An app of its own: its pools and history are this test's alone (a shared store has other players)."""
    from api import create_app

    prefix_app = create_app(redis_url, bots="inline", database_url=f"sqlite:///{tmp_path / 'history.sqlite3'}")
    # Pools live under one key space per prefix: give this app's a prefix of its own.
    rt = prefix_app.extensions["stich"]
    rt.pools.base = f"stich-test-{secrets.token_hex(4)}:{{pools}}"
    return prefix_app


def register(client) -> tuple[str, str]:
    answer = client.post("/v1/players", json={"handle": f"q{secrets.token_hex(5)}"}).get_json()
    return answer["handle"], answer["token"]


def test_four_players_join_a_pool_are_seated_once_play_a_rated_game_and_their_ratings_recompute(pool_app):
    client = pool_app.test_client()
    people = [register(client) for _ in range(4)]
    answers = [client.post("/v1/pools/schafkopf/entry", json={"bots": False}, headers=auth(token))
               for _, token in people]
    assert [a.status_code for a in answers] == [201] * 4, [a.get_json() for a in answers]
    assert [a.get_json()["status"] for a in answers] == ["waiting"] * 3 + ["seated"]  # the fourth fills the table
    entries = [client.get("/v1/pools/schafkopf/entry", headers=auth(token)).get_json() for _, token in people]
    [game_id] = {e["game_id"] for e in entries}
    assert sorted(e["seat"] for e in entries) == [0, 1, 2, 3]  # first come, first seated: one seat each
    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert summary["status"] == "active" and summary["rated"] and summary["rules"]["deals"] == POOLS["schafkopf"].rules["deals"]
    assert [s["player"] for s in summary["seats"]] == [handle for handle, _ in people]
    play_to_end(client, game_id, {e["seat"]: token for e, (_, token) in zip(entries, people)}, rng=random.Random(4))
    # Ratings moved, a change per deal that was played; the leaderboard and histories show it
    rt = pool_app.extensions["stich"]
    board = client.get("/v1/leaderboards/schafkopf").get_json()["entries"]
    assert {row["identity"] for row in board} >= {handle for handle, _ in people}
    for handle, _ in people:
        games = client.get(f"/v1/players/{handle}/games?game=schafkopf&rated=true").get_json()["games"]
        assert [g["game_id"] for g in games] == [game_id] and games[0]["origin"] == "pool:schafkopf"
    before = snapshot(rt.history)
    # From scratch: a new database, every finished game recorded again from the store, every rating recomputed
    fresh = History.open("sqlite://")
    recorder = Recorder(rt.handler, fresh, rt.tournaments, rt.pools.origin)
    assert recorder.record(game_id) == "recorded"
    Rater(fresh).apply_pending(settle_s=0)
    assert snapshot(fresh) == {k: v for k, v in before.items() if k in snapshot(fresh)}
    assert snapshot(fresh) == before  # this app's history holds only this game's players


def snapshot(history: History) -> dict:
    with history.engine.connect() as connection:
        return {(row.identity, row.game): (row.mu, row.sigma, row.matches)
                for row in connection.execute(sa.select(ratings))}


def test_a_player_alone_who_allows_bots_gets_a_table_after_the_wait_and_one_who_does_not_waits(pool_app):
    client = pool_app.test_client()
    rt = pool_app.extensions["stich"]
    (alone, token), (picky, picky_token) = register(client), register(client)
    assert client.post("/v1/pools/scharfe-schoten-3/entry", json={"bots": True}, headers=auth(token)).status_code == 201
    joined = rt.pools.entry(alone)["joined_at"]
    assert rt.matchmaker.pass_once(now=joined + POOL_WAIT_S - 1) == 0  # before the wait: nothing
    assert rt.matchmaker.pass_once(now=joined + POOL_WAIT_S + 0.1) == 1
    entry = client.get("/v1/pools/scharfe-schoten-3/entry", headers=auth(token)).get_json()
    assert entry["status"] == "seated" and entry["seat"] == 0
    seats = client.get(entry["url"]).get_json()["seats"]
    assert seats[0]["player"] == alone and [s["kind"] for s in seats[1:]] == ["bot", "bot"]
    # Without bots, a lone player waits on
    client.post("/v1/pools/scharfe-schoten-4/entry", json={"bots": False}, headers=auth(picky_token))
    assert rt.matchmaker.pass_once(now=time.time() + POOL_WAIT_S + 1) == 0
    assert client.get("/v1/pools/scharfe-schoten-4/entry", headers=auth(picky_token)).get_json()["status"] == "waiting"
    # ...and may always leave; then its entry says so, and it is in no queue
    left = client.delete("/v1/pools/scharfe-schoten-4/entry", headers=auth(picky_token))
    assert left.status_code == 200 and left.get_json()["status"] == "left"
    assert rt.pools.waiting("scharfe-schoten-4") == 0
    # A seated player cannot leave (its table is there), and a player waits in one pool at a time
    refused = client.delete("/v1/pools/scharfe-schoten-3/entry", headers=auth(token))
    assert refused.status_code == 409 and refused.get_json()["code"] == "already_seated"
    client.post("/v1/pools/scharfe-schoten-4/entry", headers=auth(picky_token))
    again = client.post("/v1/pools/scharfe-schoten-3/entry", headers=auth(picky_token))
    assert again.status_code == 409 and again.get_json()["code"] == "already_waiting"


def test_rating_ranges_keep_apart_who_asked_to_be_and_the_oldest_is_seated_first(pool_app):
    rt = pool_app.extensions["stich"]
    pool = POOLS["scharfe-schoten-3"]
    now = time.time()
    made = []
    # Five players, one rated far above the others with a narrow range: the other four fill a table of three
    # oldest first, and the strong one waits.
    for n, (rating, wanted) in enumerate([(0, None), (40, 5), (1, None), (2, None), (3, None)]):
        rt.pools.join(pool, f"r{n}x{secrets.token_hex(3)}", True, wanted, rating, now=now + n)
    rt.pools.match(pool, made.append, now=now + 5)
    [match] = made
    assert [h[:2] for h in match.players] == ["r0", "r2", "r3"]
    assert rt.pools.waiting(pool.name) == 2  # r1 (kept apart) and r4 (one short)


def test_a_matcher_that_dies_between_the_match_and_its_game_loses_nobody(pool_app, monkeypatch):
    client = pool_app.test_client()
    rt = pool_app.extensions["stich"]
    people = [register(client) for _ in range(3)]
    monkeypatch.setattr("workers.matchmaker.create_game", broken)
    for _, token in people:
        assert client.post("/v1/pools/scharfe-schoten-3/entry", json={"bots": False},
                           headers=auth(token)).status_code == 201
    entries = [rt.pools.entry(handle) for handle, _ in people]
    assert {e["status"] for e in entries} == {"matched"}  # out of the queue, bound to the match
    [game_id] = {e["game_id"] for e in entries}
    assert client.get(f"/v1/games/{game_id}").status_code == 404  # its game was not created
    # ...so their players still read "waiting": nobody learns of a table before it exists
    shown = client.get("/v1/pools/scharfe-schoten-3/entry", headers=auth(people[0][1])).get_json()
    assert shown["status"] == "waiting" and shown["game_id"] is None
    monkeypatch.undo()
    [pending] = rt.pools.pending()
    assert rt.matchmaker.pass_once(now=pending.created_at + 1) == 0 and rt.pools.pending()  # not yet given up
    rt.matchmaker.pass_once(now=pending.created_at + 6)
    assert not rt.pools.pending()
    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert summary["status"] == "active" and [s["player"] for s in summary["seats"]] == [h for h, _ in people]
    seated = [client.get("/v1/pools/scharfe-schoten-3/entry", headers=auth(t)).get_json() for _, t in people]
    assert [(e["status"], e["game_id"], e["seat"]) for e in seated] == [("seated", game_id, n) for n in range(3)]
    rt.matchmaker.pass_once(now=pending.created_at + 7)  # again: still one game, the same
    assert client.get(f"/v1/games/{game_id}").get_json()["seq"] == summary["seq"]


def broken(*args, **kwargs):
    raise RuntimeError("the matcher died")


def test_pool_routes_need_the_players_own_token(pool_app):
    client = pool_app.test_client()
    assert client.get("/v1/pools").get_json()["pools"][0]["pool"] == "schafkopf"
    assert client.post("/v1/pools/schafkopf/entry").get_json()["code"] == "missing_token"
    assert client.post("/v1/pools/nope/entry").get_json()["code"] == "unknown_pool"
    _, token = register(client)
    assert client.get("/v1/pools/schafkopf/entry", headers=auth(token)).get_json()["code"] == "no_entry"
    bad = client.post("/v1/pools/schafkopf/entry", json={"bots": "yes"}, headers=auth(token))
    assert bad.status_code == 422
