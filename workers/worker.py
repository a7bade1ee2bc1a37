"""The RQ worker entry point (``stich worker``), with its sweeper thread.

A ``SimpleWorker`` runs jobs in its own process instead of forking one per job:
a bot turn is a few milliseconds of work, and a fork would cost more than the
turn. Job functions re-read the game, so nothing is lost if a worker dies
mid-job: the sweeper of any live worker queues the turn again. At start, a
worker also makes one backfill pass over the active games (unless another
worker made one in the last ten minutes), so due turns without an entry in
the due-time index — from before it existed — are found too.
"""
from __future__ import annotations

import logging
import os
import secrets
import threading

from rq import SimpleWorker
from rq.defaults import DEFAULT_WORKER_TTL

from eventstore.connection import connect_blocking

from .context import current_runtime
from .heartbeat import beat_until
from .sweeper import Sweeper, sweep_after


def run(burst: bool = False) -> None:
    level = os.environ.get("STICH_LOG_LEVEL", "WARNING")
    logging.basicConfig(level=level)
    runtime = current_runtime()
    stop = threading.Event()
    heartbeat = threading.Thread(target=beat_until, args=(runtime.queue.connection, stop), daemon=True,
                                 name="heartbeat")
    heartbeat.start()
    if not burst:
        sweeper = Sweeper(runtime.handler, runtime.schedule, runtime.queue, idle_after=sweep_after())
        interval = float(os.environ.get("STICH_SWEEP_INTERVAL", "1"))
        threading.Thread(target=sweeper.run_forever, args=(interval, stop), daemon=True, name="sweeper").start()
        # Its own thread: a pass over many games must not hold up the sweeps.
        holder = f"{os.uname().nodename}:{os.getpid()}:{secrets.token_hex(4)}"
        threading.Thread(target=sweeper.backfill_unless_recent, args=(runtime.index, holder), daemon=True,
                         name="backfill").start()
    # The worker blocks on the queue for up to its TTL; its connection must wait that long.
    url = os.environ.get("QUEUE_URL") or os.environ["REDIS_URL"]
    worker = SimpleWorker([runtime.queue], connection=connect_blocking(url, DEFAULT_WORKER_TTL, max_connections=4),
                          serializer=runtime.queue.serializer)
    try:
        worker.work(burst=burst, logging_level=level, with_scheduler=False)
    finally:
        stop.set()
        heartbeat.join(timeout=2)  # it leaves the live set, so health stops counting this worker now
