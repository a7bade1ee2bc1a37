"""``python -m bench.comparison --before DIR [--after DIR] [--rounds N] [--duration S]``

Two checkouts of the code measured side by side in one run, for a change's before/after table
on a shared machine whose load moves by the minute: the load moves both figures alike when the
two trees take turns (the order flips every round) and each figure is a median of rounds.

Each tree runs its own private Redis (fsync always) and its own server (its own
``bench.__main__.start_server``: gunicorn, gevent workers, the benchmark app), started once. Per
round and tree: the polling cycle and the SSE cycle (``bench.load``, this checkout's load
generator for both), each with the API workers' CPU seconds read from /proc before and after (CPU
per move on the server, the HTTP server's share included, which ``bench/cpu.py`` leaves out), then
``bench/cpu.py`` of that tree in a process of its own. ``--strace`` also counts the API workers'
system calls per request during a baseline-A phase of each tree (``strace -c``; slow while it runs).

Make the before tree with ``git worktree add /tmp/before HEAD`` (a second checkout; the main one is
left as it is).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from .__main__ import run_phase
from .processes import cpu_seconds

ROOT = Path(__file__).resolve().parents[1]

# Run inside a tree (its own code on sys.path): start its Redis and server, report, wait for stdin to close.
SERVE = """
import json, sys
from stich.redis_server import PrivateRedis, free_port
from bench.__main__ import start_server
from bench.processes import children
redis_server = PrivateRedis(fsync="always").start()
port = free_port()
gunicorn, workers = start_server(redis_server.url, port, {http_workers}, 4096, 1)
print(json.dumps({{"port": port, "redis_url": redis_server.url, "api": children(gunicorn.pid)}}), flush=True)
try:
    sys.stdin.read()
finally:
    for process in [gunicorn, *workers]:
        process.terminate()
    for process in [gunicorn, *workers]:
        process.wait(timeout=10)
    redis_server.stop()
