"""The process's runtime: what a job needs (the command handler, the store, the queue, the
tournament desk), built once by the process's entry point and read by the jobs.

Jobs (bot turns, time-outs, tournament passes) take it from here. This module imports none of
them, so the jobs depend on it and not on the wiring that builds it (``workers/context.py``,
which imports the jobs' listeners and dispatchers).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rq import Queue

from eventstore.handler import CommandHandler
from eventstore.index import GameIndex
from eventstore.players import Players
from eventstore.schedule import Schedule
from eventstore.store import EventStore


@dataclass
class Runtime:
    store: EventStore
    handler: CommandHandler
    index: GameIndex
    queue: Queue | None
    schedule: Schedule | None = None  # the due-time index the sweepers read (with RQ only)
    # A workers.tournament.TournamentDesk: tournaments and the driver of their tables. Not imported
    # for the annotation, since the desk's job reads this module.
    tournaments: Any = None
    players: Players | None = None  # the players' registry (handles and player tokens)
    history: Any = None  # an eventstore.history.History: finished games and ratings in the database
    recorder: Any = None  # a workers.recorder.Recorder, which writes the history
    rater: Any = None  # a workers.rater.Rater, which moves the ratings
    pools: Any = None  # an eventstore.pools.Pools: quick play's waiting players and matches
    matchmaker: Any = None  # a workers.matchmaker.Matchmaker, which opens their tables
    challenges: Any = None  # an eventstore.challenges.Challenges: the daily challenge's entries
    archive: Any = None  # an eventstore.archive.Archive: finished games moved out of Redis


_current: Runtime | None = None


def install(runtime: Runtime) -> Runtime:
    """Make ``runtime`` the one this process's jobs use (a worker's entry point calls this)."""
    global _current
    _current = runtime
    return runtime


def current_runtime() -> Runtime:
    if _current is None:
        raise RuntimeError("this process has no worker runtime: its entry point installs one "
                           "(workers.worker.run, or workers.runtime.install)")
    return _current


def current_handler() -> CommandHandler:
    return current_runtime().handler
