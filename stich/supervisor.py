"""Keeping ``stich serve``'s children running: the private server, the bot workers, gunicorn.

A child that dies is started again after a back-off (0.5 s, doubling to 30 s while it keeps
dying within a minute of its start; back to 0.5 s once it has run a minute), and ``stich
serve`` never exits because a child died: a crash costs seconds of unavailability, which
``/v1/health`` reports, not the whole server. The private server restarts on the same port
from the same data directory with the same password, so every client reconnects as it is.
"""
from __future__ import annotations

import subprocess
import sys
import time
from typing import Callable

from .redis_server import PrivateRedis

FIRST_DELAY_S = 0.5
LONGEST_DELAY_S = 30.0
STEADY_AFTER_S = 60.0  # a child that ran this long before dying starts again at the first delay


class Supervised:
    """One child: how to start it and whether it runs."""

    def __init__(self, name: str, start: Callable[[], None], alive: Callable[[], bool], stop: Callable[[], None]):
        self.name, self._start, self.alive, self.stop = name, start, alive, stop
        self.started_at = 0.0
        self.delay = FIRST_DELAY_S
        self.due: float | None = None  # when a dead child is started again
        self.restarts = 0

    def start(self) -> None:
        self._start()
        self.started_at = time.monotonic()

    def check(self, now: float, say: Callable[[str], None]) -> None:
        """Notice a death and schedule the restart; restart when it is due."""
        if self.due is None:
            if self.alive():
                return
            if now - self.started_at >= STEADY_AFTER_S:
                self.delay = FIRST_DELAY_S
            self.due = now + self.delay
            say(f"{self.name} exited; starting it again in {self.delay:g}s")
            self.delay = min(self.delay * 2, LONGEST_DELAY_S)
            return
        if now >= self.due:
            self.due = None
            self.restarts += 1
            try:
                self.start()
            except (OSError, RuntimeError) as exc:  # e.g. the port is still taken: try again later
                say(f"{self.name} did not start again: {exc}")
                self.started_at = now


def process(name: str, argv: list[str], env: dict) -> Supervised:
    holder: dict[str, subprocess.Popen] = {}

    def start() -> None:
        holder["p"] = subprocess.Popen(argv, env=env)

    def alive() -> bool:
        return "p" in holder and holder["p"].poll() is None  # poll() reaps a dead child: no zombie

    def stop() -> None:
        child = holder.get("p")
        if child is not None and child.poll() is None:
            child.terminate()
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()

    return Supervised(name, start, alive, stop)


def private_server(server: PrivateRedis) -> Supervised:
    """Already started by the caller (its URL is needed first); restarts reuse port, data and password."""
    supervised = Supervised("the private Redis-compatible server", lambda: server.restart(), server.alive,
                            server.stop)
    supervised.started_at = time.monotonic()
    return supervised


class Supervisor:
    def __init__(self, children: list[Supervised], say: Callable[[str], None] | None = None):
        self.children = children
        self.say = say or (lambda text: print(f"stich: {text}", file=sys.stderr, flush=True))

    def tick(self) -> None:
        now = time.monotonic()
        for child in self.children:
            child.check(now, self.say)

    def run_forever(self, interval: float = 0.2) -> None:
        while True:
            self.tick()
            time.sleep(interval)

    def stop(self) -> None:
        for child in reversed(self.children):  # the store last: the others may still write to it
            child.stop()
