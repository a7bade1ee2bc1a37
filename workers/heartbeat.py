"""Worker liveness: each bot worker says it is alive every few seconds, and health reads it.

A sorted set on the queue's Redis, ``stich:workers``: member ``<host>:<pid>``, score the time of
the worker's last beat. A worker that stops beating (killed, hung, cut off from Redis) drops out
after ``STALE_S``; every beat and every health check removes stale members, so the set holds
only live workers. RQ's own worker registry is not used for this: a worker killed with SIGKILL
stays in it until its key expires, minutes later.
"""
from __future__ import annotations

import os
import socket
import threading
import time

import redis

KEY = "stich:workers"
BEAT_S = 2.0
STALE_S = 8.0


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


def beat_until(client: redis.Redis, stop: threading.Event) -> None:
    """The worker's heartbeat thread: beat until ``stop``, then leave the set."""
    name = member()
    while not stop.is_set():
        try:
            beat(client, name)
        except redis.RedisError:
            pass  # the store is down: health says so; beat again when it is back
        stop.wait(BEAT_S)
    try:
        client.zrem(KEY, name)
    except redis.RedisError:
        pass
