"""The "streams at scale" phase: thousands of SSE subscribers and long polls while clients keep playing.

Two runs of equal duration, back to back, on the same server and the same games:

* **run A** — ``clients`` players (threads in one process) move in ``games``
  Scharfe Schoten games at a fixed total rate, and a prober GETs
  ``/v1/health`` at a steady rate (its own process, one keep-alive connection);
* **run B** — the same players and prober at the same pace, plus ``sse`` SSE
  subscribers and ``polls`` long pollers spread evenly over the games (half of
  them spectators, half with a seat token), and ``slow`` connections that send
  half a request head and never finish it (the server drops such a connection
  after its keep-alive timeout; a new one replaces it at once, so there are
  ``slow`` of them all through run B).

So the only difference between A and B is the subscribers, and B/A of the move
and health p99 is what they cost everyone else. The subscribers run in
``sub_procs`` processes of asyncio tasks speaking raw HTTP/1.1 over
``asyncio.open_connection`` (the project has no async HTTP client and needs
none); they are all connected and waiting before run B's clock starts.

After run B the final seq of every game is read and each subscriber must have
received exactly the seqs after its start seq up to that one, in order, with
no gaps and no duplicates (allowing ``grace`` seconds for delivery). Every
failed request (non-2xx, connection error, timeout, a stream that closed) of
players, prober and subscribers is counted per kind.

Delivery latency is the subscriber's receipt time of an event minus the time
the player that caused it received its 200 (both ``time.time()`` on this
machine); it can be slightly negative, as the server publishes an event before
the command's answer reaches the player.

The default move rate (50/s over 16 players) is what the reference 2-core
machine sustains in run B with the default 4,000 subscribers and CPU to spare
(about half the machine busy); at 100/s it is nearly saturated (p99 in the tens
of milliseconds). The load generator shares the machine with the server, so
each run also reports CPU seconds per process group (API workers, Redis, bot
workers, players, prober, subscribers), the time those processes spent
runnable but waiting for a CPU (``/proc/<pid>/task/*/schedstat``) and the
whole machine's busy/idle/steal time with an approximate ``not_this_bench``
share: a busy neighbour shows there, not only as worse latency.

Run only this phase with ``python -m bench --only streams`` (``--stream-*``
options size it; ``--short`` scales it down to a smoke run).
"""
from __future__ import annotations

import http.client
import multiprocessing
import random
import threading
import time
from array import array
from collections import Counter
from dataclasses import asdict
from pathlib import Path

from .http_client import HOST, Client
from .measure import percentile
from .processes import cpu_seconds, cpu_self, machine_cpu, open_fds, rss_mb, runqueue_wait_s
from .stream_config import StreamConfig
from .subscribers import subscriber_main



def _ms(values, q):
    found = percentile(values, q)
    return None if found is None else found * 1000


# --- setup -----------------------------------------------------------------------------------------------


def setup_games(port: int, count: int) -> list[dict]:
    """``count`` games of Scharfe Schoten, 3 human seats, 12 rounds, every seat taken (tokens kept)."""
    client = Client(HOST, port)
    games = []
    for _ in range(count):
        status, game, _ = client.request("POST", "/v1/games",
                                         {"game": "scharfe-schoten", "players": 3, "rules": {"rounds": 12}})
        if status != 201:
            raise RuntimeError(f"creating a game answered {status}: {game}")
        tokens = []
        for seat in range(3):
            status, body, _ = client.request("POST", f"/v1/games/{game['id']}/seats/{seat}")
            if status != 201:
                raise RuntimeError(f"taking seat {seat} answered {status}: {body}")
            tokens.append(body["token"])
        games.append({"id": game["id"], "tokens": tokens})
    return games


def game_states(port: int, games: list[dict]) -> list[dict]:
    """Each game's summary (``seq``, ``status``, ``to_act``) as it is now."""
    client = Client(HOST, port)
    out = []
    for game in games:
        status, body, _ = client.request("GET", f"/v1/games/{game['id']}")
        if status != 200:
            raise RuntimeError(f"reading game {game['id']} answered {status}: {body}")
        out.append(body)
    return out


