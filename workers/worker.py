"""The RQ worker entry point (``stich worker``), with its sweeper thread.

A ``SimpleWorker`` runs jobs in its own process instead of forking one per job:
a bot turn is a few milliseconds of work, and a fork would cost more than the
turn. Job functions re-read the game, so nothing is lost if a worker dies
mid-job: the sweeper of any live worker queues the turn again. At start, a
worker also makes one backfill pass over the active games (unless another
worker made one in the last ten minutes), so due turns without an entry in
the due-time index — from before it existed — are found too.

A store outage never ends the process: RQ's loop waits for the store (``BotWorker``), and when
an outage ends a round of RQ's loop anyway (its start, a job's bookkeeping, a timeout) the
process waits for the store and starts a new round. A process that exits would be restarted by
its supervisor after a back-off that grows with every store crash.
"""
from __future__ import annotations

import logging
import os
import secrets
import signal
import threading
import time

import redis
from rq import SimpleWorker
from rq.defaults import DEFAULT_WORKER_TTL

from eventstore.connection import connect_blocking, wait_until_reachable

from .context import runtime_from_environment
from .dispatch import INTERACTIVE, LANES, lane_queues, sweep_after
from .heartbeat import PULSE_ENV, beat_until, pulse_until
from .runtime import install
from .sweeper import Sweeper

STORE_WAIT_S = 600.0  # a store away this long ends the worker (status 1): its supervisor decides what next
ROUND_PAUSE_S = 0.1  # between RQ workers: a round that ends at once for another reason must not spin
# A worker that may start a bot-only table's or a long search's job runs at this niceness, so that on a
# busy machine the HTTP processes and the interactive-only worker (niceness 0) get the CPU first: a
# person's bot answer then waits neither for a worker nor for a core. It is raised once, at start: a
# ``SimpleWorker`` runs every job in this process, and lowering it again per job would need
# CAP_SYS_NICE. On an idle machine niceness changes nothing.
BACKGROUND_NICENESS = 10


def niceness_for(lanes: tuple[str, ...] | None) -> int:
    """How much a worker draining ``lanes`` (None: all) raises its niceness: nothing for the interactive
    lane alone, ``BACKGROUND_NICENESS`` when it may start background work."""
    return BACKGROUND_NICENESS if set(lanes or LANES) - {INTERACTIVE} else 0


def run(burst: bool = False, lanes: tuple[str, ...] | None = None) -> None:
    """``lanes``: the bot-work lanes this worker drains (default all), always in their priority order
    (workers/dispatch.py)."""
    os.nice(niceness_for(lanes))  # before any thread starts: on Linux each thread has its own
    level = os.environ.get("STICH_LOG_LEVEL", "WARNING")
    logging.basicConfig(level=level)
    stop = threading.Event()
    if os.environ.get(PULSE_ENV):  # stich serve's supervisor watches it to find a hung worker: pulse from the start
        threading.Thread(target=pulse_until, args=(os.environ[PULSE_ENV], stop), daemon=True, name="pulse").start()
    runtime = install(runtime_from_environment())  # the jobs this process runs take it from there
    heartbeat = threading.Thread(target=beat_until, args=(runtime.queue.connection, stop), daemon=True,
                                 name="heartbeat")
    heartbeat.start()
    if not burst:
        sweeper = Sweeper(runtime.handler, runtime.schedule, runtime.queue, idle_after=sweep_after())
        interval = float(os.environ.get("STICH_SWEEP_INTERVAL", "1"))
        threading.Thread(target=sweeper.run_forever, args=(interval, stop), daemon=True, name="sweeper").start()
        # Its own thread: a pass over many games must not hold up the sweeps.
        holder = f"{os.uname().nodename}:{os.getpid()}:{secrets.token_hex(4)}"
        threading.Thread(target=sweeper.backfill_unless_recent, args=(runtime.index, holder, stop), daemon=True,
                         name="backfill").start()
    # The worker blocks on the queue for up to its TTL; its connection must wait that long.
    url = os.environ.get("QUEUE_URL") or os.environ["REDIS_URL"]
    connection = connect_blocking(url, DEFAULT_WORKER_TTL, max_connections=4)
    try:
        while True:  # one round per RQ worker; a store outage ends a round, never the process
            worker, finished = None, False
            try:
                worker = BotWorker(lane_queues(runtime.queue, lanes or LANES), connection=connection,
                                   serializer=runtime.queue.serializer)
                worker.work(burst=burst, logging_level=level, with_scheduler=False)
                finished = True
            except (redis.RedisError, StoreGone):  # RQ's start or its goodbye met the outage
                pass
            if (worker is not None and worker.stopping()) or (burst and finished):
                break
            _stop_on_signal()  # RQ's handlers belong to the round that ended
            if not wait_until_reachable(connection, f"bot worker {os.getpid()}", give_up_after_s=STORE_WAIT_S):
                raise SystemExit(1)  # whoever runs it (stich serve, Compose) starts it again
            time.sleep(ROUND_PAUSE_S)
    finally:
        stop.set()
        heartbeat.join(timeout=2)  # it leaves the live set, so health stops counting this worker now


class StoreGone(Exception):
    """The store stayed away for ``STORE_WAIT_S``."""


class BotWorker(SimpleWorker):
    """RQ's ``SimpleWorker``, riding out a store outage inside its loop.

    RQ retries a dequeue that met a dead connection after pauses doubling to a minute and logs
    every attempt; after a few store crashes in a row the worker would sit out most of a minute.
    Here a heartbeat that fails (the first call of each dequeue attempt) waits for the store with
    ``wait_until_reachable``: short pauses, one line per outage.
    """

    def heartbeat(self, *args, **kwargs):
        try:
            return super().heartbeat(*args, **kwargs)
        except redis.ConnectionError:
            if not wait_until_reachable(self.connection, f"bot worker {os.getpid()}", give_up_after_s=STORE_WAIT_S):
                raise StoreGone() from None
            return super().heartbeat(*args, **kwargs)

    def subscribe(self):
        """No command channel: stich sends RQ no commands, and its thread would log every 2 s of an outage."""

    def unsubscribe(self):
        pass

    def stopping(self) -> bool:
        """Whether the round ended because someone asked (SIGTERM, SIGINT), not because of the store."""
        return bool(self._stop_requested or self._shutdown_requested_date)


def _stop_on_signal() -> None:
    def stop(signum, _frame):
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
