"""The stream watcher: one blocking reader per watched game, shared by every waiter of the process."""
from __future__ import annotations

import secrets
import threading
import time

import pytest
import redis

from domain.chain import GENESIS
from domain.event import Event
from eventstore.codec import encode
from eventstore.connection import connect, connect_blocking
from eventstore.store import EventStore, decode_entries
from eventstore.watch import BlockingReader, StreamWatcher, WatchLimit

BLOCK_S = 0.3  # short blocks, so readers notice quickly that nobody waits any more


SEED = "00" * 32  # the chain's salt; these tests check the store, not the chain


def payload(n: int) -> str:
    return encode(Event("Counted", {"n": n}), "2026-01-01T00:00:00.000Z", "system", n, GENESIS, SEED)[0]


def make_watcher(url: str, max_games: int = 8, recent: int = 256) -> StreamWatcher:
    return StreamWatcher(EventStore(connect(url)), connect_blocking(url, BLOCK_S, max_connections=max_games),
                         max_games=max_games, recent=recent, block_s=BLOCK_S)


@pytest.fixture(params=["single", "cluster"])
def url(request, redis_url):
    return redis_url if request.param == "single" else request.getfixturevalue("cluster_url")


@pytest.fixture
def game_id():
    return "w" + secrets.token_hex(8)


def eventually(condition, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


def test_events_already_there_come_at_once(url, game_id):
    watcher = make_watcher(url)
    watcher.store.append(game_id, [payload(1), payload(2)], expected_seq=0)
    with watcher.watching(game_id) as watch:
        started = time.monotonic()
        assert [e.seq for e in watcher.next_events(watch, 0, timeout_s=5)] == [1, 2]
        assert time.monotonic() - started < 1


def test_events_the_caller_knows_of_come_without_waiting_for_the_reader(url, game_id):
    """A stream that starts on a game it has just loaded (seq 2) gets those events at once, even
    with no time to wait, before the new watch's reader has read the stream's length."""
    watcher = make_watcher(url)
    watcher.store.append(game_id, [payload(1), payload(2)], expected_seq=0)
    with watcher.watching(game_id) as watch:
        assert [e.seq for e in watcher.next_events(watch, 0, timeout_s=0, known=2)] == [1, 2]
        assert [e.seq for e in watcher.next_events(watch, 1, timeout_s=0, known=2)] == [2]


def test_a_wait_ends_with_the_next_append(url, game_id):
    watcher = make_watcher(url)
    watcher.store.append(game_id, [payload(1)], expected_seq=0)
    timer = threading.Timer(0.5, lambda: watcher.store.append(game_id, [payload(2)], expected_seq=1))
    timer.start()
    with watcher.watching(game_id) as watch:
        assert [e.seq for e in watcher.next_events(watch, 1, timeout_s=10)] == [2]
    timer.join()


def test_a_wait_with_nothing_new_times_out_empty(url, game_id):
    watcher = make_watcher(url)
    watcher.store.append(game_id, [payload(1)], expected_seq=0)
    with watcher.watching(game_id) as watch:
        started = time.monotonic()
        assert watcher.next_events(watch, 1, timeout_s=0.5) == []
        assert 0.45 < time.monotonic() - started < 2


def test_fifty_waiters_share_one_reader_and_each_gets_every_event_in_order(url, game_id):
    watcher = make_watcher(url)
    watcher.store.append(game_id, [payload(1)], expected_seq=0)
    received: dict[int, list[int]] = {}

    def follow(i: int) -> None:
        seen, last = [], 1
        with watcher.watching(game_id) as watch:
            while last < 21:
                batch = watcher.next_events(watch, last, timeout_s=10)
                assert batch, "a waiter timed out"
                seen += [e.seq for e in batch]
                last = batch[-1].seq
        received[i] = seen

    threads = [threading.Thread(target=follow, args=(i,)) for i in range(50)]
    for thread in threads:
        thread.start()
    assert eventually(lambda: watcher.watched == 1)
    for seq in range(2, 22):
        watcher.store.append(game_id, [payload(seq)], expected_seq=seq - 1)
        time.sleep(0.005)
    for thread in threads:
        thread.join(20)
    assert received == {i: list(range(2, 22)) for i in range(50)}
    assert watcher.watched in (0, 1)  # the reader leaves within one block once nobody waits
    assert eventually(lambda: watcher.watched == 0)


def test_a_waiter_behind_the_recent_events_reads_the_stream(url, game_id):
    watcher = make_watcher(url, recent=4)
    watcher.store.append(game_id, [payload(1)], expected_seq=0)
    with watcher.watching(game_id) as watch:
        assert watcher.next_events(watch, 0, timeout_s=5)
        watcher.store.append(game_id, [payload(n) for n in range(2, 12)], expected_seq=1)
        assert eventually(lambda: watch.seq == 11)
        assert [e.seq for e in watcher.next_events(watch, 1, timeout_s=5)] == list(range(2, 12))
        assert [e.seq for e in watcher.next_events(watch, 9, timeout_s=5, count=1)] == [10]


def test_watching_more_games_than_allowed_is_refused(redis_url):
    watcher = make_watcher(redis_url, max_games=2)
    games = ["w" + secrets.token_hex(8) for _ in range(3)]
    with watcher.watching(games[0]), watcher.watching(games[1]):
        with pytest.raises(WatchLimit):
            with watcher.watching(games[2]):
                pass
    assert eventually(lambda: watcher.watched == 0)
    with watcher.watching(games[2]):  # room again once the readers have gone
        pass


def test_a_reader_survives_a_restart_of_the_server(tmp_path, game_id):
    from stich.redis_server import PrivateRedis

    server = PrivateRedis(data_dir=str(tmp_path / "data"), fsync="always").start()
    try:
        watcher = make_watcher(server.url)
        watcher.store.append(game_id, [payload(1)], expected_seq=0)
        with watcher.watching(game_id) as watch:
            assert watcher.next_events(watch, 0, timeout_s=5)
            server.restart()
            appended = False
            deadline = time.monotonic() + 15
            while not appended and time.monotonic() < deadline:
                try:  # the store's own pool notices the restart on its first command
                    appended = watcher.store.append(game_id, [payload(2)], expected_seq=1).ok
                except Exception:
                    time.sleep(0.1)
            assert appended
            assert [e.seq for e in watcher.next_events(watch, 1, timeout_s=15)] == [2]
    finally:
        server.stop()


@pytest.mark.parametrize("protocol", [2, 3])
def test_a_reader_reads_the_same_entries_over_either_protocol(redis_url, game_id, protocol):
    """The reader writes its commands on its connection and parses the raw reply itself: RESP3's
    map and RESP2's array (redis-py 8 speaks RESP3 by default, earlier ones RESP2)."""
    store = EventStore(connect(redis_url))
    key = store.keys(game_id).events
    for n in range(1, 4):
        assert store.append(game_id, [payload(n)], expected_seq=n - 1).ok
    reader = BlockingReader(redis.Redis.from_url(redis_url, protocol=protocol), key, 50)
    try:
        assert reader.length() == 3
        entries = reader.after(1)
        assert [decoded.seq for decoded in decode_entries(entries)] == [2, 3]
        assert [decoded.data for decoded in decode_entries(entries)] == [{"n": 2}, {"n": 3}]
        assert reader.after(3) == []  # the block ran out: nothing new
    finally:
        reader.close()