"""

CPU = """
import json, sys
from bench.cpu import run
print(json.dumps(run(sys.argv[1], rounds={rounds}, calls={calls})))
"""


class Tree:
    def __init__(self, name: str, path: Path, http_workers: int):
        self.name, self.path = name, path
        self.process = subprocess.Popen([sys.executable, "-c", SERVE.format(http_workers=http_workers)], cwd=path,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
        started = json.loads(self.process.stdout.readline())
        self.port, self.redis_url, self.api = started["port"], started["redis_url"], started["api"]

    def api_cpu(self) -> float:
        return sum(cpu_seconds(pid) or 0.0 for pid in self.api)

    def phase(self, phase: str, clients: int, procs: int, duration: float) -> dict:
        before = self.api_cpu()
        result = run_phase(phase, self.port, clients, procs, duration)
        spent = self.api_cpu() - before
        result["api_cpu_s"] = spent
        result["api_cpu_us_per_request"] = spent / result["requests"] * 1e6 if result["requests"] else None
        return result

    def cpu(self, rounds: int, calls: int) -> dict:
        out = subprocess.run([sys.executable, "-c", CPU.format(rounds=rounds, calls=calls), self.redis_url],
                             cwd=self.path, capture_output=True, text=True, check=True)
        return json.loads(out.stdout.strip().splitlines()[-1])

    def syscalls(self, seconds: float) -> dict:
        """System calls per baseline-A request in the API workers (``strace -c -f``)."""
        out = Path(f"/tmp/strace-{self.name}-{os.getpid()}.txt")
        tracer = subprocess.Popen(["strace", "-c", "-f", "-o", str(out), *[a for p in self.api for a in ("-p", str(p))]],
                                  stderr=subprocess.DEVNULL)
        time.sleep(1.0)
        result = run_phase("a", self.port, 2, 1, seconds)
        tracer.terminate()
        tracer.wait(timeout=10)
        calls = {}
        for line in out.read_text().splitlines():
            fields = line.split()
            if len(fields) >= 5 and fields[-1].isidentifier() and fields[3].isdigit():
                calls[fields[-1]] = int(fields[3])
        out.unlink()
        return {"requests": result["requests"],
                "per_request": {name: round(n / result["requests"], 2) for name, n in sorted(calls.items())
                                if n >= result["requests"] / 10}}

    def stop(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=30)


def median(values):
    values = [v for v in values if v is not None]
    return round(statistics.median(values), 2) if values else None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.comparison", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, type=Path, help="the checkout of the code before")
    parser.add_argument("--after", type=Path, default=ROOT, help="the checkout after (default: this one)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=6.0, help="seconds of each cycle per round")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--procs", type=int, default=2)
    parser.add_argument("--http-workers", type=int, default=2)
    parser.add_argument("--cpu-rounds", type=int, default=4, help="bench/cpu.py rounds per run (quietest kept)")
    parser.add_argument("--cpu-calls", type=int, default=150)
    parser.add_argument("--strace", action="store_true", help="count the API workers' system calls per request")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args(argv)

    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    trees = [Tree("before", args.before.resolve(), args.http_workers), Tree("after", args.after.resolve(),
                                                                            args.http_workers)]
    runs: dict[str, list[dict]] = {t.name: [] for t in trees}
    load = []
    try:
        for tree in trees:  # warm each server's caches and connections
            run_phase("moves", tree.port, 4, 1, 1.0)
        for round_ in range(args.rounds):
            load.append(os.getloadavg()[0])
            for tree in trees if round_ % 2 == 0 else trees[::-1]:
                polling = tree.phase("moves", args.clients, args.procs, args.duration)
                sse = tree.phase("sse_moves", args.clients, args.procs, args.duration)
                cpu = tree.cpu(args.cpu_rounds, args.cpu_calls)
                runs[tree.name].append({"polling": polling, "sse": sse, "cpu": cpu})
                print(f"round {round_ + 1} {tree.name}: polling {polling['per_s']:.0f}/s, SSE {sse['per_s']:.0f}/s, "
                      f"A {cpu['us_per_request']['a']:.0f} us (load {os.getloadavg()[0]:.1f})", file=sys.stderr,
                      flush=True)
        syscalls = {tree.name: tree.syscalls(3.0) for tree in trees} if args.strace else None
    finally:
        for tree in trees:
            tree.stop()
    summary = {name: summarize(rounds) for name, rounds in runs.items()}
    result = {"started_at": started, "load_average_1m": load, "config": {k: str(v) for k, v in vars(args).items()},
              "summary": summary, "syscalls": syscalls, "runs": runs}
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"{datetime.now(timezone.utc).strftime('%Y%m%dT%H%M%SZ')}-comparison.json"
    path.write_text(json.dumps(result, indent=2))
    print(json.dumps({"summary": summary, "syscalls": syscalls, "load_average_1m": load}, indent=2))
    print(f"written to {path}")
    return 0


def summarize(rounds: list[dict]) -> dict:
    """Medians over the rounds."""
    cpu_keys = rounds[0]["cpu"]["us_per_request"].keys()
    ratio_keys = rounds[0]["cpu"]["ratios"].keys()
    return {
        "polling_moves_per_s": median([r["polling"]["per_s"] for r in rounds]),
        "sse_moves_per_s": median([r["sse"]["per_s"] for r in rounds]),
        "sse_over_polling": median([r["sse"]["per_s"] / r["polling"]["per_s"] for r in rounds]),
        "polling_p99_ms": median([r["polling"]["p99_ms"] for r in rounds]),
        "sse_p99_ms": median([r["sse"]["p99_ms"] for r in rounds]),
        # A polling move is two requests; the load generator records one per move (the command).
        "api_cpu_us_per_polling_move": median([r["polling"]["api_cpu_us_per_request"] for r in rounds]),
        "api_cpu_us_per_sse_move": median([r["sse"]["api_cpu_us_per_request"] for r in rounds]),
        "cpu_us": {k: median([r["cpu"]["us_per_request"][k] for r in rounds]) for k in cpu_keys},
        "cpu_ratios": {k: median([r["cpu"]["ratios"][k] for r in rounds]) for k in ratio_keys},
    }


if __name__ == "__main__":
    sys.exit(main())
