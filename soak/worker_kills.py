"""Bot workers SIGKILLed mid turn: every turn is still played, exactly once, within the re-drive bound.

The long version of ``tests/workers/test_worker_faults.py``. A pool of bot
workers (``stich worker``'s code, forked from a warm forkserver: see
``soak/worker_process.py``) plays all-bot games of every game and player
count against a private Redis, each bot pausing ``STICH_BOT_THINK_MS`` before
its move so that most of a worker's life is spent inside a turn. Over and
over, the soak picks a worker whose current job is a turn still due (the
game's seq is still the job's), SIGKILLs it, starts a replacement, and
confirms the seq did not move (the kill landed before the move). From then
on nobody will play that turn but a sweeper (``workers/sweeper.py``), which
re-drives a turn idle for ``STICH_SWEEP_AFTER`` seconds, checked every
``STICH_SWEEP_INTERVAL`` (the README's Configuration table: 3 s and 1 s).

Checked while it runs: every killed turn is played within ``limit_s`` of the
kill (re-drive latency: kill to the seat's move, from the move's stored
time), and no game stands still longer than that. Checked on every game
once it ends (``soak/turn_audit.py``): the stream gapless, each bot turn
played exactly once, when due, as the bot would. At the end every game must
have finished.
"""
from __future__ import annotations

import multiprocessing
import os
import random
import secrets
import time
from dataclasses import dataclass
from datetime import datetime

from rq import Worker
from rq.worker_registration import get_keys

from bench.measure import percentile
from stich.redis_server import PrivateRedis
from workers.context import build_runtime

from . import Violation
from .turn_audit import audit
from .worker_process import serve

# Every game and player count, short (one round or deal): a game ends every few seconds.
BOT_GAMES = [("scharfe-schoten", 3, {"rounds": 1}), ("scharfe-schoten", 4, {"rounds": 1}),
             ("schafkopf", 4, {"deals": 1}), ("scharwenzel", 4, {"deals": 1}),
             ("scharwenzel", 6, {"deals": 1}), ("scharwenzel", 8, {"deals": 1})]


@dataclass
class Kill:
    game_id: str
    seq: int
    seat: int
    wall: float  # time.time(): compared with the stored time of the seat's next move
    monotonic: float


class Pool:
    """The bot workers, and which RQ worker each process is (to see the job it is in)."""

    def __init__(self, env: dict[str, str], queue):
        self.context = multiprocessing.get_context("forkserver")
        self.context.set_forkserver_preload(["soak.worker_process"])
        self.env = env
        self.queue = queue
        self.processes: dict[int, multiprocessing.Process] = {}
        self.registered: dict[int, Worker] = {}
        self.looked_up: set[str] = set()  # RQ worker keys already read: killed ones stay listed for minutes
        self.started = 0

    def start(self) -> None:
        process = self.context.Process(target=serve, args=(self.env,), daemon=True)
        process.start()
        self.processes[process.pid] = process
        self.started += 1

    def kill(self, pid: int) -> None:
        process = self.processes.pop(pid)
        process.kill()  # SIGKILL
        process.join()
        self.registered.pop(pid, None)

    def check(self) -> None:
        """Workers die here only by the soak's hand."""
        for pid, process in self.processes.items():
            if not process.is_alive():
                raise RuntimeError(f"bot worker {pid} exited on its own with status {process.exitcode}")

    def jobs(self) -> dict[int, str]:
        """The current job id of every live worker in a job."""
        for key in get_keys(queue=self.queue) - self.looked_up:
            worker = Worker.find_by_key(key, connection=self.queue.connection)
            if worker is not None and worker.pid in self.processes:
                self.registered[worker.pid] = worker
            self.looked_up.add(key)
        jobs = {}
        for pid, worker in self.registered.items():
            job_id = worker.get_current_job_id()
            if job_id:
                jobs[pid] = job_id.decode() if isinstance(job_id, bytes) else job_id
        return jobs

    def stop(self, grace: float) -> None:
        for process in self.processes.values():
            process.terminate()  # RQ's warm shutdown: the job in hand is finished first
        for process in self.processes.values():
            process.join(timeout=grace)
            if process.is_alive():
                process.kill()
                process.join()


