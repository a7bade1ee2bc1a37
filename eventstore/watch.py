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
from typing import Callable, Iterator

import redis
from redis.cluster import RedisCluster

from .codec import StoredEvent, encode_for_viewer
from .connection import take_connection
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
        # seq -> {(viewer, revealed): the event's JSON for that viewer}: the waiters of one game
        # mostly ask for the same few renderings of each new event.
        self.rendered: dict[int, dict[tuple[int | None, bool], str]] = {}
        # seq -> {(viewer, revealed): the event's SSE message as bytes}: what a push writes.
        self.frames: dict[int, dict[tuple[int | None, bool], bytes]] = {}
        self.waiters = 0
        self.lock = threading.Lock()  # over ``recent`` and its renderings
        # Set once, when the next batch is published, then replaced: a waiter takes the current tick
        # before it looks at ``seq``, so a batch published in between sets the tick it waits on.
        # (A Condition's wait makes a lock, a semaphore and a timeout each time under gevent: a
        # fifth of a stream's time per push in the SSE cycle's profile. An event that stays set
        # makes nothing; gevent's is compiled.)
        self.tick = threading.Event()

    def publish(self, seq: int, events: list[StoredEvent]) -> None:
        with self.lock:
            self.recent.extend(events)
            if len(self.recent) > 2 * self.keep:  # trimmed in bulk, so a publish costs O(1) on average
                del self.recent[:-self.keep]
                first = self.recent[0].seq
                self.rendered = {n: forms for n, forms in self.rendered.items() if n >= first}
                self.frames = {n: forms for n, forms in self.frames.items() if n >= first}
            self.seq = seq
            tick, self.tick = self.tick, threading.Event()
        tick.set()

    def render(self, event: StoredEvent, viewer: int | None, revealed: bool) -> str:
        """The event as ``viewer`` sees it, as compact JSON; made once per viewer while it is recent."""
        forms = self.rendered.get(event.seq)
        if forms is None:
            if not self.recent or event.seq < self.recent[0].seq:  # an old event: not worth keeping
                return encode_for_viewer(event, viewer, revealed)
            forms = self.rendered.setdefault(event.seq, {})
        text = forms.get((viewer, revealed))
        if text is None:
            text = forms[(viewer, revealed)] = encode_for_viewer(event, viewer, revealed)
        return text

    def frame(self, event: StoredEvent, viewer: int | None, revealed: bool) -> bytes:
        """The event's SSE message (``id:`` and ``data:`` lines) for ``viewer``, encoded: every
        stream of this viewer writes the same bytes, made once while the event is recent."""
        forms = self.frames.get(event.seq)
        if forms is None:
            if not self.recent or event.seq < self.recent[0].seq:
                return f"id: {event.seq}\ndata: {self.render(event, viewer, revealed)}\n\n".encode()
            forms = self.frames.setdefault(event.seq, {})
        framed = forms.get((viewer, revealed))
        if framed is None:
            framed = forms[(viewer, revealed)] = \
                f"id: {event.seq}\ndata: {self.render(event, viewer, revealed)}\n\n".encode()
        return framed

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
    """``on_batch(game_id, events)`` sees every batch a reader reads, before the waiters do (the
    API folds them into its cached games, so a waiter finds the game current without asking Redis)."""

    def __init__(self, store: EventStore, blocking: redis.Redis, max_games: int = 1024, recent: int = 256,
                 block_s: float = BLOCK_S, on_batch: Callable[[str, list[StoredEvent]], None] | None = None):
        self.store = store
        self.blocking = blocking  # a client whose socket timeout exceeds block_s
        self.max_games = max_games
        self.recent = recent
        self.block_s = block_s
        self.on_batch = on_batch
        self._watches: dict[str, GameWatch] = {}
        self._lock = threading.Lock()

    @property
    def watched(self) -> int:
        return len(self._watches)

    def current(self, game_id: str) -> GameWatch | None:
        """The game's watch if a reader follows it and has started (its ``seq`` is the stream's, give or
        take the events still on their way)."""
        watch = self._watches.get(game_id)
        return watch if watch is not None and watch.seq is not None else None

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

    def next_events(self, watch: GameWatch, after: int, timeout_s: float, count: int = PAGE,
                    known: int = 0) -> list[StoredEvent]:
        """The events after ``after`` (at most ``count``); waits up to ``timeout_s`` while there are none.
        ``known``: a seq the caller has seen the stream reach (a route's load): events up to it are
        read at once, without waiting for a new watch's reader to start (on a busy machine that
        can take longer than a short stream's timeout)."""
        if after < known and (watch.seq is None or watch.seq <= after):
            # Events the caller knows exist, which the reader has not seen (yet, or ever: an archived
            # game's stream is not in Redis): read them at once.
            return self.store.read(watch.game_id, after, count=count)
        deadline = time.monotonic() + timeout_s
        while True:
            tick = watch.tick  # first the tick, then the seq: see GameWatch.tick
            if watch.seq is not None and watch.seq > after:
                break
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return []
            tick.wait(remaining)
        with watch.lock:
            cached = watch.cached_after(after, count)
        if cached is not None:
            return cached
        return self.store.read(watch.game_id, after, count=count)

    def _follow(self, watch: GameWatch) -> None:
        """The reader: block on the stream, publish every batch, stop when nobody waits."""
        reader = None
        backoff = 0.1
        try:
            while True:
                with self._lock:
                    if watch.waiters <= 0:
                        del self._watches[watch.game_id]
                        return
                try:
                    if reader is None:
                        reader = BlockingReader(self.blocking, self.store.keys(watch.game_id).events,
                                                int(self.block_s * 1000))
                    if watch.seq is None:  # start at the stream's end: waiters read older events themselves
                        watch.publish(reader.length(), [])
                    entries = reader.after(watch.seq)
                    backoff = 0.1
                except redis.RedisError as exc:
                    log.warning("following game %s: %s; retrying in %.1fs", watch.game_id, exc, backoff)
                    time.sleep(backoff)
                    backoff = min(backoff * 2, 5.0)
                    continue
                if entries:
                    self._deliver(watch, decode_entries(entries))
        finally:
            if reader is not None:
                reader.close()

    def _deliver(self, watch: GameWatch, events: list[StoredEvent]) -> None:
        if self.on_batch is not None:
            try:
                self.on_batch(watch.game_id, events)
            except Exception:  # a listener's failure must not stop the waiters' reader
                log.exception("on_batch failed for game %s", watch.game_id)
        watch.publish(events[-1].seq, events)


