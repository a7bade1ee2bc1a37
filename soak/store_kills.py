"""The store SIGKILLed over and over under a real ``stich serve``: each recovery within the limit,
nothing acknowledged lost, and no other child dies with the store.

``stich serve`` runs with its private server, a bot worker and gunicorn. A player thread plays
all-human games through the HTTP API at a light pace, recording every acknowledged event. Every
2-5 s the private server is SIGKILLed; ``stich serve`` restarts it. A recovery is the time from
the kill until ``/v1/health`` is 200 with every component up and a probe move is accepted. At
the end every acknowledged event must be stored as acknowledged, every stream gapless, and
every child but the store must be the process it was at the start (an outage kills nobody).
The suite runs a short version (``tests/e2e/test_recovery.py``).
"""
from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests

from bench.measure import percentile
from stich.redis_server import free_port

from . import Violation

LIMIT_S = 10.0


def children_of(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def child_matching(serve_pid: int, pattern: str) -> int | None:
    for pid in children_of(serve_pid):
        if re.search(pattern, command_line(pid)):
            return pid
    return None


class Serve:
    """A ``stich serve`` of its own (private server in a temporary directory), its output kept."""

    def __init__(self, data_dir: Path, extra_env: dict | None = None, cwd: str | None = None):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "QUEUE_URL")}
        env.update(extra_env or {})
        self.process = subprocess.Popen([sys.executable, "-m", "stich.cli", "serve", "--port", str(self.port),
                                         "--data-dir", str(data_dir)], env=env, cwd=cwd, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
        self.output: list[str] = []
        self.ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        if not self.ready.wait(60):
            self.stop()
            raise RuntimeError("stich serve did not start:\n" + "".join(self.output))

    def _read(self) -> None:  # all of it, so the pipe never fills
        for line in self.process.stdout:
            self.output.append(line)
            if "serving on" in line:
                self.ready.set()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class Table:
    """A game of Scharfe Schoten, the last ``bots`` seats bots: the humans' tokens; plays whichever
    human seat may move."""

    def __init__(self, url: str, session: requests.Session, bots: int = 0):
        self.url, self.session, self.bots = url, session, bots
        seats = [{"kind": "human"}] * (3 - bots) + [{"kind": "bot"}] * bots
        answer = session.post(url + "/v1/games", json={"game": "scharfe-schoten", "players": 3,
                                                       "rules": {"rounds": 1}, "seats": seats}, timeout=5)
        answer.raise_for_status()
        self.id = answer.json()["id"]
        self.tokens = [session.post(f"{url}/v1/games/{self.id}/seats/{seat}", timeout=5).json()["token"]
                       for seat in range(3 - bots)]
        self.finished = False

    def move(self, rng: random.Random) -> list[dict] | None:
        """One legal move of some seat: the events of the answer if acknowledged, else None."""
        for token in rng.sample(self.tokens, len(self.tokens)):
            headers = {"Authorization": f"Bearer {token}"}
            view = self.session.get(f"{self.url}/v1/games/{self.id}/view", headers=headers, timeout=5)
            if view.status_code != 200:
                return None
            view = view.json()
            if view["status"] == "finished":
                self.finished = True
                return None
            if view["legal"]:
                answer = self.session.post(f"{self.url}/v1/games/{self.id}/commands", json=rng.choice(view["legal"]),
                                           headers={**headers, "If-Match": f'"{view["seq"]}"'}, timeout=5)
                return answer.json()["events"] if answer.status_code == 200 else None
        return None


class Player(threading.Thread):
    """Light load: a move every ``pause_s``, new games as games end; every acknowledged event kept.
    A bot in every game keeps the bot worker busy, so the kills also land while it is in a job."""

    def __init__(self, url: str, seed: int, pause_s: float = 0.05):
        super().__init__(daemon=True)
        self.url, self.rng, self.pause_s = url, random.Random(seed), pause_s
        self.session = requests.Session()
        self.acked: dict[str, list[tuple[int, str]]] = {}
        self.stop = threading.Event()
        self.ok = self.refused = 0
        self.table: Table | None = None

    def run(self) -> None:
        while not self.stop.wait(self.pause_s):
            try:
                if self.table is None or self.table.finished:
                    self.table = Table(self.url, self.session, bots=1)
                    self.acked[self.table.id] = []
                events = self.table.move(self.rng)
            except (requests.RequestException, ValueError, KeyError):  # the store is down: 503s, resets
                events = None
            if events:
                self.ok += 1
                self.acked[self.table.id] += [(e["seq"], e["type"]) for e in events]
            else:
                self.refused += 1


def recovered_within(url: str, probe: Table, rng: random.Random, limit_s: float, since: float) -> float:
    """Seconds from ``since`` until health is ok and a probe move is accepted (a Violation past the limit)."""
    healthy = False
    while time.monotonic() - since < limit_s:
        try:
            if not healthy:
                answer = requests.get(url + "/v1/health", timeout=2)
                healthy = answer.status_code == 200 and answer.json()["status"] == "ok"
            if healthy:
                if probe.finished:
                    probe.__init__(probe.url, probe.session)  # all human: the API's recovery alone
                if probe.move(rng):
                    return time.monotonic() - since
        except (requests.RequestException, ValueError, KeyError):
            pass
        time.sleep(0.05)
    raise Violation(f"not recovered within {limit_s:g} s of the store's SIGKILL (health ok: {healthy})")


def run(kills: int, say, seed: int = 2026, limit_s: float = LIMIT_S) -> dict:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="soak-store-kills-") as tmp:
        # The player's games and moves must not run into the per-address quotas (one address here).
        # A bot's pause before its move keeps the worker inside a job most of the time, where a
        # store crash used to end it.
        serve = Serve(Path(tmp) / "data", {"STICH_CREATE_LIMIT": "0", "STICH_RATE_LIMIT_ADDRESS": "0",
                                            "STICH_ACTIVE_GAMES_LIMIT": "0", "STICH_EVENTS_LIMIT": "0",
                                            "STICH_BOT_THINK_MS": "300"})
        player = Player(serve.url, seed)
        try:
            return kill_under_load(serve, player, kills, say, rng, limit_s)
        finally:
            player.stop.set()
            player.join(timeout=10)
            serve.stop()


