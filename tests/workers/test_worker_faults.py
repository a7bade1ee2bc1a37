"""A worker killed with SIGKILL in the middle of a bot turn: the game goes on
within 10 s, with exactly one move for that turn."""
from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time

import pytest

from workers.context import build_runtime
from workers.dispatch import INTERACTIVE, job_id, lane_queue
from workers.dispatch import sweep_after
from workers.sweeper import Sweeper


def start_worker(redis_url, queue, think_ms):
    """A worker with the default sweep settings: the 10 s promise is about those."""
    env = {**os.environ, "REDIS_URL": redis_url, "STICH_QUEUE": queue, "STICH_BOT_THINK_MS": str(think_ms),
           "STICH_LOG_LEVEL": "ERROR"}
    for name in ("QUEUE_URL", "STICH_SWEEP_AFTER", "STICH_SWEEP_INTERVAL"):
        env.pop(name, None)
    return subprocess.Popen([sys.executable, "-m", "stich.cli", "worker"], env=env)


def predictions_by(store, game_id, seat):
    return [e for e in store.read(game_id) if e.type == "PredictionMade" and e.data["seat"] == seat]


@pytest.mark.slow
@pytest.mark.serial  # re-driven within 10 s
def test_worker_killed_mid_turn_the_turn_is_redriven_once(redis_url):
    """Only the bot is due and nobody else moves, so no later append can queue the
    turn again: the sweeper alone must notice the lost job."""
    queue = "fault-bots-" + secrets.token_hex(4)
    runtime = build_runtime(redis_url, bots="rq", queue_name=queue)
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot"}]
    game_id = runtime.handler.create("scharfe-schoten", 3, {"rounds": 1}, seats, None).game_id
    victim = start_worker(redis_url, queue, think_ms=5000)  # slow thinker: we kill it mid-turn
    try:
        runtime.handler.execute(game_id, None, {"type": "take_seat", "seat": 0})
        runtime.handler.execute(game_id, None, {"type": "take_seat", "seat": 1})  # starts: the bot must predict
        due_at = time.monotonic()
        deadline = time.monotonic() + 10
        lane = lane_queue(runtime.queue, INTERACTIVE)  # a game with a person in it
        while lane.count and time.monotonic() < deadline:
            time.sleep(0.05)
        assert lane.count == 0, "the worker never picked up the bot turn"
        time.sleep(0.3)
        seq_before = runtime.store.seq(game_id)
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        assert runtime.store.seq(game_id) == seq_before  # it died before moving
    finally:
        if victim.poll() is None:
            victim.kill()
    killed_at = time.monotonic()
    rescuer = start_worker(redis_url, queue, think_ms=0)
    try:
        while time.monotonic() - killed_at < 10 and not predictions_by(runtime.store, game_id, 2):
            time.sleep(0.1)
        recovered_in = time.monotonic() - killed_at
        assert recovered_in < 10, "the bot turn was not re-driven within 10 s"
        print(f"bot turn re-driven {recovered_in:.1f}s after the worker was killed, "
              f"{time.monotonic() - due_at:.1f}s after it became due")
        time.sleep(sweep_after() + 1)  # another sweep window: duplicate jobs must not move twice
        assert len(predictions_by(runtime.store, game_id, 2)) == 1
        seqs = [e.seq for e in runtime.store.read(game_id)]
        assert seqs == list(range(1, len(seqs) + 1))
    finally:
        rescuer.send_signal(signal.SIGTERM)
        try:
            rescuer.wait(timeout=10)
        except subprocess.TimeoutExpired:
            rescuer.kill()


def test_sweeper_leaves_fresh_turns_alone_and_redrives_overdue_ones(redis_url):
    # A key prefix of its own: the sweeper sees only this test's due turns.
    runtime = build_runtime(redis_url, bots="rq", queue_name="sweep-" + secrets.token_hex(4),
                            prefix="t" + secrets.token_hex(4))
    game_id = runtime.handler.create("scharfe-schoten", 3, {}, [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}],
                                     None).game_id
    runtime.handler.execute(game_id, None, {"type": "take_seat", "seat": 0})
    seq = runtime.store.seq(game_id)
    sweeper = Sweeper(runtime.handler, runtime.schedule, runtime.queue, idle_after=3)
    lane = lane_queue(runtime.queue, INTERACTIVE)  # a game with a person in it: re-driven in its lane
    first_jobs = set(lane.job_ids)
    assert sweeper.sweep_once() == 0  # due, but not yet overdue
    assert set(lane.job_ids) == first_jobs
    assert sweeper.sweep_once(now=time.time() + 120) == 2
    redriven = set(lane.job_ids) - first_jobs
    assert sorted(j.split("-r")[0] for j in redriven) == [job_id(game_id, seq, 1), job_id(game_id, seq, 2)]
