"""A `stich serve` of a test's own, behind a trusted proxy (``X-Forwarded-For`` names the client, so one
test plays several addresses), and what /proc says of its workers: the fairness tests'
(test_fair_bots.py, test_fair_analysis.py) server."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from stich.redis_server import free_port


def start_server(tmp_path, extra_args=(), extra_env=None):
    """A fresh ``stich serve`` with the default settings (no ``STICH_`` variable of the caller's but
    ``extra_env``): its process and port, once it serves."""
    port = free_port()
    env = {k: v for k, v in os.environ.items()
           if k not in ("REDIS_URL", "QUEUE_URL") and not k.startswith("STICH_")}
    env.update(STICH_TRUSTED_PROXIES="1", STICH_LOG_LEVEL="ERROR", **(extra_env or {}))
    process = subprocess.Popen([sys.executable, "-m", "stich.cli", "serve", "--port", str(port),
                                "--data-dir", str(tmp_path / "data"), *extra_args], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    started = time.monotonic()
    for line in process.stdout:
        if "serving on" in line:
            return process, port
        if time.monotonic() - started > 60:
            break
    process.kill()
    raise AssertionError("stich serve did not start")


def stop_server(process):
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def niceness(pid: int) -> int:
    return int(_stat(pid)[16])  # field 19: nice


def cpu_seconds(pid: int) -> float:
    """The CPU time ``pid`` has used so far, user and system."""
    fields = _stat(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # fields 14 and 15: utime, stime


def _stat(pid: int) -> list[str]:
    """/proc/<pid>/stat's fields after the command's name (field 3 is the first)."""
    return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()


def workers_of(pid: int) -> dict[str, list[int]]:
    """The worker processes under ``pid`` (``stich serve``), keyed "interactive" (the interactive-only
    workers), "analysis" (the analysis workers) or "every bot lane", from /proc."""
    found: dict[str, list[int]] = {}
    pending = [pid]
    while pending:
        parent = pending.pop()
        try:
            for task in os.listdir(f"/proc/{parent}/task"):
                pending += [int(child) for child in open(f"/proc/{parent}/task/{task}/children").read().split()]
            argv = open(f"/proc/{parent}/cmdline").read().split("\0")
        except (FileNotFoundError, ProcessLookupError):
            continue  # it ended while we looked
        if "worker" in argv:
            kind = next((lane for lane in ("interactive", "analysis") if lane in argv), "every bot lane")
            found.setdefault(kind, []).append(parent)
    return found


def every_worker_of(pid: int, kinds=("interactive", "analysis", "every bot lane"), within_s=20.0):
    """``workers_of`` once a worker of each kind runs: on a loaded machine one may still be starting,
    or be restarted by the supervisor, when "serving on" is printed (a CI run found no analysis worker)."""
    deadline = time.monotonic() + within_s
    while True:
        found = workers_of(pid)
        if all(kind in found for kind in kinds) or time.monotonic() > deadline:
            return found
        time.sleep(0.25)


def eventually(read, expected, within_s: float = 20.0):
    """``read()`` once it gives ``expected``, else what it gives at the deadline. A worker renices
    itself after its imports (workers/worker.py), a moment after it appears: a CI run read 0 where
    10 was coming."""
    deadline = time.monotonic() + within_s
    while True:
        got = read()
        if got == expected or time.monotonic() > deadline:
            return got
        time.sleep(0.25)


def bot_workers(pid: int) -> dict[str, list[int]]:
    """The niceness of each worker under ``pid``, keyed as ``workers_of`` keys them."""
    return {kind: [niceness(worker) for worker in pids] for kind, pids in every_worker_of(pid).items()}
