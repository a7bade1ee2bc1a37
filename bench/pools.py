"""``python -m bench.pools [--players 200] [--minutes 10] [--wait 20]``: quick play under load.

Starts a real ``stich serve`` (its private Redis, bot workers, the HTTP server) in a temporary directory,
registers ``--players`` simulated players, and lets each, for ``--minutes``: join a pool (one of the four,
at random; bots allowed for most), wait for its table with the long poll, play its game to the end with
random legal moves through its player token, and join again. Then it checks that **every join was seated
exactly once** (every seated entry names one game and seat, every game's seats name the players the
entries put there, no player sits at two open tables at once) and reports:

* the seating time, from the join's request to the answer that says seated: p50, p99, max, per pool;
* games opened, with and without bots, and moves made;
* the cost of a rating update: the server's history database re-rated from scratch in this process
  (``workers.rater.Rater.recompute``), ms per rating unit and per match;
* the server's CPU seconds.

The figures go to ``bench/results/pools-<time>.json``; a short run (``--players 12 --minutes 0.3``) is the
suite's smoke test (``tests/e2e/test_pools_bench.py``).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

from eventstore.history import History
from stich.redis_server import free_port
from workers.rater import Rater

from .http_client import HOST, Client
from .processes import children, cpu_seconds

ROOT = Path(__file__).resolve().parents[1]
POOLS = ("scharfe-schoten-3", "scharfe-schoten-4", "schafkopf", "scharwenzel")


def percentile(values: list[float], share: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


class Server:
    def __init__(self, wait_s: float, workers: int):
        self.dir = Path(tempfile.mkdtemp(prefix="stich-bench-pools-"))
        self.port = free_port()
        env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "QUEUE_URL", "STICH_DATABASE_URL")}
        # One machine plays every client: no per-address limits; a bot answers at once.
        env.update(STICH_REGISTRATION_LIMIT="0", STICH_RATE_LIMIT_TOKEN="0", STICH_RATE_LIMIT_ADDRESS="0",
                   STICH_CREATE_LIMIT="0", STICH_ACTIVE_GAMES_LIMIT="0", STICH_EVENTS_LIMIT="0",
                   STICH_STREAMS_LIMIT="0", STICH_POOL_WAIT=str(wait_s), STICH_LOG_LEVEL="ERROR")
        self.process = subprocess.Popen([sys.executable, "-m", "stich.cli", "serve", "--port", str(self.port),
                                         "--data-dir", str(self.dir / "data"), "--workers", str(workers)],
                                        env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        started = time.monotonic()
        for line in self.process.stdout:
            if "serving on" in line:
                break
            if time.monotonic() - started > 90:
                raise RuntimeError("stich serve did not start")
        threading.Thread(target=self.process.stdout.read, daemon=True).start()  # keep its pipe drained

    def cpu_s(self) -> float:
        return sum(cpu_seconds(pid) or 0.0 for pid in [self.process.pid, *children(self.process.pid)])

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()


class Player:
    def __init__(self, server: Server, number: int, deadline: float, rng: random.Random, log: list, lock):
        self.client = Client(HOST, server.port)
        self.deadline, self.rng, self.log, self.lock = deadline, rng, log, lock
        status, body, _ = self.client.request("POST", "/v1/players", {"handle": f"b{number}x{rng.randrange(10**6)}"})
        assert status == 201, body
        self.handle, self.auth = body["handle"], {"Authorization": f"Bearer {body['token']}"}
        self.moves = 0

    def run(self) -> None:
        while time.monotonic() < self.deadline:
            pool = self.rng.choice(POOLS)
            bots = self.rng.random() < 0.8  # most let bots fill an empty seat; some wait for people only
            started = time.monotonic()
            status, entry, _ = self.client.request("POST", f"/v1/pools/{pool}/entry", {"bots": bots},
                                                   headers=self.auth)
            if status != 201:
                raise AssertionError(f"join {pool}: {status} {entry}")
            while entry["status"] == "waiting" and time.monotonic() < self.deadline:
                _, entry, _ = self.client.request("GET", f"/v1/pools/{pool}/entry?wait=20", headers=self.auth)
            if entry["status"] == "waiting":  # the run is over: leave, so nobody is left waiting
                status, entry, _ = self.client.request("DELETE", f"/v1/pools/{pool}/entry", headers=self.auth)
                if status == 200:
                    with self.lock:
                        self.log.append({"handle": self.handle, "pool": pool, "left": True})
                    return
                _, entry, _ = self.client.request("GET", f"/v1/pools/{pool}/entry", headers=self.auth)
            seated_s = time.monotonic() - started
            with self.lock:
                self.log.append({"handle": self.handle, "pool": pool, "bots": bots, "seated_s": seated_s,
                                 "game_id": entry["game_id"], "seat": entry["seat"], "at": time.time()})
            self.play(entry["game_id"])

    def play(self, game_id: str) -> None:
        """Random legal moves until the game has finished (a long poll on the events while others move)."""
        for _ in range(5000):
            status, view, _ = self.client.request("GET", f"/v1/games/{game_id}/view", headers=self.auth)
            if status != 200:  # its table's players wait for it: try again, never walk away from a game
                time.sleep(0.2)
                continue
            if view["status"] == "finished":
                return
            if view["legal"]:
                command = self.rng.choice(view["legal"])
                status, _, _ = self.client.request("POST", f"/v1/games/{game_id}/commands", command,
                                                   headers={**self.auth, "If-Match": f'"{view["seq"]}"',
                                                            "Prefer": "return=minimal"})
                self.moves += status == 200
            else:
                self.client.request("GET", f"/v1/games/{game_id}/events?after={view['seq']}&wait=10&limit=1",
                                    headers=self.auth)


def check_exactly_once(log: list[dict], server: Server) -> dict:
    """Every join seated once: one (game, seat) per seating, every game's seats naming those players."""
    seatings = [entry for entry in log if "game_id" in entry]
    places = [(e["game_id"], e["seat"]) for e in seatings]
    assert len(places) == len(set(places)), "a seat was handed out twice"
    client = Client(HOST, server.port)
    games: dict[str, dict] = {}
    for entry in seatings:
        games.setdefault(entry["game_id"], {})[entry["seat"]] = entry["handle"]
    bots = 0
    for game_id, seated in games.items():
        _, summary, _ = client.request("GET", f"/v1/games/{game_id}")
        players = {n: seat["player"] for n, seat in enumerate(summary["seats"]) if seat.get("player")}
        assert players == seated, f"game {game_id}: seats {players}, entries {seated}"
        bots += any(seat["kind"] == "bot" for seat in summary["seats"])
    return {"joins": len(log), "seated": len(seatings), "left": sum(1 for e in log if e.get("left")),
            "games": len(games), "games_with_bots": bots}


