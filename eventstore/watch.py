"""Followers of game streams: one blocking reader per watched game, shared by every waiter of this process.

A long poll or an SSE stream waits for a game's next events. If each did its
own ``XREAD BLOCK`` it would hold a Redis connection (and, under a threaded
server, a thread) for as long as it waits. Here a process runs at most one
reader per game that someone is waiting on; the reader blocks on the stream
and hands each new batch to every local waiter, which costs a condition
variable, not a connection. The readers are threads, which gevent's
monkey-patching turns into greenlets in the HTTP server.

One reader per game, not one ``XREAD`` over every watched key: a multi-key
read must stay within one Redis Cluster hash slot, and a game's reader wakes
only for that game's events.

Bounded: at most ``max_games`` games are watched per process (each reader
holds one blocking connection); a further game raises ``WatchLimit``. Each
watch keeps the last ``recent`` events so that waiters woken together do not
each read them again; a waiter that fell further behind reads the stream.
"""
from __future__ import annotations

import logging
import threading
import time
from contextlib import contextmanager
from typing import Iterator

import redis

from .codec import StoredEvent
from .store import EventStore, decode_entries

log = logging.getLogger("stich.watch")

BLOCK_S = 5.0  # how long one XREAD blocks; a reader with no waiters left stops within this
PAGE = 500


class WatchLimit(Exception):
    """This process already watches as many games as it may."""


class GameWatch:
    """One game's stream as this process follows it."""

    def __init__(self, game_id: str, recent: int):
        self.game_id = game_id
        self.seq: int | None = None  # the newest seq seen; None until the reader has started
        self.keep = recent
        self.recent: list[StoredEvent] = []  # consecutive seqs, the newest last
        self.waiters = 0
        self.changed = threading.Condition()

    def publish(self, seq: int, events: list[StoredEvent]) -> None:
        with self.changed:
            self.recent.extend(events)
            if len(self.recent) > 2 * self.keep:  # trimmed in bulk, so a publish costs O(1) on average
                del self.recent[:-self.keep]
            self.seq = seq
            self.changed.notify_all()

    def cached_after(self, after: int, count: int) -> list[StoredEvent] | None:
        """Events after ``after`` from memory, or None when they are no longer all there."""
        if not self.recent or self.recent[0].seq > after + 1:
            return None
        start = after + 1 - self.recent[0].seq
        return self.recent[start:start + count]


class Lease:
    """A waiter's hold on a watch. Releasing twice is harmless, so a streamed response can release
    both when its generator ends and when the server closes it (which may happen without the other)."""

    def __init__(self, watcher: "StreamWatcher", watch: GameWatch):
        self.watcher = watcher
        self.watch = watch
        self._released = False

    def release(self) -> None:
        if not self._released:
            self._released = True
            self.watcher._leave(self.watch)


class StreamWatcher:
    def __init__(self, store: EventStore, blocking: redis.Redis, max_games: int = 1024, recent: int = 256,
                 block_s: float = BLOCK_S):
        self.store = store
        self.blocking = blocking  # a client whose socket timeout exceeds block_s
        self.max_games = max_games
        self.recent = recent
        self.block_s = block_s
        self._watches: dict[str, GameWatch] = {}
        self._lock = threading.Lock()

    @property
    def watched(self) -> int:
        return len(self._watches)

    def lease(self, game_id: str) -> Lease:
        """Become a waiter of ``game_id`` until the lease is released."""
        with self._lock:
            watch = self._watches.get(game_id)
            if watch is None:
                if len(self._watches) >= self.max_games:
                    raise WatchLimit(f"this server process already follows {self.max_games} games")
                watch = self._watches[game_id] = GameWatch(game_id, self.recent)
                threading.Thread(target=self._follow, args=(watch,), daemon=True,
                                 name=f"watch-{game_id}").start()
            watch.waiters += 1
            return Lease(self, watch)

    def _leave(self, watch: GameWatch) -> None:
        with self._lock:
            watch.waiters -= 1

    @contextmanager
    def watching(self, game_id: str) -> Iterator[GameWatch]:
        """A lease for the duration of the block."""
        lease = self.lease(game_id)
        try:
            yield lease.watch
        finally:
            lease.release()

    def next_events(self, watch: GameWatch, after: int, timeout_s: float, count: int = PAGE) -> list[StoredEvent]:
        """The events after ``after`` (at most ``count``); waits up to ``timeout_s`` while there are none."""
        deadline = time.monotonic() + timeout_s
        with watch.changed:
            while watch.seq is None or watch.seq <= after:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return []
                watch.changed.wait(remaining)
            cached = watch.cached_after(after, count)
        if cached is not None:
            return cached
        return self.store.read(watch.game_id, after, count=count)

    def _follow(self, watch: GameWatch) -> None:
        """The reader: block on the stream, publish every batch, stop when nobody waits."""
        key = self.store.keys(watch.game_id).events
        backoff = 0.1
        while True:
            with self._lock:
                if watch.waiters <= 0:
                    del self._watches[watch.game_id]
                    return
            try:
                if watch.seq is None:  # start at the stream's end: waiters read older events themselves
                    watch.publish(int(self.blocking.xlen(key)), [])
                reply = self.blocking.xread({key: f"0-{watch.seq}"}, count=PAGE, block=int(self.block_s * 1000))
                backoff = 0.1
            except redis.RedisError as exc:
                log.warning("following game %s: %s; retrying in %.1fs", watch.game_id, exc, backoff)
                time.sleep(backoff)
                backoff = min(backoff * 2, 5.0)
                continue
            if reply:
                events = decode_entries(reply[0][1])
                watch.publish(events[-1].seq, events)
