"""The hint job: the search bot's suggestion for one seat's decision, computed in the bot workers'
``interactive`` lane and kept in Redis for the route that asked (``api/hints.py``).

Not in the HTTP process: a search of up to ``DEFAULT_BUDGET_MS`` inside a gevent request would
hold up every other request of that process for as long.

The suggestion is the ``search`` policy's command for the seat's own ``Decision``, built exactly
as a bot's is (``decision_for``: the seat's view and its redacted history, never another hand),
at the game's default playouts with the default wall-clock safety net: what a search seat of
the default budget would play. Its random generator is seeded from the game's head hash at that
seq and the seat, so a hint asked twice is the same hint (unless the safety net cut a search
short on a busy machine).

One record per (game, seq, seat, token generation), ``{prefix}:{g:<id>}:hint:<seq>:<seat>:<gen>``
(the game's hash tag: its slot in Redis Cluster), JSON, kept ``RECORD_TTL_S``: ``queued`` when
asked for, then ``done`` with the command (or ``failed``). The job takes ids, re-reads the game
and computes the hint at that seq (``load_at`` if the game has moved on since: a late job still
answers the question it was asked); its id ``hint-<game>-<seq>-<seat>-<gen>`` is deterministic,
so a job queued twice does the same work and writes the same record. A record left ``queued`` by
a worker that died is asked for again after ``STALE_S``.
"""
from __future__ import annotations

import json
import logging
import random
import time

from domain.bots import policy
from domain.bots.roster import default_playouts
from domain.bots.decision import SeatHistories, decision_for
from domain.table import DEFAULT_BUDGET_MS, same_command
from eventstore.handler import CommandHandler, UnknownGame

from .analysis import head_of
from .dispatch import INTERACTIVE, lane_queue
from .runtime import current_runtime

log = logging.getLogger("stich.hint")

RECORD_TTL_S = 600  # a hint is for one seq: it is useless once the game moves on, and cheap to make again
STALE_S = 30  # a queued record older than this lost its worker (the job's timeout is below it)
JOB_TIMEOUT_S = 20
QUEUED, DONE, FAILED = "queued", "done", "failed"
BOT = "search"

# The seats' histories this process's hints have redacted: a hint reads only the events since the last.
HISTORIES = SeatHistories(games=128)


def record_key(prefix: str, game_id: str, seq: int, seat: int, generation: int) -> str:
    return f"{prefix}:{{g:{game_id}}}:hint:{seq}:{seat}:{generation}"


def job_id(game_id: str, seq: int, seat: int, generation: int) -> str:
    return f"hint-{game_id}-{seq}-{seat}-{generation}"


def budget(game: str) -> dict:
    """What a hint's search may spend: its game's default playouts a decision, and the wall-clock
    safety net every search bot has by default."""
    return {"playouts": default_playouts(game), "budget_ms": DEFAULT_BUDGET_MS}


class Hints:
    """The hint records of one store."""

    def __init__(self, store):
        self.redis = store.redis
        self.prefix = store.prefix

    def get(self, game_id: str, seq: int, seat: int, generation: int) -> dict | None:
        raw = self.redis.get(record_key(self.prefix, game_id, seq, seat, generation))
        return None if raw is None else json.loads(raw)

    def put(self, game_id: str, seq: int, seat: int, generation: int, record: dict) -> None:
        self.redis.set(record_key(self.prefix, game_id, seq, seat, generation),
                       json.dumps(record, separators=(",", ":")), ex=RECORD_TTL_S)

    def claim(self, game_id: str, seq: int, seat: int, generation: int, record: dict) -> bool:
        """Write ``record`` unless one is there already (or only a stale one); whether it was written."""
        key = record_key(self.prefix, game_id, seq, seat, generation)
        written = self.redis.set(key, json.dumps(record, separators=(",", ":")), ex=RECORD_TTL_S, nx=True)
        if written:
            return True
        found = self.get(game_id, seq, seat, generation)
        if found is not None and not stale(found):
            return False
        self.put(game_id, seq, seat, generation, record)  # a lost or failed one: ask again
        return True


