"""A store outage never ends a bot worker: SIGKILL the store, restart it, and the same worker
process plays the next bot turn, having logged each outage once (not once per attempt)."""
from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time

import pytest

from stich.redis_server import PrivateRedis
from workers.context import build_runtime

pytestmark = pytest.mark.slow

OUTAGES = 3


def bot_has_moved(store, game_id: str) -> bool:
    return any(e.actor == 2 for e in store.read(game_id))


def test_a_bot_worker_outlives_store_crashes_and_logs_each_outage_once(tmp_path):
    server = PrivateRedis(data_dir=str(tmp_path / "data"), fsync="always").start()
    queue = "outage-bots-" + secrets.token_hex(4)
    runtime = build_runtime(server.url, bots="rq", queue_name=queue)
    log = open(tmp_path / "worker.log", "w+")
    env = {**os.environ, "REDIS_URL": server.url, "STICH_QUEUE": queue, "STICH_LOG_LEVEL": "WARNING"}
    env.pop("QUEUE_URL", None)
    worker = subprocess.Popen([sys.executable, "-m", "stich.cli", "worker"], env=env, stdout=log,
                              stderr=subprocess.STDOUT)
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot"}]
    try:
        for outage in range(OUTAGES + 1):
            if outage:
                server.kill()
                time.sleep(1.5)  # the worker's dequeue, heartbeat and sweeper all meet the outage
                assert worker.poll() is None, f"the worker exited during outage {outage}"
                server.restart()
            game_id = runtime.handler.create("scharfe-schoten", 3, {"rounds": 1}, seats, None).game_id
            runtime.handler.execute(game_id, None, {"type": "take_seat", "seat": 0})
            runtime.handler.execute(game_id, None, {"type": "take_seat", "seat": 1})  # the bot must predict now
            deadline = time.monotonic() + 10
            while not bot_has_moved(runtime.store, game_id) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert bot_has_moved(runtime.store, game_id), f"no bot move within 10 s after outage {outage}"
            assert worker.poll() is None, f"the worker exited after outage {outage}"
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=10)
        except subprocess.TimeoutExpired:
            worker.kill()
        server.stop()
    log.seek(0)
    text = log.read()
    assert worker.returncode == 0, text  # SIGTERM: a warm shutdown, not a crash
    noticed = text.count("the store is unreachable")
    assert 1 <= noticed <= OUTAGES, text  # once per outage at most (some end before the worker notices)
