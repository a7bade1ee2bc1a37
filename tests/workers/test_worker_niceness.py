"""A worker that may start background bot work yields the CPU; the interactive-only worker does not
(workers/worker.py). tests/e2e/test_fair_bots.py measures what this buys a person's bot answer."""
from __future__ import annotations

from workers.dispatch import BULK, INTERACTIVE, LANES, SLOW
from workers.worker import BACKGROUND_NICENESS, niceness_for


def test_the_interactive_only_worker_keeps_the_servers_priority():
    assert niceness_for((INTERACTIVE,)) == 0


def test_a_worker_of_every_lane_runs_niced():
    assert BACKGROUND_NICENESS > 0
    assert niceness_for(None) == BACKGROUND_NICENESS
    assert niceness_for(LANES) == BACKGROUND_NICENESS


def test_any_background_lane_is_enough_to_run_niced():
    assert niceness_for((BULK,)) == BACKGROUND_NICENESS
    assert niceness_for((INTERACTIVE, SLOW)) == BACKGROUND_NICENESS
