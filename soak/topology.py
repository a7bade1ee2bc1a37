"""The deployment's topology on one machine: nginx in front of two API processes and two bot
workers, on a local 3-master Redis Cluster with the queues on a Redis of their own.

What a deployment does, proven without Docker:

- ``games`` games of Scharfe Schoten (two human seats, one bot) are played through nginx, each
  seat's commands pinned to one API process (``/a/...`` or ``/b/...``) and the same seat's SSE
  stream to the other, so every command is seen by a stream in another process;
- one API process is SIGKILLed mid-game: its clients go on through the balancer (``/``, which
  skips the dead process) and their streams resume there with ``Last-Event-ID``;
- a rolling upgrade: the dead process starts again, then the other gets SIGTERM (gunicorn's
  graceful stop) and starts again, its streams resuming on the first;
- a bot worker gets SIGTERM mid-job (RQ's warm shutdown): the turn is played (finished by it,
  or re-driven by a sweeper) and a new worker takes its place;
- an all-bot tournament runs to its standings; a game stored at an older event schema version
  (the v1 GameCreated fixture) is imported and verified; every finished game's export verifies
  with ``stich verify``.

Checked at the end: every acknowledged event stored at its seq with its type, every stream
gapless, every SSE client received every event of its game exactly once and in order, every bot
turn played exactly once (``turn_audit``). nginx's settings for the API are the repository's own
``deploy/nginx/proxy.conf``. The suite's short run is ``tests/e2e/test_topology.py``.
"""
from __future__ import annotations

import getpass
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

import requests
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, RejectConnection, Request, TextMessage

from stich.cluster import LocalCluster
from stich.redis_server import PrivateRedis, free_port
from stich.web_worker import PACKAGE_ROOT, gunicorn_argv

from . import Violation
from .game_clients import GAME_S, REQUEST_S, Game, moves, play
from .turn_audit import audit

ROOT = Path(__file__).resolve().parents[1]
PROXY_CONF = ROOT / "deploy" / "nginx" / "proxy.conf"
V1_EXPORT = ROOT / "tests" / "fixtures" / "exports" / "schafkopf-ramsch-double-all-v1.ndjson"
PROCESSES = ("a", "b")
START_S = 60.0  # every process up and healthy through nginx


