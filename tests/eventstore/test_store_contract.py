"""The event store's contract, against a real Redis-compatible server."""
from __future__ import annotations

import json
import secrets
import threading

import pytest

from domain.chain import GENESIS
from domain.event import Event, only_seat
from eventstore.codec import encode
from eventstore.keys import GameKeys
from eventstore.store import EventStore, Span


@pytest.fixture(params=["single", "cluster"])
def store(request, redis_client):
    """The same contract on one server and on a 3-master Redis Cluster."""
    if request.param == "single":
        return EventStore(redis_client)
    from eventstore.connection import connect

    return EventStore(connect(request.getfixturevalue("cluster_url")))


@pytest.fixture
def game_id():
    return "t" + secrets.token_hex(8)


SEED = "00" * 32  # the chain's salt; these tests check the store, not the chain


def payload(n: int) -> str:
    return encode(Event("Counted", {"n": n}), "2026-01-01T00:00:00.000Z", "system", n, GENESIS, SEED)[0]


class TestAppend:
    def test_first_event_has_seq_1_and_seqs_are_gapless(self, store, game_id):
        assert store.append(game_id, [payload(1), payload(2)], expected_seq=0).ok
        result = store.append(game_id, [payload(3)], expected_seq=2)
        assert (result.first_seq, result.last_seq, result.current_seq) == (3, 3, 3)
        assert [e.seq for e in store.read(game_id)] == [1, 2, 3]
        assert [e.data["n"] for e in store.read(game_id)] == [1, 2, 3]

    def test_conflict_appends_nothing_and_reports_current_seq(self, store, game_id):
        store.append(game_id, [payload(1), payload(2)], expected_seq=0)
        result = store.append(game_id, [payload(9)], expected_seq=1)
        assert result.status == "conflict" and result.current_seq == 2
        assert store.seq(game_id) == 2

    def test_retried_idempotency_key_returns_first_result_and_appends_nothing(self, store, game_id):
        store.append(game_id, [payload(1)], expected_seq=0)
        first = store.append(game_id, [payload(2), payload(3)], expected_seq=1, idempotency_key="k1")
        again = store.append(game_id, [payload(2), payload(3)], expected_seq=1, idempotency_key="k1")
        assert first.status == "ok" and again.status == "duplicate"
        assert (again.first_seq, again.last_seq) == (first.first_seq, first.last_seq) == (2, 3)
        assert store.seq(game_id) == 3

    def test_a_key_keeps_the_fingerprint_of_its_first_request(self, store, game_id):
        store.append(game_id, [payload(1)], expected_seq=0, idempotency_key="k", fingerprint="f1")
        again = store.append(game_id, [payload(2)], expected_seq=1, idempotency_key="k", fingerprint="f2")
        assert (again.status, again.fingerprint, store.seq(game_id)) == ("duplicate", "f1", 1)
        assert store.idempotent_result(game_id, "k") == Span(1, 1, "f1")

    def test_a_key_stored_without_fingerprint_reads_as_an_empty_one(self, store, game_id):
        store.redis.hset(GameKeys(game_id).idem, "old", "4:6")  # as written before fingerprints existed
        assert store.idempotent_result(game_id, "old") == Span(4, 6, "")

    def test_idempotency_key_is_kept_permanently(self, store, game_id):
        store.append(game_id, [payload(1)], expected_seq=0, idempotency_key="k")
        assert store.redis.ttl(GameKeys(game_id).idem) == -1  # no expiry

    def test_append_at_any_seq(self, store, game_id):
        store.append(game_id, [payload(1)], expected_seq=None)
        assert store.append(game_id, [payload(2)], expected_seq=None).last_seq == 2

    def test_empty_batch_is_refused(self, store, game_id):
        with pytest.raises(ValueError):
            store.append(game_id, [], expected_seq=0)

    def test_fifty_threads_racing_at_one_seq_exactly_one_wins(self, store, game_id):
        store.append(game_id, [payload(0)], expected_seq=0)
        barrier = threading.Barrier(50)
        results = []

        def race(n):
            barrier.wait()
            results.append(store.append(game_id, [payload(n), payload(n)], expected_seq=1))

        threads = [threading.Thread(target=race, args=(n,)) for n in range(50)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sum(r.ok for r in results) == 1
        assert all(r.current_seq == 3 for r in results if not r.ok)
        events = store.read(game_id)
        assert [e.seq for e in events] == [1, 2, 3]
        assert events[1].data == events[2].data  # both events of the one winning batch

    def test_fifty_threads_appending_in_a_loop_keep_the_stream_gapless(self, store, game_id):
        store.append(game_id, [payload(0)], expected_seq=0)

        def worker(n):
            for _ in range(10):
                while True:
                    current = store.seq(game_id)
                    if store.append(game_id, [payload(n)], expected_seq=current).ok:
                        break

        threads = [threading.Thread(target=worker, args=(n,)) for n in range(50)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert [e.seq for e in store.read(game_id)] == list(range(1, 502))


class TestRead:
    def test_read_from_any_seq_and_until(self, store, game_id):
        store.append(game_id, [payload(i) for i in range(1, 11)], expected_seq=0)
        assert [e.seq for e in store.read(game_id, after=7)] == [8, 9, 10]
        assert [e.seq for e in store.read(game_id, after=2, until=4)] == [3, 4]
        assert [e.seq for e in store.read(game_id, after=0, count=2)] == [1, 2]
        assert store.read(game_id, after=10) == []

    def test_unknown_game_reads_empty(self, store):
        assert store.read("nope" + secrets.token_hex(4)) == [] and store.seq("nope") == 0

    def test_event_envelope_round_trips(self, store, game_id):
        event = Event("PredictionMade", {"seat": 1, "most": "R"}, only_seat(1, "seat"))
        store.append(game_id, [encode(event, "2026-01-01T00:00:00.000Z", 1, 1, GENESIS, SEED)[0]], expected_seq=0)
        stored = store.read(game_id)[0]
        assert stored.to_domain() == event
        assert (stored.seq, stored.actor, stored.at) == (1, 1, "2026-01-01T00:00:00.000Z")
        assert stored.for_viewer(0, reveal_all=False)["data"] == {"seat": 1}
        assert stored.for_viewer(1, reveal_all=False)["data"] == {"seat": 1, "most": "R"}
        assert stored.for_viewer(None, reveal_all=True)["data"] == {"seat": 1, "most": "R"}


class TestKeys:
    def test_every_key_of_a_game_shares_one_cluster_slot(self, game_id):
        from redis.crc import key_slot

        slots = {key_slot(k.encode()) for k in GameKeys(game_id).all()}
        assert len(slots) == 1

    def test_snapshot_and_secret_round_trip(self, store, game_id):
        store.save_snapshot(game_id, b"blob")
        store.save_secret(game_id, "ab" * 32)
        assert store.load_snapshot(game_id) == b"blob"
        assert store.load_secret(game_id) == "ab" * 32

    def test_a_seat_credential_is_claimed_once(self, store, game_id):
        assert store.save_seat_credential(game_id, 0, "h1")
        assert not store.save_seat_credential(game_id, 0, "h2")
        assert store.seat_credentials(game_id) == {0: "h1"}