def kill_under_load(serve: Serve, player: Player, kills: int, say, rng: random.Random, limit_s: float) -> dict:
    pid = serve.process.pid
    store_pattern = r"valkey-server|redis-server"
    # A child with no command line is a zombie or one exiting as it is read (a short-lived helper
    # process): no service whose survival the kills could show.
    others = {p: cmd for p in children_of(pid) if (cmd := command_line(p)) and not re.search(store_pattern, cmd)}
    probe = Table(serve.url, requests.Session())
    player.start()
    recoveries: list[float] = []
    started = last_kill = time.monotonic()
    for kill in range(1, kills + 1):
        time.sleep(max(0.0, last_kill + rng.uniform(2.0, 5.0) - time.monotonic()))
        victim = child_matching(pid, store_pattern)
        if victim is None:
            raise Violation(f"kill {kill}: no store process under stich serve")
        os.kill(victim, signal.SIGKILL)
        last_kill = time.monotonic()
        recoveries.append(recovered_within(serve.url, probe, rng, limit_s, last_kill))
        if kill == 1 or kill % max(1, kills // 10) == 0 or kill == kills:
            say(f"kill {kill}/{kills}: recovered in {recoveries[-1]:.2f} s (max so far {max(recoveries):.2f} s), "
                f"{player.ok} moves acknowledged")
    player.stop.set()
    player.join(timeout=10)
    event_checks = check_acknowledged(serve.url, player.acked)
    still = {p: command_line(p) for p in children_of(pid)}
    died = [cmd for p, cmd in others.items() if still.get(p) != cmd]
    figures = {"kills": kills, "recovery_p50_s": round(percentile(recoveries, 50), 2),
               "recovery_max_s": round(max(recoveries), 2), "recoveries_s": [round(r, 2) for r in recoveries],
               "limit_s": limit_s, "acknowledged_moves": player.ok, "unacknowledged_attempts": player.refused,
               "games": len(player.acked), "event_checks": event_checks, "lost": 0,
               "other_children_restarted": len(died), "duration_s": round(time.monotonic() - started, 1)}
    if died:
        raise Violation(f"children died with the store: {died}", figures)
    if player.ok < kills:
        raise Violation(f"only {player.ok} moves acknowledged over {kills} kills: too few to prove anything", figures)
    return figures


def check_acknowledged(url: str, acked: dict[str, list[tuple[int, str]]]) -> int:
    checked = 0
    for game_id, events in acked.items():
        stored: list[dict] = []
        while True:  # pages of up to 500
            page = requests.get(f"{url}/v1/games/{game_id}/events", params={"after": len(stored)},
                                timeout=10).json()["events"]
            stored += page
            if not page:
                break
        seqs = [e["seq"] for e in stored]
        if seqs != list(range(1, len(seqs) + 1)):
            raise Violation(f"game {game_id} has a gap: seqs {seqs[:50]}")
        by_seq = {e["seq"]: e["type"] for e in stored}
        for seq, kind in events:
            if by_seq.get(seq) != kind:
                raise Violation(f"acknowledged event lost in game {game_id}: seq {seq} {kind}, stored "
                                f"{by_seq.get(seq)}")
            checked += 1
    return checked