def turn_of(job_id: str) -> tuple[str, int, int] | None:
    """(game, seq, seat) of a bot-turn job id ``bot-<game>-<seq>-<seat>[-r<retry>]``."""
    parts = job_id.split("-")
    if len(parts) < 4 or parts[0] != "bot":
        return None
    return parts[1], int(parts[2]), int(parts[3])


def sole_turn(runtime, game_id: str, seq: int, seat: int) -> bool:
    """Whether the turn is still due and the seat the only one to act: no other move can queue it
    again, so once its worker dies only a sweeper can play it (as in the suite's fault test)."""
    if runtime.store.seq(game_id) != seq:
        return False
    loaded = runtime.handler.load(game_id)
    return loaded.seq == seq and runtime.handler.table.to_act(loaded.state) == {seat}


def stored_time(at: str) -> float:
    return datetime.fromisoformat(at).timestamp()  # "…Z": Python 3.11 reads it


class Games:
    """The soak's games: keeps ``target`` running, audits each one that ends, notices one standing still."""

    def __init__(self, runtime, target: int, stall_s: float):
        self.runtime = runtime
        self.target = target
        self.stall_s = stall_s
        self.active: dict[str, tuple[int, float]] = {}  # game id -> (seq, when it last moved)
        self.finished = 0
        self.turns = 0
        self.created = 0

    def top_up(self) -> None:
        while len(self.active) < self.target:
            game, players, rules = BOT_GAMES[self.created % len(BOT_GAMES)]
            outcome = self.runtime.handler.create(game, players, rules, [{"kind": "bot"}] * players, None)
            self.active[outcome.game_id] = (outcome.loaded.seq, time.monotonic())
            self.created += 1

    def check(self, excused: set[str]) -> None:
        """Audit the games that ended; a game that stood still too long (and whose stall is not a
        killed turn still within its limit) lost a turn."""
        now = time.monotonic()
        for game_id, (seq, moved_at) in list(self.active.items()):
            loaded = self.runtime.handler.load(game_id)
            if loaded.state.status == "finished":
                self.turns += audit(self.runtime.handler, game_id)
                self.finished += 1
                del self.active[game_id]
            elif loaded.seq != seq:
                self.active[game_id] = (loaded.seq, now)
            elif now - moved_at > self.stall_s and game_id not in excused:
                raise Violation(f"game {game_id} has not moved for {now - moved_at:.1f}s at seq {seq} "
                                f"(to act: {sorted(self.runtime.handler.table.to_act(loaded.state))}): a lost turn")


