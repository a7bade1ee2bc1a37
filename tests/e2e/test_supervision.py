"""`stich serve` keeps its children running and its store locked.

SIGKILL each child in turn (the private server, a bot worker, gunicorn's master): health is 200
again within 10 s, `stich serve` is still there, and every acknowledged move is still stored.
The private server answers nobody without its password, and the password is never printed.
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import redis
import requests

from soak.store_kills import children_of, command_line
from stich.redis_server import free_port

pytestmark = pytest.mark.slow


def descendants(pid: int) -> list[int]:
    found = []
    for child in children_of(pid):
        found += [child, *descendants(child)]
    return found


def child_matching(serve_pid: int, pattern: str) -> int:
    """The direct child of ``stich serve`` (not, say, one of gunicorn's workers) matching ``pattern``."""
    for pid in children_of(serve_pid):
        if re.search(pattern, command_line(pid)):
            return pid
    raise AssertionError(f"no child of stich serve matches {pattern!r}")


def replaced_within(serve_pid: int, pattern: str, killed: int, seconds: float) -> None:
    """Wait for a new child matching ``pattern`` (health may be 200 before: a dead worker's last
    beat counts for a few seconds)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if child_matching(serve_pid, pattern) != killed:
                return
        except AssertionError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"nothing replaced the killed {pattern!r} within {seconds}s")


def gone_within(pids: list[int], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while any(Path(f"/proc/{pid}").exists() for pid in pids):
        assert time.monotonic() < deadline, f"{pids} still run"
        time.sleep(0.1)


def healthy_within(url: str, seconds: float) -> float:
    """Seconds until health answers 200 with every component up."""
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        try:
            answer = requests.get(url + "/v1/health", timeout=2)
            if answer.status_code == 200 and answer.json()["status"] == "ok":
                return time.monotonic() - started
        except requests.RequestException:
            pass
        time.sleep(0.1)
    raise AssertionError(f"health was not 200 within {seconds}s")


@pytest.fixture(scope="module")
def serve(tmp_path_factory):
    """One `stich serve` for the file: the lock's checks first (a fresh serve, and this start is not
    spent alone), then the kills (restarted children keep the store's port, password and files)."""
    tmp_path = tmp_path_factory.mktemp("supervision")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "QUEUE_URL")}
    process = subprocess.Popen([sys.executable, "-m", "stich.cli", "serve", "--port", str(port), "--data-dir",
                                str(tmp_path / "data")], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
    output: list[str] = []
    ready = threading.Event()

    def read() -> None:  # all of it, so the pipe never fills
        for line in process.stdout:
            output.append(line)
            if "serving on" in line:
                ready.set()

    threading.Thread(target=read, daemon=True).start()
    assert ready.wait(60), "".join(output)
    yield {"url": f"http://127.0.0.1:{port}", "process": process, "output": output, "data_dir": tmp_path / "data"}
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()


def play_some(url: str, game_id: str, token: str, moves: int) -> list[dict]:
    """Up to ``moves`` of seat 0's moves; the events each acknowledged answer carried."""
    acknowledged = []
    for _ in range(200):
        view = requests.get(f"{url}/v1/games/{game_id}/view", headers={"Authorization": f"Bearer {token}"},
                            timeout=10).json()
        if view["status"] == "finished" or len(acknowledged) >= moves:
            break
        if not view["legal"]:
            requests.get(f"{url}/v1/games/{game_id}/events", params={"after": view["seq"], "wait": 5}, timeout=10)
            continue
        answer = requests.post(f"{url}/v1/games/{game_id}/commands", json=view["legal"][0],
                               headers={"Authorization": f"Bearer {token}"}, timeout=10)
        assert answer.status_code == 200, answer.text
        acknowledged += answer.json()["events"]
    return acknowledged


def stored(url: str, game_id: str) -> dict[int, str]:
    events = requests.get(f"{url}/v1/games/{game_id}/events", timeout=10).json()["events"]
    return {e["seq"]: e["type"] for e in events}


def test_the_private_server_is_locked_and_its_password_never_shown(serve):
    text = "".join(serve["output"])
    port = int(re.search(r"redis://127\.0\.0\.1:(\d+)/0 \(password protected\)", text).group(1))
    # NOAUTH, or redis-py's HELLO refused without AUTH (the server runs: the right password works below)
    with pytest.raises((redis.exceptions.ResponseError, redis.exceptions.AuthenticationError)):
        redis.Redis(port=port, socket_timeout=5).get("anything")
    config = serve["data_dir"] / "stich-private.conf"
    password = config.read_text().split()[1]
    assert config.stat().st_mode & 0o077 == 0 and serve["data_dir"].stat().st_mode & 0o077 == 0
    for path in serve["data_dir"].rglob("*"):
        assert path.stat().st_mode & 0o077 == 0, path  # the append-only file holds every seed
    assert redis.Redis(port=port, password=password, socket_timeout=5).ping()
    assert password not in text
    valkey = child_matching(serve["process"].pid, r"valkey-server|redis-server")
    assert password not in command_line(valkey)


@pytest.mark.serial  # healthy within 10 s of each kill
def test_every_child_is_restarted_and_no_acknowledged_move_is_lost(serve):
    url, serve_pid = serve["url"], serve["process"].pid
    health = requests.get(url + "/v1/health", timeout=5).json()
    # A bot worker of every lane and one for the interactive lane alone (workers/dispatch.py); serve
    # reports up once one has registered, the other may still be starting
    assert health["components"]["workers"]["count"] in (1, 2) and health["status"] == "ok"
    game_id = requests.post(url + "/v1/games", json={
        "game": "scharfe-schoten", "players": 3, "rules": {"rounds": 3},
        "seats": [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}]}, timeout=10).json()["id"]
    token = requests.post(f"{url}/v1/games/{game_id}/seats/0", timeout=10).json()["token"]
    acknowledged = play_some(url, game_id, token, 3)

    for victim in (r"valkey-server|redis-server", r"stich\.cli worker", r"gunicorn"):
        pid = child_matching(serve_pid, victim)
        orphans = descendants(pid)  # gunicorn's workers outlive their master until they notice
        killed_at = time.monotonic()
        os.kill(pid, signal.SIGKILL)
        replaced_within(serve_pid, victim, pid, 10)
        healthy_within(url, 10)
        took = time.monotonic() - killed_at
        assert took < 10 and serve["process"].poll() is None, ("stich serve exited", took)
        gone_within(orphans, 40)  # they may still answer, then drop, a request meanwhile
        print(f"{victim}: healthy again {took:.1f}s after SIGKILL")
        acknowledged += play_some(url, game_id, token, 3)
        now = stored(url, game_id)
        assert all(now.get(e["seq"]) == e["type"] for e in acknowledged)

    play_some(url, game_id, token, 1000)  # the bots (restarted worker) play the game to its end
    assert requests.get(f"{url}/v1/games/{game_id}", timeout=10).json()["status"] == "finished"
    text = "".join(serve["output"])
    assert text.count("starting it again") >= 3, text
