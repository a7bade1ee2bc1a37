"""Keeping ``stich serve``'s children running: the private server, the bot workers, gunicorn.

A child that dies is started again after a back-off: 0.5 s, doubling to 30 s while it keeps
dying before it has run well, and back to 0.5 s once it has run well for ``steady_after``
seconds. "Well" means alive and, for a child with a pulse file (the bot workers), pulsing: the
back-off is for a child that cannot start or crashes at once, not for one that served and was
killed. So a store crashed over and over costs each time only the store's own restart: the
others ride its outage out (workers/worker.py, api/wsgi.py) instead of dying with it.

A child with a pulse file that stops touching it for ``HUNG_AFTER_S`` (stopped, wedged) is
SIGKILLed and restarted like a dead one. The supervisor reads only local state (process status,
file times), so it never waits on the store.

``stich serve`` never exits because a child died: a crash costs seconds of unavailability,
which ``/v1/health`` reports, not the whole server. The private server restarts on the same
port from the same data directory with the same password, so every client reconnects as it is.
Every child is tied to ``stich serve`` (stich/tether.py): if ``stich serve`` is killed, they go too.
"""
from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

from workers.heartbeat import PULSE_ENV, PULSE_S

from .redis_server import PrivateRedis
from .tether import tied_start

FIRST_DELAY_S = 0.5
LONGEST_DELAY_S = 30.0
# A child that has run well this long starts again at the first delay when it dies: long enough
# that a child crashing soon after its start backs off, short enough to matter under repeated crashes.
STEADY_AFTER_S = 5.0
# The private server has proved itself well when its start returns (it answered PING with the
# password); a failed start raises and backs off. Its clients all wait for it, so it must not back off
# because it was killed again a few seconds after a good start.
STORE_STEADY_AFTER_S = 1.0
HUNG_AFTER_S = 5 * PULSE_S  # no pulse for this long: hung (the pulse thread does nothing else)
# Before its first pulse a worker is booting: imports and its runtime took over 6 s on this 2-core
# machine while it was busy, and a worker killed for a slow boot only boots again, slower.
FIRST_PULSE_WITHIN_S = 30.0
STOP_WAIT_S = 10.0


class Supervised:
    """One child: how to start it, whether it runs, and (optionally) its pulse file."""

    def __init__(self, name: str, start: Callable[[], None], alive: Callable[[], bool], stop: Callable[[], None],
                 kill: Callable[[], None] | None = None, pulse: Path | None = None,
                 steady_after: float = STEADY_AFTER_S):
        self.name, self._start, self.alive, self.stop = name, start, alive, stop
        self.kill = kill or stop
        self.pulse = pulse
        self.steady_after = steady_after
        self.started_at = 0.0  # monotonic
        self.started_wall = 0.0  # the pulse file's times are wall-clock times
        self.delay = FIRST_DELAY_S
        self.due: float | None = None  # when a dead child is started again
        self.restarts = 0
        self.hangs = 0

    def start(self) -> None:
        self.started_at, self.started_wall = time.monotonic(), time.time()
        self._start()

    def overdue_for(self, wall: float) -> float:
        """Seconds the child has been silent past what it is allowed: since its last pulse less
        ``HUNG_AFTER_S``, or, before its first, since its start less ``FIRST_PULSE_WITHIN_S``; it is
        hung when this is above 0. 0 without a pulse file."""
        if self.pulse is None:
            return 0.0
        try:
            last, allowed = max(self.pulse.stat().st_mtime, self.started_wall), HUNG_AFTER_S
        except OSError:  # not pulsed yet: still booting
            last, allowed = self.started_wall, FIRST_PULSE_WITHIN_S
        return max(0.0, wall - last - allowed)

    def check(self, now: float, say: Callable[[str], None], wall: float | None = None) -> None:
        """Notice a death or a hang and schedule the restart; restart when it is due."""
        wall = time.time() if wall is None else wall
        if self.due is None:
            if self.alive():
                overdue = self.overdue_for(wall)
                if overdue <= 0:
                    if now - self.started_at >= self.steady_after:
                        self.delay = FIRST_DELAY_S  # it ran well: its next death is not a crash loop
                    return
                self.hangs += 1
                say(f"{self.name} gave no sign of life in time ({overdue:.0f}s overdue); killing it")
                self.kill()
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


def process(name: str, argv: list[str], env: dict, pulse_dir: Path | None = None,
            death_signal: int = signal.SIGTERM, cwd: str | None = None) -> Supervised:
    """A child process. With ``pulse_dir`` it gets a pulse file there (its path in ``STICH_PULSE_FILE``)
    and is killed when the file goes stale. ``death_signal``: what it gets if ``stich serve`` dies."""
    holder: dict[str, subprocess.Popen] = {}
    pulse = None
    if pulse_dir is not None:
        pulse = Path(pulse_dir) / (re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") + ".pulse")
        env = {**env, PULSE_ENV: str(pulse)}

    def start() -> None:
        if pulse is not None:
            pulse.unlink(missing_ok=True)  # the last run's pulse says nothing about this one
        holder["p"] = subprocess.Popen(argv, env=env, cwd=cwd, preexec_fn=tied_start(death_signal))

    def alive() -> bool:
        return "p" in holder and holder["p"].poll() is None  # poll() reaps a dead child: no zombie

    def kill() -> None:
        child = holder.get("p")
        if child is not None and child.poll() is None:
            child.kill()  # SIGKILL ends a stopped process too
            try:
                child.wait(timeout=STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                pass  # reaped by a later alive()

    def stop() -> None:
        child = holder.get("p")
        if child is not None and child.poll() is None:
            child.terminate()
            child.send_signal(signal.SIGCONT)  # a stopped process acts on SIGTERM only once continued
            try:
                child.wait(timeout=STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                kill()

    return Supervised(name, start, alive, stop, kill=kill, pulse=pulse)


def private_server(server: PrivateRedis) -> Supervised:
    """Already started by the caller (its URL is needed first); restarts reuse port, data and password."""
    supervised = Supervised("the private Redis-compatible server", lambda: server.restart(), server.alive,
                            server.stop, kill=server.kill, steady_after=STORE_STEADY_AFTER_S)
    supervised.started_at, supervised.started_wall = time.monotonic(), time.time()
    return supervised


class Supervisor:
    def __init__(self, children: list[Supervised], say: Callable[[str], None] | None = None):
        self.children = children
        self.say = say or (lambda text: print(f"stich: {text}", file=sys.stderr, flush=True))

    def tick(self) -> None:
        now, wall = time.monotonic(), time.time()
        for child in self.children:
            child.check(now, self.say, wall)

    def run_forever(self, interval: float = 0.2) -> None:
        while True:
            self.tick()
            time.sleep(interval)

    def stop(self) -> None:
        for child in reversed(self.children):  # the store last: the others may still write to it
            child.stop()

