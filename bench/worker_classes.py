"""gunicorn's two gevent worker classes on stich's own routes, side by side.

``python -m bench.worker_classes [--duration S] [--rounds N] [--clients N]``

``stich.web_worker.StreamingWorker`` is gunicorn's ``gevent`` worker (gunicorn's
HTTP parser on gevent's sockets) with stich's changes to it; ``gevent_pywsgi``
is gunicorn's other gevent worker, which hands the connection to gevent's own
WSGI server and its parser. Each serves ``bench.app`` with one HTTP worker
process on the same private Redis (AOF, fsync always), both started before the
first round and idle while the other is measured. Every round runs each cycle
on each class, the order turned around every round, so that the machine's
noise falls on both alike:

* ``moves``: the polling cycle (a seat's view, then its command), Scharfe
  Schoten games with every seat a client;
* ``sse_moves``: the SSE cycle (each seat follows its game's stream with views
  and posts one command a move).

Per class and cycle: moves per second, the HTTP worker's CPU per move (from
/proc, the whole process) and the command's p50 and p99, each the median over
the rounds; and the ratios ``gevent_pywsgi`` ÷ ``StreamingWorker``. Writes
``bench/results/worker-classes-<time>.json``.

The comparison is of the request path only: ``gevent_pywsgi`` runs none of
``StreamingWorker``'s changes (problem+json for gunicorn's own errors and a
body's framing, one send a response, closing a connection whose body was left
unread) and gives the application no ``gunicorn.socket``, so ``/v1/socket``
cannot be served by it (docs/performance.md).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from datetime import datetime, timezone
from pathlib import Path

from stich.redis_server import PrivateRedis, free_port
from stich.web_worker import WORKER_CLASS

from .__main__ import ROOT, run_phase, start_server
from .processes import children, cpu_seconds

CLASSES = {"StreamingWorker": WORKER_CLASS, "gevent_pywsgi": "gevent_pywsgi"}
CYCLES = ("moves", "sse_moves")


def measure(port: int, worker_pid: int, cycle: str, clients: int, procs: int, duration: float) -> dict:
    before = cpu_seconds(worker_pid)
    phase = run_phase(cycle, port, clients, procs, duration)
    spent = cpu_seconds(worker_pid) - before
    moves = phase["requests"]
    return {"moves_per_s": phase["per_s"], "cpu_us_per_move": spent / moves * 1e6 if moves else None,
            "p50_ms": phase["p50_ms"], "p99_ms": phase["p99_ms"], "failures": phase["failures"]}


def median_of(rounds: list[dict]) -> dict:
    return {field: round(statistics.median(r[field] for r in rounds), 2)
            for field in ("moves_per_s", "cpu_us_per_move", "p50_ms", "p99_ms")} | {
        "failures": sum(r["failures"] for r in rounds), "rounds": rounds}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.worker_classes", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=10.0, help="seconds a class runs a cycle in a round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients (the SSE cycle: games)")
    parser.add_argument("--procs", type=int, default=2, help="load generator processes")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args(argv)
    if args.duration <= 0 or args.rounds < 1 or args.clients < 1 or args.procs < 1:
        parser.error("--duration, --rounds, --clients and --procs must be positive")

    redis_server = PrivateRedis(fsync="always").start()
    servers: dict[str, tuple] = {}  # name: (port, gunicorn, bot worker)
    try:
        for name, worker_class in CLASSES.items():
            port = free_port()
            # One bot worker: /v1/health, which start_server waits for, is 503 without one (every seat here is a
            # client, so it idles).
            gunicorn, bots = start_server(redis_server.url, port, 1, 4096, 1, worker_class=worker_class)
            servers[name] = (port, gunicorn, *bots)
            run_phase("a", port, 2, 1, 1.0)  # warm up: connections, imports, the first games' caches
        workers = {name: children(processes[0].pid)[0] for name, (port, *processes) in servers.items()}
        results: dict[str, dict[str, list]] = {name: {cycle: [] for cycle in CYCLES} for name in CLASSES}
        for number in range(args.rounds):
            order = list(CLASSES) if number % 2 == 0 else list(reversed(CLASSES))
            for cycle in CYCLES:
                for name in order:
                    result = measure(servers[name][0], workers[name], cycle, args.clients, args.procs, args.duration)
                    results[name][cycle].append(result)
                    print(f"round {number + 1}/{args.rounds} {cycle:9} {name:15} {result['moves_per_s']:7.0f} moves/s "
                          f"{result['cpu_us_per_move'] or 0:6.0f} µs CPU a move, p99 {result['p99_ms'] or 0:5.1f} ms",
                          flush=True)
    finally:
        for port, *processes in servers.values():
            for process in processes:
                process.terminate()
                process.wait(timeout=30)
        redis_server.stop()

    summary = {name: {cycle: median_of(rounds) for cycle, rounds in cycles.items()} for name, cycles in results.items()}
    base, other = summary["StreamingWorker"], summary["gevent_pywsgi"]
    ratios = {cycle: {field: round(other[cycle][field] / base[cycle][field], 2)
                      for field in ("moves_per_s", "cpu_us_per_move", "p99_ms") if base[cycle][field]}
              for cycle in CYCLES}
    report = {"started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "config": vars(args), "classes": CLASSES, "summary": summary,
              "ratios_gevent_pywsgi_over_streaming_worker": ratios}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"worker-classes-{datetime.now(timezone.utc):%Y%m%dT%H%M%SZ}.json"
    path.write_text(json.dumps(report, indent=2))
    print(f"\n{'cycle':10} {'class':16} {'moves/s':>8} {'µs CPU/move':>12} {'p50 ms':>7} {'p99 ms':>7}")
    for cycle in CYCLES:
        for name in CLASSES:
            row = summary[name][cycle]
            print(f"{cycle:10} {name:16} {row['moves_per_s']:8.0f} {row['cpu_us_per_move']:12.0f} "
                  f"{row['p50_ms']:7.1f} {row['p99_ms']:7.1f}")
        print(f"{cycle:10} {'ratio':16} " + "  ".join(f"{k} {v}" for k, v in ratios[cycle].items()))
    print(f"written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
