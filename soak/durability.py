"""Valkey SIGKILL/restart cycles under load: no acknowledged move is lost.

The long version of ``tests/reliability/test_durability.py``, with its
``Player`` threads: all-human games played through the API (in process, real
Redis) as fast as they go while the private server (AOF, ``appendfsync
always``) is SIGKILLed at random points and restarted on the same port from
the same data directory. After every restart every move that got a 2xx must
still be stored, in order, and every stream gapless.
"""
from __future__ import annotations

import logging
import random
import tempfile
import time
from pathlib import Path

from api import create_app
from bench.measure import percentile
from stich.redis_server import PrivateRedis
from tests.reliability.test_durability import Player

from . import Violation


def run(cycles: int, say, players: int = 2, seed: int = 2026) -> dict:
    rng = random.Random(seed)
    # Every kill makes the requests in flight answer 503 storage_unavailable, each logged as a
    # warning; the players count them as unacknowledged attempts instead.
    api_log = logging.getLogger("stich.api")
    level = api_log.level
    api_log.setLevel(logging.ERROR)
    try:
        return kill_under_load(cycles, say, players, seed, rng)
    finally:
        api_log.setLevel(level)


def kill_under_load(cycles: int, say, players: int, seed: int, rng: random.Random) -> dict:
    with tempfile.TemporaryDirectory(prefix="soak-durability-") as tmp:
        server = PrivateRedis(data_dir=str(Path(tmp) / "data"), fsync="always").start()
        app = create_app(server.url, bots="inline")
        store = app.extensions["stich"].store
        load = [Player(app, seed=seed + number) for number in range(players)]
        for player in load:
            player.start()
        restarts, event_checks, games_checked, started = [], 0, 0, time.monotonic()
        try:
            for cycle in range(1, cycles + 1):
                time.sleep(rng.uniform(0.05, 0.4))
                server.kill()  # SIGKILL, mid-append or not
                time.sleep(rng.uniform(0.0, 0.1))
                began = time.monotonic()
                server.restart(timeout=60)  # the AOF grows with every cycle, and so does its replay
                restarts.append(time.monotonic() - began)
                # What was acknowledged before the read: later moves are rightly not in it yet.
                acknowledged = {game_id: list(acked) for player in load for game_id, acked in list(player.acked.items())}
                for game_id, acked in acknowledged.items():
                    event_checks += check_game(store, game_id, acked, cycle)
                games_checked = len(acknowledged)
                if cycle == 1 or cycle % max(1, cycles // 20) == 0 or cycle == cycles:
                    say(f"cycle {cycle}/{cycles}: {sum(p.ok for p in load)} moves acknowledged, "
                        f"{games_checked} games and {event_checks} event checks clean, "
                        f"restart p50 {percentile(restarts, 50) * 1000:.0f} ms")
        finally:
            for player in load:
                player.stop.set()
            for player in load:
                player.join(timeout=10)
            server.stop()
    moves = sum(p.ok for p in load)
    if moves < max(10, cycles):
        raise Violation(f"only {moves} moves were acknowledged over {cycles} cycles: too few to prove anything")
    return {"cycles": cycles, "players": players, "acknowledged_moves": moves,
            "acknowledged_events": sum(len(a) for p in load for a in p.acked.values()),
            "games": games_checked, "event_checks": event_checks, "lost": 0,
            "unacknowledged_attempts": sum(len(p.errors) for p in load),
            "restart_p50_ms": round(percentile(restarts, 50) * 1000, 1),
            "restart_max_ms": round(max(restarts) * 1000, 1),
            "duration_s": round(time.monotonic() - started, 1)}


def check_game(store, game_id: str, acked: list[tuple[int, str, str]], cycle: int) -> int:
    """Every acknowledged event of the game stored as acknowledged, the stream gapless; how many were checked."""
    stored = store.read(game_id)
    if [e.seq for e in stored] != list(range(1, len(stored) + 1)):
        raise Violation(f"cycle {cycle}: game {game_id} has a gap: seqs {[e.seq for e in stored][:50]}…")
    by_seq = {e.seq: (e.seq, e.type, e.at) for e in stored}
    for event in acked:
        if by_seq.get(event[0]) != event:
            raise Violation(f"cycle {cycle}: acknowledged event lost in game {game_id}: {event}; "
                            f"stored {by_seq.get(event[0])}, stream length {len(stored)}")
    return len(acked)
