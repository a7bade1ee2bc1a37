"""Recovery that does not cascade, against a real `stich serve`.

(a) The store SIGKILLed again and again under light load: each time health is ok and a move is
accepted within 10 s, nothing acknowledged is lost, and no other child dies with the store (the
short run of `python -m soak --only store-kills`). (b) A hung bot worker (SIGSTOP) is replaced.
(c) When `stich serve` itself is SIGKILLed, nothing of it keeps the port.
"""
from __future__ import annotations

import os
import signal
import socket
import time
from pathlib import Path

import pytest
import requests

from soak import store_kills
from soak.store_kills import Serve, children_of, command_line

from .test_supervision import descendants, healthy_within

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.serial]  # recoveries within 10 and 15 s

WORKER = "stich.cli worker"


@pytest.fixture(scope="module")
def serve(tmp_path_factory):
    """One `stich serve` for the hung worker and then the SIGKILL of serve itself (the file's order):
    a replaced worker leaves a serve that is healthy again (asserted), which is all the last test
    needs, and a start less is ~6 s less of the suite spent alone."""
    server = Serve(tmp_path_factory.mktemp("recovery") / "data")
    yield server
    server.stop()


def test_store_kills_recover_within_10_s_each_and_lose_nothing():
    said: list[str] = []
    figures = store_kills.run(4, said.append, seed=22)
    print("\n".join(said), figures)
    assert figures["kills"] == 4 and figures["recovery_max_s"] < 10
    assert figures["other_children_restarted"] == 0 and figures["lost"] == 0
    assert figures["event_checks"] > 0 and figures["acknowledged_moves"] >= 4


def workers_of(serve_pid: int) -> set[int]:
    return {pid for pid in children_of(serve_pid) if WORKER in command_line(pid)}


def test_a_hung_bot_worker_is_killed_and_replaced_within_15_s(serve):
    pid = serve.process.pid
    before = workers_of(pid)
    victim = min(before)
    os.kill(victim, signal.SIGSTOP)
    stopped_at = time.monotonic()
    try:
        while time.monotonic() - stopped_at < 15:
            now = workers_of(pid)
            if victim not in now and len(now) == len(before):
                break
            time.sleep(0.1)
        took = time.monotonic() - stopped_at
        assert victim not in workers_of(pid) and len(workers_of(pid)) == len(before), "not replaced within 15 s"
    finally:
        if Path(f"/proc/{victim}").exists():
            os.kill(victim, signal.SIGKILL)
    print(f"hung worker replaced {took:.1f} s after SIGSTOP")
    assert "gave no sign of life" in "".join(serve.output)
    healthy_within(serve.url, 15)


def port_free(port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def test_nothing_of_a_killed_stich_serve_holds_the_port_after_5_s(serve):
    assert requests.get(serve.url + "/v1/health", timeout=5).status_code == 200
    family = descendants(serve.process.pid)
    assert len(family) >= 4  # the store, a worker or two, gunicorn and its workers
    serve.process.kill()
    serve.process.wait()
    killed_at = time.monotonic()
    while not port_free(serve.port):
        assert time.monotonic() - killed_at < 5, "the port is still held 5 s after stich serve's SIGKILL"
        time.sleep(0.05)
    freed = time.monotonic() - killed_at
    while any(Path(f"/proc/{p}").exists() and command_line(p) for p in family):
        left = [command_line(p) for p in family if Path(f"/proc/{p}").exists() and command_line(p)]
        assert time.monotonic() - killed_at < 10, f"still running 10 s after stich serve's SIGKILL: {left}"
        time.sleep(0.05)
    print(f"port free {freed:.2f} s and every child gone {time.monotonic() - killed_at:.2f} s after the SIGKILL")
