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

A cluster client is a ``StreamRoutingCluster``: it finds ``XREAD``'s keys
itself instead of asking a master for them (its docstring says why).

``wait_until_reachable`` is how a process that cannot do anything without the
store (a bot worker, an HTTP worker loading the application) rides out an
outage instead of exiting: an exit would make its supervisor back off, and a
store crash would then cost every process's back-off instead of the store's
restart alone.
"""
from __future__ import annotations

import inspect
import logging
import socket
import time

import redis
from redis.backoff import ExponentialBackoff
from redis.cluster import RedisCluster
from redis.exceptions import RedisClusterException
from redis.retry import Retry

CLUSTER_SCHEME = "redis+cluster://"
COMMAND_TIMEOUT_S = 5.0
CONNECT_TIMEOUT_S = 2.0
BLOCKING_MARGIN_S = 10.0


class PeekingConnection(redis.Connection):
    """A connection whose pool check costs one system call under gevent.

    Before lending a connection, redis-py's pool asks ``can_read()``: a
    connection given back with a reply unread must not answer the next caller
    with it (redis-py 8 on RESP3 asks and then ignores the answer; it relies on
    closing a connection whose command was interrupted, which it does). The
    library asks with a ``poll``, which under gevent's monkey-patching builds a
    poll object and an I/O watcher each time: a tenth of a command's CPU in the
    HTTP workers' profile. Where the OS socket is non-blocking (gevent's), one
    ``recv(MSG_PEEK | MSG_DONTWAIT)`` answers the same question. Elsewhere (a
    blocking socket would wait out its timeout in that call) the library's own
    check runs."""

    def can_read(self, timeout: float = 0) -> bool:
        sock = self._sock
        reader = getattr(self._parser, "_reader", None)  # hiredis's, with the bytes read but not parsed
        raw = getattr(sock, "_sock", sock)  # gevent's socket wraps the OS one
        if timeout or sock is None or not hasattr(reader, "has_data") or raw.gettimeout() != 0.0 \
                or getattr(self._parser, "_next_response", False) is not False:  # redis-py 5's read-ahead
            return super().can_read(timeout)
        if reader.has_data():
            return True
        try:
            raw.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        except BlockingIOError:
            return False
        except OSError as exc:
            self.disconnect()
            raise redis.ConnectionError(f"Error while reading from {self._host_error()}: {exc.args}")
        return True  # a reply nobody read, or b"": the server closed it; either way not fit to lend


class StreamRoutingCluster(RedisCluster):
    """A cluster client that reads the keys of ``XREAD`` from its arguments.

    ``XREAD``'s keys follow its ``STREAMS`` keyword, so redis-py cannot place
    them by the command table and asks a server (``COMMAND GETKEYS``) on the
    client's default node, one of the masters, before every ``XREAD``. When
    that master dies, every ``XREAD`` fails on the question, before it reaches
    the game's own node; and because the error is not the game's node's,
    redis-py never refreshes its view of the cluster. A game's streams then
    stopped for good, even after its master's replica was promoted: with
    Compose's cluster, always when the killed master was the node REDIS_URL
    names, once when it was another (tests/compose/test_cluster.py). Read here,
    the keys cost no round trip and depend on no other node. Every other
    command keeps redis-py's routing: stich sends no other command whose keys
    move except ``EVAL``, which redis-py reads itself."""

    def determine_slot(self, *args):
        if not args or _word(args[0]) != "XREAD":  # XREAD [COUNT n] [BLOCK ms] STREAMS key ... id ...
            return super().determine_slot(*args)
        words = [_word(arg) for arg in args]  # redis-py spells the keywords as bytes, a caller may as str
        if "STREAMS" not in words:
            return super().determine_slot(*args)  # malformed: the server's error says why
        named = args[words.index("STREAMS") + 1:]
        slots = {self.keyslot(key) for key in named[:len(named) // 2]}
        if len(slots) != 1:
            raise RedisClusterException(f"XREAD's streams must share one hash slot in a cluster, "
                                        f"not {len(slots)}: {args!r}")
        return slots.pop()


def _word(arg) -> str | None:
    if isinstance(arg, bytes):
        arg = arg.decode("latin-1")
    return arg.upper() if isinstance(arg, str) else None


def _cluster_from_url(url: str, **settings) -> StreamRoutingCluster:
    return StreamRoutingCluster.from_url("redis://" + url[len(CLUSTER_SCHEME):], **settings)


_NAME = inspect.signature(redis.ConnectionPool.get_connection).parameters.get("command_name")
_POOL_WANTS_NAME = _NAME is not None and _NAME.default is inspect.Parameter.empty


def take_connection(pool: redis.ConnectionPool) -> redis.Connection:
    """A connection of ``pool``'s to hold (give it back with ``pool.release``): redis-py before 6
    wants a command name for it, later ones warn that passing one is deprecated."""
    return pool.get_connection(*(("PING",) if _POOL_WANTS_NAME else ()))


def _retry_once_on_connection_error() -> dict:
    retry = Retry(ExponentialBackoff(cap=0.2, base=0.02), 1, supported_errors=(redis.ConnectionError,))
    return {"retry": retry, "retry_on_error": [redis.ConnectionError], "retry_on_timeout": False}


def connect(url: str, max_connections: int = 64) -> redis.Redis | StreamRoutingCluster:
    """A client for ordinary commands. ``max_connections`` bounds the pool of
    this process; a caller that finds every connection busy waits for one
    (up to the command timeout) instead of opening more."""
    settings = {"socket_timeout": COMMAND_TIMEOUT_S, "socket_connect_timeout": CONNECT_TIMEOUT_S,
                "socket_keepalive": True, **_retry_once_on_connection_error()}
    if url.startswith(CLUSTER_SCHEME):
        return _cluster_from_url(url, max_connections=max_connections, **settings)
    if url.startswith("redis://"):  # TCP; rediss:// and unix:// keep the library's connection classes
        settings["connection_class"] = PeekingConnection
    pool = redis.BlockingConnectionPool.from_url(url, max_connections=max_connections,
                                                 timeout=COMMAND_TIMEOUT_S, **settings)
    return redis.Redis(connection_pool=pool)


def connect_blocking(url: str, longest_block_s: float, max_connections: int) -> redis.Redis | StreamRoutingCluster:
    """A client for reads that block up to ``longest_block_s`` on purpose; one
    connection per concurrent blocked read, at most ``max_connections``."""
    settings = {"socket_timeout": longest_block_s + BLOCKING_MARGIN_S, "socket_connect_timeout": CONNECT_TIMEOUT_S,
                "socket_keepalive": True, "retry": Retry(ExponentialBackoff(), 0)}
    if url.startswith(CLUSTER_SCHEME):
        return _cluster_from_url(url, max_connections=max_connections, **settings)
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
