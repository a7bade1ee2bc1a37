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
    for row in report["comparisons"]:  # Schafkopf's Stoß table, and only Schafkopf's
        assert ("stoss" in row) == (game == "schafkopf")
    if game == "schafkopf":
        assert "Stoß level" in result.stdout
        for row in report["comparisons"]:
            assert sum(line["deals"] for line in row["stoss"]["reached"]) <= 2 * 4  # a deal per seating at most
            assert all(line["deals"] <= 2 * 4 for line in row["stoss"]["given"])


def test_bad_kinds_are_refused_with_a_reason(tmp_path):
    result = subprocess.run([sys.executable, "-m", "stich.cli", "arena", "--game", "schafkopf", "--kinds",
                             "random,random", "--out", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "different kinds" in result.stderr


def arena(tmp_path, *args):
    result = subprocess.run([sys.executable, "-m", "stich.cli", "arena", "--game", "scharfe-schoten", "--procs", "2",
                             "--out", str(tmp_path), *args], capture_output=True, text=True, timeout=300)
    reports = sorted(tmp_path.glob("*.json"))
    return result, json.loads(reports[-1].read_text()) if result.returncode == 0 else None


def test_playouts_are_the_budget_and_the_report_counts_what_the_safety_net_stopped(tmp_path):
    """An arena-only variant by name, at 8 playouts under the default 5 s net: nothing is stopped; at
    20,000 playouts under a 1 ms net, the net stops the search's decisions, and the report says so."""
    result, report = arena(tmp_path / "a", "--kinds", "random,search-cards", "--playouts", "8", "--deals", "2")
    assert result.returncode == 0, result.stderr[-2000:]
    assert (report["playouts"], report["budget_ms"], report["kinds"]) == (8, 5000, ["random", "search-cards"])
    [row] = report["comparisons"]
    assert (row["first"], row["second"]) == ("search-cards", "random")
    assert row["decisions"]["search-cards"] > 0 and row["decisions"]["random"] > 0
    assert row["net_stopped"] == {"search-cards": 0, "random": 0}
    assert "search playouts 8 a decision, safety net 5000 ms" in result.stdout
    assert "decisions the safety net stopped: search-cards 0 of" in result.stdout

    result, report = arena(tmp_path / "b", "--kinds", "random,search", "--playouts", "20000", "--budget-ms", "1",
                           "--deals", "2")
    assert result.returncode == 0, result.stderr[-2000:]
    [row] = report["comparisons"]
    assert row["net_stopped"]["random"] == 0 and 0 < row["net_stopped"]["search"] <= row["decisions"]["search"]
    assert f"search {row['net_stopped']['search']} of {row['decisions']['search']}" in result.stdout


@pytest.mark.parametrize("args,said", [(["--kinds", "random,search", "--playouts", "7"], "--playouts must be"),
                                       (["--kinds", "random,clever"], "'search-cards'")])
def test_bad_playouts_or_a_kind_the_game_lacks_are_refused_naming_what_is_allowed(tmp_path, args, said):
    result, _ = arena(tmp_path, *args)
    assert result.returncode == 2 and said in result.stderr, result.stderr
