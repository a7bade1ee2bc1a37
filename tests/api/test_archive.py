"""History beyond memory (eventstore/archive.py, workers/archiver.py): a finished game moves from Redis into the
database, and every read answers exactly as it did - the same checks on the game live and archived; its keys
leave Redis only after the archive's commit, and a crash between the two leaves both, never neither."""
from __future__ import annotations

import io
import json
import random
import secrets

import pytest

from domain.audit import verify_text
from workers.archiver import Archiver

from ..databases import fresh_database
from .play import auth, new_game, play_to_end

NDJSON = "application/x-ndjson"


@pytest.fixture(params=["sqlite", "postgres"])
def archive_app(request, redis_url, tmp_path):
    """The archive in the SQLite default and in a real PostgreSQL alike."""
    from api import create_app

    if request.param == "sqlite":
        yield create_app(redis_url, bots="inline", database_url=f"sqlite:///{tmp_path / 'history.sqlite3'}")
        return
    with fresh_database() as url:
        app = create_app(redis_url, bots="inline", database_url=url)
        yield app
        app.extensions["stich"].history.engine.dispose()


def observe(client, game_id: str, token: str, seq: int) -> dict:
    """Every read of a finished game, as a client and an auditor make them (the analysis first: once made,
    the transcript shows it)."""
    analysis = client.post(f"/v1/games/{game_id}/analysis")
    out = {"analysis": {k: v for k, v in analysis.get_json().items() if k != "updated_at"},
        "summary": client.get(f"/v1/games/{game_id}").get_json(),
        "view": client.get(f"/v1/games/{game_id}/view", headers=auth(token)).get_json(),
        "spectator": client.get(f"/v1/games/{game_id}/view").get_json(),
        "events": client.get(f"/v1/games/{game_id}/events").get_json(),
        "later_events": client.get(f"/v1/games/{game_id}/events?after=5&limit=7").get_json(),
        "long_poll": client.get(f"/v1/games/{game_id}/events?after={seq}&wait=1").get_json(),
        "export": client.get(f"/v1/games/{game_id}/export").get_data(as_text=True),
        "transcript": client.get(f"/v1/games/{game_id}/transcript").get_data(as_text=True),
        "stream": client.get(f"/v1/games/{game_id}/events/stream?timeout=5").get_data(as_text=True),
        "past": [client.get(f"/v1/games/{game_id}/view?at={at}").get_json() for at in (1, seq // 2, seq)],
    }
    return out


def scraped(client) -> dict[str, float]:
    """The archive's series in GET /metrics."""
    text = client.get("/metrics").get_data(as_text=True)
    return {name: float(value) for name, value in
            (line.split(" ") for line in text.splitlines() if line.startswith("stich_archive"))}


def test_every_read_of_a_finished_game_answers_the_same_once_it_is_archived(archive_app):
    client = archive_app.test_client()
    rt = archive_app.extensions["stich"]
    game_id, tokens = new_game(client, game="scharfe-schoten", players=3, rules={"rounds": 1})
    play_to_end(client, game_id, tokens, rng=random.Random(11))
    seq = client.get(f"/v1/games/{game_id}").get_json()["seq"]
    live = observe(client, game_id, tokens[0], seq)
    assert live["summary"]["status"] == "finished" and live["stream"].count("\nid: ") == seq
    keys = [k for k in rt.store.keys(game_id).all() if rt.store.redis.exists(k)]
    assert keys  # its stream, secret, credentials... are in Redis

    before = scraped(client).get("stich_archived_games_total", 0)  # the store may be shared with other tests
    done = Archiver(rt.handler, rt.archive, rt.index, after_s=0).pass_once()
    assert done["archived"] >= 1
    metrics = scraped(client)
    assert metrics["stich_archived_games_total"] - before == done["archived"] and metrics["stich_archive_backlog"] == 0
    assert metrics["stich_archive_oldest_due_seconds"] == 0 and metrics["stich_archive_pass_timestamp_seconds"] > 0
    assert not any(rt.store.redis.exists(k) for k in rt.store.keys(game_id).all())  # Redis let it go
    listed = client.get("/v1/games?status=finished&limit=100").get_json()["games"]
    assert game_id not in {entry["id"] for entry in listed}  # and the lobby too; its id still reads it
    rt.handler.forget(game_id)  # as a fresh process would: nothing of it in this one's cache
    rt.archive._cache.clear()
    archived = observe(client, game_id, tokens[0], seq)
    assert archived == live
    report = verify_text(rt.handler.table, archived["export"])
    assert report.ok, report.lines()
    # An export of it imported again answers the game it was imported as, archived or not
    imported = client.post("/v1/imports", data=live["export"], content_type=NDJSON)
    again = client.post("/v1/imports", data=archived["export"], content_type=NDJSON)
    assert imported.status_code in (200, 201) and again.status_code == 200
    assert again.get_json()["id"] == imported.get_json()["id"]


def test_a_crash_between_the_archives_commit_and_the_release_leaves_both_and_the_next_pass_finishes(archive_app,
                                                                                                     monkeypatch):
    client = archive_app.test_client()
    rt = archive_app.extensions["stich"]
    game_id, tokens = new_game(client, game="scharfe-schoten", players=3, rules={"rounds": 1})
    play_to_end(client, game_id, tokens, rng=random.Random(12))
    export = client.get(f"/v1/games/{game_id}/export").get_data(as_text=True)
    archiver = Archiver(rt.handler, rt.archive, rt.index, after_s=0)

    def crash(game_id):
        raise ConnectionError("the worker died here")

    monkeypatch.setattr(archiver, "_release", crash)
    with pytest.raises(ConnectionError):
        archiver.pass_once()
    monkeypatch.undo()
    assert rt.archive.has(game_id) and rt.store.redis.exists(rt.store.keys(game_id).events)  # in both
    assert client.get(f"/v1/games/{game_id}/export").get_data(as_text=True) == export
    assert archiver.pass_once()["released"] >= 1
    assert not rt.store.redis.exists(rt.store.keys(game_id).events)
    assert client.get(f"/v1/games/{game_id}/export").get_data(as_text=True) == export


def test_an_archive_that_is_down_stops_the_archiving_never_the_games(archive_app, monkeypatch):
    client = archive_app.test_client()
    rt = archive_app.extensions["stich"]
    game_id, tokens = new_game(client, game="scharfe-schoten", players=3, rules={"rounds": 1})
    play_to_end(client, game_id, tokens, rng=random.Random(13))

    def down(*args, **kwargs):
        raise OSError("the database is down")

    monkeypatch.setattr(rt.archive, "put", down)
    with pytest.raises(OSError):
        Archiver(rt.handler, rt.archive, rt.index, after_s=0).pass_once()
    assert rt.store.redis.exists(rt.store.keys(game_id).events)  # still in Redis, and read from there
    assert scraped(client)["stich_archive_backlog"] >= 1  # the scrape shows the games waiting
    assert client.get(f"/v1/games/{game_id}").get_json()["status"] == "finished"
    other, seats = new_game(client, game="scharfe-schoten", players=3, rules={"rounds": 1})
    assert play_to_end(client, other, seats, rng=random.Random(14)) > 0  # games go on


def split_exports(text: str) -> list[str]:
    """An exports stream cut into its games' exports: each starts at a header line."""
    games: list[list[str]] = []
    for line in text.splitlines():
        if '"format":"stich-export"' in line:
            games.append([])
        games[-1].append(line)
    return ["\n".join(lines) + "\n" for lines in games]


def test_a_players_games_export_as_one_stream_a_page_at_a_time_live_or_archived(archive_app):
    client = archive_app.test_client()
    rt = archive_app.extensions["stich"]
    player = client.post("/v1/players", json={"handle": f"x{secrets.token_hex(5)}"}).get_json()
    ids = []
    for n in range(3):
        game = client.post("/v1/games", json={"game": "scharfe-schoten", "players": 3, "rules": {"rounds": 1},
                                              "seats": [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}]})
        ids.append(game.get_json()["id"])
        client.post(f"/v1/games/{ids[-1]}/seats/0", headers=auth(player["token"]))
        play_to_end(client, ids[-1], {0: player["token"]}, rng=random.Random(20 + n))
    Archiver(rt.handler, rt.archive, rt.index, after_s=0).pass_once(limit=1)  # one of them archived, two live
    first = client.get(f"/v1/exports?player={player['handle']}&limit=2")
    assert first.status_code == 200 and first.headers["X-Games"] == "2"
    assert first.headers["Link"].endswith('>; rel="next"') and first.headers["X-Next-Cursor"]
    second = client.get(first.headers["Link"][1:first.headers["Link"].index(">")])
    assert second.headers["X-Games"] == "1" and "Link" not in second.headers
    exports = split_exports(first.get_data(as_text=True)) + split_exports(second.get_data(as_text=True))
    assert [json.loads(e.splitlines()[0])["game_id"] for e in exports] == ids  # in the order they finished
    for text in exports:
        report = verify_text(rt.handler.table, text)
        assert report.ok, report.lines()
        assert text == client.get(f"/v1/games/{json.loads(text.splitlines()[0])['game_id']}/export").get_data(
            as_text=True)
    month = json.loads(exports[0].splitlines()[1])["at"][:7]
    assert ids[0] in client.get(f"/v1/exports?month={month}&limit=1000").get_data(as_text=True)
    assert client.get("/v1/exports").status_code == 422 and client.get("/v1/exports?month=2026-13").status_code == 422


def test_a_duplicate_tournaments_bundle_is_the_same_once_its_tables_are_archived(archive_app, tmp_path):
    from stich.auditor import verify_export

    from .test_tournaments import run

    client = archive_app.test_client()
    rt = archive_app.extensions["stich"]
    tournament = run(client, game="scharfe-schoten", players=3, rounds=2, deals_per_table=1, duplicate=True,
                     participants=[{"kind": "bot", "bot": "random"}] * 6)
    tables = [table["game_id"] for round_ in tournament["schedule"] for table in round_["tables"]]
    live = client.get(f"/v1/tournaments/{tournament['id']}/export").get_data(as_text=True)
    for game_id in tables:  # the last round's tables wait for the round's end, which a worker's pass sees
        rt.recorder.record(game_id)
    archiver = Archiver(rt.handler, rt.archive, rt.index, after_s=0)
    while archiver.pass_once()["archived"]:
        pass
    assert len(tables) == 4 and all(rt.archive.has(game_id) for game_id in tables)
    assert not any(rt.store.redis.exists(rt.store.keys(game_id).events) for game_id in tables)
    for game_id in tables:
        rt.handler.forget(game_id)  # no process-held copy: the bundle reads the archive
    archived = client.get(f"/v1/tournaments/{tournament['id']}/export").get_data(as_text=True)
    assert archived == live
    path = tmp_path / "bundle.ndjson"
    path.write_text(archived)
    assert verify_export(str(path), None, out=io.StringIO(), err=io.StringIO()) == 0
