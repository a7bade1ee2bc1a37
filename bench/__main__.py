"""``python -m bench [--short] [--only streams] [--duration S] [--clients N] [--stream-… N]``

Starts its own private Redis (AOF, fsync always, as ``stich serve``), the
production HTTP server (``stich.web_worker``: gunicorn with gevent workers)
serving the API plus two baselines, RQ workers, and a load generator in
separate processes; measures everything in one run; writes
``bench/results/<time>.json`` and prints a table.

Phases: baseline A, baseline B, moves (then, in this process, the fold per event and the
CPU per request of A, B, a view and a command: ``bench/cpu.py``), bot latency, load cost, memory and RSS,
and "streams at scale" (``bench/streams.py``): players moving at a fixed rate
with and without thousands of SSE subscribers and long polls on their games
(run A against run B), every subscriber checked to have received every event
of its game in order. ``--only streams`` starts the server and runs only that
phase (for working on it); ``--stream-*`` options size it. ``--only
tournament`` runs only "tournament at scale" (``bench/tournament.py``): a
64-participant Schafkopf bot tournament (16 tables, 3 rounds, 8 deals per
table) played to the end by the bot workers (``--short``: 16 participants), after
baseline B in the same run: its table events/s ÷ B is the figure. ``--only bots``
runs only the bot answer latency in a game with a human. ``--only uploads`` runs only what uploads
cost everyone else (``bench/uploads.py``): a third client's health checks while two clients upload
the longest game's export at once, and the HTTP processes' memory under a flood of uploads.
``--only simulator`` (no server) times random playouts of each game's simulator against its
decider and OpenSpiel's skat and hearts (``bench/simulator.py``; OpenSpiel only when
``pyspiel`` is importable: ``pip install open-spiel``).
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import subprocess
import sys
import time
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

from stich.redis_server import PrivateRedis, free_port
from stich.web_worker import CONNECTIONS, WORKER_CLASS, gunicorn_argv, raise_open_files_limit

from . import cpu, load, measure, simulator, stream_report, streams, tournament, uploads
from .processes import children, cpu_seconds, rss_mb

ROOT = Path(__file__).resolve().parents[1]


class Progress:
    def __init__(self, phases: int):
        self.phases, self.current, self.started = phases, 0, time.monotonic()

    def phase(self, name: str) -> None:
        self.current += 1
        self.say(f"[{self.current}/{self.phases}] {name}")

    def say(self, text: str) -> None:
        print(f"  {time.monotonic() - self.started:6.1f}s  {text}", file=sys.stderr, flush=True)


def start_server(redis_url: str, port: int, http_workers: int, connections: int, bot_workers: int,
                 gc_log: Path | None = None, worker_class: str = WORKER_CLASS):
    """The production serving setup (``stich.web_worker``: gunicorn, gevent workers) on ``bench.app``.
    ``gc_log``: where the API workers log their slow garbage collections (see ``bench.app``);
    ``worker_class``: gunicorn's, for ``bench.worker_classes``."""
    env = {**os.environ, "REDIS_URL": redis_url, "STICH_RATE_LIMIT_TOKEN": "0", "STICH_RATE_LIMIT_ADDRESS": "0",
           # One address plays every client: no per-address quotas either.
           "STICH_CREATE_LIMIT": "0", "STICH_ACTIVE_GAMES_LIMIT": "0", "STICH_EVENTS_LIMIT": "0", "STICH_STREAMS_LIMIT": "0",
           "STICH_BOT_THINK_MS": "0", "STICH_LOG_LEVEL": "ERROR"}
    if gc_log:
        env["BENCH_GC_LOG"] = str(gc_log)
        # Metrics as `stich serve` keeps them: every process writes its samples to files.
        env["PROMETHEUS_MULTIPROC_DIR"] = str(gc_log.parent / "metrics")
        os.makedirs(env["PROMETHEUS_MULTIPROC_DIR"], exist_ok=True)
    env.pop("QUEUE_URL", None)
    raise_open_files_limit(http_workers * connections + 1024)  # as `stich serve`: the children inherit it
    gunicorn = subprocess.Popen(gunicorn_argv("bench.app:build()", "127.0.0.1", port, http_workers, connections,
                                              log_level="error", worker_class=worker_class), env=env, cwd=ROOT)
    workers = [subprocess.Popen([sys.executable, "-m", "stich.cli", "worker"], env=env, cwd=ROOT)
               for _ in range(bot_workers)]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/health", timeout=1):
                return gunicorn, workers
        except OSError:
            time.sleep(0.1)
    for process in [gunicorn, *workers]:
        process.kill()
        process.wait()
    raise RuntimeError("the benchmark server did not start")


