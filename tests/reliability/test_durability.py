"""No acknowledged move is lost: SIGKILL the Redis server at random points while
moves are appended through the API, restart it from its data directory, and
check that every move that got a 2xx is still there, in order, gapless."""
from __future__ import annotations

import random
import threading
import time

import pytest

from api import create_app
from stich.redis_server import PrivateRedis

CYCLES = 20

pytestmark = pytest.mark.slow


class Player(threading.Thread):
    """Plays random legal moves in all-human games as fast as it can; records every
    acknowledged event (seq, type, at) per game."""

    def __init__(self, app, seed):
        super().__init__(daemon=True)
        self.client = app.test_client()
        self.rng = random.Random(seed)
        self.acked: dict[str, list[tuple[int, str, str]]] = {}
        self.tokens: dict[str, dict[int, str]] = {}
        self.stop = threading.Event()
        self.errors: list[int] = []
        self.ok = 0

    def run(self):
        while not self.stop.is_set():
            try:
                self.step()
            except Exception as exc:  # connection refused while Redis is down, and the like
                self.errors.append(repr(exc))
                time.sleep(0.01)

    def step(self):
        if len(self.tokens) < 3 or self.rng.random() < 0.02:
            response = self.client.post("/v1/games", json={"game": "scharfe-schoten", "players": 3,
                                                           "rules": {"rounds": 3}})
            if response.status_code != 201:
                return self.errors.append(response.status_code)
            game_id = response.get_json()["id"]
            tokens = {}
            for seat in range(3):
                taken = self.client.post(f"/v1/games/{game_id}/seats/{seat}")
                if taken.status_code != 201:
                    return self.errors.append(taken.status_code)
                tokens[seat] = taken.get_json()["token"]
            self.tokens[game_id] = tokens
            self.acked[game_id] = []
        game_id = self.rng.choice(sorted(self.tokens))
        for seat, token in self.tokens[game_id].items():
            headers = {"Authorization": f"Bearer {token}"}
            view = self.client.get(f"/v1/games/{game_id}/view", headers=headers)
            if view.status_code != 200:
                return self.errors.append(view.status_code)
            view = view.get_json()
            if view["status"] == "finished":
                del self.tokens[game_id]
                return
            if view["legal"]:
                response = self.client.post(f"/v1/games/{game_id}/commands", json=self.rng.choice(view["legal"]),
                                            headers={**headers, "If-Match": f'"{view["seq"]}"'})
                if response.status_code == 200:
                    self.ok += 1
                    self.acked[game_id] += [(e["seq"], e["type"], e["at"]) for e in response.get_json()["events"]]
                elif response.status_code >= 500:
                    self.errors.append(response.status_code)
                return


def test_every_acknowledged_move_survives_sigkill_of_redis(tmp_path):
    server = PrivateRedis(data_dir=str(tmp_path / "data"), fsync="always").start()
    app = create_app(server.url, bots="inline")
    store = app.extensions["stich"].store
    rng = random.Random(2026)
    player = Player(app, seed=1)
    player.start()
    checked_events = 0
    try:
        for cycle in range(CYCLES):
            time.sleep(rng.uniform(0.05, 0.4))
            server.kill()  # SIGKILL, mid-append or not
            time.sleep(rng.uniform(0.0, 0.1))
            server.restart()
            # Snapshot what was acknowledged *before* reading the streams: the
            # player keeps moving, and a move acknowledged after the read is
            # rightly not in it yet.
            acknowledged = {game_id: list(acked) for game_id, acked in list(player.acked.items())}
            for game_id, acked in acknowledged.items():
                stored = store.read(game_id)
                assert [e.seq for e in stored] == list(range(1, len(stored) + 1)), "gap in the stream"
                by_seq = {e.seq: (e.seq, e.type, e.at) for e in stored}
                for event in acked:
                    assert by_seq.get(event[0]) == event, (f"acknowledged event lost after cycle {cycle}: {event}; "
                                                           f"stored {by_seq.get(event[0])}, stream length {len(stored)}")
                    checked_events += 1
    finally:
        player.stop.set()
        player.join(timeout=10)
        server.stop()
    assert player.ok > 20, "too few moves were acknowledged to prove anything"
    assert checked_events > 0
    print(f"{CYCLES} SIGKILL/restart cycles, {player.ok} acknowledged moves, "
          f"{checked_events} event checks, {len(player.errors)} unacknowledged attempts")
