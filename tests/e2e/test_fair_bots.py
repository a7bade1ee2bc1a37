"""Fair bot work against a real `stich serve` (private server, HTTP workers, a bot worker of every bot
lane, one for the interactive lane and one for analyses): while one address runs the largest tournament
it may create and as many 2,000 ms search games as it is allowed, another address's bot answers stay
within 2x of an idle server's.

The idle figure is measured first, on the same server in the same test, so the machine's speed cancels.
"""
from __future__ import annotations

import time

import pytest

from bench.http_client import Client
from bench.measure import bot_latency
from workers.worker import ANALYSIS_NICENESS, BACKGROUND_NICENESS

from .own_server import bot_workers, eventually, niceness, start_server, stop_server

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.serial]  # a ratio to an idle figure

LOAD_ADDRESS = "10.9.8.7"  # the busy client, told apart from the measuring one by X-Forwarded-For
SAMPLES = 60
SEARCH_GAME = {"game": "scharfe-schoten", "players": 4, "rules": {"rounds": 3},
               "seats": [{"kind": "bot", "bot": "search", "budget_ms": 2000}] * 4}
# The largest tournament the default quotas let one anonymous address create: 256 participants
# (64 tables a round, under the 100 active games) and 1,024 table deals (64 x 16 x 1).
TOURNAMENT = {"game": "scharfe-schoten", "players": 4, "rounds": 16, "deals_per_table": 1,
              "participants": [{"kind": "bot", "bot": "heuristic"}] * 256}


def load_up(port) -> dict:
    """From LOAD_ADDRESS: the tournament (started) and ten 2 s search games; what was refused, by code."""
    client = Client("127.0.0.1", port)
    headers = {"X-Forwarded-For": LOAD_ADDRESS}
    refused: dict[str, int] = {}

    def post(path, body, extra=None):
        status, answer, _ = client.request("POST", path, body, {**headers, **(extra or {})})
        if status >= 400:
            refused[answer["code"]] = refused.get(answer["code"], 0) + 1
        return status, answer

    too_long = post("/v1/tournaments", {**TOURNAMENT, "deals_per_table": 2})  # 2,048 table deals
    assert too_long[0] == 403 and too_long[1]["code"] == "tournament_size_limit", too_long
    status, tournament = post("/v1/tournaments", TOURNAMENT)
    assert status == 201, tournament
    status, started = post(f"/v1/tournaments/{tournament['id']}/start", None,
                           {"Authorization": f"Bearer {tournament['token']}"})
    assert status == 200, started
    searches = [post("/v1/games", SEARCH_GAME)[0] for _ in range(10)]
    return {"tournament": tournament["id"], "search_games": searches.count(201), "refused": refused}


def busy(port, tournament_id) -> tuple[int, int]:
    """How much bot-only work is in flight: the tournament's round, and its unfinished tables."""
    client = Client("127.0.0.1", port)
    _, body, _ = client.request("GET", f"/v1/tournaments/{tournament_id}")
    current = body["schedule"][-1] if body["schedule"] else {"tables": []}
    return body["round"], sum(1 for t in current["tables"] if not t["finished"])


def test_a_persons_bot_answers_stay_fast_while_another_address_floods_the_bots(tmp_path):
    process, port = start_server(tmp_path)
    try:
        # The worker that may start background work yields the CPU (workers/worker.py), the
        # interactive one keeps the server's priority, the analysis worker yields it most.
        base = niceness(process.pid)
        lanes = {"interactive": [base], "every bot lane": [min(19, base + BACKGROUND_NICENESS)],
                 "analysis": [min(19, base + ANALYSIS_NICENESS)]}
        assert eventually(lambda: bot_workers(process.pid), lanes) == lanes
        bot_latency("127.0.0.1", port, 10)  # warm up: imports, connections, the first snapshots
        idle = bot_latency("127.0.0.1", port, SAMPLES)
        load = load_up(port)
        # Every refusal named its limit; what was allowed is running now.
        assert load["refused"].get("tournament_size_limit") == 1
        # 26,500 ms of caps an address: three of the 4 x 2,000 ms games, as 53 default (500 ms) search seats.
        assert load["search_games"] == 3 and load["refused"].get("search_budget_quota") == 7, load
        time.sleep(1)  # the first round's tables open and queue their turns
        rounds, open_tables = busy(port, load["tournament"])
        assert rounds >= 1 and open_tables > 0  # bot-only work is queued while we measure
        # Two windows under load, the better one judged: a shared 2-core machine's noise reaches
        # one window (CI once saw 2.05 x), an unfair server is slow in both (2.5 x with priority
        # order alone, seconds with a single queue).
        windows = [bot_latency("127.0.0.1", port, SAMPLES)]
        if windows[0]["p50_ms"] > 2 * idle["p50_ms"]:
            windows.append(bot_latency("127.0.0.1", port, SAMPLES))
        loaded = min(windows, key=lambda w: w["p50_ms"])
        rounds_after, open_after = busy(port, load["tournament"])
        assert rounds_after < 16 or open_after > 0, "the load finished before the measurement did"
        print(f"bot answer p50: idle {idle['p50_ms']:.1f} ms, loaded {loaded['p50_ms']:.1f} ms "
              f"(p99 {idle['p99_ms']:.1f} / {loaded['p99_ms']:.1f} ms); refused {load['refused']}; "
              f"tournament at round {rounds_after} with {open_after} tables open; {len(windows)} window(s)")
        assert loaded["p50_ms"] <= 2 * idle["p50_ms"], (idle, loaded)
    finally:
        stop_server(process)
