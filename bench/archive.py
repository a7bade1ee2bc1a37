"""``python -m bench.archive [--games 10000] [--database-url URL]``: history beyond memory, measured.

In one process, on a private Redis-compatible server (or ``REDIS_URL``) and a fresh history database (a
SQLite file in a temporary directory, or ``--database-url``, e.g. a PostgreSQL database), it

1. **plays** ``--games`` one-deal games of random bots (the three games in turn) through the command handler,
   each recorded in the history as it ends, **while the archiver** (``workers/archiver.py``, with
   ``STICH_ARCHIVE_AFTER`` 0) moves them out of Redis in a thread beside it; Redis' ``used_memory`` (after
   ``MEMORY PURGE``) is sampled before, during and after, and compared with what the same games would hold
   had they stayed (each game's keys measured with ``MEMORY USAGE`` before it was archived, on a sample);
2. reports the **archive's bytes a game**: the compressed events, and the table's whole size on disk where
   the database tells it (SQLite's file, PostgreSQL's ``pg_total_relation_size``);
3. times **exports** (``GET /v1/games/{id}/export``, in-process) of ``EXPORTS`` (200) fresh games live, then
   archived: the first read of each (the row fetched and parsed) and a second (the process' parsed copy).

The figures go to ``bench/results/archive-<time>.json``; a short run (``--games 60``) is the suite's smoke
test (``tests/e2e/test_archive_bench.py``).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import sqlalchemy as sa

from stich.redis_server import PrivateRedis
from workers.archiver import Archiver

ROOT = Path(__file__).resolve().parents[1]
GAMES = (("scharfe-schoten", 3, {"rounds": 1}), ("schafkopf", 4, {"deals": 1}), ("scharwenzel", 4, {"deals": 1}))
EXPORTS = 200
SAMPLE_EVERY = 50  # a game's Redis bytes are measured (MEMORY USAGE of its keys) for one game in this many


def used_memory(client) -> int:
    client.execute_command("MEMORY", "PURGE")
    return int(client.info("memory")["used_memory"])


def game_bytes(client, store, game_id: str) -> int:
    return sum(client.memory_usage(key) or 0 for key in store.keys(game_id).all())


def play(handler, number: int) -> str:
    game, players, rules = GAMES[number % len(GAMES)]
    return handler.create(game, players, rules, [{"kind": "bot", "bot": "random"}] * players, None).game_id


def archive_until_done(archiver: Archiver, stop: threading.Event, passes: list[float]) -> None:
    """The archiver's loop, without its 10 s pause: pass after pass while games are played."""
    while not stop.is_set():
        started = time.perf_counter()
        done = archiver.pass_once()
        passes.append(time.perf_counter() - started)
        if not done["archived"] and not done["released"]:
            stop.wait(0.2)


def export_ms(client, game_ids: list[str]) -> list[float]:
    out = []
    for game_id in game_ids:
        started = time.perf_counter()
        answer = client.get(f"/v1/games/{game_id}/export")
        body = answer.get_data()
        out.append((time.perf_counter() - started) * 1000)
        assert answer.status_code == 200 and body, (game_id, answer.status_code)
    return out


def summary(values: list[float]) -> dict:
    ordered = sorted(values)
    return {"p50": statistics.median(ordered), "p95": ordered[int(0.95 * (len(ordered) - 1))], "max": ordered[-1]}


def table_bytes(engine) -> int | None:
    if engine.dialect.name == "postgresql":
        with engine.connect() as connection:
            return int(connection.execute(sa.text("SELECT pg_total_relation_size('archive')")).scalar())
    return None