def find_nginx() -> str | None:
    """Debian's nginx (``apt-get install nginx``), or one on the PATH, or STICH_NGINX."""
    for candidate in (os.environ.get("STICH_NGINX"), shutil.which("nginx"), "/usr/sbin/nginx"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


# proxy.conf's Connection header, as compose.conf maps it: "upgrade" for a WebSocket's upgrade, else none.
UPGRADE_MAP = 'map $http_upgrade $connection_upgrade { default upgrade; "" ""; }\n'


def nginx_config(tmp: Path, listen: int, ports: dict[str, int]) -> str:
    """One balanced upstream of both processes (``/``) and one upstream per process (``/a/``, ``/b/``),
    so a client can pin a request to a process the way a deployment's sticky route would."""
    proxy = f"include {PROXY_CONF};"
    keep = "keepalive 16; keepalive_timeout 4s;"  # below gunicorn's 5 s keep-alive, as compose.conf
    pinned = "".join(f"upstream stich_{name} {{ server 127.0.0.1:{port}; {keep} }}\n" for name, port in ports.items())
    both = "".join(f"server 127.0.0.1:{port} max_fails=1 fail_timeout=5s; " for port in ports.values())
    locations = "".join(f"location /{name}/ {{ proxy_pass http://stich_{name}/; {proxy} }}\n" for name in ports)
    temp = "".join(f"{kind}_temp_path {tmp / kind};\n" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    # As root nginx's workers would run as nobody, who cannot use this private directory.
    user = f"user {getpass.getuser()};\n" if os.geteuid() == 0 else ""
    return (f"{user}daemon off;\nworker_processes 1;\npid {tmp / 'nginx.pid'};\nerror_log {tmp / 'error.log'} warn;\n"
            f"events {{ worker_connections 1024; }}\n"
            # Which process answered: the test waits for a restarted one to be back in rotation.
            f"http {{\naccess_log off;\nadd_header X-Stich-Upstream $upstream_addr always;\n{UPGRADE_MAP}{temp}{pinned}upstream stich_api {{ {both}{keep} }}\n"
            f"server {{\nlisten 127.0.0.1:{listen};\n{locations}location / {{ proxy_pass http://stich_api; {proxy} }}\n}}\n}}\n")


class Topology:
    """Every process of the deployment, started in order and stopped in reverse."""

    def __init__(self, tmp: Path, nginx: str, think_ms: int):
        self.tmp, self.nginx_binary = tmp, nginx
        self.cluster = LocalCluster(masters=3)
        self.queue = PrivateRedis(fsync="everysec")
        self.ports = {name: free_port() for name in PROCESSES}
        self.listen = free_port()
        self.url = f"http://127.0.0.1:{self.listen}"
        self.apis: dict[str, subprocess.Popen] = {}
        self.workers: list[subprocess.Popen] = []
        self.nginx: subprocess.Popen | None = None
        self.think_ms = think_ms
        self.env: dict[str, str] = {}

    def start(self) -> "Topology":
        self.cluster.start()
        self.queue.start()
        env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "QUEUE_URL", "PROMETHEUS_MULTIPROC_DIR")}
        # One address plays every seat here: the per-address quotas would stop it, not a deployment.
        env.update({"REDIS_URL": self.cluster.url, "QUEUE_URL": self.queue.url, "STICH_TRUSTED_PROXIES": "1",
                    "STICH_CREATE_LIMIT": "0", "STICH_RATE_LIMIT_ADDRESS": "0", "STICH_RATE_LIMIT_TOKEN": "0",
                    "STICH_ACTIVE_GAMES_LIMIT": "0", "STICH_EVENTS_LIMIT": "0", "STICH_BOT_THINK_MS": str(self.think_ms),
                    "PYTHONSAFEPATH": "1"})
        self.env = env
        for name in PROCESSES:
            self.start_api(name)
        for _ in range(2):
            self.start_worker()
        self.start_nginx()
        for prefix in ("/a", "/b", ""):
            self.wait_healthy(prefix, START_S)
        return self

    def start_nginx(self, attempts: int = 5) -> None:
        """nginx on ``self.listen``, or on a new free port when that one was taken meanwhile: the
        port was free when chosen, but every outgoing connection since (to the cluster, the queue)
        took an ephemeral port from the same range, and so may another test's processes."""
        for _ in range(attempts):
            (self.tmp / "nginx.conf").write_text(nginx_config(self.tmp, self.listen, self.ports))
            self.nginx = subprocess.Popen([self.nginx_binary, "-p", str(self.tmp), "-c", str(self.tmp / "nginx.conf"),
                                           "-e", str(self.tmp / "error.log")],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            try:
                self.nginx.wait(timeout=0.5)  # nginx checks its listen port at once, then stays
            except subprocess.TimeoutExpired:
                return
            error = self.nginx.stderr.read()
            if "Address already in use" not in error:
                raise RuntimeError(f"nginx exited: {error}")
            self.listen = free_port()
            self.url = f"http://127.0.0.1:{self.listen}"
        raise RuntimeError(f"nginx found no free port in {attempts} attempts")

    def start_api(self, name: str) -> None:
        metrics = self.tmp / f"metrics-{name}-{uuid.uuid4().hex[:6]}"
        metrics.mkdir()
        log = open(self.tmp / f"api-{name}.log", "a")
        self.apis[name] = subprocess.Popen(gunicorn_argv("api.wsgi:app", "127.0.0.1", self.ports[name], 1),
                                           env={**self.env, "PROMETHEUS_MULTIPROC_DIR": str(metrics)},
                                           cwd=PACKAGE_ROOT, stdout=log, stderr=subprocess.STDOUT,
                                           start_new_session=True)  # its own group: a SIGKILL takes every process
        log.close()

    def start_worker(self) -> subprocess.Popen:
        log = open(self.tmp / f"worker-{len(self.workers)}.log", "a")
        worker = subprocess.Popen([sys.executable, "-m", "stich.cli", "worker"], env=self.env,
                                  stdout=log, stderr=subprocess.STDOUT)
        log.close()
        self.workers.append(worker)
        return worker

    def wait_healthy(self, prefix: str, limit_s: float) -> float:
        """Seconds until ``/v1/health`` through nginx at ``prefix`` is 200."""
        started = time.monotonic()
        while time.monotonic() - started < limit_s:
            if self.nginx is not None and self.nginx.poll() is not None:
                raise RuntimeError(f"nginx exited: {self.nginx.stderr.read()}")
            try:
                if requests.get(f"{self.url}{prefix}/v1/health", timeout=2).status_code == 200:
                    return time.monotonic() - started
            except requests.RequestException:
                pass
            time.sleep(0.1)
        raise Violation(f"{prefix or '/'} not healthy through nginx within {limit_s:g} s; logs in {self.tmp}")

    def wait_in_rotation(self, name: str, limit_s: float = 15.0) -> float:
        """Seconds until the balancer (``/``) sends a request to process ``name`` again. nginx takes a
        process it saw fail out of rotation for ``fail_timeout``; a rolling upgrade waits for this
        before it stops the next process, or both would be out at once (502 "no live upstreams")."""
        started, wanted = time.monotonic(), f"127.0.0.1:{self.ports[name]}"
        while time.monotonic() - started < limit_s:
            try:
                answer = requests.get(f"{self.url}/v1/health", timeout=2)
                if answer.status_code == 200 and answer.headers.get("X-Stich-Upstream") == wanted:
                    return time.monotonic() - started
            except requests.RequestException:
                pass
            time.sleep(0.1)
        raise Violation(f"process {name} not back in the balancer's rotation within {limit_s:g} s")

    def stop(self) -> None:
        for process in [self.nginx, *self.workers, *self.apis.values()]:
            if process is not None and process.poll() is None:
                process.terminate()
        for process in [self.nginx, *self.workers, *self.apis.values()]:
            if process is not None:
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        self.queue.stop()
        self.cluster.stop()


def sigterm_worker_mid_job(topology: Topology, limit_s: float = 20.0) -> dict:
    """SIGTERM a bot worker while it is in a job; it must exit after its warm shutdown."""
    from redis import Redis
    from rq import Worker

    queue = Redis.from_url(topology.queue.url)
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        for worker in Worker.all(connection=queue):
            process = next((w for w in topology.workers if w.pid == worker.pid and w.poll() is None), None)
            job = worker.get_current_job_id()
            if process is not None and job:
                process.send_signal(signal.SIGTERM)
                stopped = time.monotonic()
                process.wait(timeout=30)
                topology.workers.remove(process)
                topology.start_worker()
                return {"worker_sigterm_job": job if isinstance(job, str) else job.decode(),
                        "worker_drain_s": round(time.monotonic() - stopped, 2), "worker_exit": process.returncode}
        time.sleep(0.01)
    raise Violation(f"no bot worker was in a job within {limit_s:g} s")


def run_tournament(base: str, session: requests.Session) -> dict:
    created = session.post(base + "/v1/tournaments", json={
        "name": "topology cup", "game": "scharfe-schoten", "players": 3, "rounds": 1, "deals_per_table": 1,
        "participants": [{"kind": "bot", "bot": "random"}] * 3}, timeout=REQUEST_S)
    if created.status_code != 201:
        raise Violation(f"tournament not created: {created.status_code} {created.text[:300]}")
    created = created.json()
    started = session.post(f"{base}/v1/tournaments/{created['id']}/start",
                           headers={"Authorization": f"Bearer {created['token']}"}, timeout=REQUEST_S)
    if started.status_code != 200:
        raise Violation(f"tournament not started: {started.status_code} {started.text[:300]}")
    return created


def tournament_result(base: str, session: requests.Session, tournament_id: str) -> dict:
    deadline = time.monotonic() + GAME_S
    while time.monotonic() < deadline:
        body = session.get(f"{base}/v1/tournaments/{tournament_id}", timeout=REQUEST_S).json()
        if body["status"] == "finished":
            standings = session.get(f"{base}/v1/tournaments/{tournament_id}/standings", timeout=REQUEST_S)
            if standings.status_code != 200:
                raise Violation(f"standings answered {standings.status_code}")
            return {"tournament": body, "standings": standings.json()}
        time.sleep(0.2)
    raise Violation(f"the tournament did not finish within {GAME_S:g} s")


def verify_export(base: str, session: requests.Session, game_id: str, tmp: Path) -> None:
    """``stich verify`` on the game's export, fetched through the balancer."""
    export = session.get(f"{base}/v1/games/{game_id}/export", timeout=REQUEST_S)
    if export.status_code != 200:
        raise Violation(f"game {game_id}: export answered {export.status_code}")
    path = tmp / f"{game_id}.ndjson"
    path.write_bytes(export.content)
    result = subprocess.run([sys.executable, "-m", "stich.cli", "verify", str(path)], capture_output=True,
                            text=True, timeout=60)
    if result.returncode != 0:
        raise Violation(f"game {game_id}: stich verify exited {result.returncode}: {result.stdout[-500:]}"
                        f"{result.stderr[-500:]}")


def check_game(base: str, session: requests.Session, game: Game) -> int:
    """Every acknowledged event stored as acknowledged, the stream gapless, every SSE client complete."""
    stored = session.get(f"{base}/v1/games/{game.id}/events?limit=500", timeout=REQUEST_S).json()["events"]
    seqs = [e["seq"] for e in stored]
    if seqs != list(range(1, len(stored) + 1)):
        raise Violation(f"game {game.id}: stored events not gapless: {seqs[:40]}")
    by_seq = {e["seq"]: e["type"] for e in stored}
    lost = [(seq, kind) for seq, kind in game.acked if by_seq.get(seq) != kind]
    if lost:
        raise Violation(f"game {game.id}: acknowledged events lost or changed: {lost[:5]}", {"lost": len(lost)})
    for seat, stream in enumerate(game.streams):
        if stream.error:
            raise Violation(stream.error)
        if stream.seqs != seqs:
            raise Violation(f"game {game.id}: seat {seat}'s stream received {stream.seqs[:60]} of {len(seqs)} events "
                            f"(gap or duplicate)")
    return len(game.acked)


def run(games: int, say, seed: int = 2026, think_ms: int = 50) -> dict:
    nginx = find_nginx()
    if nginx is None:
        raise RuntimeError("nginx is not installed (apt-get install nginx)")
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="soak-topology-") as tmp_name:
        tmp = Path(tmp_name)
        os.chmod(tmp, 0o755)
        started = time.monotonic()
        topology = Topology(tmp, nginx, think_ms)
        try:
            topology.start()
            figures = {"start_s": round(time.monotonic() - started, 2)}
            say(f"nginx on {topology.url}, API processes on {topology.ports}, 2 workers, cluster of 3 masters "
                f"({figures['start_s']} s)")
            return exercise(topology, games, rng, say, tmp, figures)
        finally:
            topology.stop()


