"""The backup recipe in docs/deployment.md, followed: a `stich serve` with live and archived games is stopped,
its data directory backed up and restored by the recipe's own commands, and the restored server answers every
game as before - each export verifying - with the same ratings."""
from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from domain.audit import verify_text
from domain.registry import all_games
from domain.table import Table
from stich.redis_server import free_port

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]


def recipe() -> str:
    found = re.search(r"<!-- backup -->\n```bash\n(.*?)```", (ROOT / "docs/deployment.md").read_text(), re.S)
    assert found, "docs/deployment.md has no <!-- backup --> block"
    return found.group(1)


def serve(data: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "QUEUE_URL", "STICH_DATABASE_URL")}
    env.update(STICH_ARCHIVE_AFTER="0", STICH_LOG_LEVEL="ERROR")
    process = subprocess.Popen([sys.executable, "-m", "stich.cli", "serve", "--port", str(port), "--data-dir",
                                str(data)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in process.stdout:
        if "serving on" in line:
            return process, f"http://127.0.0.1:{port}"
    raise AssertionError("stich serve did not start")


def call(url: str, path: str, body=None, token=None):
    request = urllib.request.Request(url + path, data=json.dumps(body).encode() if body is not None else None,
                                     method="POST" if body is not None else "GET")
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=30) as answer:
        raw = answer.read().decode()
    return json.loads(raw) if answer.headers.get_content_type() == "application/json" else raw


def play(url: str, game_id: str, token: str, rng: random.Random) -> None:
    for _ in range(2000):
        view = call(url, f"/v1/games/{game_id}/view", token=token)
        if view["status"] == "finished":
            return
        if view["legal"]:
            call(url, f"/v1/games/{game_id}/commands", rng.choice(view["legal"]), token)
        else:
            time.sleep(0.05)
    raise AssertionError("the game did not finish")


def stop(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=30)


def test_the_backup_recipe_restores_live_and_archived_games_and_the_ratings(tmp_path):
    data = tmp_path / "data"
    process, url = serve(data)
    try:
        player = call(url, "/v1/players", {"handle": "backup-ann"})
        games = []
        for n in range(3):
            game = call(url, "/v1/games", {"game": "scharfe-schoten", "players": 3, "rules": {"rounds": 1},
                                           "rated": True, "seats": [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}]})
            call(url, f"/v1/games/{game['id']}/seats/0", {}, player["token"])
            games.append(game["id"])
        for n, game_id in enumerate(games[:2]):
            play(url, game_id, player["token"], random.Random(n))
        deadline = time.monotonic() + 60  # the workers record them, rate them, and (STICH_ARCHIVE_AFTER=0) archive them
        while time.monotonic() < deadline:
            metrics = urllib.request.urlopen(url + "/metrics", timeout=10).read().decode()
            archived = sum(float(m) for m in re.findall(r"^stich_archived_games_total (\S+)$", metrics, re.M))
            if archived >= 2:
                break
            time.sleep(0.5)
        assert archived >= 2, "the finished games were not archived"
        before = {g: call(url, f"/v1/games/{g}/export") for g in games}
        rating = call(url, "/v1/players/backup-ann")["ratings"]
    finally:
        stop(process)
    restored = tmp_path / "restored"
    result = subprocess.run(["bash", "-euo", "pipefail", "-c", recipe()], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "DATA": str(data), "BACKUP": str(tmp_path / "backup"),
                                 "RESTORED": str(restored)})
    assert result.returncode == 0, result.stderr
    assert "ok" in result.stdout.splitlines() and f"restored {restored}" in result.stdout
    process, url = serve(restored)
    try:
        table = Table(all_games())
        for game_id, export in before.items():
            assert call(url, f"/v1/games/{game_id}/export") == export
            if json.loads(export.splitlines()[0])["status"] == "finished":
                report = verify_text(table, export)
                assert report.ok, report.lines()
        assert call(url, "/v1/players/backup-ann")["ratings"] == rating and rating["scharfe-schoten"]["matches"] == 2
        live = games[2]  # the game in play goes on where it was
        assert call(url, f"/v1/games/{live}")["status"] == "active"
        play(url, live, player["token"], random.Random(7))
        assert call(url, f"/v1/games/{live}")["status"] == "finished"
    finally:
        stop(process)
