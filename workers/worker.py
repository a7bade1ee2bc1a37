"""The RQ worker entry point (``stich worker``), with its sweeper thread (a worker of the bot lanes).

A ``SimpleWorker`` runs jobs in its own process instead of forking one per job:
a bot turn is a few milliseconds of work, and a fork would cost more than the
turn. Job functions re-read the game, so nothing is lost if a worker dies
mid-job: the sweeper of any live bot worker queues the turn again. At start, a
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
from .dispatch import ANALYSIS, BOT_LANES, INTERACTIVE, lane_queues, sweep_after
from .heartbeat import ANALYSIS_KEY, KEY, PULSE_ENV, beat_until, pulse_until
from .idle import INTERVAL_S, IdleSweep, idle_after
from .archiver import Archiver
from .recorder import HistoryLoop
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
# A worker that may start an analysis runs at the most a process can be niced: an analysis is up to
# minutes of search that nobody plays on. On a core a game's process also wants, Linux's weights give it 12 %
# against a bot worker at 10 and 1.4 % against a process at 0; on an idle core, all of it. Its wall
# time is bounded by the job's timeout (workers/analysis.py).
ANALYSIS_NICENESS = 19


def niceness_for(lanes: tuple[str, ...] | None) -> int:
    """How much a worker draining ``lanes`` (None: the bot lanes) raises its niceness: by the least urgent
    work it may start. Nothing for the interactive lane alone, ``BACKGROUND_NICENESS`` for bot-only
    tables and long searches, ``ANALYSIS_NICENESS`` for analyses."""
    lanes = set(lanes or BOT_LANES)
    if ANALYSIS in lanes:
        return ANALYSIS_NICENESS
    return BACKGROUND_NICENESS if lanes - {INTERACTIVE} else 0


def heartbeat_keys(lanes: tuple[str, ...] | None) -> tuple[str, ...]:
    """Where a worker draining ``lanes`` beats (workers/heartbeat.py): health counts bot workers and
    analysis workers apart."""
    lanes = set(lanes or BOT_LANES)
    keys = [KEY] if lanes - {ANALYSIS} else []
    if ANALYSIS in lanes:
        keys.append(ANALYSIS_KEY)
    return tuple(keys)


def run(burst: bool = False, lanes: tuple[str, ...] | None = None) -> None:
    """``lanes``: the lanes this worker drains (default the bot lanes, no analyses), always in their
    priority order (workers/dispatch.py)."""
    lanes = lanes or BOT_LANES
    os.nice(niceness_for(lanes))  # before any thread starts: on Linux each thread has its own
    level = os.environ.get("STICH_LOG_LEVEL", "WARNING")
    logging.basicConfig(level=level)
    stop = threading.Event()
    if os.environ.get(PULSE_ENV):  # stich serve's supervisor watches it to find a hung worker: pulse from the start
        threading.Thread(target=pulse_until, args=(os.environ[PULSE_ENV], stop), daemon=True, name="pulse").start()
    runtime = install(runtime_from_environment())  # the jobs this process runs take it from there
    heartbeat = threading.Thread(target=beat_until, args=(runtime.queue.connection, stop, heartbeat_keys(lanes)),
                                 daemon=True, name="heartbeat")
    heartbeat.start()
    # A worker of analyses alone leaves the sweeps to the bot workers: at niceness 19 it could claim a lost
    # bot turn, or the idle pass's lock, and then wait for a core while the claim runs.
    if not burst and set(lanes) - {ANALYSIS}:
        sweeper = Sweeper(runtime.handler, runtime.schedule, runtime.queue, idle_after=sweep_after())
        interval = float(os.environ.get("STICH_SWEEP_INTERVAL", "1"))
        threading.Thread(target=sweeper.run_forever, args=(interval, stop), daemon=True, name="sweeper").start()
        # Its own thread: a pass over many games must not hold up the sweeps.
        holder = f"{os.uname().nodename}:{os.getpid()}:{secrets.token_hex(4)}"
        threading.Thread(target=sweeper.backfill_unless_recent, args=(runtime.index, holder, stop), daemon=True,
                         name="backfill").start()
        # Games and tournaments nothing happens in end (workers/idle.py): a pass a minute, by one worker.
        idle = IdleSweep(runtime.handler, runtime.index, runtime.tournaments, idle_after())
        threading.Thread(target=idle.run_forever, args=(stop, float(os.environ.get("STICH_IDLE_SWEEP_INTERVAL",
                                                                                  INTERVAL_S))),
                         daemon=True, name="idle").start()
        # Finished games into the history and the ratings on (workers/recorder.py): one worker at a time.
        history = HistoryLoop(runtime.store.redis, runtime.store.prefix, runtime.recorder, runtime.rater,
                              runtime.index)
        threading.Thread(target=history.run_forever, args=(stop,), daemon=True, name="history").start()
        # Quick play's tables (workers/matchmaker.py): bots for those who waited, pending matches created.
        threading.Thread(target=runtime.matchmaker.run_forever, args=(stop,), daemon=True, name="matchmaker").start()
        # Finished games into the archive and out of Redis (workers/archiver.py): one worker at a time.
        archiver = Archiver(runtime.handler, runtime.archive, runtime.index)
        threading.Thread(target=archiver.run_forever, args=(runtime.store.redis, stop), daemon=True,
                         name="archiver").start()
    # The worker blocks on the queue for up to its TTL; its connection must wait that long.
    url = os.environ.get("QUEUE_URL") or os.environ["REDIS_URL"]
    connection = connect_blocking(url, DEFAULT_WORKER_TTL, max_connections=4)
    try:
        while True:  # one round per RQ worker; a store outage ends a round, never the process
            worker, finished = None, False
            try:
                worker = BotWorker(lane_queues(runtime.queue, lanes), connection=connection,
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
