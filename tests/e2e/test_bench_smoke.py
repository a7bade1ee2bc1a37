"""`python -m bench --short` runs end to end (a smoke test: no timing thresholds, noise must not fail CI;
but the streams phase must lose no event and fail no request, which is correctness, not speed).

Shorter than `--short` where that checks the same: 3 s per throughput phase (1 s saw no request
answered on a busy machine), 2 s for each streams run and 10 bot answers; every phase still runs
and every figure is still checked."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

BOT_SAMPLES = 10


@pytest.mark.serial  # its figures are timings, and the streams phase must fail no request under them
def test_short_benchmark_writes_every_figure(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "QUEUE_URL")}
    result = subprocess.run([sys.executable, "-m", "bench", "--short", "--duration", "3", "--bot-samples", str(BOT_SAMPLES),
                             "--stream-duration", "2", "--out", str(tmp_path)], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "[10/10]" in result.stderr  # the progress indicator went through every phase
    [path] = list(tmp_path.glob("*.json"))
    figures = json.loads(path.read_text())
    for key in ("baseline_a", "baseline_b", "moves", "sse_moves", "socket_moves"):
        assert figures[key]["requests"] > 0 and figures[key]["failures"] == 0, key
        assert figures[key]["api_cpu_us"] > 0, key
    assert set(figures["replay"]) == {"scharfe-schoten", "schafkopf", "scharwenzel"}
    assert all(cost["us_per_event"] > 0 and cost["events"] > 500 for cost in figures["replay"].values())
    assert set(figures["load_cost"]) >= {"50", "500", "5000"}
    cpu = figures["cpu"]
    assert all(cpu["us_per_request"][k] > 0
               for k in ("a", "b", "view", "command", "command_minimal", "view_core", "command_core"))
    assert cpu["ratios"]["moves_over_b"] > 0 and "CPU: moves / B" in result.stdout
    assert figures["bot_latency"]["samples"] == BOT_SAMPLES
    assert set(figures["memory"]) == {"scharfe-schoten", "schafkopf", "scharwenzel"}
    assert set(figures["targets"]) and "moves / B" in result.stdout

    streams = figures["streams"]
    config = streams["config"]
    for run in ("run_a", "run_b"):
        assert streams[run]["moves"] > 0 and streams[run]["health_probes"] > 0
        for figure in ("moves_per_s", "move_p50_ms", "move_p95_ms", "move_p99_ms", "health_p50_ms", "health_p99_ms"):
            assert streams[run][figure] > 0, (run, figure)
        assert streams[run]["games_finished"] == 0  # 12 rounds: no game ends during the phase
    assert streams["ratios"]["move_p99_b_over_a"] > 0 and streams["ratios"]["health_p99_b_over_a"] > 0
    assert streams["connected"] == {"sse": config["sse"], "polls": config["polls"], "slow": config["slow"],
                                    "open_s": streams["connected"]["open_s"], "failures": {}}
    assert streams["failures"] == {}, streams["failures"]  # players, prober and subscribers, per kind
    for kind in ("sse", "poll"):
        delivery = streams["delivery"][kind]
        assert delivery["events"] > 0 and delivery["unmatched"] == 0
        assert delivery["latency_p50_ms"] is not None and delivery["latency_p99_ms"] is not None
    verification = streams["verification"]
    assert verification["subscribers"] == verification["complete"] == config["sse"] + config["polls"]
    assert verification["violations"] == 0 and verification["events_missing"] == 0
    assert verification["events_received"] == verification["events_expected"] > 0
    assert verification["sse_json_sampled"] > 0 and verification["sse_json_seq_mismatches"] == 0
    assert streams["all_delivered_in_order"]
    assert figures["targets"]["streams_no_failures"] and figures["targets"]["streams_all_delivered_in_order"]
    assert {"streams_move_p99<=2x", "streams_health_p99<=2x"} <= set(figures["targets"])
    assert "streams verification" in result.stdout


def test_the_simulator_phase_times_every_game_and_the_search(tmp_path):
    """`--only simulator --short`: each simulator against its decider (OpenSpiel too, when installed)
    and the search bots' decisions; again no timing thresholds, only that every figure is there.
    Not `serial`: one process on one core, asserting counts and figures above zero, which a busy
    neighbour slows but cannot break (it held the other worker idle for ~30 s)."""
    result = subprocess.run([sys.executable, "-m", "bench", "--only", "simulator", "--short", "--out", str(tmp_path)],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    [path] = list(tmp_path.glob("*.json"))
    figures = json.loads(path.read_text())["simulator"]
    assert set(figures["games"]) == {"schafkopf", "schafkopf-card-play", "scharwenzel", "scharfe-schoten-3",
                                     "scharfe-schoten-4"}
    for name, game in figures["games"].items():
        assert game["simulator"]["actions_per_s"] > 0 and game["decider"]["actions_per_s"] > 0, name
    assert set(figures["search_decisions"]) == {"schafkopf", "scharwenzel", "scharfe-schoten"}
    for name, decisions in figures["search_decisions"].items():
        assert decisions["decisions"] > 10 and 0 < decisions["p50_ms"] <= decisions["p99_ms"], name


def test_the_uploads_phase_measures_health_and_memory(tmp_path):
    """`--only uploads --short`: every upload answered as the phase expects and every figure there;
    no timing thresholds (the p99 target is the benchmark's), so not `serial`."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "QUEUE_URL")}
    result = subprocess.run([sys.executable, "-m", "bench", "--only", "uploads", "--short", "--out", str(tmp_path)],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    [path] = list(tmp_path.glob("*.json"))
    figures = json.loads(path.read_text())
    uploads = figures["uploads"]
    during, flood = uploads["health_during_two_uploads"], uploads["flood"]
    assert during["answers"] == {"200": 2} and len(during["upload_s"]) == 2
    assert during["checks"] > 0 and 0 < during["p50_ms"] <= during["p99_ms"] <= during["max_ms"]
    assert uploads["health_idle"]["checks"] == 200 and during["peak_rise_mb"] > 0
    # No per-address limits in the benchmark's app: every padded upload is read, then refused.
    assert flood["answers"] == {"400 export_limit": 120} and flood["peak_rise_mb"] > 0
    assert "upload_health_p99<=100ms" in figures["targets"] and "health during two worst uploads" in result.stdout


def test_the_worker_classes_comparison_measures_both_classes_on_both_cycles(tmp_path):
    """`python -m bench.worker_classes`, one short round: both gunicorn worker classes served every
    move of both cycles; no timing thresholds, so not `serial`."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "QUEUE_URL")}
    result = subprocess.run([sys.executable, "-m", "bench.worker_classes", "--duration", "3", "--rounds", "1",
                             "--out", str(tmp_path)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    [path] = list(tmp_path.glob("worker-classes-*.json"))
    report = json.loads(path.read_text())
    for name in ("StreamingWorker", "gevent_pywsgi"):
        for cycle in ("moves", "sse_moves"):
            row = report["summary"][name][cycle]
            assert row["failures"] == 0 and row["moves_per_s"] > 0 and row["cpu_us_per_move"] > 0, (name, cycle)
            assert 0 < row["p50_ms"] <= row["p99_ms"], (name, cycle)
    assert set(report["ratios_gevent_pywsgi_over_streaming_worker"]["moves"]) == {
        "moves_per_s", "cpu_us_per_move", "p99_ms"}
    assert "ratio" in result.stdout


def test_the_worker_classes_comparison_refuses_a_run_of_nothing(tmp_path):
    result = subprocess.run([sys.executable, "-m", "bench.worker_classes", "--rounds", "0", "--out", str(tmp_path)],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "must be positive" in result.stderr and not list(tmp_path.iterdir())


def test_the_analysis_marks_bench_counts_the_marks_of_search_games(tmp_path):
    """`python -m bench.analysis_marks`, two short games: every judged decision counted, the marks
    under the spread rule never more than under the threshold alone; a bad budget is refused."""
    out = tmp_path / "marks.json"
    result = subprocess.run([sys.executable, "-m", "bench.analysis_marks", "--game", "scharfe-schoten", "--games", "2",
                             "--playouts", "8", "--procs", "1", "--out", str(out)],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(out.read_text())
    assert report["games"] == 2 and report["judged_decisions"] > 0
    assert set(report["marks_per_100"]) == {"inaccuracy", "mistake", "blunder", "all"}
    assert report["marks_per_100"]["all"] <= report["threshold_only_marks_per_100"]["all"]
    assert report["loss_spread_p50"] is not None
    refused = subprocess.run([sys.executable, "-m", "bench.analysis_marks", "--playouts", "0"],
                             cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "playouts must be" in refused.stderr
