"""The tournament driver through real RQ workers: a worker killed with SIGKILL mid-round loses
nothing, and the tournament ends with exactly one set of tables per round."""
from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time

import pytest

from domain.tournament.decider import table_game_id
from workers.context import build_runtime


def start_worker(redis_url: str, queue: str, think_ms: int) -> subprocess.Popen:
    env = {**os.environ, "REDIS_URL": redis_url, "STICH_QUEUE": queue, "STICH_BOT_THINK_MS": str(think_ms),
           "STICH_LOG_LEVEL": "ERROR", "STICH_SWEEP_AFTER": "1", "STICH_SWEEP_INTERVAL": "0.5"}
    env.pop("QUEUE_URL", None)
    return subprocess.Popen([sys.executable, "-m", "stich.cli", "worker"], env=env)


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def events(desk, tournament_id: str, kind: str) -> list:
    return [e for e in desk.handler.store.read(tournament_id) if e.type == kind]


@pytest.mark.slow
def test_a_worker_killed_mid_round_the_tournament_still_ends_with_one_set_of_tables(redis_url):
    queue = "tournament-" + secrets.token_hex(4)
    runtime = build_runtime(redis_url, bots="rq", queue_name=queue)
    desk = runtime.tournaments
    config = {"game": "schafkopf", "participants": [{"kind": "bot"}] * 8, "rounds": 2, "deals_per_table": 2,
              "seating": "swiss"}
    tournament_id = desk.handler.create_with(lambda c: desk.handler.table.create(config, c),
                                             game_id="t" + secrets.token_hex(8)[1:]).game_id
    victim = start_worker(redis_url, queue, think_ms=40)  # slow bots: the round is still on when we kill
    try:
        desk.handler.execute(tournament_id, None, {"type": "start"})
        deadline = time.monotonic() + 30
        while len(events(desk, tournament_id, "TableOpened")) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        opened = events(desk, tournament_id, "TableOpened")
        assert len(opened) == 2, "the worker never opened round 1's tables"
        time.sleep(0.5)
        assert not events(desk, tournament_id, "RoundFinished"), "round 1 ended before the kill"
        victim.send_signal(signal.SIGKILL)
        victim.wait()
    finally:
        if victim.poll() is None:
            victim.kill()
    rescuer = start_worker(redis_url, queue, think_ms=0)
    try:
        deadline = time.monotonic() + 90
        while desk.handler.load(tournament_id).state.status != "finished" and time.monotonic() < deadline:
            time.sleep(0.2)
        state = desk.handler.load(tournament_id).state
        assert state.status == "finished", "the tournament did not finish after the worker was killed"
    finally:
        stop(rescuer)
    opened = [(e.data["round"], e.data["table"], e.data["game_id"]) for e in events(desk, tournament_id, "TableOpened")]
    assert sorted(opened) == [(r, t, table_game_id(tournament_id, r, t)) for r in (1, 2) for t in (0, 1)]
    finished = [(e.data["round"], e.data["table"]) for e in events(desk, tournament_id, "TableFinished")]
    assert sorted(finished) == [(r, t) for r in (1, 2) for t in (0, 1)]
    totals: dict[int, int] = {}
    for round_ in state.rounds:
        for slot in round_.tables:
            game = runtime.handler.load(slot.game_id)
            assert runtime.store.read(slot.game_id, until=1)[0].type == "GameCreated"
            for seat, participant in enumerate(slot.participants):
                totals[participant] = totals.get(participant, 0) + game.state.inner.totals[seat]
    assert {row["participant"]: row["points"] for row in state.standings} == totals
    seqs = [e.seq for e in desk.handler.store.read(tournament_id)]
    assert seqs == list(range(1, len(seqs) + 1))


@pytest.mark.slow
def test_a_lost_driver_job_is_redriven_by_the_sweeper(redis_url):
    """The job that would open round 1 vanishes (its worker died before taking it, say): the
    tournament's entry in the due-time index makes a sweeper queue another."""
    queue = "tournament-" + secrets.token_hex(4)
    runtime = build_runtime(redis_url, bots="rq", queue_name=queue)
    desk = runtime.tournaments
    config = {"game": "scharfe-schoten", "players": 3, "participants": [{"kind": "bot"}] * 3,
              "deals_per_table": 1}
    tournament_id = desk.handler.create_with(lambda c: desk.handler.table.create(config, c),
                                             game_id="t" + secrets.token_hex(8)[1:]).game_id
    desk.handler.execute(tournament_id, None, {"type": "start"})
    assert runtime.queue.count == 1
    runtime.queue.empty()
    worker = start_worker(redis_url, queue, think_ms=0)
    try:
        deadline = time.monotonic() + 30
        while desk.handler.load(tournament_id).state.status != "finished" and time.monotonic() < deadline:
            time.sleep(0.2)
        assert desk.handler.load(tournament_id).state.status == "finished"
    finally:
        stop(worker)
    assert len(events(desk, tournament_id, "TableOpened")) == 1


def test_creating_a_derived_game_id_twice_finds_the_first_game_and_keeps_its_secret(redis_url):
    runtime = build_runtime(redis_url, bots="inline", prefix="td" + secrets.token_hex(4))
    table = runtime.handler.table
    game_id = table_game_id("t" + secrets.token_hex(8)[1:], 1, 0)
    seats = [{"kind": "human"}] * 3

    def build(commitment):
        return table.create("scharfe-schoten", 3, {"rounds": 1}, seats, None, commitment)

    first = runtime.handler.create_with(build, game_id=game_id)
    secret = runtime.store.load_secret(game_id)
    again = runtime.handler.create_with(build, game_id=game_id)
    assert not first.duplicate and again.duplicate and again.game_id == game_id
    assert runtime.store.load_secret(game_id) == secret
    assert [e.type for e in runtime.store.read(game_id)].count("GameCreated") == 1


def test_a_second_pass_over_a_round_opens_nothing_new(redis_url):
    runtime = build_runtime(redis_url, bots="inline", prefix="td" + secrets.token_hex(4))
    desk = runtime.tournaments
    config = {"game": "scharfe-schoten", "players": 3, "participants": [{"kind": "human"}] * 3,
              "deals_per_table": 1}
    tournament_id = desk.handler.create_with(lambda c: desk.handler.table.create(config, c),
                                             game_id="t" + secrets.token_hex(8)[1:]).game_id
    for p in range(3):
        desk.handler.execute(tournament_id, None, {"type": "join", "participant": p})
    desk.handler.execute(tournament_id, None, {"type": "start"})  # the humans never sit: the round stays open
    seq = desk.handler.store.seq(tournament_id)
    assert desk.drive(tournament_id) == "playing" and desk.drive(tournament_id) == "playing"
    assert desk.handler.store.seq(tournament_id) == seq
    assert len(events(desk, tournament_id, "TableOpened")) == 1