def pending(seq: int, seat: int) -> dict:
    return {"status": QUEUED, "seq": seq, "seat": seat, "updated_at": time.time()}


def stale(record: dict, now: float | None = None) -> bool:
    """A failed record, or a queued one nobody has finished for ``STALE_S`` (its worker died)."""
    if record["status"] == FAILED:
        return True
    return record["status"] == QUEUED and (now or time.time()) - record.get("updated_at", 0) > STALE_S


def request_hint(runtime, game_id: str, seq: int, seat: int, generation: int) -> tuple[dict, bool]:
    """The hint record, asking for it when there is none (or a lost or failed one), and whether
    this call asked. With a queue the job goes to the interactive lane; without one (tests, one
    process) it runs here, before this returns."""
    hints = Hints(runtime.store)
    record = hints.get(game_id, seq, seat, generation)
    if record is not None and not stale(record):
        return record, False
    fresh = pending(seq, seat)
    if not hints.claim(game_id, seq, seat, generation, fresh):
        return hints.get(game_id, seq, seat, generation) or fresh, False  # another request asked first
    if runtime.queue is None:
        compute_hint(game_id, seq, seat, generation, runtime=runtime)
        return hints.get(game_id, seq, seat, generation) or fresh, True
    lane_queue(runtime.queue, INTERACTIVE).enqueue(
        "workers.hint.compute_hint", game_id, seq, seat, generation,
        job_id=job_id(game_id, seq, seat, generation), result_ttl=60, failure_ttl=600, job_timeout=JOB_TIMEOUT_S)
    return fresh, True


def suggestion(handler: CommandHandler, loaded, seat: int) -> dict | None:
    """The search bot's command for ``seat`` in ``loaded`` (the game at some seq), from the seat's
    own decision; None when the seat has nothing to decide there."""
    state = loaded.state
    legal = handler.table.legal_commands(state, seat)
    if not legal:
        return None
    history = HISTORIES.history(loaded.game_id, seat, loaded.seq, lambda after: [
        e.to_domain() for e in handler.store.read(loaded.game_id, after=after, until=loaded.seq)])
    spend = budget(state.game.name)  # what a search seat of the default budget spends
    deadline = time.monotonic() + spend["budget_ms"] / 1000
    decision = decision_for(handler.table, state, None, seat, random.Random(f"hint:{head_of(loaded)}:{seat}"),
                            lambda: time.monotonic() >= deadline, spend["budget_ms"], history=history,
                            playouts=spend["playouts"])
    command = policy(BOT, state.game.name)(decision)
    if not any(same_command(command, option) for option in legal):
        raise ValueError(f"the search suggested {command!r}, which is not one of seat {seat}'s legal commands")
    return command


def compute_hint(game_id: str, seq: int, seat: int, generation: int, runtime=None) -> str:
    """The job: the hint for ``seat`` at ``seq``, written to its record."""
    runtime = runtime or current_runtime()
    hints = Hints(runtime.store)
    handler: CommandHandler = runtime.handler
    started = time.monotonic()
    try:
        loaded = handler.load(game_id)
        if loaded.seq != seq:  # the game moved on while the job waited: answer the question asked
            loaded = handler.load_at(game_id, seq)
        command = suggestion(handler, loaded, seat)
    except UnknownGame:
        hints.put(game_id, seq, seat, generation, {**pending(seq, seat), "status": FAILED, "error": "unknown game"})
        return FAILED
    except Exception as exc:  # recorded, so the route tells the caller; the next GET asks again
        log.exception("hint for %s seat %s at %s failed", game_id, seat, seq)
        hints.put(game_id, seq, seat, generation, {**pending(seq, seat), "status": FAILED,
                                                   "error": type(exc).__name__})
        return FAILED
    if command is None:
        hints.put(game_id, seq, seat, generation, {**pending(seq, seat), "status": FAILED,
                                                   "error": "nothing to decide"})
        return FAILED
    hints.put(game_id, seq, seat, generation, {
        "status": DONE, "seq": seq, "seat": seat, "bot": BOT, "command": command,
        "budget": budget(loaded.state.game.name),
        "think_ms": round((time.monotonic() - started) * 1000), "updated_at": time.time()})
    return DONE
