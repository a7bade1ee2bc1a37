"""``python -m bench.sweep [--games 10000] [--due 0,10,100] [--passes 20] [--scan-passes 3]``

What one sweeper pass costs with many active games and few due bot turns:
the due-time index (``workers/sweeper.py``) against the scan it replaced
(every active game loaded every pass, kept here as ``scan_once``), side by
side on the same games in one private Redis.

The games are made cheaply: two template games are played through the real
command handler — one where only the human is to act, one where both bots are
due — and copied by appending their events to new ids and listing the copies
in the game list (no HTTP). For ``k`` due turns the active list holds
``games - k`` human-to-act copies and ``k`` bot-due copies, and the due-time
index holds the ``k`` turns, overdue. No worker runs, so the due turns stay
due and every pass finds them again (the sweeper's clock is moved on past
each lease).

Per pass: wall time, round trips to Redis (client side: one per command or
pipeline), commands Redis executed (``INFO commandstats``, the commands of
scripts included), games loaded, jobs queued. The server runs as ``stich
serve``'s (AOF, ``appendfsync always``) while measuring; it is filled with
``everysec``.
"""
from __future__ import annotations

import argparse
import json
import logging
import secrets
import statistics
import sys
import time
from datetime import datetime

import redis
from rq import Queue
from rq.serializers import JSONSerializer

from domain.registry import all_games
from domain.table import Table
from eventstore.handler import CommandHandler, Loaded, UnknownGame
from eventstore.index import GameIndex
from eventstore.schedule import Entry, Schedule
from eventstore.store import EventStore
from stich.redis_server import PrivateRedis
from workers.bot_turn import play_bot_turn
from workers.dispatch import RQDispatcher, due_bot_seats, enqueue_turn
from workers.sweeper import BotSchedule, Sweeper

IDLE_AFTER = 3.0
SEATS = [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}]


class CountingConnection(redis.Connection):
    """Counts round trips: a command or a whole pipeline is one ``send_packed_command``."""

    sent = 0

    def send_packed_command(self, command, check_health=True):
        CountingConnection.sent += 1
        super().send_packed_command(command, check_health)


def server_commands(admin: redis.Redis) -> int:
    """Commands executed so far, less the INFO calls that ask."""
    stats = admin.info("commandstats")
    return sum(v["calls"] for k, v in stats.items() if k != "cmdstat_info")


def event_age(at: str, now: float) -> float:
    return now - datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp()


