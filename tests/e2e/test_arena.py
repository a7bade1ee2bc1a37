"""`stich arena` as a person runs it: a short ladder of each game, its report, JSON and plot."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("game", ["schafkopf", "scharwenzel", "scharfe-schoten"])
def test_a_short_ladder_runs_and_reports_each_step(game, tmp_path):
    result = subprocess.run([sys.executable, "-m", "stich.cli", "arena", "--game", game, "--deals", "4",
                             "--budget-ms", "20", "--procs", "2", "--out", str(tmp_path)],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "4/4 deals" in result.stderr  # the progress bar reached the end of each comparison
    [report_path] = tmp_path.glob("*.json")
    report = json.loads(report_path.read_text())
    assert [(row["first"], row["second"]) for row in report["comparisons"]] == \
        [("heuristic", "random"), ("search", "heuristic")]
    for row in report["comparisons"]:
        low, high = row["difference"]["ci95"]
        assert row["deals"] == row["difference"]["n"] == 4 and low <= row["difference"]["mean"] <= high
        assert set(row["means"]) == {row["first"], row["second"]}
    assert list(tmp_path.glob("*.png")), "the ladder plot was not written"
    assert "heuristic - random" in result.stdout and "search - heuristic" in result.stdout


def test_bad_kinds_are_refused_with_a_reason(tmp_path):
    result = subprocess.run([sys.executable, "-m", "stich.cli", "arena", "--game", "schafkopf", "--kinds",
                             "random,random", "--out", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "different kinds" in result.stderr
