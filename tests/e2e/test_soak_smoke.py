"""`python -m soak --short` runs every scenario end to end, each passing with figures that show it did
its work (a smoke test of the long proofs: the suite's own reliability tests are the short proofs).

Smaller than `--short` where that proves the same: hidden information plays one game of each of its
six kinds (not two), and the killed workers' turns are re-driven after 1 s idle, swept every 0.5 s
(STICH_SWEEP_AFTER and STICH_SWEEP_INTERVAL, which the scenario passes on to its processes), instead
of 3 s and 1 s: the same kills, re-drives and audit, less waiting."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.serial]  # recoveries within a limit

SCENARIOS = ["durability", "contract", "hidden-information", "worker-kills"]
KINDS = {"scharfe-schoten-3", "scharfe-schoten-4", "schafkopf-4", "scharwenzel-4", "scharwenzel-6", "scharwenzel-8"}
GAMES = len(KINDS)  # one game of each kind


def test_short_soak_runs_every_scenario_and_reports_its_figures(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "QUEUE_URL")}
    env.update(STICH_SWEEP_AFTER="1", STICH_SWEEP_INTERVAL="0.5")
    result = subprocess.run([sys.executable, "-m", "soak", "--short", "--games", str(GAMES), "--seed", "2026",
                             "--out", str(tmp_path)],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    assert "[4/4] worker-kills" in result.stderr  # the progress went through every scenario
    [path] = list(tmp_path.glob("*-short.json"))
    figures = json.loads(path.read_text())
    assert figures["passed"] and figures["config"]["seed"] == 2026
    scenarios = figures["scenarios"]
    assert list(scenarios) == SCENARIOS
    assert all(s["passed"] and "violation" not in s and s["wall_s"] > 0 for s in scenarios.values()), scenarios

    durability = scenarios["durability"]
    assert durability["cycles"] == 3 and durability["lost"] == 0
    assert durability["acknowledged_moves"] >= 10 and durability["games"] > 0
    assert durability["event_checks"] >= durability["acknowledged_events"] > 0
    assert durability["restart_max_ms"] > 0

    contract = scenarios["contract"]
    assert contract["budget"] == 200 and contract["failures"] == 0
    assert contract["cases"] >= 0.8 * contract["budget"]  # as the suite's fuzz test asks of its budget
    spec = ROOT / "openapi.yaml"
    operations = contract["per_operation"]
    assert len(operations) == contract["operations"] >= 10 and all(n > 0 for n in operations.values())
    assert all(path.split(" ", 1)[1] + ":" in spec.read_text() for path in operations)
    assert contract["hypothesis_seed"] == 2026

    hidden = scenarios["hidden-information"]
    assert hidden["games"] == GAMES and hidden["leaks"] == 0
    assert set(hidden["per_kind"]) == KINDS
    assert sum(hidden["per_kind"].values()) == GAMES
    assert hidden["moves"] > GAMES and hidden["responses_scanned"] > hidden["moves"]

    kills = scenarios["worker-kills"]
    assert kills["kills"] == 3 and kills["lost"] == 0 and kills["doubled"] == 0
    assert (kills["sweep_after_s"], kills["sweep_interval_s"]) == (1.0, 0.5)  # the settings reached the scenario
    assert kills["workers_started"] == kills["workers"] + kills["kills"] + kills["kills_not_mid_turn"]
    assert kills["games_finished"] == kills["games"] > 0 and kills["bot_turns_audited"] > kills["games"]
    assert 0 < kills["redrive_min_s"] <= kills["redrive_p50_s"] <= kills["redrive_max_s"] <= kills["limit_s"]

    for name in SCENARIOS:  # the table names every scenario as passed
        assert any(line.startswith(name) and "passed" in line for line in result.stdout.splitlines()), name
    assert "all passed" in result.stdout
