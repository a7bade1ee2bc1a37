"""docker-compose.yml started for real, as docs/deployment.md says: three API replicas and two bot
workers behind nginx on one Redis and PostgreSQL. A game of each kind is played through the balancer,
each seat's SSE stream and a spectator's WebSocket following it; an API container holding streams is
SIGKILLed mid-game and its streams resume through another replica with Last-Event-ID (the sockets with
``after``). Every acknowledged event is stored, every stream and socket got every event once and in
order, and every export passes ``stich verify``."""
from __future__ import annotations

import random
import time

import pytest
import requests

from soak import Violation
from soak.game_clients import KINDS, REQUEST_S, Game, moves, play
from soak.topology import check_game, verify_export

from .socket_follower import SocketFollower
from .stack import HEAD_IMAGE, Stack

pytestmark = [pytest.mark.compose, pytest.mark.timeout(1200)]


def kill_an_api_container_with_streams(stack: Stack, limit_s: float = 30.0) -> tuple[str, int]:
    """The first API container with an SSE stream open on it, SIGKILLed; its name and its streams."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        for container in stack.containers("api"):
            streams = stack.open_streams(container)
            if streams:
                stack.kill(container)
                return container, streams
        time.sleep(0.5)
    raise Violation(f"no API container had a stream open within {limit_s:g} s")


def test_three_api_replicas_behind_nginx_play_every_kind_and_survive_a_killed_container(timings, tmp_path):
    stack = Stack("docker-compose.yml", "stich-compose-single", HEAD_IMAGE, timings)
    stack.down()  # what a run cut short left behind
    try:
        started = time.monotonic()
        stack.up("--scale", "api=3", "--scale", "worker=2")
        timings["healthy"] = round(time.monotonic() - started, 1)
        assert len(stack.containers("api")) == 3 and len(stack.containers("worker")) == 2

        session, rng = requests.Session(), random.Random(39)
        games = [Game(stack.url, session, kind, pins=("", "")) for kind in KINDS]
        followers = [SocketFollower(stack.port, game.id) for game in games]
        for game, follower in zip(games, followers):
            follower.start()
            for stream in game.streams:
                stream.start()
                assert stream.connected.wait(REQUEST_S), f"game {game.id}: a stream did not connect"
            assert follower.subscribed.wait(REQUEST_S), f"game {game.id}: the socket did not subscribe"

        played = time.monotonic()
        play(games, rng, lambda: moves(games) >= 8 * len(games))  # every game under way
        victim, cut = kill_an_api_container_with_streams(stack)
        print(f"killed {victim} with {cut} streams open, after {moves(games)} acknowledged events")
        play(games, rng, lambda: False)
        for game in games:
            for stream in game.streams:
                stream.join(timeout=60)
        for follower in followers:
            follower.join(timeout=60)
        timings["games"] = round(time.monotonic() - played, 1)

        acknowledged = sum(check_game(stack.url, session, game) for game in games)  # raises on a loss or gap
        for game, follower in zip(games, followers):
            stored = session.get(f"{stack.url}/v1/games/{game.id}", timeout=REQUEST_S).json()["seq"]
            assert follower.finished, (game.kind, follower.problems)
            assert follower.seqs == list(range(1, stored + 1)), (game.kind, follower.seqs, follower.problems)
        resumes = sum(stream.resumes for game in games for stream in game.streams)
        assert resumes >= cut, f"{cut} streams were on {victim}, {resumes} resumed"
        for game in games:
            verify_export(stack.url, session, game.id, tmp_path)
        print(f"{len(games)} games, {acknowledged} acknowledged events, none lost; {resumes} stream resumes, "
              f"{sum(f.reconnects for f in followers)} socket reconnects; {len(games)} exports verified")
    except BaseException:
        print(stack.logs())
        raise
    finally:
        stack.down()