def run(games: int, database_url: str | None, say=print, exports: int = EXPORTS) -> dict:
    from api import create_app

    workdir = Path(tempfile.mkdtemp(prefix="stich-bench-archive-"))
    server = None
    redis_url = os.environ.get("REDIS_URL")
    if not redis_url:
        server = PrivateRedis(data_dir=str(workdir / "redis")).start()
        redis_url = server.url
    database_url = database_url or f"sqlite:///{workdir / 'history.sqlite3'}"
    try:
        app = create_app(redis_url, bots="inline", database_url=database_url)
        rt = app.extensions["stich"]
        client, store = rt.store.redis, rt.store
        archiver = Archiver(rt.handler, rt.archive, rt.index, after_s=0)
        for number in range(30):  # the structures every game shares exist before the baseline
            play(rt.handler, number)
        while archiver.pass_once()["archived"]:
            pass
        before = used_memory(client)
        say(f"baseline: used_memory {before / 1e6:.1f} MB; playing {games} games while the archiver runs")

        stop, passes = threading.Event(), []
        thread = threading.Thread(target=archive_until_done, args=(archiver, stop, passes), daemon=True)
        started = time.perf_counter()
        thread.start()
        sampled, peak, during = [], before, []
        try:
            for number in range(games):
                game_id = play(rt.handler, number)
                if number % SAMPLE_EVERY == 0:
                    if client.exists(store.keys(game_id).events):  # not archived yet: its keys as they were
                        sampled.append(game_bytes(client, store, game_id))
                if number % max(1, games // 20) == 0:
                    memory = int(client.info("memory")["used_memory"])
                    peak = max(peak, memory)
                    during.append({"games": number, "used_memory": memory})
                    say(f"{number} games, used_memory {memory / 1e6:.1f} MB")
            played_s = time.perf_counter() - started
        finally:
            stop.set()
            thread.join()
        while True:  # the rest of the backlog
            done = archiver.pass_once()
            if not done["archived"] and not done["released"]:
                break
        drained_s = time.perf_counter() - started
        after = used_memory(client)
        per_game = statistics.mean(sampled) if sampled else None
        sizes = rt.archive.sizes()
        sqlite_file = workdir / "history.sqlite3"

        # Exports: the same games live, then archived.
        say(f"exports of {exports} games, live then archived")
        fresh = [play(rt.handler, games + number) for number in range(exports)]
        http = app.test_client()
        live = export_ms(http, fresh)
        while archiver.pass_once()["archived"]:
            pass
        assert not any(client.exists(store.keys(game_id).events) for game_id in fresh)
        rt.archive._cache.clear()
        for game_id in fresh:
            rt.handler.forget(game_id)
        archived_cold = export_ms(http, fresh)
        archived_warm = export_ms(http, fresh)
        result = {
            "at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "database": rt.history.engine.dialect.name,
            "games": games,
            "seconds": {"played_while_archiving": round(played_s, 1), "until_archive_drained": round(drained_s, 1),
                        "games_per_s": round(games / played_s, 1), "archiver_passes": len(passes)},
            "redis": {"before_mb": before / 1e6, "peak_mb": peak / 1e6, "after_mb": after / 1e6,
                      "after_minus_before_bytes_per_game": (after - before) / games,
                      "finished_game_bytes_in_redis": per_game,
                      "would_hold_mb_without_archive": per_game * games / 1e6 if per_game else None,
                      "during": during},
            "archive": {"games": sizes["games"], "event_bytes_per_game": sizes["bytes"] / sizes["games"],
                        "stored_bytes_per_game": sizes["stored_bytes"] / sizes["games"],
                        "compression": sizes["bytes"] / sizes["stored_bytes"],
                        "table_bytes_per_game": (table_bytes(rt.history.engine) or 0) / sizes["games"] or None,
                        "sqlite_file_bytes_per_game": sqlite_file.stat().st_size / sizes["games"]
                        if sqlite_file.exists() else None},
            "export_ms": {"live": summary(live), "archived_first_read": summary(archived_cold),
                          "archived_again": summary(archived_warm),
                          "archived_first_over_live_p50": statistics.median(archived_cold) / statistics.median(live)},
        }
        rt.history.engine.dispose()
        return result
    finally:
        if server is not None:
            server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.archive", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--database-url", help="the history's database (default a SQLite file of the run's own)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    result = run(args.games, args.database_url, say=lambda line: print(f"bench.archive: {line}", flush=True))
    out = Path(args.out) / f"archive-{datetime.now(timezone.utc).strftime('%Y%m%dT%H%M%S')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print(json.dumps({k: v for k, v in result.items() if k != "redis"} | {
        "redis": {k: v for k, v in result["redis"].items() if k != "during"}}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
