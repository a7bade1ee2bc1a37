"""The analysis job: a finished game's decisions judged by the search (``domain/bots/analysis.py``),
in the background, its progress and result kept in Redis beside the game.

One record per game and head, ``{prefix}:{g:<id>}:analysis:v<VERSION>:<head>`` (the game's hash tag: its
slot in Redis Cluster), JSON, kept ``RECORD_TTL_S``: ``queued`` when asked for, ``running`` with
its progress while the job works, then ``done`` with the result (or ``failed``). The head names
the game's whole history, so a record never goes stale; asking again for a head already done
answers the record. It is derived data: the game's events, and so its export, stay as they were.

The job takes ids, not objects (``analyse_game(game_id, head)``), re-reads the game, and has the
deterministic id ``analysis-<game>-<head>``: a job queued twice does the same work and writes the
same record. It runs in the ``analysis`` lane (``workers/dispatch.py``), which only analysis workers
drain (``stich worker --lanes analysis``, one in ``stich serve``), at niceness 19: an analysis is up
to minutes of search, and in a bot worker's lane it held up every bot-only game and tournament table
behind it. A server with no analysis worker leaves its analyses queued (``/v1/health`` says so).
A record left ``queued`` or ``running`` by a worker that died is asked for again once it is older
than ``STALE_S``.
"""
from __future__ import annotations

import json
import logging
import os
import time

from domain.bots.analysis import Budget, analyse
from eventstore.handler import CommandHandler
from eventstore.store import EventStore

from .dispatch import ANALYSIS, lane_queue
from .runtime import current_runtime

log = logging.getLogger("stich.analysis")

RECORD_TTL_S = 7 * 24 * 3600  # an analysis is derived: made again on demand after a week
STALE_S = 300  # a job longer than this is lost (the job timeout is below it)
JOB_TIMEOUT_S = 240
PROGRESS_EVERY_S = 0.5  # the record's progress is written at most this often (and at the end)
QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"


def budget_from_env() -> Budget:
    """``STICH_ANALYSIS_PLAYOUTS`` (per decision) and ``STICH_ANALYSIS_MAX_DECISIONS`` (per game)."""
    default = Budget()
    return Budget(int(os.environ.get("STICH_ANALYSIS_PLAYOUTS", default.playouts)),
                  int(os.environ.get("STICH_ANALYSIS_MAX_DECISIONS", default.max_decisions)))


# What the analysis judges, in its key, so that an upgrade that judges more does not serve the older
# analyser's records for their week (keys without a version: cards only; 2: the talk and the Stoß too).
VERSION = 2


def record_key(prefix: str, game_id: str, head: str) -> str:
    return f"{prefix}:{{g:{game_id}}}:analysis:v{VERSION}:{head}"


def head_of(loaded) -> str:
    """What a game's analysis is keyed by: its head hash (a game from before the hash chain: its length)."""
    return loaded.head or f"seq-{loaded.seq}"


def job_id(game_id: str, head: str) -> str:
    return f"analysis-{game_id}-{head}"


class Analyses:
    """The records of one store."""

    def __init__(self, store: EventStore):
        self.redis = store.redis
        self.prefix = store.prefix

    def get(self, game_id: str, head: str) -> dict | None:
        raw = self.redis.get(record_key(self.prefix, game_id, head))
        return None if raw is None else json.loads(raw)

    def put(self, game_id: str, head: str, record: dict) -> None:
        self.redis.set(record_key(self.prefix, game_id, head), json.dumps(record, separators=(",", ":")),
                       ex=RECORD_TTL_S)

    def claim(self, game_id: str, head: str, record: dict) -> bool:
        """Write ``record`` unless one is there already; whether it was written."""
        return bool(self.redis.set(record_key(self.prefix, game_id, head),
                                   json.dumps(record, separators=(",", ":")), ex=RECORD_TTL_S, nx=True))


def pending(head: str, budget: Budget, status: str = QUEUED, done: int = 0, total: int | None = None) -> dict:
    return {"status": status, "progress": {"done": done, "total": total}, "head": head,
            "budget": budget.to_json(), "updated_at": time.time(), "seats": [], "decisions": []}


def stale(record: dict, now: float | None = None) -> bool:
    """A queued or running record nobody has advanced for ``STALE_S`` (its worker died), or a failed one."""
    if record["status"] == FAILED:
        return True
    return record["status"] in (QUEUED, RUNNING) and (now or time.time()) - record.get("updated_at", 0) > STALE_S


def request_analysis(runtime, game_id: str, head: str, budget: Budget) -> dict:
    """The record of the game's analysis at ``head``, asking for it when there is none (or a lost
    or failed one). With a queue the job goes to the analysis lane; without one (tests, one process)
    it runs here, before this returns."""
    analyses = Analyses(runtime.store)
    record = analyses.get(game_id, head)
    if record is not None and not stale(record):
        return record
    fresh = pending(head, budget)
    if record is None:
        if not analyses.claim(game_id, head, fresh):
            return analyses.get(game_id, head) or fresh  # another request asked first
    else:
        analyses.put(game_id, head, fresh)
    if runtime.queue is None:
        analyse_game(game_id, head, budget.playouts, budget.max_decisions, runtime=runtime)
        return analyses.get(game_id, head) or fresh
    lane_queue(runtime.queue, ANALYSIS).enqueue(
        "workers.analysis.analyse_game", game_id, head, budget.playouts, budget.max_decisions,
        job_id=job_id(game_id, head), result_ttl=60, failure_ttl=3600, job_timeout=JOB_TIMEOUT_S)
    return fresh


def analyse_game(game_id: str, head: str, playouts: int, max_decisions: int, runtime=None) -> str:
    """The job: analyse the game as it is at ``head`` and write the record. A game whose head has
    moved on (never, for a finished game) or that is gone is not analysed."""
    runtime = runtime or current_runtime()
    analyses = Analyses(runtime.store)
    budget = Budget(playouts, max_decisions)
    handler: CommandHandler = runtime.handler
    loaded = handler.load(game_id)
    if head_of(loaded) != head or not handler.table.is_finished(loaded.state):
        analyses.put(game_id, head, {**pending(head, budget, FAILED), "error": "the game is not finished at this head"})
        return FAILED
    events = [e.to_domain() for e in runtime.store.read(game_id, until=loaded.seq)]
    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] >= PROGRESS_EVERY_S or done == total:
            last[0] = now
            analyses.put(game_id, head, pending(head, budget, RUNNING, done, total))

    analyses.put(game_id, head, pending(head, budget, RUNNING))
    try:
        result = analyse(handler.table, events, head, budget, progress)
    except Exception as exc:  # recorded, so GET tells the caller; a POST asks again
        log.exception("analysis of %s failed", game_id)
        analyses.put(game_id, head, {**pending(head, budget, FAILED), "error": type(exc).__name__})
        return FAILED
    analyses.put(game_id, head, {**result, "updated_at": time.time()})
    return DONE
