"""The archiver: finished games out of Redis into the database (``eventstore/archive.py``), nothing lost.

Every ``INTERVAL_S`` one worker (a lock in Redis) takes the games the history recorded more than
``STICH_ARCHIVE_AFTER`` seconds ago (default a day) that the archive lacks, oldest first, a batch at a
time, and for each:

1. reads its stream and keys from Redis and writes them to the archive, in one database transaction;
2. only once that commit is confirmed, deletes the game's keys from Redis and its entry in the game list
   (the lobby lists the games Redis holds), and marks it released.

A crash between 1 and 2 leaves the game in both (reads then find Redis's, which is the same); the next
pass finds it unreleased and finishes 2. A database that is down makes step 1 fail: the pass stops, the
games stay in Redis and are played and read as ever; the next pass tries again. Every read of an archived
game by its id works as before. What stays in Redis is bounded apart: an analysis' record expires after a
week, an import's deduplication entry (one key an imported game) stays.

Each pass leaves its account in one Redis hash (``STATUS``: games archived so far, the backlog, how long
the oldest due game has waited, when the pass ran), which ``GET /metrics`` reads at scrape time, so an API
replica reports the archive whichever worker (or container) made the pass.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from datetime import datetime, timedelta, timezone

import redis

from eventstore.archive import Archive
from eventstore.handler import CommandHandler, UnknownGame
from eventstore.index import GameIndex

log = logging.getLogger("stich.archiver")

INTERVAL_S = 10.0
BATCH = 100
DEFAULT_AFTER_S = 24 * 3600
STATUS = "archive:status"  # under the store's prefix: archived, backlog, oldest_due_s, passed_at


def status_key(prefix: str) -> str:
    return f"{prefix}:{STATUS}"


AFTER_RANGE = (0, 366 * 24 * 3600)


def archive_after() -> float:
    """Seconds after a game finishes before it is archived (``STICH_ARCHIVE_AFTER``)."""
    raw = os.environ.get("STICH_ARCHIVE_AFTER", str(DEFAULT_AFTER_S))
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"STICH_ARCHIVE_AFTER must be a number of seconds, not {raw!r}") from None
    low, high = AFTER_RANGE
    if not low <= value <= high:
        raise ValueError(f"STICH_ARCHIVE_AFTER must be {low}..{high} seconds, not {raw}")
    return value


class Archiver:
    def __init__(self, handler: CommandHandler, archive: Archive, index: GameIndex, after_s: float | None = None):
        self.handler = handler
        self.index = index
        self.store = handler.store
        self.archive = archive
        self.after_s = archive_after() if after_s is None else after_s
        self.lock_key = f"{self.store.prefix}:archive:pass"
        self.status_key = status_key(self.store.prefix)

    def cutoff(self, now: datetime | None = None) -> str:
        moment = (now or datetime.now(timezone.utc)) - timedelta(seconds=self.after_s)
        return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def pass_once(self, now: datetime | None = None, limit: int = BATCH) -> dict[str, int]:
        """Release what an earlier pass archived but did not release, then archive up to ``limit`` games."""
        done = {"archived": 0, "released": 0}
        for game_id in self.archive.unreleased(limit):
            self._release(game_id)
            done["released"] += 1
        cutoff = self.cutoff(now)
        try:
            for game_id in self.archive.candidates(cutoff, limit):
                if self.archive_game(game_id):
                    done["archived"] += 1
        finally:
            self._account(done["archived"], cutoff, now)
        return done

    def _account(self, archived: int, cutoff: str, now: datetime | None) -> None:
        """The pass's account for ``GET /metrics``: the backlog and its oldest game's wait past the delay."""
        moment = now or datetime.now(timezone.utc)
        try:
            backlog, oldest = self.archive.backlog(cutoff)
        except Exception:  # the database went away mid-pass: count what was done, leave the rest as it was
            backlog, oldest = None, None
        waited = 0.0 if oldest is None else max(
            0.0, (moment - datetime.fromisoformat(oldest.replace("Z", "+00:00"))).total_seconds() - self.after_s)
        pipe = self.store.redis.pipeline(transaction=False)
        if archived:
            pipe.hincrby(self.status_key, "archived", archived)
        if backlog is not None:
            pipe.hset(self.status_key, mapping={"backlog": backlog, "oldest_due_s": round(waited, 3)})
        pipe.hset(self.status_key, "passed_at", round(moment.timestamp(), 3))
        pipe.execute()

    def archive_game(self, game_id: str) -> bool:
        """One game into the archive, then out of Redis; False when it is not there to archive (archived
        already, or gone)."""
        payloads = self.store.payloads(game_id)
        if not payloads:
            return False
        try:
            loaded = self.handler.load(game_id)
        except UnknownGame:
            return False
        if not self.handler.table.is_finished(loaded.state):
            return False  # never a game still being played (the history records none, but be sure)
        started = time.perf_counter()
        written = self.archive.put(game_id, payloads, loaded.head, self.store.load_secret(game_id),
                                   self.store.seat_credentials(game_id), self.store.load_origin(game_id))
        self._release(game_id)
        if written:
            log.info("archived game %s (%d events) in %.0f ms", game_id, len(payloads),
                     1000 * (time.perf_counter() - started))
        return written

    def _release(self, game_id: str) -> None:
        self.store.release(game_id)
        self.index.drop(game_id)
        self.archive.released(game_id)

    def run_forever(self, client: redis.Redis, stop: threading.Event, interval: float = INTERVAL_S) -> None:
        while not stop.wait(interval):
            try:
                if client.set(self.lock_key, "1", nx=True, ex=max(60, int(interval * 6))):
                    try:
                        while self.pass_once()["archived"] >= BATCH and not stop.is_set():
                            pass  # a backlog: batch after batch, the lock held
                    finally:
                        client.delete(self.lock_key)
            except Exception:  # the database or the store away: the games stay where they are
                log.exception("an archive pass failed; the next one tries again")
