"""Bot turns through RQ: deterministic job ids, quiet exits, exactly one move per turn."""
from __future__ import annotations

import secrets

import pytest
from rq import Queue, SimpleWorker

from workers.bot_turn import play_bot_turn
from workers.context import build_runtime
from workers.dispatch import job_id


@pytest.fixture
def runtime(redis_url, monkeypatch):
    """A runtime whose queue is this test's own; jobs run by an in-process worker
    build their handler from the same environment a real worker reads."""
    import workers.context

    queue_name = "test-bots-" + secrets.token_hex(4)
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("STICH_QUEUE", queue_name)
    monkeypatch.setattr(workers.context, "_runtime", None)
    return build_runtime(redis_url, bots="rq", queue_name=queue_name)


def drain(runtime):
    worker = SimpleWorker([runtime.queue], connection=runtime.queue.connection, serializer=runtime.queue.serializer)
    worker.work(burst=True, logging_level="ERROR")


def predict_all_humans(runtime, game_id):
    handler = runtime.handler
    loaded = handler.load(game_id)
    for seat in sorted(handler.table.to_act(loaded.state)):
        if loaded.state.seats[seat].kind == "human":
            handler.execute(game_id, seat, handler.table.legal_commands(loaded.state, seat)[0])
            loaded = handler.load(game_id)


def test_due_bots_get_one_job_each_with_a_deterministic_id(runtime):
    outcome = runtime.handler.create("scharfe-schoten", 3, {}, [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}], None)
    game_id = outcome.game_id
    assert outcome.loaded.state.status == "waiting"
    runtime.handler.execute(game_id, None, {"type": "take_seat", "seat": 0})
    seq = runtime.handler.load(game_id).seq
    queued = set(runtime.queue.job_ids)
    # Predictions are simultaneous: both bots are due at once.
    assert {job_id(game_id, seq, 1), job_id(game_id, seq, 2)} <= queued


def test_worker_plays_the_bots_and_the_game_goes_on(runtime):
    game_id = runtime.handler.create("scharfe-schoten", 3, {"rounds": 1},
                                     [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}], None).game_id
    runtime.handler.execute(game_id, None, {"type": "take_seat", "seat": 0})
    for _ in range(200):
        predict_all_humans(runtime, game_id)
        drain(runtime)
        state = runtime.handler.load(game_id).state
        if state.status == "finished":
            break
    assert runtime.handler.load(game_id).state.status == "finished"


def test_a_late_or_duplicate_job_exits_quietly_and_moves_once(runtime):
    game_id = runtime.handler.create("scharfe-schoten", 3, {}, [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}], None).game_id
    runtime.handler.execute(game_id, None, {"type": "take_seat", "seat": 0})
    seq = runtime.handler.load(game_id).seq
    assert play_bot_turn(game_id, 1, seq, handler=runtime.handler) == "played"
    after = runtime.handler.load(game_id).seq
    assert play_bot_turn(game_id, 1, seq, handler=runtime.handler) == "moved on"
    assert play_bot_turn(game_id, 1, after, handler=runtime.handler) == "not due"  # already predicted
    assert runtime.handler.load(game_id).seq == after
    assert play_bot_turn("no-such-game", 1, 1, handler=runtime.handler) == "unknown game"


def test_same_job_enqueued_twice_makes_one_move(runtime):
    game_id = runtime.handler.create("scharfe-schoten", 3, {}, [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}], None).game_id
    runtime.handler.execute(game_id, None, {"type": "take_seat", "seat": 0})
    seq = runtime.handler.load(game_id).seq
    queue = Queue(runtime.queue.name, connection=runtime.queue.connection, serializer=runtime.queue.serializer)
    queue.enqueue("workers.bot_turn.play_bot_turn", game_id, 1, seq, job_id=job_id(game_id, seq, 1))
    drain(runtime)
    events = runtime.store.read(game_id, after=seq)
    assert [e.data.get("seat") for e in events if e.type == "PredictionMade"].count(1) == 1