class BlockingReader:
    """One game's ``XREAD BLOCK`` loop on one connection. On a single server the connection is held
    for the reader's life and each command written and read on it directly: a reader reads after
    every event, and redis-py's client layers around a command (its retry wrapper, argument checks,
    reply callbacks; a client object per reader, whose construction looks the library's version up
    in the installed packages' metadata) were half of the readers' time in the SSE cycle's profile.
    A cluster client picks the node per command, so it goes through ``xread``."""

    def __init__(self, client: redis.Redis | RedisCluster, key: str, block_ms: int):
        self.key = key
        self.block_ms = block_ms
        self.cluster = isinstance(client, RedisCluster)
        self.client = client
        self.connection = None  # a single server's, taken from the client's pool at the first command

    def length(self) -> int:
        if self.cluster:
            return int(self.client.xlen(self.key))
        return int(self._command("XLEN", self.key))

    def after(self, seq: int) -> list:
        """The stream's entries after ``seq`` (at most a page), waiting up to the block for the first,
        as ``(entry id, {field: value})`` pairs."""
        if self.cluster:
            reply = self.client.xread({self.key: f"0-{seq}"}, count=PAGE, block=self.block_ms)
            return reply[0][1] if reply else []
        return stream_entries(self._command("XREAD", "COUNT", PAGE, "BLOCK", self.block_ms, "STREAMS", self.key,
                                            f"0-{seq}"))

    def _command(self, *args):
        if self.connection is None:
            self.connection = take_connection(self.client.connection_pool)
        try:
            self.connection.send_command(*args)
            return self.connection.read_response()
        except BaseException:
            self.close()  # redis-py has closed a connection whose command failed; the next one is new
            raise

    def close(self) -> None:
        if self.connection is not None:
            connection, self.connection = self.connection, None
            self.client.connection_pool.release(connection)


def stream_entries(reply) -> list:
    """A raw ``XREAD`` reply of one stream as ``(entry id, {field: value})`` pairs: RESP3's map
    ``{key: entries}`` or RESP2's ``[[key, entries]]`` (which one, the client's protocol says),
    each entry ``[id, [field, value, ...]]``; None when the block ran out."""
    if not reply:
        return []
    entries = next(iter(reply.values())) if isinstance(reply, dict) else reply[0][1]
    return [(entry_id, dict(zip(fields[::2], fields[1::2]))) for entry_id, fields in entries]