# --- players and the health prober (run in a process pool) ----------------------------------------------


def run_players(port: int, games: list[dict], to_act: list[list[int]], clients: int, rate: float,
                start_at: float, duration: float, seed: int) -> dict:
    """``clients`` threads, each owning every ``clients``-th game and moving in them round-robin
    (view of a seat to act, then a random legal command), together at ``rate`` moves per second."""
    lock = threading.Lock()
    latencies: list[float] = []
    answered: list[float] = []  # time.time() of each command's answer, aligned with latencies
    view_latencies: list[float] = []
    failures: Counter = Counter()
    delivered_g, delivered_seq, delivered_t = array("i"), array("i"), array("d")
    counters = Counter()
    interval = clients / rate  # each client's share of the rate
    end = start_at + duration

    def play(index: int) -> None:
        rng = random.Random(seed * 1000 + index)
        client = Client(HOST, port)
        mine = [g for g in range(index, len(games), clients) if to_act[g]]
        acting = {g: list(to_act[g]) for g in mine}
        due = start_at + interval * index / clients  # staggered, so the clients do not move in lockstep
        turn = 0
        while mine:
            now = time.time()
            if due > now:
                time.sleep(due - now)
            elif now - due > interval:
                with lock:
                    counters["late"] += 1
                due = now  # behind: go on at the pace from here, no burst to catch up
            if due >= end:
                break
            due += interval
            g = mine[turn % len(mine)]
            turn += 1
            seat = rng.choice(acting[g])
            headers = {"Authorization": f"Bearer {games[g]['tokens'][seat]}"}
            path = f"/v1/games/{games[g]['id']}"
            try:
                status, view, elapsed = client.request("GET", path + "/view", headers=headers, retry=False)
            except (OSError, http.client.HTTPException) as exc:
                with lock:
                    failures[f"view {type(exc).__name__}"] += 1
                continue
            if status != 200:
                with lock:
                    failures[f"view {status}"] += 1
                continue
            with lock:
                view_latencies.append(elapsed)
            if not view["legal"]:  # cannot happen for a seat in to_act; refresh and go on
                acting[g] = view["to_act"] or acting[g]
                continue
            try:
                status, answer, elapsed = client.request("POST", path + "/commands", rng.choice(view["legal"]),
                                                         headers, retry=False)
            except (OSError, http.client.HTTPException) as exc:
                with lock:
                    failures[f"command {type(exc).__name__}"] += 1
                continue
            received = time.time()
            with lock:
                if status != 200:
                    failures[f"command {status}"] += 1
                    continue
                latencies.append(elapsed)
                answered.append(received)
                for event in answer["events"]:
                    delivered_g.append(g)
                    delivered_seq.append(event["seq"])
                    delivered_t.append(received)
            if answer["view"]["status"] != "active" or not answer["view"]["to_act"]:
                mine.remove(g)
                with lock:
                    counters["games_finished"] += 1
                continue
            acting[g] = answer["view"]["to_act"]

    cpu = cpu_self()
    threads = [threading.Thread(target=play, args=(i,), daemon=True) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(duration + 120)
    return {"latencies": latencies, "answered": answered, "view_latencies": view_latencies,
            "failures": dict(failures),
            "late": counters["late"], "games_finished": counters["games_finished"],
            "events": (delivered_g, delivered_seq, delivered_t), "cpu_s": cpu_self() - cpu}


def run_prober(port: int, rate: float, start_at: float, duration: float) -> dict:
    """GET /v1/health at a steady ``rate`` on one keep-alive connection."""
    client = Client(HOST, port)
    latencies: list[float] = []
    answered: list[float] = []
    failures: Counter = Counter()
    interval = 1 / rate
    due, end = start_at, start_at + duration
    cpu = cpu_self()
    while due < end:
        now = time.time()
        if due > now:
            time.sleep(due - now)
        due = max(due + interval, time.time() - interval)
        try:
            status, _, elapsed = client.request("GET", "/v1/health", retry=False)
        except (OSError, http.client.HTTPException) as exc:
            failures[type(exc).__name__] += 1
            continue
        if status == 200:
            latencies.append(elapsed)
            answered.append(time.time())
        else:
            failures[str(status)] += 1
    return {"latencies": latencies, "answered": answered, "failures": dict(failures), "cpu_s": cpu_self() - cpu}


# --- the phase --------------------------------------------------------------------------------------------


def _summary(players: dict, prober: dict, duration: float, cpu: dict) -> dict:
    latencies = players["latencies"]
    return {"moves": len(latencies), "moves_per_s": len(latencies) / duration,
            "move_p50_ms": _ms(latencies, 50), "move_p95_ms": _ms(latencies, 95), "move_p99_ms": _ms(latencies, 99),
            "move_max_ms": max(latencies) * 1000 if latencies else None,
            "view_p50_ms": _ms(players["view_latencies"], 50), "view_p99_ms": _ms(players["view_latencies"], 99),
            "health_probes": len(prober["latencies"]), "health_p50_ms": _ms(prober["latencies"], 50),
            "health_p99_ms": _ms(prober["latencies"], 99),
            "health_max_ms": max(prober["latencies"]) * 1000 if prober["latencies"] else None,
            "late_moves": players["late"], "games_finished": players["games_finished"],
            "failures": {**{f"player {k}": v for k, v in players["failures"].items()},
                         **{f"health {k}": v for k, v in prober["failures"].items()}},
            "cpu_s": {k: v for k, v in cpu.items() if k not in ("runqueue_wait", "machine")},
            "runqueue_wait_s": cpu["runqueue_wait"], "machine_cpu_s": cpu["machine"]}


class _Sampler(threading.Thread):
    """Samples the API workers' RSS and open descriptors while run B goes on."""

    def __init__(self, pids: list[int]):
        super().__init__(daemon=True)
        self.pids = pids
        self.rss: dict[int, float] = {}
        self.fds: dict[int, int] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(0.5):
            for pid in self.pids:
                rss = rss_mb(pid, "VmRSS")
                fds = open_fds(pid)
                if rss:
                    self.rss[pid] = max(self.rss.get(pid, 0), rss)
                if fds:
                    self.fds[pid] = max(self.fds.get(pid, 0), fds)


def _cpu_of(pids: dict[str, list[int]]) -> dict[str, float]:
    out = {name: sum(cpu_seconds(p) or 0 for p in group) for name, group in pids.items()}
    out["machine_busy"], out["machine_idle"], out["machine_steal"] = machine_cpu()
    out.update({f"{name}_runqueue_wait": sum(runqueue_wait_s(p) or 0 for p in group) for name, group in pids.items()})
    return out


def _timed_run(port: int, games: list[dict], cfg: StreamConfig, seed: int, pids: dict[str, list[int]],
               during=None) -> tuple[dict, dict, float, float, dict]:
    """Players and prober for ``cfg.duration`` seconds (each in its own process)."""
    to_act = [s["to_act"] if s["status"] == "active" else [] for s in game_states(port, games)]
    context = multiprocessing.get_context("fork")
    with context.Pool(2) as pool:
        start_at = time.time() + 1.0  # both processes forked and ready before the clock starts
        players = pool.apply_async(run_players, (port, games, to_act, cfg.clients, cfg.move_rate, start_at,
                                                 cfg.duration, seed))
        prober = pool.apply_async(run_prober, (port, cfg.health_rate, start_at, cfg.duration))
        time.sleep(max(0.0, start_at - time.time()))
        before = _cpu_of(pids)
        if during:
            during()
        players_result = players.get(cfg.duration + 180)
        ended = time.time()
        after = _cpu_of(pids)
        prober_result = prober.get(60)
    cpu = {name: round(after[name] - before[name], 2) for name in pids}
    cpu["players"] = round(players_result["cpu_s"], 2)
    cpu["prober"] = round(prober_result["cpu_s"], 2)
    machine = {k: round(after[f"machine_{k}"] - before[f"machine_{k}"], 2) for k in ("busy", "idle", "steal")}
    cpu["runqueue_wait"] = {name: round(after[f"{name}_runqueue_wait"] - before[f"{name}_runqueue_wait"], 2)
                            for name in pids}
    cpu["machine"] = machine
    return players_result, prober_result, start_at, ended, cpu


def plan_subscribers(games: list[dict], seqs: list[int], sse: int, polls: int, procs: int) -> list[list[tuple]]:
    """S SSE and L long polls spread evenly over the games; in each game alternately a spectator and
    a seat (seats in turn); every game's subscribers spread over the processes."""
    plans: list[list[tuple]] = [[] for _ in range(procs)]
    n = 0
    for kind, total in (("sse", sse), ("poll", polls)):
        for i in range(total):
            g = i % len(games)
            j = i // len(games)  # the j-th subscriber of this kind in game g
            token = None if j % 2 == 0 else games[g]["tokens"][(j // 2) % 3]
            plans[n % procs].append((kind, g, games[g]["id"], token, seqs[g]))
            n += 1
    return plans


def gc_pauses(gc_log: Path | None, start: float, end: float) -> dict | None:
    """The API workers' slow garbage collections between ``start`` and ``end`` (``bench.app`` logs them)."""
    if gc_log is None:
        return None
    full, other, windows = [], [], []
    try:
        lines = Path(gc_log).read_text().splitlines()
    except OSError:
        lines = []
    for line in lines:
        at, _pid, generation, ms = line.split()
        if start <= float(at) <= end:
            (full if generation == "2" else other).append(float(ms))
            if generation == "2":
                windows.append((float(at) - float(ms) / 1000, float(at)))
    return {"full_collections": len(full), "full_ms_total": round(sum(full), 1),
            "full_ms_max": round(max(full), 1) if full else None,
            "full_ms": [round(x, 1) for x in full], "other_over_5ms": len(other), "windows": windows}


def overlapping(latencies: list[float], answered: list[float], windows: list[tuple[float, float]],
                slower_than: float) -> dict:
    """Of the requests slower than ``slower_than`` seconds, how many were in flight during a full collection."""
    slow = [(t - latency, t) for latency, t in zip(latencies, answered) if latency > slower_than]
    hit = sum(1 for begin, end in slow if any(begin < w_end and w_begin < end for w_begin, w_end in windows))
    return {"slower_than_ms": round(slower_than * 1000, 1), "slow": len(slow), "during_full_gc": hit}


def run(port: int, cfg: StreamConfig, pids: dict[str, list[int]], say=print, gc_log: Path | None = None) -> dict:
    """The whole phase; ``pids`` names the server's processes whose CPU time is reported ('api', 'redis', ...);
    ``gc_log`` is where the API workers log slow garbage collections (see ``bench.app``), if they do."""
    say(f"setting up {cfg.games} games (3 human seats, 12 rounds)")
    games = setup_games(port, cfg.games)
    out: dict = {"config": asdict(cfg)}

    say(f"run A: {cfg.clients} players at {cfg.move_rate:g} moves/s + health prober, no subscribers, "
        f"{cfg.duration:g}s")
    players_a, prober_a, start_a, end_a, cpu_a = _timed_run(port, games, cfg, 1, pids)
    out["run_a"] = _summary(players_a, prober_a, cfg.duration, cpu_a)
    out["run_a"]["api_gc"] = gc_pauses(gc_log, start_a, end_a)
    say(f"run A: {out['run_a']['moves_per_s']:.0f} moves/s, move p99 {out['run_a']['move_p99_ms']:.1f} ms, "
        f"health p99 {out['run_a']['health_p99_ms']:.1f} ms")

    seqs = [s["seq"] for s in game_states(port, games)]
    plans = plan_subscribers(games, seqs, cfg.sse, cfg.polls, cfg.sub_procs)
    slow = [cfg.slow // cfg.sub_procs + (1 if i < cfg.slow % cfg.sub_procs else 0) for i in range(cfg.sub_procs)]
    say(f"connecting {cfg.sse} SSE subscribers, {cfg.polls} long polls and {cfg.slow} slow-header connections")
    context = multiprocessing.get_context("fork")
    pipes, procs = [], []
    for plan, n_slow in zip(plans, slow):
        parent, child = context.Pipe()
        process = context.Process(target=subscriber_main, args=(child, port, plan, n_slow, cfg), daemon=True)
        process.start()
        pipes.append(parent)
        procs.append(process)
    try:
        ready = []
        for pipe in pipes:
            if not pipe.poll(300):
                raise RuntimeError("a subscriber process did not connect its subscribers within 300 s")
            kind, body = pipe.recv()
            if kind != "ready":
                raise RuntimeError(f"a subscriber process failed: {body}")
            ready.append(body)
        out["connected"] = {"sse": sum(r["sse"] for r in ready), "polls": sum(r["polls"] for r in ready),
                            "slow": cfg.slow, "open_s": round(max(r["open_s"] for r in ready), 2),
                            "failures": dict(sum((Counter(r["failures"]) for r in ready), Counter()))}
        say(f"connected {out['connected']['sse']} SSE + {out['connected']['polls']} long polls in "
            f"{out['connected']['open_s']:.1f}s")
        time.sleep(1.0)  # let the server settle after the connection storm

        api = pids.get("api", [])
        sampler = _Sampler(api)
        say(f"run B: the same players and prober, with the subscribers, {cfg.duration:g}s")
        players_b, prober_b, start_b, end_b, cpu_b = _timed_run(port, games, cfg, 2, pids, during=sampler.start)
        sampler.stop.set()
        finals = [s["seq"] for s in game_states(port, games)]
        for pipe in pipes:
            pipe.send(("final", dict(enumerate(finals)), cfg.grace))
        results = []
        for pipe in pipes:
            if not pipe.poll(cfg.grace + 120):
                raise RuntimeError("a subscriber process did not report")
            kind, body = pipe.recv()
            if kind != "result":
                raise RuntimeError(f"a subscriber process failed: {body}")
            results.append(body)
    finally:
        for process in procs:
            process.join(10)
            if process.is_alive():
                process.terminate()
    out["run_b"] = _summary(players_b, prober_b, cfg.duration, cpu_b)
    out["run_b"]["api_gc"] = gc_pauses(gc_log, start_b, end_b)
    if out["run_b"]["api_gc"] is not None and out["run_a"]["move_p99_ms"]:
        # How much of run B's tail is the workers' full collections: requests slower than 2x run A's p99.
        windows = out["run_b"]["api_gc"]["windows"]
        out["run_b"]["api_gc"]["slow_moves"] = overlapping(players_b["latencies"], players_b["answered"], windows,
                                                           2 * out["run_a"]["move_p99_ms"] / 1000)
        out["run_b"]["api_gc"]["slow_health"] = overlapping(prober_b["latencies"], prober_b["answered"], windows,
                                                            2 * out["run_a"]["health_p99_ms"] / 1000)
    out["run_b"]["cpu_s"]["subscribers"] = round(sum(r["cpu_s"] for r in results), 2)
    for run_name in ("run_a", "run_b"):  # what else ran on the machine meanwhile (other users, the kernel's own)
        run_ = out[run_name]
        run_["machine_cpu_s"]["not_this_bench"] = round(run_["machine_cpu_s"]["busy"] - sum(run_["cpu_s"].values()), 2)
    a, b = out["run_a"], out["run_b"]
    out["ratios"] = {"move_p99_b_over_a": b["move_p99_ms"] / a["move_p99_ms"] if a["move_p99_ms"] else None,
                     "health_p99_b_over_a": b["health_p99_ms"] / a["health_p99_ms"] if a["health_p99_ms"] else None,
                     "moves_per_s_b_over_a": b["moves_per_s"] / a["moves_per_s"] if a["moves_per_s"] else None}

    # Delivery: when the player got the 200 for each (game, seq), against when subscribers got it.
    caused = {}
    g_arr, s_arr, t_arr = players_b["events"]
    for g, seq, t in zip(g_arr, s_arr, t_arr):
        caused[(g, seq)] = t
    delivery = {}
    for kind in ("sse", "poll"):
        lags, in_run, unmatched, total = [], 0, 0, 0
        for r in results:
            rg, rs, rt = r["records"][kind]
            total += len(rs)
            for g, seq, t in zip(rg, rs, rt):
                if start_b <= t <= end_b:
                    in_run += 1
                sent = caused.get((g, seq))
                if sent is None:
                    unmatched += 1
                else:
                    lags.append(t - sent)
        delivery[kind] = {"events": total, "events_per_s": total / cfg.duration, "in_run_per_s": in_run / cfg.duration,
                          "latency_p50_ms": _ms(lags, 50), "latency_p99_ms": _ms(lags, 99),
                          "latency_max_ms": max(lags) * 1000 if lags else None, "unmatched": unmatched}
    out["delivery"] = delivery

    subs = [s for r in results for s in r["subs"]]
    failures = Counter()
    for r in results:
        failures.update(r["failures"])
    for run_name in ("run_a", "run_b"):
        failures.update({f"{run_name} {k}": v for k, v in out[run_name]["failures"].items()})
    violations = [s for s in subs if s["violations"]]
    incomplete = [s for s in subs if not s["complete"]]
    out["verification"] = {
        "subscribers": len(subs), "complete": len(subs) - len(incomplete),
        "complete_sse": sum(1 for s in subs if s["kind"] == "sse" and s["complete"]),
        "complete_polls": sum(1 for s in subs if s["kind"] == "poll" and s["complete"]),
        "with_violations": len(violations), "violations": sum(s["violations"] for s in subs),
        "violation_examples": [f"{s['kind']}: {e}" for s in violations[:5] for e in s["examples"]],
        "behind_at_end": sum(1 for s in subs if s["behind"]), "events_missing": sum(s["behind"] for s in subs),
        "events_expected": sum(s["expected"] for s in subs), "events_received": sum(s["received"] for s in subs),
        "final_seq_total": sum(finals), "moves_b": len(players_b["latencies"]),
        "drain_s": max((r["drain_s"] for r in results if r["drain_s"] is not None), default=None),
        "drained": all(r["drain_s"] is not None for r in results),
        "sse_json_sampled": sum(r["sampled"] for r in results),
        "sse_json_seq_mismatches": sum(r["sample_mismatches"] for r in results),
        "redacted_seen_spectator": sum(s["redacted"] for s in subs if not s["seat"]),
        "redacted_seen_seat": sum(s["redacted"] for s in subs if s["seat"]),
        "poll_reconnects": sum(r["reconnects"] for r in results),
    }
    out["failures"] = dict(failures)
    out["slow_headers"] = {"connections": cfg.slow, "open_at_end": sum(r["slow_open_at_end"] for r in results),
                           "closed_by_server": dict(Counter(x for r in results for x in r["slow_closed"])),
                           "note": "a connection the server closed was replaced at once by a new one"}
    out["api_workers_b"] = {"peak_rss_mb": [round(x, 1) for x in sampler.rss.values()],
                            "peak_open_fds": list(sampler.fds.values())}
    out["all_delivered_in_order"] = (out["verification"]["complete"] == len(subs) == cfg.sse + cfg.polls
                                     and out["verification"]["violations"] == 0
                                     and out["verification"]["sse_json_seq_mismatches"] == 0)
    return out
