"""The driver under a paused tournament: a pass opens no table until the tournament is resumed
(with RQ the pass after ``RoundDrawn`` is a job, so a pause can land before it runs)."""
from __future__ import annotations

import secrets

from domain.tournament.decider import table_game_id
from workers.context import build_runtime


def opened(desk, tournament_id: str) -> int:
    return sum(1 for e in desk.handler.store.read(tournament_id) if e.type == "TableOpened")


def test_a_pass_over_a_paused_tournament_opens_no_table_and_one_after_resuming_opens_them(redis_url):
    # RQ without a worker: the queued passes never run, so the test drives each pass itself.
    runtime = build_runtime(redis_url, bots="rq", queue_name="pause-" + secrets.token_hex(4))
    desk = runtime.tournaments
    config = {"game": "scharfe-schoten", "players": 3, "participants": [{"kind": "bot"}] * 6, "rounds": 1,
              "deals_per_table": 1}
    tournament_id = desk.handler.create_with(lambda c: desk.handler.table.create(config, c),
                                             game_id="t" + secrets.token_hex(8)[1:]).game_id
    desk.handler.execute(tournament_id, None, {"type": "start"})  # round 1 drawn; its pass only queued
    desk.handler.execute(tournament_id, None, {"type": "pause", "reason": ""})
    assert desk.drive(tournament_id) == "playing" and opened(desk, tournament_id) == 0
    # Not even created: the decider would refuse its TableOpened, but a game would be left playing.
    assert not any(runtime.store.exists(table_game_id(tournament_id, 1, t)) for t in (0, 1))
    desk.handler.execute(tournament_id, None, {"type": "resume"})
    desk.drive(tournament_id)
    assert opened(desk, tournament_id) == 2
