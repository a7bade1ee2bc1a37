"""The RQ worker entry point (``stich worker``), with its sweeper thread.

A ``SimpleWorker`` runs jobs in its own process instead of forking one per job:
a bot turn is a few milliseconds of work, and a fork would cost more than the
turn. Job functions re-read the game, so nothing is lost if a worker dies
mid-job: the sweeper of any live worker queues the turn again.
"""
from __future__ import annotations

import logging
import os
import threading

from rq import SimpleWorker
from rq.defaults import DEFAULT_WORKER_TTL

from eventstore.connection import connect_blocking

from .context import current_runtime
from .sweeper import Sweeper


def run(burst: bool = False) -> None:
    level = os.environ.get("STICH_LOG_LEVEL", "WARNING")
    logging.basicConfig(level=level)
    runtime = current_runtime()
    stop = threading.Event()
    if not burst:
        sweeper = Sweeper(runtime.handler, runtime.index, runtime.queue,
                          idle_after=float(os.environ.get("STICH_SWEEP_AFTER", "3")))
        interval = float(os.environ.get("STICH_SWEEP_INTERVAL", "1"))
        threading.Thread(target=sweeper.run_forever, args=(interval, stop), daemon=True, name="sweeper").start()
    # The worker blocks on the queue for up to its TTL; its connection must wait that long.
    url = os.environ.get("QUEUE_URL") or os.environ["REDIS_URL"]
    worker = SimpleWorker([runtime.queue], connection=connect_blocking(url, DEFAULT_WORKER_TTL, max_connections=4))
    try:
        worker.work(burst=burst, logging_level=level, with_scheduler=False)
    finally:
        stop.set()
