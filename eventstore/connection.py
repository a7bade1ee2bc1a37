"""Connecting to the event store's Redis: a single server or a Redis Cluster.

A URL with the scheme ``redis+cluster://host:port`` (any node of the cluster)
gives a cluster client; every key of a game shares one hash slot, so the
append script and the blocking reads work unchanged. RQ needs a plain Redis:
give it its own ``QUEUE_URL`` when the events live on a cluster.

Every client gets explicit timeouts and retries instead of the library's
defaults, which changed between redis-py releases (8.0 made every socket time
out after 5 s and retry ten times):

* ``connect`` — commands: a command that does not answer within
  ``COMMAND_TIMEOUT_S`` fails (the API answers 503). A command is retried
  once, only when its connection failed, never after a timeout: a timed-out
  append may have landed, and only the client's ``Idempotency-Key`` can
  settle that.
* ``connect_blocking`` — reads that wait on purpose (``XREAD BLOCK``): the
  socket timeout is the longest block plus a margin, so a wait is never cut
  short, while a dead server is still noticed.

``wait_until_reachable`` is how a process that cannot do anything without the
store (a bot worker, an HTTP worker loading the application) rides out an
outage instead of exiting: an exit would make its supervisor back off, and a
store crash would then cost every process's back-off instead of the store's
restart alone.
"""
from __future__ import annotations

import logging
import time

import redis
from redis.backoff import ExponentialBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry

CLUSTER_SCHEME = "redis+cluster://"
COMMAND_TIMEOUT_S = 5.0
CONNECT_TIMEOUT_S = 2.0
BLOCKING_MARGIN_S = 10.0


def _retry_once_on_connection_error() -> dict:
    retry = Retry(ExponentialBackoff(cap=0.2, base=0.02), 1, supported_errors=(redis.ConnectionError,))
    return {"retry": retry, "retry_on_error": [redis.ConnectionError], "retry_on_timeout": False}


def connect(url: str, max_connections: int = 64) -> redis.Redis | RedisCluster:
    """A client for ordinary commands. ``max_connections`` bounds the pool of
    this process; a caller that finds every connection busy waits for one
    (up to the command timeout) instead of opening more."""
    settings = {"socket_timeout": COMMAND_TIMEOUT_S, "socket_connect_timeout": CONNECT_TIMEOUT_S,
                "socket_keepalive": True, **_retry_once_on_connection_error()}
    if url.startswith(CLUSTER_SCHEME):
        return RedisCluster.from_url("redis://" + url[len(CLUSTER_SCHEME):], max_connections=max_connections,
                                     **settings)
    pool = redis.BlockingConnectionPool.from_url(url, max_connections=max_connections,
                                                 timeout=COMMAND_TIMEOUT_S, **settings)
    return redis.Redis(connection_pool=pool)


def connect_blocking(url: str, longest_block_s: float, max_connections: int) -> redis.Redis | RedisCluster:
    """A client for reads that block up to ``longest_block_s`` on purpose; one
    connection per concurrent blocked read, at most ``max_connections``."""
    settings = {"socket_timeout": longest_block_s + BLOCKING_MARGIN_S, "socket_connect_timeout": CONNECT_TIMEOUT_S,
                "socket_keepalive": True, "retry": Retry(ExponentialBackoff(), 0)}
    if url.startswith(CLUSTER_SCHEME):
        return RedisCluster.from_url("redis://" + url[len(CLUSTER_SCHEME):], max_connections=max_connections,
                                     **settings)
    pool = redis.BlockingConnectionPool.from_url(url, max_connections=max_connections,
                                                 timeout=CONNECT_TIMEOUT_S, **settings)
    return redis.Redis(connection_pool=pool)


OUTAGE_FIRST_PAUSE_S = 0.05
OUTAGE_LONGEST_PAUSE_S = 0.5  # a restarted store is noticed within this; a PING a pause costs it nothing

log = logging.getLogger("stich.store")


def wait_until_reachable(client: redis.Redis | RedisCluster, what: str, give_up_after_s: float | None = None,
                         sleep=time.sleep) -> bool:
    """Return once ``client`` answers PING (True), or False after ``give_up_after_s``. Pauses
    between attempts double up to ``OUTAGE_LONGEST_PAUSE_S``. One warning when the outage is
    noticed and one line when it ends, whatever the number of attempts. A loading store
    (``BusyLoadingError``, a ``ConnectionError``) counts as down: it refuses commands."""
    started = time.monotonic()
    pause, noticed = OUTAGE_FIRST_PAUSE_S, False
    while True:
        try:
            client.ping()
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            if not noticed:
                log.warning("%s: the store is unreachable (%s); waiting for it", what, exc)
                noticed = True
        else:
            if noticed:
                log.warning("%s: the store answers again after %.1f s", what, time.monotonic() - started)
            return True
        if give_up_after_s is not None and time.monotonic() - started >= give_up_after_s:
            log.error("%s: the store did not answer within %g s", what, give_up_after_s)
            return False
        sleep(pause)
        pause = min(pause * 2, OUTAGE_LONGEST_PAUSE_S)