def run(kills: int, say, workers: int = 6, think_ms: int = 250, games: int | None = None,
        limit_s: float = 10.0, seed: int = 0) -> dict:
    rng = random.Random(seed)
    games = games or 3 * workers
    # The README's defaults; the soak's own process reads the same variables (its BotSchedule
    # sets the due time of the turns its game creation makes due).
    sweep_after = float(os.environ.get("STICH_SWEEP_AFTER", "3"))
    sweep_interval = float(os.environ.get("STICH_SWEEP_INTERVAL", "1"))
    bound_s = sweep_after + sweep_interval + think_ms / 1000  # idle, next sweep, the re-driven job's pause
    server = PrivateRedis(fsync="everysec").start()
    queue_name = "soak-bots-" + secrets.token_hex(4)
    env = {**os.environ, "REDIS_URL": server.url, "STICH_QUEUE": queue_name, "STICH_BOT_THINK_MS": str(think_ms),
           "STICH_LOG_LEVEL": "ERROR", "STICH_SWEEP_AFTER": str(sweep_after),
           "STICH_SWEEP_INTERVAL": str(sweep_interval)}
    env.pop("QUEUE_URL", None)
    runtime = build_runtime(server.url, bots="rq", queue_name=queue_name)
    pool = Pool(env, runtime.queue)
    table = Games(runtime, games, stall_s=limit_s)
    pending: list[Kill] = []
    latencies: list[float] = []  # kill to the killed turn's move
    raced = 0
    started = time.monotonic()
    report_every = max(1, kills // 20)
    try:
        for _ in range(workers):
            pool.start()
        table.top_up()
        last_check = 0.0
        while len(latencies) + len(pending) < kills:
            if time.monotonic() - last_check > 0.5:
                pool.check()
                latencies += settle(runtime, pending, limit_s)
                table.check({k.game_id for k in pending})
                table.top_up()
                last_check = time.monotonic()
            # At most half the games held up by a killed turn at once: the rest keep the workers busy.
            if len(pending) >= games // 2:
                time.sleep(0.05)
                continue
            # Games with a killed turn outstanding are left alone: a re-drive killed again would
            # count two re-drives as one.
            held_up = {k.game_id for k in pending}
            due = [(pid, turn) for pid, job_id in pool.jobs().items()
                   if (turn := turn_of(job_id)) and turn[0] not in held_up and sole_turn(runtime, *turn)]
            if not due:
                time.sleep(0.02)
                continue
            pid, (game_id, seq, seat) = rng.choice(due)
            kill = Kill(game_id, seq, seat, time.time(), time.monotonic())
            pool.kill(pid)
            pool.start()  # the replacement
            if runtime.store.seq(game_id) != seq:  # the move landed just before the kill did: not mid-turn
                raced += 1
                continue
            pending.append(kill)
            done = len(latencies) + len(pending)
            if done == 1 or done % report_every == 0:
                say(f"{done}/{kills} workers killed mid turn, {len(latencies)} of their turns re-driven since "
                    f"(p50 {percentile(latencies, 50) or 0:.2f}s, max {max(latencies, default=0):.2f}s after the "
                    f"kill), {table.finished} games finished and audited")
        say(f"all {kills} kills done; waiting for the killed turns and the {len(table.active)} running games")
        while pending or table.active:
            latencies += settle(runtime, pending, limit_s)
            table.check({k.game_id for k in pending})
            time.sleep(0.2)
    finally:
        pool.stop(grace=think_ms / 1000 + 10)
        server.stop()
    elapsed = time.monotonic() - started
    return {"kills": len(latencies), "kills_not_mid_turn": raced, "workers": workers,
            "workers_started": pool.started, "think_ms": think_ms, "games": table.created,
            "games_finished": table.finished, "bot_turns_audited": table.turns, "lost": 0, "doubled": 0,
            "sweep_after_s": sweep_after, "sweep_interval_s": sweep_interval,
            "bound_s": bound_s, "limit_s": limit_s, "within_bound": sum(1 for x in latencies if x <= bound_s),
            "redrive_min_s": round(min(latencies), 2), "redrive_p50_s": round(percentile(latencies, 50), 2),
            "redrive_p99_s": round(percentile(latencies, 99), 2), "redrive_max_s": round(max(latencies), 2),
            "duration_s": round(elapsed, 1)}


def settle(runtime, pending: list[Kill], limit_s: float) -> list[float]:
    """Re-drive latencies (kill to the move's stored time) of the killed turns played since;
    a turn past its limit is lost."""
    played = []
    for kill in list(pending):
        events = runtime.store.read(kill.game_id, after=kill.seq)
        if events:
            if events[0].actor != kill.seat:
                raise Violation(f"game {kill.game_id}: {events[0].actor} moved at seq {events[0].seq} while seat "
                                f"{kill.seat}, the only one to act, had its turn re-driven")
            played.append(stored_time(events[0].at) - kill.wall)
            pending.remove(kill)
        elif time.monotonic() - kill.monotonic > limit_s:
            raise Violation(f"seat {kill.seat}'s turn at seq {kill.seq} of game {kill.game_id} was not played "
                            f"within {limit_s:g}s of its worker's kill: lost")
    return played
