"""The archiver killed at random points, and the database with it: no game is ever in neither place, and in
the end every game is read exactly once, as it was, and its export verifies (``workers/archiver.py``).

The archiver runs in a child process of its own, archiving a few games a pass, and is SIGKILLed after a random
delay, round after round. Its release step is slowed a little (in the child only), so that kills land between
the archive's commit and the release as well as inside the database's transaction and between games. With
PostgreSQL the database side is killed too: in every other round, every server process serving the archive's
database is terminated (``pg_terminate_backend``) again and again at random intervals, which is what the
archiver sees of a database that goes down mid-transaction (or between two: the pool's pre-ping then
reconnects). An embedded SQLite dies with the process that holds it, which the kills are.
"""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time

import pytest
import sqlalchemy as sa

from domain.audit import verify_text
from workers.archiver import Archiver

from ..databases import fresh_database

GAMES = 24
ROUNDS = 10

CHILD = r"""
import random, sys, time
from workers.archiver import Archiver
from workers.context import build_runtime

redis_url, database_url, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = random.Random(seed)
runtime = build_runtime(redis_url, bots="inline", database_url=database_url)
archiver = Archiver(runtime.handler, runtime.archive, runtime.index, after_s=0)
release = archiver._release

def slow_release(game_id):  # widens the window between the commit and the release, where a kill matters most
    time.sleep(rng.uniform(0.02, 0.08))
    release(game_id)

archiver._release = slow_release
print("ready", flush=True)
while True:
    try:
        done = archiver.pass_once(limit=3)
    except Exception as exc:  # the database went away: as the worker's loop does, try again
        print("pass failed:", type(exc).__name__, flush=True)
        time.sleep(0.05)
        continue
    if not done["archived"] and not done["released"]:
        break
print("done", flush=True)
"""


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'history.sqlite3'}"
        return
    with fresh_database() as url:
        yield url


def terminate_backends(database_url: str, stop: threading.Event, rng: random.Random, killed: list[int]) -> None:
    """Every PostgreSQL server process serving this database, killed (as a crashed server drops them), every
    few milliseconds until ``stop``; how many each time goes to ``killed``."""
    url = sa.engine.make_url(database_url)
    admin = sa.create_engine(url.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        while not stop.wait(rng.uniform(0.005, 0.03)):
            killed.append(len(connection.execute(sa.text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :name "
                "AND pid <> pg_backend_pid()"), {"name": url.database}).all()))
    admin.dispose()


def where(rt, game_id: str) -> tuple[bool, bool]:
    """(in Redis, in the archive)."""
    return bool(rt.store.redis.exists(rt.store.keys(game_id).events)), rt.archive.has(game_id)


def test_killed_archivers_and_databases_leave_every_game_readable_exactly_once(redis_url, database_url):
    from api import create_app

    app = create_app(redis_url, bots="inline", database_url=database_url)
    rt = app.extensions["stich"]
    client = app.test_client()
    rng = random.Random(41)
    kinds = (("scharfe-schoten", 3, {"rounds": 1}), ("schafkopf", 4, {"deals": 1}), ("scharwenzel", 4, {"deals": 1}))
    ids = []
    for number in range(GAMES):
        game, players, rules = kinds[number % 3]
        ids.append(rt.handler.create(game, players, rules, [{"kind": "bot", "bot": "random"}] * players,
                                     None).game_id)
    before = {game_id: client.get(f"/v1/games/{game_id}/export").get_data(as_text=True) for game_id in ids}
    assert all(json.loads(text.splitlines()[-1])["type"] == "SeedRevealed" for text in before.values())

    postgres = database_url.startswith("postgresql")
    env = {**os.environ, "PYTHONSAFEPATH": "1"}
    seen, killed = {"both": 0, "failed_passes": 0}, []
    for round_ in range(ROUNDS):
        child = subprocess.Popen([sys.executable, "-c", CHILD, redis_url, database_url, str(round_)], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert child.stdout.readline().strip() == "ready"
        killer, stop = None, threading.Event()
        if postgres and round_ % 2:
            killer = threading.Thread(target=terminate_backends,
                                      args=(database_url, stop, random.Random(round_), killed))
            killer.start()
        time.sleep(rng.uniform(0.02, 0.4))
        child.send_signal(signal.SIGKILL)
        output = child.communicate(timeout=30)[0]
        stop.set()
        if killer is not None:
            killer.join()
        seen["failed_passes"] += output.count("pass failed")
        rt.archive._cache.clear()
        for game_id in ids:
            in_redis, in_archive = where(rt, game_id)
            assert in_redis or in_archive, f"round {round_}: game {game_id} is in neither Redis nor the archive"
            seen["both"] += in_redis and in_archive
    # Then one archiver that is left alone finishes what the killed ones left.
    archiver = Archiver(rt.handler, rt.archive, rt.index, after_s=0)
    while any(archiver.pass_once().values()):
        pass
    assert seen["both"] > 0, "no kill landed between a commit and its release: the test proved less than it says"
    if postgres:
        assert sum(killed) > 0 and seen["failed_passes"] > 0, "no pass met a killed database"

    rt.archive._cache.clear()
    for game_id in ids:
        rt.handler.forget(game_id)
        assert where(rt, game_id) == (False, True)
        text = client.get(f"/v1/games/{game_id}/export").get_data(as_text=True)
        assert text == before[game_id]  # read as it was
        report = verify_text(rt.handler.table, text)
        assert report.ok, report.lines()
    with rt.archive.engine.connect() as connection:  # one row a game, every one released
        rows = connection.execute(sa.text("SELECT game_id, released FROM archive")).all()
    assert sorted(row[0] for row in rows) == sorted(ids) and all(row[1] for row in rows)
    months = {json.loads(text.splitlines()[-1])["at"][:7] for text in before.values()}
    exported = []
    for month in months:
        body = client.get(f"/v1/exports?month={month}&limit=1000").get_data(as_text=True)
        exported += [json.loads(line)["game_id"] for line in body.splitlines() if '"format":"stich-export"' in line]
    assert sorted(exported) == sorted(ids)  # every game exactly once
    rt.history.engine.dispose()
