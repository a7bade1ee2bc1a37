"""WSGI entry point for gunicorn: ``gunicorn api.wsgi:app``.

Reads REDIS_URL (and QUEUE_URL), the write rate limits from
STICH_RATE_LIMIT_TOKEN / STICH_RATE_LIMIT_ADDRESS / STICH_RATE_LIMIT_WINDOW, and
the quotas and operator keys (``api.quotas``) from STICH_CREATE_LIMIT,
STICH_CREATE_WINDOW, STICH_ACTIVE_GAMES_LIMIT, STICH_STREAMS_LIMIT, STICH_API_KEYS.

Building the application reads the store (the game list's backfill, the tournaments' scripts).
An HTTP worker that boots while the store is down waits for it here instead of failing: a
worker that fails to boot makes gunicorn's master exit, and every store crash that met a
booting worker would then also cost gunicorn's restart and its supervisor's back-off.
The wait is bounded below gunicorn's worker timeout; past it the worker fails to boot as before.
"""
import os
import time

import redis

from eventstore.connection import CLUSTER_SCHEME, connect, wait_until_reachable

from .app import create_app
from .quotas import Quotas
from .ratelimit import Limits
from .request_log import configure_logging

BOOT_WAIT_S = 20.0  # under the worker timeout (stich/web_worker.py: 30 s), after which gunicorn kills a worker


def build():
    url = os.environ.get("REDIS_URL")
    if not url or url.startswith(CLUSTER_SCHEME):
        # No URL: create_app names what is missing. A cluster client contacts the cluster as it is
        # made, so there is no cheap probe to wait with: it boots (or fails) as before.
        return create_app(limits=Limits.from_env(), quotas=Quotas.from_env())
    probe = connect(url, max_connections=1)
    deadline = time.monotonic() + BOOT_WAIT_S
    try:
        while True:
            wait_until_reachable(probe, f"HTTP worker {os.getpid()}",
                                 give_up_after_s=max(0.0, deadline - time.monotonic()))
            try:
                return create_app(limits=Limits.from_env(), quotas=Quotas.from_env())
            except (redis.ConnectionError, redis.TimeoutError):  # down again mid-build
                if time.monotonic() >= deadline:
                    raise
    finally:
        probe.close()


configure_logging(os.environ.get("STICH_LOG_LEVEL", "WARNING"))
app = build()
