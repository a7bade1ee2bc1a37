"""Wiring: a command handler with its listeners, built from a Redis URL.

The API and the RQ worker build theirs the same way, so a bot's move takes
exactly the path a human's does.
"""
from __future__ import annotations

import os

from rq import Queue
from rq.serializers import JSONSerializer

from domain.registry import all_games
from domain.table import Table
from eventstore.connection import CLUSTER_SCHEME, connect
from eventstore.handler import CommandHandler
from eventstore.archive import Archive
from eventstore.challenges import Challenges
from eventstore.history import History, default_url
from eventstore.index import GameIndex
from eventstore.players import Players
from eventstore.pools import Pools
from eventstore.schedule import Schedule
from eventstore.store import EventStore

from .deadline import TurnSchedule
from .dispatch import QUEUE_NAME, InlineDispatcher, RQDispatcher, sweep_after
from .idle import idle_after
from .matchmaker import Matchmaker
from .rater import Rater
from .recorder import HistoryFeed, Recorder
from .runtime import Runtime
from .sweeper import BotSchedule
from .tournament import TournamentDesk


def build_runtime(redis_url: str, bots: str = "rq", queue_url: str | None = None,
                  queue_name: str | None = None, prefix: str = "stich", database_url: str | None = None) -> Runtime:
    """``bots``: ``rq`` (jobs for workers) or ``inline`` (run in this process, and the history recorded
    at once). ``prefix``: of every key (tests use their own to see only their games). ``database_url``:
    the history's (``eventstore/history.py``; default ``STICH_DATABASE_URL``, else a SQLite file in
    ``STICH_DATA_DIR``, else in memory)."""
    client = connect(redis_url)
    store = EventStore(client, prefix)
    index = GameIndex(client, prefix)
    table = Table(all_games(), default_idle_s=idle_after())
    queue = None
    schedule = None
    listeners: list = [index]
    if bots == "inline":
        # Bot turns run before the command returns: nothing for a sweeper to re-drive.
        dispatcher = InlineDispatcher()
    else:
        queue_url = queue_url or redis_url
        if queue_url.startswith(CLUSTER_SCHEME):
            raise ValueError("RQ needs a plain Redis: set QUEUE_URL when REDIS_URL is a cluster")
        # Jobs as JSON, not RQ's default pickle: a worker reading the queue runs no code the queue names
        # beyond the job functions (their arguments are a game id and numbers).
        queue = Queue(queue_name or os.environ.get("STICH_QUEUE", QUEUE_NAME), connection=connect(queue_url),
                      serializer=JSONSerializer)
        dispatcher = RQDispatcher(queue)
        schedule = Schedule(client, prefix)
        # Before the dispatcher: a turn's entry exists before its job (see workers/sweeper.py).
        listeners.append(BotSchedule(schedule, table, sweep_after()))
        listeners.append(TurnSchedule(schedule, table))
    listeners.append(dispatcher)
    handler = CommandHandler(store, table, listeners=listeners)
    dispatcher.handler = handler
    runtime = Runtime(store, handler, index, queue, schedule, players=Players(client, prefix))
    runtime.tournaments = TournamentDesk.attach(runtime)
    runtime.history = History.open(database_url or default_url())
    # Finished games moved out of Redis (workers/archiver.py) are read from the archive as if they were there.
    runtime.archive = store.archive = Archive(runtime.history.engine)
    runtime.pools = Pools(client, prefix)
    runtime.matchmaker = Matchmaker(handler, runtime.pools)
    runtime.challenges = Challenges(client, prefix)
    runtime.recorder = Recorder(handler, runtime.history, runtime.tournaments,
                                lambda game_id: runtime.pools.origin(game_id) or runtime.challenges.origin(game_id),
                                waits=runtime.challenges.embargoed_until)
    runtime.rater = Rater(runtime.history)
    # Last: a game's end is recorded once its tournament's listener has seen it.
    handler.listeners.append(HistoryFeed(client, prefix, (runtime.recorder, runtime.rater) if bots == "inline"
                                         else None))
    return runtime


def runtime_from_environment() -> Runtime:
    """A worker process's runtime: events on REDIS_URL, the queue on QUEUE_URL."""
    return build_runtime(os.environ["REDIS_URL"], queue_url=os.environ.get("QUEUE_URL"))