def scan_once(handler: CommandHandler, index: GameIndex, queue, idle_after: float, now: float) -> int:
    """The sweeper before the due-time index, as it was: load every active game, every pass."""
    queued = 0
    for game_id in index.ids(status="active"):
        try:
            loaded = handler.load(game_id)
        except UnknownGame:
            continue
        seats = due_bot_seats(handler, loaded)
        if not seats:
            continue
        last = handler.store.read(loaded.game_id, after=loaded.seq - 1)
        age = event_age(last[-1].at, now) if last else 0.0
        if age < idle_after:
            continue
        window = int(age // idle_after)
        for seat in seats:
            enqueue_turn(queue, loaded.game_id, seat, loaded.seq, retry=str(window))
            queued += 1
    return queued


class Bench:
    def __init__(self, url: str):
        pool = redis.ConnectionPool.from_url(url, connection_class=CountingConnection, max_connections=8)
        self.client = redis.Redis(connection_pool=pool)
        self.admin = redis.Redis.from_url(url)
        self.store = EventStore(self.client)
        self.index = GameIndex(self.client)
        self.schedule = Schedule(self.client)
        self.table = Table(all_games())
        self.queue = Queue("bench-sweep-" + secrets.token_hex(4), connection=self.client, serializer=JSONSerializer)
        self.loads = 0
        self.members: dict[str, str] = {}  # game id -> its member in the game list's sets

    def handler(self, schedule: bool = True) -> CommandHandler:
        """A worker's handler (the production listeners and cache size), counting its loads.
        ``schedule=False``: without the due-time index's listener, as before it existed."""
        dispatcher = RQDispatcher(self.queue)
        scheduling = [BotSchedule(self.schedule, self.table, IDLE_AFTER)] if schedule else []
        handler = CommandHandler(self.store, self.table, listeners=[self.index, *scheduling, dispatcher])
        dispatcher.handler = handler
        real = handler.load

        def load(game_id, fresh=True):
            self.loads += 1
            return real(game_id, fresh)

        handler.load = load
        return handler

    def templates(self) -> tuple[str, str]:
        handler = self.handler()
        due = handler.create("scharfe-schoten", 3, {}, SEATS, None).game_id
        handler.execute(due, None, {"type": "take_seat", "seat": 0})
        human = handler.create("scharfe-schoten", 3, {}, SEATS, None).game_id
        handler.execute(human, None, {"type": "take_seat", "seat": 0})
        for seat in (1, 2):
            play_bot_turn(human, seat, self.store.seq(human), handler=handler)
        assert due_bot_seats(handler, handler.load(due)) == [1, 2]
        assert sorted(self.table.to_act(handler.load(human).state)) == [0]
        return human, due

    def clone(self, template_id: str, count: int) -> list[str]:
        """Copies of a game: its events appended to new ids, listed in the game list."""
        events = self.store.read(template_id)
        payloads = [fields[b"e"] for _, fields in self.client.xrange(self.store.keys(template_id).events)]
        state = self.handler().load(template_id).state
        ids = []
        for _ in range(count):
            game_id = secrets.token_hex(8)
            self.store.append(game_id, payloads, expected_seq=0)
            self.index(Loaded(game_id, state, len(events)), events)
            self.members[game_id] = self.index.member({"created_at": events[0].at, "id": game_id})
            ids.append(game_id)
        return ids

    def list_active(self, listed: list[str], unlisted: list[str]) -> None:
        """Which copies the active list holds, so every scenario has the same number of active games."""
        key = self.index.order_key(status="active")
        pipe = self.admin.pipeline(transaction=False)
        for i in range(0, max(len(listed), len(unlisted)), 1000):
            if unlisted[i:i + 1000]:
                pipe.zrem(key, *(self.members[g] for g in unlisted[i:i + 1000]))
            if listed[i:i + 1000]:
                pipe.zadd(key, {self.members[g]: 0 for g in listed[i:i + 1000]})
        pipe.execute()

    def passes(self, run, count: int) -> dict:
        """``run(i)`` ``count`` times, each measured; the figures of the median pass and of the first."""
        rows = []
        for i in range(count):
            self.loads = 0
            trips, commands = CountingConnection.sent, server_commands(self.admin)
            start = time.perf_counter()
            queued = run(i)
            elapsed = time.perf_counter() - start
            rows.append({"ms": elapsed * 1000, "round_trips": CountingConnection.sent - trips,
                         "redis_commands": server_commands(self.admin) - commands, "games_loaded": self.loads,
                         "jobs_queued": queued})
        median = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
        return {"passes": count, "median": median, "first": rows[0], "max_ms": max(r["ms"] for r in rows)}


def listener_cost(bench: Bench, games: int) -> dict:
    """What the listener adds to a move: whole one-round games with two bots, every move made
    through the handler (the seat to act plays its first legal command), games with and
    without the listener alternating."""
    moves = {"with": [], "without": []}
    for i in range(2 * games):
        variant = "with" if i % 2 else "without"
        handler = bench.handler(schedule=variant == "with")
        game_id = handler.create("scharfe-schoten", 3, {"rounds": 1}, SEATS, None).game_id
        handler.execute(game_id, None, {"type": "take_seat", "seat": 0})
        loaded = handler.load(game_id)
        for _ in range(500):  # bounded: a one-round game has far fewer moves
            if loaded.state.status == "finished":
                break
            seat = min(bench.table.to_act(loaded.state))
            trips, start = CountingConnection.sent, time.perf_counter()
            loaded = handler.execute(game_id, seat, bench.table.legal_commands(loaded.state, seat)[0]).loaded
            moves[variant].append((time.perf_counter() - start, CountingConnection.sent - trips))
    return {variant: {"moves": len(rows), "ms_mean": statistics.mean(r[0] for r in rows) * 1000,
                      "ms_median": statistics.median(r[0] for r in rows) * 1000,
                      "round_trips_mean": statistics.mean(r[1] for r in rows)} for variant, rows in moves.items()}


def run(games: int, due_counts: list[int], passes: int, scan_passes: int, progress) -> dict:
    server = PrivateRedis(fsync="everysec").start()
    try:
        bench = Bench(server.url)
        human, due = bench.templates()
        top = max(due_counts)
        progress(f"copying {games} + {top} games")
        started = time.perf_counter()
        humans = bench.clone(human, games)
        dues = bench.clone(due, top)
        bench.admin.zrem(bench.index.order_key(status="active"), *(
            bench.index.member(bench.index.get(g)) for g in (human, due)))  # only copies are measured
        fill_s = time.perf_counter() - started
        progress(f"copied in {fill_s:.1f}s; measuring with appendfsync always")
        bench.admin.config_set("appendfsync", "always")
        out = {"games": games, "idle_after_s": IDLE_AFTER, "fill_s": round(fill_s, 1), "scenarios": {}}
        for k in due_counts:
            bench.list_active(humans[k:] + dues[:k], humans[:k] + dues[k:])
            assert bench.admin.zcard(bench.index.order_key(status="active")) == games
            bench.admin.delete(bench.schedule.key)
            t0 = time.time()
            for g in dues[:k]:
                bench.schedule.add(Entry("bot", g, bench.store.seq(g)), t0 - 1)
            sweeper = Sweeper(bench.handler(), bench.schedule, bench.queue, idle_after=IDLE_AFTER)
            # Each pass IDLE_AFTER + 1 s later on the sweeper's clock: every lease has ended, the turns are due again.
            new = bench.passes(lambda i, sweeper=sweeper, t0=t0: sweeper.sweep_once(now=t0 + i * (IDLE_AFTER + 1)),
                               passes)
            progress(f"{k} due: due-time index {new['median']['ms']:.2f} ms/pass; scanning")
            handler = bench.handler()
            old = bench.passes(lambda i, handler=handler, t0=t0: scan_once(
                handler, bench.index, bench.queue, IDLE_AFTER, t0 + 3600 + i * (IDLE_AFTER + 1)), scan_passes)
            progress(f"{k} due: scan {old['median']['ms']:.0f} ms/pass")
            assert new["median"]["jobs_queued"] == old["median"]["jobs_queued"] == 2 * k
            out["scenarios"][str(k)] = {"due_index": new, "scan": old}
        bench.admin.delete(bench.schedule.key)
        backfill = bench.passes(lambda i: Sweeper(bench.handler(), bench.schedule, bench.queue,
                                                  idle_after=IDLE_AFTER).backfill(bench.index), 1)
        out["backfill"] = backfill["first"]
        progress("the listener's cost per move")
        out["listener"] = listener_cost(bench, 20)
        return out
    finally:
        server.stop()


def table(result: dict) -> str:
    lines = [f"{result['games']} active games; per sweeper pass (median; first pass in brackets)",
             f"{'due':>5} {'sweeper':<10} {'ms':>16} {'round trips':>18} {'redis cmds':>18} {'loaded':>8} {'queued':>7}"]
    for k, both in result["scenarios"].items():
        for name, key in (("due index", "due_index"), ("scan", "scan")):
            m, f = both[key]["median"], both[key]["first"]
            lines.append(f"{k:>5} {name:<10} {m['ms']:>8.2f} ({f['ms']:>6.1f}) {m['round_trips']:>9.0f} "
                         f"({f['round_trips']:>6}) {m['redis_commands']:>9.0f} ({f['redis_commands']:>6}) "
                         f"{m['games_loaded']:>8.0f} {m['jobs_queued']:>7.0f}")
    b = result["backfill"]
    lines.append(f"backfill pass (at a worker's start, at most one per 10 min): {b['ms']:.0f} ms, "
                 f"{b['round_trips']} round trips, {b['redis_commands']} redis cmds, {b['games_loaded']} games loaded, "
                 f"{b['jobs_queued']} entries added")
    lines.append("a move in a game with bots, through the handler (appendfsync always):")
    for variant, row in result["listener"].items():
        lines.append(f"  {variant:<8} the due-time listener: {row['ms_mean']:.2f} ms mean, {row['ms_median']:.2f} ms median, "
                     f"{row['round_trips_mean']:.2f} round trips ({row['moves']} moves)")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sweep", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10_000, help="active games (default 10,000)")
    parser.add_argument("--due", default="0,10,100", help="due bot turns per scenario (default 0,10,100)")
    parser.add_argument("--passes", type=int, default=20, help="passes of the due-time sweeper per scenario")
    parser.add_argument("--scan-passes", type=int, default=3, help="passes of the old scan per scenario")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    due_counts = [int(x) for x in args.due.split(",")]
    started = time.monotonic()

    def progress(text: str) -> None:
        print(f"  {time.monotonic() - started:6.1f}s  {text}", file=sys.stderr, flush=True)

    logging.getLogger("stich.sweeper").setLevel(logging.ERROR)  # a re-drive is logged; here they are the point
    result = run(args.games, due_counts, args.passes, args.scan_passes, progress)
    print(table(result))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