def rating_cost(server: Server) -> dict:
    """The server's history re-rated from scratch here: the cost of a rating update, per unit and match."""
    time.sleep(3)  # the workers record the last games and apply their units
    history = History.open(f"sqlite:///{server.dir / 'data' / 'stich.sqlite3'}")
    with history.engine.connect() as connection:
        import sqlalchemy as sa

        from eventstore.history import rating_changes, rating_units
        units = connection.execute(sa.select(sa.func.count()).select_from(rating_units)).scalar()
        changes = connection.execute(sa.select(sa.func.count()).select_from(rating_changes)).scalar()
    rater, spent, count = Rater(history), 0.0, 0
    for game in ("schafkopf", "scharwenzel", "scharfe-schoten"):
        started = time.perf_counter()
        count += rater.recompute(game)
        spent += time.perf_counter() - started
    return {"units": units, "changes": changes, "recomputed_units": count,
            "ms_per_unit": round(1000 * spent / count, 3) if count else None,
            "ms_per_change": round(1000 * spent / changes, 4) if changes else None}


def run(players: int, minutes: float, wait_s: float, workers: int, seed: int = 1) -> dict:
    server = Server(wait_s, workers)
    try:
        cpu_before = server.cpu_s()
        deadline = time.monotonic() + minutes * 60
        rng = random.Random(seed)
        log: list[dict] = []
        lock = threading.Lock()
        simulated = [Player(server, n, deadline, random.Random(rng.random()), log, lock) for n in range(players)]
        failures: list[str] = []

        def play(player: Player) -> None:
            try:
                player.run()
            except Exception as exc:  # noqa: BLE001 - reported, and the run fails
                failures.append(f"{player.handle}: {exc!r}")

        threads = [threading.Thread(target=play, args=(p,), daemon=True) for p in simulated]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=minutes * 60 + 600)
        elapsed = time.monotonic() - started
        assert not failures, failures[:5]
        checked = check_exactly_once(log, server)
        seated = [e["seated_s"] for e in log if "seated_s" in e]
        by_pool = {pool: [e["seated_s"] for e in log if e.get("pool") == pool and "seated_s" in e] for pool in POOLS}
        result = {
            "when": datetime.now(timezone.utc).isoformat(timespec="seconds"), "players": players,
            "minutes": minutes, "pool_wait_s": wait_s, "bot_workers": workers, "elapsed_s": round(elapsed, 1),
            **checked, "moves": sum(p.moves for p in simulated),
            "seating_s": {"p50": percentile(seated, 0.5), "p99": percentile(seated, 0.99),
                          "max": max(seated) if seated else None},
            "seating_s_by_pool": {pool: {"seated": len(v), "p50": percentile(v, 0.5), "p99": percentile(v, 0.99)}
                                  for pool, v in by_pool.items()},
            "server_cpu_s": round(server.cpu_s() - cpu_before, 1),
            "rating": rating_cost(server),
        }
        return result
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.pools", description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--wait", type=float, default=20.0, help="the pools' wait before bots fill a table (s)")
    parser.add_argument("--workers", type=int, default=1, help="bot workers beside the interactive one")
    args = parser.parse_args(argv)
    result = run(args.players, args.minutes, args.wait, args.workers)
    out = ROOT / "bench" / "results" / f"pools-{datetime.now(timezone.utc).strftime('%Y%m%dT%H%M%S')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