def socket_through_nginx(listen: int, game_id: str) -> int:
    """A WebSocket through nginx (the upgrade proxy.conf passes on): its welcome, a spectator's
    subscription to a game, and the game's events up to its seq at the subscription; how many came."""
    sock = socket.create_connection(("127.0.0.1", listen), timeout=REQUEST_S)
    ws = WSConnection(ConnectionType.CLIENT)
    sock.sendall(ws.send(Request(host="127.0.0.1", target="/v1/socket")))
    messages, parts = [], []
    deadline = time.monotonic() + REQUEST_S
    try:
        while time.monotonic() < deadline:
            data = sock.recv(65536)
            if not data:
                break
            ws.receive_data(data)
            for event in ws.events():
                if isinstance(event, AcceptConnection):
                    sock.sendall(ws.send(TextMessage(data=json.dumps({"type": "subscribe", "game": game_id}))))
                elif isinstance(event, RejectConnection):
                    raise Violation(f"nginx answered the socket's upgrade {event.status_code}")
                elif isinstance(event, TextMessage):
                    parts.append(event.data)
                    if event.message_finished:
                        messages.append(json.loads("".join(parts)))
                        parts.clear()
            subscribed = [m for m in messages if m["type"] == "subscribed"]
            events = [m for m in messages if m["type"] == "event"]
            if messages and messages[0]["type"] != "welcome":
                raise Violation(f"the socket did not open with its welcome: {messages[0]}")
            if subscribed and len(events) >= subscribed[0]["seq"]:
                return len(events)
    finally:
        sock.close()
    raise Violation(f"the socket through nginx did not deliver game {game_id}'s events: {messages[-3:]}")


