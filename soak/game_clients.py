"""The topology's players: each game's two human seats send their commands pinned to one API
process and follow their SSE streams through the other, failing over to the balancer when their
process dies (``soak/topology.py`` runs them against the deployment it builds)."""
from __future__ import annotations

import json
import random
import threading
import time
import uuid
from collections import Counter

import requests

from . import Violation

GAME_S = 120.0  # a game (or the tournament) to its end
REQUEST_S = 10.0  # one HTTP request through nginx


class Route:
    """Where a client sends its requests: a pinned process until it fails, then the balancer."""

    def __init__(self, base: str, pin: str):
        # No pin (""): the balancer from the start, as a client of the Compose recipe (tests/compose/).
        self.base, self.prefix, self.failovers = base, f"/{pin}" if pin else "", 0

    def url(self, path: str) -> str:
        return f"{self.base}{self.prefix}{path}"

    def fail_over(self) -> None:
        if self.prefix:
            self.prefix, self.failovers = "", self.failovers + 1


class Stream(threading.Thread):
    """A seat's SSE stream: every event's seq in the order received; reconnects with Last-Event-ID."""

    def __init__(self, base: str, pin: str, game_id: str, token: str):
        super().__init__(daemon=True)
        self.route, self.game_id, self.token = Route(base, pin), game_id, token
        self.seqs: list[int] = []
        self.final = False
        self.resumes = 0
        self.error: str | None = None
        self.reasons: Counter = Counter()  # why it had to reconnect
        self.stop = threading.Event()
        self.connected = threading.Event()

    def run(self) -> None:
        deadline = time.monotonic() + GAME_S
        while not self.final and not self.stop.is_set() and time.monotonic() < deadline:
            headers = {"Authorization": f"Bearer {self.token}"}
            if self.seqs:
                headers["Last-Event-ID"] = str(self.seqs[-1])
            try:
                with requests.get(self.route.url(f"/v1/games/{self.game_id}/events/stream"), headers=headers,
                                  stream=True, timeout=(2, 30)) as answer:
                    if answer.status_code != 200:
                        raise requests.ConnectionError(f"stream answered {answer.status_code}")
                    self.connected.set()
                    for line in answer.iter_lines(decode_unicode=True):
                        if line.startswith("data: "):
                            self.seqs.append(json.loads(line[6:])["seq"])
                # A clean end: the game's last event was sent (or the stream's timeout passed).
                self.final = self.finished()
                reason = "ended"
            except (requests.RequestException, ValueError) as error:
                reason = type(error).__name__ + str(error)[:60]
            if not self.final:
                self.reasons[reason] += 1
            if not self.final and not self.stop.is_set():  # cut off (its process gone): resume elsewhere
                self.route.fail_over()
                self.resumes += 1
                time.sleep(0.05)
        if not self.final and not self.stop.is_set():
            self.error = f"game {self.game_id}: the stream did not reach the end within {GAME_S:g} s"

    def finished(self) -> bool:
        """Whether the game has finished and this stream has its last event."""
        summary = requests.get(self.route.url(f"/v1/games/{self.game_id}"), timeout=REQUEST_S).json()
        return summary["status"] == "finished" and bool(self.seqs) and self.seqs[-1] == summary["seq"]


# Each kind's shortest game: its players and rules.
KINDS = {"scharfe-schoten": (3, {"rounds": 1}), "schafkopf": (4, {"deals": 1}), "scharwenzel": (4, {"deals": 1})}


class Game:
    """Two human seats and bots for the rest; seat 0's commands through process a and its stream through
    b, seat 1 the other way round (``pins=("", "")``: both through the balancer). Every acknowledged event
    (seq, type) is kept."""

    def __init__(self, base: str, session: requests.Session, kind: str = "scharfe-schoten",
                 pins: tuple[str, str] = ("a", "b"), rules: dict | None = None):
        self.base, self.session, self.kind = base, session, kind
        players, shortest = KINDS[kind]
        rules = shortest if rules is None else rules
        answer = session.post(base + "/v1/games", json={"game": kind, "players": players, "rules": rules,
                                                       "seats": [{"kind": "human"}] * 2
                                                       + [{"kind": "bot"}] * (players - 2)},
                              timeout=REQUEST_S)
        answer.raise_for_status()
        self.id = answer.json()["id"]
        self.tokens = [session.post(f"{base}/v1/games/{self.id}/seats/{seat}", timeout=REQUEST_S).json()["token"]
                       for seat in range(2)]
        self.commands = [Route(base, pins[0]), Route(base, pins[1])]
        self.streams = [Stream(base, pins[1], self.id, self.tokens[0]), Stream(base, pins[0], self.id, self.tokens[1])]
        self.acked: list[tuple[int, str]] = []
        self.finished = False
        self.retries = 0
        self.reasons: Counter = Counter()

    def step(self, rng: random.Random) -> bool:
        """One move of a human seat whose turn it is (True if one was acknowledged)."""
        for seat in rng.sample(range(2), 2):
            route, headers = self.commands[seat], {"Authorization": f"Bearer {self.tokens[seat]}"}
            try:
                view = self.session.get(route.url(f"/v1/games/{self.id}/view"), headers=headers, timeout=REQUEST_S)
                if view.status_code >= 500:
                    raise requests.ConnectionError(f"view answered {view.status_code}")
                view = view.json()
                if view["status"] == "finished":
                    self.finished = True
                    return False
                if not view["legal"]:
                    continue
                move, key = rng.choice(view["legal"]), uuid.uuid4().hex
                headers.update({"If-Match": f'"{view["seq"]}"', "Idempotency-Key": key})
                while True:  # the same key until an answer: a command that reached a dying process counts once
                    try:
                        answer = self.session.post(route.url(f"/v1/games/{self.id}/commands"), json=move,
                                                   headers=headers, timeout=REQUEST_S)
                        if answer.status_code < 500:
                            break
                        self.reasons[f"command {answer.status_code}"] += 1
                    except requests.RequestException as error:
                        self.reasons[type(error).__name__] += 1
                    route.fail_over()
                    self.retries += 1
                    time.sleep(0.05)
                if answer.status_code == 200:
                    self.acked += [(e["seq"], e["type"]) for e in answer.json()["events"]]
                    return True
            except (requests.RequestException, ValueError) as error:
                self.reasons[f"view {type(error).__name__}"] += 1
                route.fail_over()
                self.retries += 1
        return False


def play(games: list[Game], rng: random.Random, until) -> None:
    """Moves round-robin over the unfinished games until ``until()`` or all are finished."""
    deadline = time.monotonic() + GAME_S
    while not until() and any(not g.finished for g in games):
        if time.monotonic() > deadline:
            raise Violation(f"games did not finish within {GAME_S:g} s: "
                            + "; ".join(f"{g.id} {len(g.acked)} acked, {dict(g.reasons)}" for g in games))
        moved = False
        for game in games:
            if not game.finished:
                moved |= game.step(rng)
        if not moved:
            time.sleep(0.02)  # the bot's turn


def moves(games: list[Game]) -> int:
    return sum(len(g.acked) for g in games)
