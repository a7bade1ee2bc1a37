"""In-process measurements: load cost against game length, memory per game, bot latency."""
from __future__ import annotations

import json
import random
import statistics
import time

import redis

from domain.bots import random_bot
from domain.bots.match import play
from domain.event import Event
from domain.registry import all_games
from domain.table import Table, TableState
from eventstore.handler import CommandHandler
from eventstore.store import EventStore
from workers.dispatch import InlineDispatcher

from .http_client import Client


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def grow_game(handler: CommandHandler, target: int, seed: int) -> str:
    """A Schafkopf session of four humans, driven with random legal moves through
    the real command handler until it has at least ``target`` events."""
    rng = random.Random(seed)
    game_id = handler.create("schafkopf", 4, {"deals": 400}, None, None).game_id
    for seat in range(4):
        handler.execute(game_id, None, {"type": "take_seat", "seat": seat})
    loaded = handler.load(game_id)
    while loaded.seq < target:
        seat = rng.choice(sorted(handler.table.to_act(loaded.state)))
        outcome = handler.execute(game_id, seat, rng.choice(handler.table.legal_commands(loaded.state, seat)))
        loaded = outcome.loaded
    return game_id


def replay_per_event(sessions: dict | None = None, repeats: int = 5) -> dict:
    """The fold alone (no store, no decoding): a long random session of each game, folded from
    its first event ``repeats`` times; the best time per event."""
    sessions = sessions or {"schafkopf": (4, {"deals": 40}), "scharwenzel": (4, {"deals": 40}),
                            "scharfe-schoten": (4, {"rounds": 12})}
    table = Table(all_games())
    out = {}
    for game, (players, rules) in sessions.items():
        events = json_round_trip(random_session(table, game, players, rules, seed=1))
        best = min(_timed(lambda: table.fold(TableState(), events)) for _ in range(repeats))
        out[game] = {"events": len(events), "us_per_event": best / len(events) * 1e6}
    return out


def _timed(work) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def random_session(table: Table, game: str, players: int, rules: dict, seed: int) -> list:
    """A whole game of random legal moves through the table, its seed and deals included."""
    seed_hex = random.Random(seed).randbytes(32).hex()
    _, events = play(table, game, players, rules, [random_bot.policy] * players, seed_hex, rng_seed=seed)
    return events


def json_round_trip(events: list) -> list:
    """The events as a load reads them back: data through JSON."""
    return [Event(e.type, json.loads(json.dumps(e.data)), e.visibility, e.v) for e in events]


def load_cost(redis_url: str, lengths=(50, 500, 5000), repeats: int = 30, progress=None) -> dict:
    store = EventStore(redis.Redis.from_url(redis_url))
    table = Table(all_games())
    builder = CommandHandler(store, table)
    out = {}
    for length in lengths:
        if progress:
            progress(f"growing a game to {length} events")
        game_id = grow_game(builder, length, seed=length)
        seq = store.seq(game_id)
        cold = []
        for _ in range(repeats):
            fresh = CommandHandler(store, table)  # no in-process cache: snapshot + events since
            start = time.perf_counter()
            fresh.load(game_id)
            cold.append(time.perf_counter() - start)
        start = time.perf_counter()
        table.fold(TableState(), (e.to_domain() for e in store.read(game_id)))  # what a load costs without snapshots
        replay = time.perf_counter() - start
        out[str(length)] = {"events": seq, "load_ms_median": statistics.median(cold) * 1000,
                            "load_ms_p95": percentile(cold, 95) * 1000, "full_replay_ms": replay * 1000}
    return out


def memory_per_game(redis_url: str) -> dict:
    client = redis.Redis.from_url(redis_url)
    store = EventStore(client)
    dispatcher = InlineDispatcher()
    handler = CommandHandler(store, Table(all_games()), listeners=[dispatcher])
    dispatcher.handler = handler
    out = {}
    for game, players, rules in (("scharfe-schoten", 3, {}), ("schafkopf", 4, {"deals": 8}),
                                 ("scharwenzel", 4, {"deals": 8})):
        seats = [{"kind": "bot", "bot": "random"}] * players
        game_id = handler.create(game, players, rules, seats, None).game_id
        keys = store.keys(game_id)
        redis_bytes = sum(client.memory_usage(k) or 0 for k in keys.all())
        stream_bytes = client.memory_usage(keys.events) or 0
        events = store.read(game_id)
        exported = len(json.dumps([e.for_viewer(None, True) for e in events], separators=(",", ":")))
        out[game] = {"events": len(events), "redis_bytes": redis_bytes, "stream_bytes": stream_bytes,
                     "redis_bytes_per_event": redis_bytes / len(events), "export_json_bytes": exported,
                     "redis_over_export": redis_bytes / exported}
    return out


def bot_latency(host: str, port: int, samples: int, progress=None) -> dict:
    """From a human's accepted move to the bot's answer being visible to a long poll."""
    client = Client(host, port)
    rng = random.Random(5)
    latencies: list[float] = []
    while len(latencies) < samples:
        seats = [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
        game_id = client.request("POST", "/v1/games", {"game": "scharfe-schoten", "players": 3, "seats": seats})[1]["id"]
        headers = {"Authorization": f"Bearer {client.request('POST', f'/v1/games/{game_id}/seats/0')[1]['token']}"}
        while len(latencies) < samples:
            _, view, _ = client.request("GET", f"/v1/games/{game_id}/view", headers=headers)
            if view["status"] == "finished":
                break
            if not view["legal"]:
                client.request("GET", f"/v1/games/{game_id}/events?after={view['seq']}&wait=5", headers=headers)
                continue
            status, answer, _ = client.request("POST", f"/v1/games/{game_id}/commands", rng.choice(view["legal"]), headers)
            sent = time.perf_counter()
            if status != 200 or answer["view"]["status"] != "active":
                continue
            if not any(s != 0 for s in answer["view"]["to_act"]):
                continue  # the human moves again: no bot turn to time
            _, page, _ = client.request("GET", f"/v1/games/{game_id}/events?after={answer['seq']}&wait=5", headers=headers)
            if page["events"] and page["events"][0]["actor"] != 0:
                latencies.append(time.perf_counter() - sent)
                if progress and len(latencies) % 20 == 0:
                    progress(f"bot answers timed: {len(latencies)}/{samples}")
    return {"samples": len(latencies), "p50_ms": percentile(latencies, 50) * 1000,
            "p99_ms": percentile(latencies, 99) * 1000}


def publish(result: dict, out: str | None) -> None:
    """A bench's result as JSON on stdout, and in ``out`` too when given."""
    text = json.dumps(result, indent=2)
    print(text)
    if out:
        with open(out, "w") as file:
            file.write(text + "\n")
