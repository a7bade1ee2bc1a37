"""Analyses cannot starve anyone's games, against a real `stich serve`: while one address keeps the most
analyses it may running (`STICH_ANALYSIS_LIMIT`, two at once; a third is a 429), another address's
bot-only game takes at most 2x its time alone. Analyses have a lane that no bot worker drains and a
worker of their own at niceness 19 (workers/dispatch.py, workers/worker.py); in the bulk lane, the one
worker of bot-only games sat inside an analysis for minutes.

The alone figure is measured first, on the same server in the same test, so the machine's speed cancels.
"""
from __future__ import annotations

import time

import pytest

from bench.http_client import Client
from workers.worker import ANALYSIS_NICENESS

from .own_server import cpu_seconds, eventually, every_worker_of, niceness, start_server, stop_server

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.serial]  # a ratio to an alone figure

LOAD_ADDRESS = "10.9.8.6"  # the analysing client, told apart from the measuring one by X-Forwarded-For
# The most playouts an analysis may spend a decision (docs/bots-and-arena.md), so that each analysis of a
# default Scharfe Schoten game (about 150 judged decisions) outlasts the measurement many times.
PLAYOUTS = 400
ANALYSED = {"game": "scharfe-schoten", "players": 3, "seats": [{"kind": "bot", "bot": "heuristic"}] * 3}
# What an analysis must not hold up: a bot-only game whose bots search, a few seconds alone; timed twice
# in a row each way, since one game's time moves with the shared machine's load.
BOT_GAME = {"game": "schafkopf", "players": 4, "rules": {"deals": 2},
            "seats": [{"kind": "bot", "bot": "search", "playouts": 32}] * 4}
GAMES = 2
WAIT_S = 60  # a game still unfinished this long after its creation has failed the ratio many times over


def played(client: Client, spec: dict, headers: dict | None = None) -> tuple[str, float | None]:
    """A bot-only game created now: its id, and the seconds until it finished (None: not within ``WAIT_S``)."""
    started = time.monotonic()
    status, game, _ = client.request("POST", "/v1/games", spec, headers)
    assert status == 201, game
    while time.monotonic() - started < WAIT_S:
        _, summary, _ = client.request("GET", f"/v1/games/{game['id']}")
        if summary["status"] == "finished":
            return game["id"], time.monotonic() - started
        client.request("GET", f"/v1/games/{game['id']}/events?after={summary['seq']}&wait=2")
    return game["id"], None


def timed(client: Client) -> float | None:
    """Seconds ``GAMES`` bot-only games took, one after the other (None: one did not finish)."""
    total = 0.0
    for _ in range(GAMES):
        seconds = played(client, BOT_GAME)[1]
        if seconds is None:
            return None
        total += seconds
    return total


def statuses(client: Client, game_ids: list[str]) -> list[str]:
    return [client.request("GET", f"/v1/games/{game_id}/analysis")[1]["status"] for game_id in game_ids]


def test_a_bot_only_game_keeps_its_pace_while_another_address_runs_the_most_analyses_it_may(tmp_path):
    process, port = start_server(tmp_path, extra_env={"STICH_ANALYSIS_PLAYOUTS": str(PLAYOUTS)})
    try:
        base = niceness(process.pid)
        [analyst] = every_worker_of(process.pid)["analysis"]
        yielding = min(19, base + ANALYSIS_NICENESS)
        assert eventually(lambda: niceness(analyst), yielding) == yielding
        client = Client("127.0.0.1", port)
        load = {"X-Forwarded-For": LOAD_ADDRESS}
        finished = [played(client, ANALYSED, load) for _ in range(3)]
        assert all(seconds is not None for _, seconds in finished), finished
        targets = [game_id for game_id, _ in finished]
        played(client, BOT_GAME)  # warm up: imports, connections, the search's first decisions
        alone = timed(client)
        assert alone is not None

        asked = [client.request("POST", f"/v1/games/{game_id}/analysis", None, load) for game_id in targets]
        assert [status for status, _, _ in asked] == [202, 202, 429], asked
        assert asked[2][1]["code"] == "analysis_quota"  # the quota holds: two at once
        waited = time.monotonic()
        while statuses(client, targets[:1]) != ["running"]:  # the load is on before we measure
            assert time.monotonic() - waited < 30, "the first analysis did not start within 30 s"
            time.sleep(0.2)
        cpu_before = cpu_seconds(analyst)
        loaded = timed(client)
        analysing = cpu_seconds(analyst) - cpu_before
        after = statuses(client, targets[:2])
        shown = f"over {WAIT_S}" if loaded is None else f"{loaded:.2f}"
        print(f"{GAMES} bot-only games: alone {alone:.2f} s, beside two analyses {shown} s "
              f"(ratio {(loaded or WAIT_S) / alone:.2f}); analyses {after}, the analysis worker's CPU "
              f"meanwhile {analysing:.2f} s")
        # The address held its whole quota throughout.
        assert all(status in ("queued", "running") for status in after), after
        assert loaded is not None and loaded <= 2 * alone, (alone, loaded)
        assert analysing > 0, "no analysis ran while the game was timed: the ratio proves nothing"
    finally:
        stop_server(process)