def exercise(topology: Topology, count: int, rng: random.Random, say, tmp: Path, figures: dict) -> dict:
    base, session = topology.url, requests.Session()
    tournament = run_tournament(base, session)
    table = [Game(base, session) for _ in range(count)]
    figures["socket_events"] = socket_through_nginx(topology.listen, table[0].id)
    for game in table:
        for stream in game.streams:
            stream.start()
            if not stream.connected.wait(REQUEST_S):
                raise Violation(f"game {game.id}: a stream did not connect")
    phase_started = time.monotonic()

    def after(n):
        return lambda: moves(table) >= n

    per_game = 8  # acknowledged events per game between the faults: every fault lands mid-game
    play(table, rng, after(per_game * count))
    os.killpg(topology.apis["a"].pid, signal.SIGKILL)  # master and worker: no goodbye to its clients
    topology.apis["a"].wait()
    killed_at = time.monotonic()
    say(f"API process a SIGKILLed after {moves(table)} acknowledged events")
    play(table, rng, after(2 * per_game * count))
    figures["moves_after_kill_s"] = round(time.monotonic() - killed_at, 2)

    topology.start_api("a")  # the rolling upgrade: a back (new code), then b replaced the same way
    figures["restart_a_s"] = round(topology.wait_healthy("/a", START_S), 2)
    figures["rotation_a_s"] = round(topology.wait_in_rotation("a"), 2)
    topology.apis["b"].terminate()  # SIGTERM: gunicorn's graceful stop
    terminated = time.monotonic()
    topology.apis["b"].wait(timeout=30)
    figures["sigterm_b_exit_s"] = round(time.monotonic() - terminated, 2)
    say(f"API process a restarted in {figures['restart_a_s']} s; b stopped by SIGTERM in "
        f"{figures['sigterm_b_exit_s']} s after {moves(table)} acknowledged events")
    drained: dict = {}  # while the games go on, so that a bot turn is in hand
    drainer = threading.Thread(target=lambda: drained.update(sigterm_worker_mid_job(topology)), daemon=True)
    drainer.start()
    play(table, rng, lambda: not drainer.is_alive() and moves(table) >= 3 * per_game * count)
    drainer.join()
    if not drained:
        raise Violation("no bot worker was in a job to SIGTERM")
    figures.update(drained)
    say(f"bot worker SIGTERMed in job {figures['worker_sigterm_job']}: exited {figures['worker_exit']} "
        f"after {figures['worker_drain_s']} s")
    topology.start_api("b")
    figures["restart_b_s"] = round(topology.wait_healthy("/b", START_S), 2)
    play(table, rng, lambda: False)
    figures["games_s"] = round(time.monotonic() - phase_started, 2)
    for game in table:
        for stream in game.streams:
            stream.join(timeout=GAME_S)
    result = tournament_result(base, session, tournament["id"])
    say(f"{count} games and the tournament finished in {figures['games_s']} s")

    from workers.context import build_runtime

    runtime = build_runtime(topology.cluster.url, queue_url=topology.queue.url)
    acked = sum(check_game(base, session, game) for game in table)
    bot_turns = sum(audit(runtime.handler, game.id) for game in table)
    table_games = [t["game_id"] for r in result["tournament"]["schedule"] for t in r["tables"]]
    bot_turns += sum(audit(runtime.handler, game_id) for game_id in table_games)

    imported = session.post(base + "/v1/imports", data=V1_EXPORT.read_bytes(),
                            headers={"Content-Type": "application/x-ndjson"}, timeout=REQUEST_S)
    if imported.status_code not in (200, 201):
        raise Violation(f"the v1 export was not imported: {imported.status_code} {imported.text[:300]}")
    verified = [game.id for game in table] + table_games + [imported.json()["id"]]
    for game_id in verified:
        verify_export(base, session, game_id, tmp)
    say(f"{len(verified)} exports verified (one a v1 GameCreated), {bot_turns} bot turns audited")
    return {**figures, "games": count, "acknowledged_events": acked, "lost": 0, "bot_turns_audited": bot_turns,
            "stream_resumes": sum(s.resumes for g in table for s in g.streams),
            "command_failovers": sum(r.failovers for g in table for r in g.commands),
            "command_retries": sum(g.retries for g in table), "exports_verified": len(verified),
            "stream_reasons": dict(sum((s.reasons for g in table for s in g.streams), Counter())),
            "command_reasons": dict(sum((g.reasons for g in table), Counter())),
            "tournament_standings": len(result["standings"]["standings"])
            if isinstance(result["standings"], dict) else len(result["standings"])}
