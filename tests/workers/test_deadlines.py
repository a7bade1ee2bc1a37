"""Deadlines in the due-time index: a clocked game's ``turn`` entry follows the earliest running
deadline, the sweeper queues a time-out only for seats whose time is up, and a time-out job
that is late, early or run twice appends nothing wrong."""
from __future__ import annotations

import secrets

import pytest

from domain.clock import iso
from eventstore.schedule import Entry
from workers.context import build_runtime
from workers.deadline import time_out_turn
from workers.dispatch import due_bot_seats
from workers.sweeper import Sweeper

from .test_sweeper import Jobs

T0 = 1_950_000_000_000
CLOCK = {"per_move_s": 4, "bank_s": 0, "abandon_after": 2}


class FakeTime:
    def __init__(self, ms):
        self.ms = ms

    def __call__(self):
        return iso(self.ms)


@pytest.fixture
def runtime(redis_url, monkeypatch):
    runtime = build_runtime(redis_url, bots="rq", queue_name="deadline-" + secrets.token_hex(4),
                            prefix="t" + secrets.token_hex(4))
    fake = FakeTime(T0)
    monkeypatch.setattr(runtime.handler, "clock", fake)
    monkeypatch.setattr("workers.deadline.time.time", lambda: fake.ms / 1000)
    runtime.now = fake
    return runtime


def predicting_game(runtime) -> str:
    """Scharfe Schoten, three humans: after the deal all three predict at once, each on the clock."""
    game_id = runtime.handler.create("scharfe-schoten", 3, {"rounds": 1}, None, None, clock=CLOCK).game_id
    for seat in range(3):
        runtime.handler.execute(game_id, None, {"type": "take_seat", "seat": seat})
    assert sorted(runtime.handler.table.to_act(runtime.handler.load(game_id).state)) == [0, 1, 2]
    return game_id


def turn_entries(runtime, game_id):
    members = runtime.schedule.redis.zrange(runtime.schedule.key, 0, -1, withscores=True)
    return {Entry.parse(m).seq: score for m, score in members if Entry.parse(m).game_id == game_id
            and Entry.parse(m).kind == "turn"}


def test_the_entry_is_due_at_the_earliest_running_deadline(runtime):
    game_id = predicting_game(runtime)
    seq = runtime.store.seq(game_id)
    assert turn_entries(runtime, game_id) == {seq: (T0 + 4_000) / 1000}
    # When seat 0 predicts 1 s later, the entry moves to the new seq; the others' clocks run on from T0
    runtime.now.ms = T0 + 1_000
    legal = runtime.handler.table.legal_commands(runtime.handler.load(game_id).state, 0)
    runtime.handler.execute(game_id, 0, legal[0])
    assert turn_entries(runtime, game_id) == {seq + 1: (T0 + 4_000) / 1000}


def test_the_sweeper_times_out_only_the_seats_whose_time_is_up(runtime):
    game_id = predicting_game(runtime)
    jobs = Jobs()
    sweeper = Sweeper(runtime.handler, runtime.schedule, jobs, idle_after=3)
    assert sweeper.sweep_once(now=(T0 + 3_999) / 1000) == 0
    assert sweeper.sweep_once(now=(T0 + 4_000) / 1000) == 3
    assert all(job.startswith(f"turn-{game_id}-") for job in jobs.ids)
    seq = runtime.store.seq(game_id)
    # The jobs: the first times its seat out; the seq moved, so the others find their turn gone
    runtime.now.ms = T0 + 4_100
    assert time_out_turn(game_id, 0, seq, handler=runtime.handler) == "timed out"
    assert time_out_turn(game_id, 0, seq, handler=runtime.handler) == "moved on"  # a twin job
    assert time_out_turn(game_id, 1, seq, handler=runtime.handler) == "moved on"
    # ... and the next pass queues them again at the new seq
    jobs.ids.clear()
    assert sweeper.sweep_once(now=(T0 + 4_200) / 1000) == 2
    new_seq = runtime.store.seq(game_id)
    assert sorted(jobs.ids) == sorted(f"turn-{game_id}-{new_seq}-{seat}-r{T0 + 4_200}" for seat in (1, 2))
    for seat in (1, 2):
        assert time_out_turn(game_id, seat, runtime.store.seq(game_id), handler=runtime.handler) == "timed out"
    state = runtime.handler.load(game_id).state
    assert new_seq < runtime.store.seq(game_id)
    assert [c.timeouts for c in state.clocks] == [1, 1, 1]


def test_an_early_job_does_nothing(runtime):
    game_id = predicting_game(runtime)
    seq = runtime.store.seq(game_id)
    runtime.now.ms = T0 + 3_000
    assert time_out_turn(game_id, 2, seq, handler=runtime.handler) == "not due"
    assert runtime.store.seq(game_id) == seq


def test_an_abandoned_seat_is_played_by_the_bots_path(runtime):
    game_id = predicting_game(runtime)
    runtime.now.ms = T0 + 4_000
    for seat in range(3):
        assert time_out_turn(game_id, seat, runtime.store.seq(game_id), handler=runtime.handler) == "timed out"
    loaded = runtime.handler.load(game_id)
    # Now a card: the seat to act times out twice in a row and is abandoned; the dispatcher then
    # treats it as a bot seat (its clock's bot plays it at once, through the bot-turn job)
    seat = min(runtime.handler.table.to_act(loaded.state))
    runtime.now.ms = runtime.handler.table.deadlines(loaded.state)[seat]
    assert time_out_turn(game_id, seat, loaded.seq, handler=runtime.handler) == "timed out"
    loaded = runtime.handler.load(game_id)
    assert loaded.state.clocks[seat].abandoned
    assert seat not in runtime.handler.table.deadlines(loaded.state)
    if seat in runtime.handler.table.to_act(loaded.state):
        assert due_bot_seats(runtime.handler, loaded) == [seat]


def test_backfill_restores_a_clock_whose_entry_was_lost(runtime):
    game_id = predicting_game(runtime)
    seq = runtime.store.seq(game_id)
    runtime.schedule.drop(Entry("turn", game_id, seq))  # its appending process died before the listener ran
    sweeper = Sweeper(runtime.handler, runtime.schedule, Jobs(), idle_after=3)
    assert sweeper.backfill(runtime.index) == 1
    assert turn_entries(runtime, game_id) == {seq: (T0 + 4_000) / 1000}
