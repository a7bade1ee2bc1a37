"""A worker that may start background bot work yields the CPU, a worker that may start an analysis yields
it most, and the interactive-only worker does not (workers/worker.py); analysis workers are counted apart
from bot workers. tests/e2e/test_fair_bots.py measures what this buys a person's bot answer,
tests/e2e/test_fair_analysis.py what it buys a bot-only game."""
from __future__ import annotations

from workers.dispatch import ANALYSIS, BOT_LANES, BULK, INTERACTIVE, LANES, SLOW
from workers.heartbeat import ANALYSIS_KEY, KEY
from workers.worker import ANALYSIS_NICENESS, BACKGROUND_NICENESS, heartbeat_keys, niceness_for


def test_the_interactive_only_worker_keeps_the_servers_priority():
    assert niceness_for((INTERACTIVE,)) == 0


def test_a_worker_of_every_bot_lane_runs_niced():
    assert BACKGROUND_NICENESS > 0
    assert niceness_for(None) == BACKGROUND_NICENESS
    assert niceness_for(BOT_LANES) == BACKGROUND_NICENESS


def test_any_background_lane_is_enough_to_run_niced():
    assert niceness_for((BULK,)) == BACKGROUND_NICENESS
    assert niceness_for((INTERACTIVE, SLOW)) == BACKGROUND_NICENESS


def test_a_worker_that_may_start_an_analysis_yields_to_the_bot_workers():
    assert ANALYSIS_NICENESS == 19 > BACKGROUND_NICENESS  # the most a process can be niced
    assert niceness_for((ANALYSIS,)) == ANALYSIS_NICENESS
    assert niceness_for(LANES) == ANALYSIS_NICENESS  # by the least urgent work it may start


def test_bot_workers_and_analysis_workers_beat_apart():
    assert heartbeat_keys(None) == heartbeat_keys(BOT_LANES) == (KEY,)
    assert heartbeat_keys((ANALYSIS,)) == (ANALYSIS_KEY,)  # health does not count it as a bot worker
    assert heartbeat_keys((BULK, ANALYSIS)) == (KEY, ANALYSIS_KEY)