def run_phase(phase: str, port: int, clients: int, procs: int, duration: float) -> dict:
    per_proc = [clients // procs + (1 if i < clients % procs else 0) for i in range(procs)]
    with multiprocessing.Pool(procs) as pool:
        results = pool.starmap(load.run, [(phase, "127.0.0.1", port, n, duration, i) for i, n in enumerate(per_proc) if n])
    latencies = [x for r in results for x in r["latencies"]]
    return {"requests": len(latencies), "failures": sum(r["failures"] for r in results),
            "per_s": len(latencies) / duration,
            "p50_ms": measure.percentile(latencies, 50) * 1000 if latencies else None,
            "p95_ms": measure.percentile(latencies, 95) * 1000 if latencies else None,
            "p99_ms": measure.percentile(latencies, 99) * 1000 if latencies else None}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--short", action="store_true", help="a smoke run of a couple of minutes")
    parser.add_argument("--only", choices=["streams", "tournament", "bots", "simulator", "uploads"],
                        help="run only this phase (after starting the server)")
    parser.add_argument("--duration", type=float, help="seconds per throughput phase (default 20, short 6)")
    parser.add_argument("--clients", type=int, default=16, help="concurrent simulated clients")
    parser.add_argument("--procs", type=int, default=2, help="load generator processes")
    parser.add_argument("--http-workers", type=int, default=2)
    parser.add_argument("--connections", type=int, default=CONNECTIONS,
                        help=f"open connections per HTTP worker (gevent; default {CONNECTIONS})")
    parser.add_argument("--bot-workers", type=int, default=1)
    parser.add_argument("--bot-samples", type=int, help="bot answers to time (default 200, short 40)")
    full, short = streams.StreamConfig(), streams.StreamConfig.short()
    group = parser.add_argument_group("streams at scale")
    group.add_argument("--stream-games", type=int, help=f"games (default {full.games}, short {short.games})")
    group.add_argument("--stream-sse", type=int, help=f"SSE subscribers (default {full.sse}, short {short.sse})")
    group.add_argument("--stream-polls", type=int, help=f"long pollers (default {full.polls}, short {short.polls})")
    group.add_argument("--stream-slow", type=int,
                       help=f"slow-header connections (default {full.slow}, short {short.slow})")
    group.add_argument("--stream-duration", type=float,
                       help=f"seconds of run A and of run B (default {full.duration:g}, short {short.duration:g})")
    group.add_argument("--stream-move-rate", type=float,
                       help=f"moves per second over all {full.clients} players, in both runs "
                            f"(default {full.move_rate:g}, short {short.move_rate:g})")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args(argv)
    duration = args.duration or (6.0 if args.short else 20.0)
    bot_samples = args.bot_samples or (40 if args.short else 200)
    lengths = (50, 500, 5000)
    stream_cfg = short if args.short else full
    for option, field in (("stream_games", "games"), ("stream_sse", "sse"), ("stream_polls", "polls"),
                          ("stream_slow", "slow"), ("stream_duration", "duration"), ("stream_move_rate", "move_rate")):
        if getattr(args, option) is not None:
            setattr(stream_cfg, field, getattr(args, option))
    everything = args.only is None
    if args.only == "simulator":
        return run_simulator(args)

    progress = Progress(10 if everything else 2)
    redis_server = PrivateRedis(fsync="always").start()
    port = free_port()
    gunicorn = workers = None
    result = {"started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()},
              "config": {"short": args.short, "only": args.only, "duration_s": duration, "clients": args.clients,
                         "procs": args.procs, "http_workers": args.http_workers, "connections": args.connections,
                         "worker_class": "stich.web_worker.StreamingWorker (gevent)",
                         "bot_workers": args.bot_workers, "redis_fsync": "always"}}
    try:
        progress.phase("starting the private Redis, gunicorn and the bot workers")
        gc_log = Path(redis_server.data_dir) / "api-gc.log"  # removed with the private Redis's directory
        gunicorn, workers = start_server(redis_server.url, port, args.http_workers, args.connections, args.bot_workers,
                                         gc_log)
        load.run("a", "127.0.0.1", port, 2, 1.0, 0)  # warm up connections and imports
        rss_after_warmup = {pid: rss_mb(pid, "VmRSS") for pid in children(gunicorn.pid)}
        if everything:
            run_classic_phases(result, progress, port, args, duration, bot_samples, lengths, redis_server,
                               gunicorn, workers, rss_after_warmup)
        if args.only == "tournament":
            size = tournament.TournamentConfig.short() if args.short else tournament.TournamentConfig()
            progress.phase(f"baseline B, then tournament at scale: {size.participants} {size.game} bots, "
                           f"{size.rounds} rounds of {size.deals_per_table} deals, {args.bot_workers} bot workers")
            # B in the same run, just before: the table events' rate is reported against it.
            baseline_b = run_phase("b", port, args.clients, args.procs, duration)
            progress.say(f"baseline B: {baseline_b['per_s']:.0f} req/s")
            result["tournament"] = tournament.run(port, size, progress.say, baseline_b=baseline_b)
        elif args.only == "uploads":
            progress.phase(f"uploads: health checks during two worst uploads at once, then {uploads.FLOOD} "
                           f"uploads of 8 MiB at once")
            result["uploads"] = uploads.run(port, children(gunicorn.pid), args.short, progress.say)
        elif args.only == "bots":
            progress.phase(f"bot turn latency over {bot_samples} answers (a game with a human)")
            result["bot_latency"] = measure.bot_latency("127.0.0.1", port, bot_samples, progress.say)
        else:
            cfg = stream_cfg
            progress.phase(f"streams at scale: {cfg.sse} SSE + {cfg.polls} long polls over {cfg.games} games, "
                           f"{cfg.clients} players at {cfg.move_rate:g} moves/s, runs A and B of {cfg.duration:g}s")
            pids = {"api": children(gunicorn.pid), "redis": [redis_server.process.pid],
                    "bot_workers": [w.pid for w in workers]}
            result["streams"] = streams.run(port, cfg, pids, progress.say, gc_log=gc_log)
            s = result["streams"]
            progress.say(f"run B: {s['run_b']['moves_per_s']:.0f} moves/s, move p99 B/A "
                         f"{s['ratios']['move_p99_b_over_a'] or 0:.2f}, health p99 B/A "
                         f"{s['ratios']['health_p99_b_over_a'] or 0:.2f}, {s['verification']['complete']}/"
                         f"{s['verification']['subscribers']} subscribers complete")
    finally:
        for process in [gunicorn, *(workers or [])]:
            if process and process.poll() is None:
                process.terminate()
        for process in [gunicorn, *(workers or [])]:
            if process:
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
        redis_server.stop()
    return finish(result, args, everything)


def run_simulator(args) -> int:
    """The simulator phase alone: in this process, no server (its figures are CPU-bound)."""
    progress = Progress(1)
    progress.phase("simulator against decider and OpenSpiel: random playouts")
    result = {"started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()},
              "config": {"short": args.short, "only": args.only},
              "simulator": simulator.run(seconds=1.0 if args.short else 3.0, progress=progress.say,
                                         search_games=1 if args.short else 3)}
    return finish(result, args, everything=False)


def finish(result: dict, args, everything: bool) -> int:
    """The targets, the results file and the table (after the servers have stopped)."""
    result["targets"] = {}
    if everything:
        load_50 = result["load_cost"]["50"]["load_ms_median"]
        load_5000 = result["load_cost"]["5000"]["load_ms_median"]
        result["targets"].update({
            "moves_over_b>=0.5": result["ratios"]["moves_over_b"] >= 0.5,
            "sse_moves_over_b>=0.8": result["ratios"]["sse_moves_over_b"] >= 0.8,
            "move_p99<=10ms": (result["moves"]["p99_ms"] or 1e9) <= 10,
            "replay<=5us/event": all(c["us_per_event"] <= 5 for c in result["replay"].values()),
            "load_5000/load_50<=1.5": load_5000 / load_50 <= 1.5,
            "bot_p50<=50ms": result["bot_latency"]["p50_ms"] <= 50,
            "redis/export<=1.5": all(m["redis_over_export"] <= 1.5 for m in result["memory"].values()),
        })
        result["load_cost"]["ratio_5000_over_50"] = load_5000 / load_50
    if "streams" in result:
        result["targets"].update(stream_report.targets(result["streams"]))
    if "tournament" in result:
        result["targets"].update(tournament.targets(result["tournament"]))
    if "uploads" in result:
        result["targets"].update(uploads.targets(result["uploads"]))
    if "simulator" in result:
        result["targets"].update(result["simulator"].get("targets", {}))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    suffix = ("-short" if args.short else "") + (f"-{args.only}" if args.only else "")
    path = out / f"{datetime.now(timezone.utc).strftime('%Y%m%dT%H%M%SZ')}{suffix}.json"
    path.write_text(json.dumps(result, indent=2))
    print_table(result, path)
    return 0


def run_classic_phases(result, progress, port, args, duration, bot_samples, lengths, redis_server, gunicorn, workers,
                       rss_after_warmup) -> None:
    """Phases 2-7: the baselines, moves, bot latency, load cost, memory and RSS."""
    for name, key in (("baseline A: bare Flask JSON", "baseline_a"),
                      ("baseline B: marshmallow + one XADD", "baseline_b"),
                      ("moves, polling cycle: whole games, view then command", "moves"),
                      ("moves, SSE cycle: each seat follows the stream (views=true), then commands",
                       "sse_moves"),
                      ("moves, socket cycle: each seat on a socket (views), its commands on it", "socket_moves")):
        progress.phase(f"{name} — {args.clients} clients for {duration:.0f}s")
        api = children(gunicorn.pid)
        cpu_before = sum(cpu_seconds(pid) or 0.0 for pid in api)
        result[key] = run_phase(key.removeprefix("baseline_"), port, args.clients, args.procs, duration)
        # The HTTP processes' CPU (user and system) per request or move of the phase.
        spent = sum(cpu_seconds(pid) or 0.0 for pid in api) - cpu_before
        result[key]["api_cpu_us"] = spent / result[key]["requests"] * 1e6 if result[key]["requests"] else None
        progress.say(f"{result[key]['per_s']:.0f}/s, p99 {result[key]['p99_ms'] or 0:.1f} ms, "
                     f"HTTP processes' CPU {result[key]['api_cpu_us'] or 0:.0f} us each")
    # A polling move is two requests (the view, then the command); an SSE move one; the baselines one each.
    result["ratios"] = {"moves_over_a": result["moves"]["per_s"] / result["baseline_a"]["per_s"],
                        "moves_over_b": result["moves"]["per_s"] / result["baseline_b"]["per_s"],
                        "move_requests_over_b": 2 * result["moves"]["per_s"] / result["baseline_b"]["per_s"],
                        "sse_moves_over_b": result["sse_moves"]["per_s"] / result["baseline_b"]["per_s"],
                        "socket_moves_over_sse": result["socket_moves"]["per_s"] / result["sse_moves"]["per_s"],
                        "socket_cpu_over_sse": ((result["socket_moves"]["api_cpu_us"] or 0)
                                                / (result["sse_moves"]["api_cpu_us"] or float("inf")))}
    progress.say("replay per event, per game (the fold alone, in this process)")
    result["replay"] = measure.replay_per_event()
    progress.say("CPU per request: A, B, view, command (the app called in this process, no sockets)")
    result["cpu"] = cpu.run(redis_server.url, rounds=2 if args.short else cpu.ROUNDS,
                            calls=100 if args.short else cpu.CALLS)
    progress.say(f"CPU: moves / B {result['cpu']['ratios']['moves_over_b']:.2f} (polling), SSE at most "
                 f"{result['cpu']['ratios']['sse_moves_over_b_at_most']:.2f}")
    progress.phase(f"bot turn latency over {bot_samples} answers")
    result["bot_latency"] = measure.bot_latency("127.0.0.1", port, bot_samples, progress.say)
    progress.phase("load cost against game length " + "/".join(map(str, lengths)))
    result["load_cost"] = measure.load_cost(redis_server.url, lengths, repeats=10 if args.short else 30,
                                            progress=progress.say)
    progress.phase("memory per finished game and peak RSS")
    result["memory"] = measure.memory_per_game(redis_server.url)
    api_pids = children(gunicorn.pid)
    result["peak_rss_mb"] = {"api_workers": [rss_mb(p) for p in api_pids],
                             "bot_workers": [rss_mb(w.pid) for w in workers]}
    # Per-game memory left behind shows as growth of the API processes over
    # the run (their caches of folded games are bounded LRUs).
    result["api_rss_growth_mb"] = [round((rss_mb(p, "VmRSS") or 0) - (before or 0), 1)
                                   for p, before in rss_after_warmup.items()]


def print_table(r: dict, path: Path) -> None:
    rows = []
    if "baseline_a" in r:
        rows += [
            ("baseline A (bare Flask)", f"{r['baseline_a']['per_s']:.0f} req/s", f"p99 {r['baseline_a']['p99_ms']:.1f} ms"),
            ("baseline B (marshmallow+XADD)", f"{r['baseline_b']['per_s']:.0f} req/s",
             f"p99 {r['baseline_b']['p99_ms']:.1f} ms"),
            ("moves, polling (view+command)", f"{r['moves']['per_s']:.0f} moves/s",
             f"command p50 {r['moves']['p50_ms']:.1f} / p95 {r['moves']['p95_ms']:.1f} / p99 {r['moves']['p99_ms']:.1f} ms"),
            ("moves / A, moves / B", f"{r['ratios']['moves_over_a']:.2f}", f"{r['ratios']['moves_over_b']:.2f}"),
            ("moves, SSE (stream+command)", f"{r['sse_moves']['per_s']:.0f} moves/s",
             f"command p50 {r['sse_moves']['p50_ms']:.1f} / p95 {r['sse_moves']['p95_ms']:.1f} / "
             f"p99 {r['sse_moves']['p99_ms']:.1f} ms"),
            ("SSE moves / B", f"{r['ratios']['sse_moves_over_b']:.2f}", ""),
            ("moves, socket (subscription+command)", f"{r['socket_moves']['per_s']:.0f} moves/s",
             f"command p50 {r['socket_moves']['p50_ms']:.1f} / p95 {r['socket_moves']['p95_ms']:.1f} / "
             f"p99 {r['socket_moves']['p99_ms']:.1f} ms"),
            ("HTTP processes' CPU a move: polling, SSE, socket",
             " / ".join(f"{r[k]['api_cpu_us']:.0f}" for k in ("moves", "sse_moves", "socket_moves")) + " us",
             f"socket / SSE {r['ratios']['socket_cpu_over_sse']:.2f}; moves socket / SSE "
             f"{r['ratios']['socket_moves_over_sse']:.2f}"),
            ("move requests / B", f"{r['ratios']['move_requests_over_b']:.2f}", "(a move = view + command)"),
            ("bot answer", f"p50 {r['bot_latency']['p50_ms']:.1f} ms", f"p99 {r['bot_latency']['p99_ms']:.1f} ms"),
        ]
        rows += cpu.table_rows(r["cpu"])
        for length, cost in r["load_cost"].items():
            if isinstance(cost, dict):
                rows.append((f"load at {cost['events']} events", f"{cost['load_ms_median']:.2f} ms",
                             f"full replay {cost['full_replay_ms']:.1f} ms"))
        rows.append(("load 5000 / load 50", f"{r['load_cost']['ratio_5000_over_50']:.2f}", ""))
        for game, cost in r["replay"].items():
            rows.append((f"replay {game}", f"{cost['us_per_event']:.1f} us/event", f"{cost['events']} events"))
        for game, m in r["memory"].items():
            rows.append((f"memory {game}", f"{m['redis_bytes_per_event']:.0f} B/event",
                         f"Redis {m['redis_bytes']} B / export {m['export_json_bytes']} B = {m['redis_over_export']:.2f}"))
        rss = r["peak_rss_mb"]
        rows.append(("peak RSS (MB)", "api " + ", ".join(f"{x:.0f}" for x in rss["api_workers"] if x),
                     "workers " + ", ".join(f"{x:.0f}" for x in rss["bot_workers"] if x)))
        rows.append(("API RSS growth over the run (MB)", ", ".join(str(x) for x in r["api_rss_growth_mb"]), ""))
    if "streams" in r:
        rows += stream_report.table_rows(r["streams"])
    if "tournament" in r:
        rows += tournament.table_rows(r["tournament"])
    if "uploads" in r:
        rows += uploads.table_rows(r["uploads"])
    if "bot_latency" in r and "baseline_a" not in r:  # --only bots
        rows.append(("bot answer", f"p50 {r['bot_latency']['p50_ms']:.1f} ms", f"p99 {r['bot_latency']['p99_ms']:.1f} ms"))
    if "simulator" in r:
        rows += simulator.table_rows(r["simulator"])
    width = max(len(a) for a, _, _ in rows)
    print()
    for a, b, c in rows:
        print(f"{a:<{width}}  {b:<18} {c}")
    print("\ntargets: " + ", ".join(f"{k} {'met' if v else 'MISSED'}" for k, v in r["targets"].items()))
    print(f"written to {path}")


if __name__ == "__main__":
    sys.exit(main())
