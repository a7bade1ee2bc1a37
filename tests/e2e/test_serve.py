"""`stich serve` as a user runs it: a real server process, a real worker, a private Redis."""
from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from stich.redis_server import free_port

pytestmark = pytest.mark.e2e


def test_serves_within_seconds_without_redis_url(server):
    assert server["startup_s"] < 30
    assert requests.get(server["url"] + "/v1/health", timeout=5).json()["status"] == "ok"
    assert (server["data_dir"] / "appendonlydir").exists() or any(server["data_dir"].iterdir())


def test_one_human_and_two_worker_bots_play_to_the_end(server):
    base = server["url"] + "/v1"
    game = requests.post(base + "/games", json={
        "game": "scharfe-schoten", "players": 3, "rules": {"rounds": 1},
        "seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]}).json()
    token = requests.post(f"{base}/games/{game['id']}/seats/0").json()["token"]
    headers = {"Authorization": f"Bearer {token}"}
    rng = random.Random(1)
    seq = 0
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        # Long-poll for anything new, then act if it is our turn.
        requests.get(f"{base}/games/{game['id']}/events", params={"after": seq, "wait": 5}, headers=headers)
        view = requests.get(f"{base}/games/{game['id']}/view", headers=headers).json()
        seq = view["seq"]
        if view["status"] == "finished":
            break
        if view["legal"]:
            response = requests.post(f"{base}/games/{game['id']}/commands", json=rng.choice(view["legal"]),
                                     headers={**headers, "If-Match": f'"{seq}"'})
            assert response.status_code in (200, 412), response.text
    assert view["status"] == "finished", view
    events = requests.get(f"{base}/games/{game['id']}/events", params={"limit": 500}).json()["events"]
    assert events[-1]["type"] == "SeedRevealed"
    # The SSE stream replays the whole finished game and closes.
    with requests.get(f"{base}/games/{game['id']}/events/stream", stream=True, timeout=30,
                      headers={"Last-Event-ID": str(len(events) - 5)}) as stream:
        ids = [int(line[4:]) for line in stream.iter_lines(decode_unicode=True) if line.startswith("id: ")]
    assert ids == list(range(len(events) - 4, len(events) + 1))
    # /metrics sums every process: the HTTP workers' requests and moves and the bot worker's turns.
    metrics = requests.get(server["url"] + "/metrics", timeout=10)
    assert metrics.status_code == 200
    samples = {}
    for family in text_string_to_metric_families(metrics.text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    game_label = (("game", "scharfe-schoten"),)
    assert samples[("stich_bot_turn_seconds_count", game_label)] > 0  # written by the bot worker process
    assert samples[("stich_moves_total", game_label)] > samples[("stich_bot_turn_seconds_count", game_label)]
    assert samples[("stich_command_seconds_count", game_label)] > 0
    assert sum(v for (name, labels), v in samples.items() if name == "stich_http_requests_total") > 10
    assert all(samples[("stich_bot_queue_depth", (("lane", lane),))] >= 0
               for lane in ("interactive", "slow", "bulk", "analysis"))


def test_access_log_has_a_line_per_request(tmp_path):
    """`stich serve --access-log FILE` (relative to where it was started): gunicorn writes a line per
    request there, the claim in a claim's path left out."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "QUEUE_URL")}
    process = subprocess.Popen([sys.executable, "-m", "stich.cli", "serve", "--port", str(port), "--workers", "0",
                                "--http-workers", "1", "--data-dir", str(tmp_path / "data"),
                                "--access-log", "access.log"], cwd=tmp_path, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        started = time.monotonic()
        for output in process.stdout:
            if "serving on" in output or time.monotonic() - started > 60:
                break
        url = f"http://127.0.0.1:{port}"
        assert requests.get(url + "/v1/health", timeout=5).status_code in (200, 503)
        assert requests.post(url + "/v1/claims/c_notarealclaim", timeout=5).status_code == 404
        log = tmp_path / "access.log"
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and "/v1/claims/" not in (log.read_text() if log.exists() else ""):
            time.sleep(0.1)
        text = log.read_text()
        assert '"GET /v1/health HTTP/1.1"' in text and '"POST /v1/claims/… HTTP/1.1" 404' in text
        assert "notarealclaim" not in text
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
