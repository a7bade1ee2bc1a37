"""Worker liveness: each bot worker says it is alive every few seconds, and health reads it.

A sorted set on the queue's Redis, ``stich:workers``: member ``<host>:<pid>``, score the time of
the worker's last beat. A worker that stops beating (killed, hung, cut off from Redis) drops out
after ``STALE_S``; every beat and every health check removes stale members, so the set holds
only live workers. RQ's own worker registry is not used for this: a worker killed with SIGKILL
stays in it until its key expires, minutes later. A worker that drains the analysis lane beats in a
set of its own, ``stich:workers:analysis``, so that health counts bot workers and analysis workers
apart: a server whose only live worker runs analyses plays no bot's turn.

A second, local signal for the supervisor of ``stich serve``: the file named by ``STICH_PULSE_FILE``
is touched every ``PULSE_S`` by a thread that does nothing else. The supervisor reads its
modification time to find a hung worker (stopped, wedged): a file, not the set in Redis, so the
supervisor learns nothing wrong and never waits while the store is down, and a worker that merely
waits for the store still pulses.
"""
from __future__ import annotations

import os
import socket
import threading
import time

import redis

KEY = "stich:workers"
ANALYSIS_KEY = "stich:workers:analysis"
BEAT_S = 2.0
STALE_S = 8.0
PULSE_ENV = "STICH_PULSE_FILE"
PULSE_S = 1.0


def member() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def beat(client: redis.Redis, name: str, now: float | None = None, key: str = KEY) -> None:
    now = time.time() if now is None else now
    pipe = client.pipeline(transaction=False)
    pipe.zadd(key, {name: now})
    pipe.zremrangebyscore(key, "-inf", now - STALE_S)
    pipe.execute()


def live_workers(client: redis.Redis, now: float | None = None, key: str = KEY) -> int:
    now = time.time() if now is None else now
    pipe = client.pipeline(transaction=False)
    pipe.zremrangebyscore(key, "-inf", now - STALE_S)
    pipe.zcard(key)
    return int(pipe.execute()[1])


def beat_until(client: redis.Redis, stop: threading.Event, keys: tuple[str, ...] = (KEY,)) -> None:
    """The worker's heartbeat thread: beat in each of ``keys`` until ``stop``, then leave them."""
    name = member()
    while not stop.is_set():
        try:
            for key in keys:
                beat(client, name, key=key)
        except redis.RedisError:
            pass  # the store is down: health says so; beat again when it is back
        stop.wait(BEAT_S)
    try:
        for key in keys:
            client.zrem(key, name)
    except redis.RedisError:
        pass


def pulse(path: str) -> None:
    with open(path, "a"):
        pass
    os.utime(path)


def pulse_until(path: str, stop: threading.Event) -> None:
    """The worker's local pulse thread: touch ``path`` every ``PULSE_S`` until ``stop``."""
    while not stop.is_set():
        try:
            pulse(path)
        except OSError:
            pass  # the supervisor's directory went away: it is shutting down
        stop.wait(PULSE_S)
