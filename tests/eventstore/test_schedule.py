"""The due-time index's contract, on one server and on a Redis Cluster."""
from __future__ import annotations

import secrets
import threading

import pytest

from eventstore.schedule import Entry, Schedule


@pytest.fixture(params=["single", "cluster"])
def schedule(request, redis_client):
    """A prefix of its own per test: the claims see only this test's entries."""
    prefix = "t" + secrets.token_hex(4)
    if request.param == "single":
        return Schedule(redis_client, prefix)
    from eventstore.connection import connect

    return Schedule(connect(request.getfixturevalue("cluster_url")), prefix)


def game() -> str:
    return secrets.token_hex(8)


def test_member_format_round_trips():
    entry = Entry("bot", "0123456789abcdef", 42)
    assert entry.member == "bot|0123456789abcdef|42"
    assert Entry.parse(entry.member.encode()) == entry


def test_advance_moves_the_entry_to_the_new_seq_or_removes_it(schedule):
    g = game()
    schedule.advance("bot", g, 0, 3, due_at=100.0)
    assert schedule.score(Entry("bot", g, 3)) == 100.0
    schedule.advance("bot", g, 3, 4, due_at=105.0)
    assert schedule.score(Entry("bot", g, 3)) is None
    assert schedule.score(Entry("bot", g, 4)) == 105.0
    schedule.advance("bot", g, 4, 6, due_at=None)
    assert schedule.size() == 0


def test_a_late_listener_never_removes_a_newer_entry(schedule):
    """Two appends' listeners in the wrong order: at worst an entry for a seq the game has left."""
    g = game()
    schedule.advance("bot", g, 10, 11, due_at=200.0)  # the append of seq 11, its listener first
    schedule.advance("bot", g, 9, 10, due_at=190.0)  # the append of seq 10, late
    assert schedule.score(Entry("bot", g, 11)) == 200.0
    assert schedule.score(Entry("bot", g, 10)) == 190.0


def test_claim_returns_only_overdue_entries_oldest_first_and_leases_them(schedule):
    games = [game() for _ in range(4)]
    for i, g in enumerate(games):
        schedule.add(Entry("bot", g, 1), 100.0 + i)
    claimed = schedule.claim(now=102.0, lease_until=110.0, limit=10)
    assert [e.game_id for e in claimed] == games[:3]
    assert schedule.claim(now=102.5, lease_until=115.0, limit=10) == []  # leased until 110
    assert schedule.due(now=103.0) == 1
    # Oldest first: the unclaimed one (103), then those whose lease ended (110).
    first, second = schedule.claim(now=110.0, lease_until=120.0, limit=2)
    assert first.game_id == games[3] and second.game_id in games[:3]


def test_a_malformed_member_is_dropped_not_handed_out(schedule):
    schedule.redis.zadd(schedule.key, {"garbage": 1.0})
    good = Entry("bot", game(), 2)
    schedule.add(good, 1.0)
    assert schedule.claim(now=5.0, lease_until=60.0, limit=10) == [good]
    assert schedule.size() == 1


def test_add_keeps_an_existing_score(schedule):
    entry = Entry("bot", game(), 7)
    assert schedule.add(entry, 50.0)
    assert not schedule.add(entry, 10.0)
    assert schedule.score(entry) == 50.0


def test_replace_and_drop(schedule):
    g = game()
    schedule.add(Entry("bot", g, 3), 50.0)
    schedule.replace(Entry("bot", g, 3), Entry("bot", g, 5), 60.0)
    assert schedule.score(Entry("bot", g, 3)) is None and schedule.score(Entry("bot", g, 5)) == 60.0
    schedule.drop(Entry("bot", g, 5))
    assert schedule.size() == 0


def test_concurrent_claims_never_hand_out_an_entry_twice(schedule):
    entries = {Entry("bot", game(), 1) for _ in range(200)}
    for entry in entries:
        schedule.add(entry, 1.0)
    got: list[list[Entry]] = [[] for _ in range(4)]

    def claim_all(mine: list[Entry]) -> None:
        for _ in range(100):  # bounded: 200 entries, 10 per claim
            batch = schedule.claim(now=5.0, lease_until=60.0, limit=10)
            if not batch:
                return
            mine.extend(batch)

    threads = [threading.Thread(target=claim_all, args=(mine,)) for mine in got]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    flat = [e for mine in got for e in mine]
    assert len(flat) == len(set(flat)) == 200
    assert set(flat) == entries


def test_reserve_lets_one_holder_in_per_period(schedule):
    assert schedule.reserve("backfill", 30, "a")
    assert not schedule.reserve("backfill", 30, "b")
