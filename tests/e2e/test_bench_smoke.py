"""`python -m bench --short` runs end to end (a smoke test: no thresholds, noise must not fail CI)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_short_benchmark_writes_every_figure(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "QUEUE_URL")}
    result = subprocess.run([sys.executable, "-m", "bench", "--short", "--duration", "3", "--bot-samples", "20",
                             "--out", str(tmp_path)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "[7/7]" in result.stderr  # the progress indicator went through every phase
    [path] = list(tmp_path.glob("*.json"))
    figures = json.loads(path.read_text())
    for key in ("baseline_a", "baseline_b", "moves"):
        assert figures[key]["requests"] > 0 and figures[key]["failures"] == 0
    assert set(figures["load_cost"]) >= {"50", "500", "5000"}
    assert figures["bot_latency"]["samples"] == 20
    assert set(figures["memory"]) == {"scharfe-schoten", "schafkopf", "scharwenzel"}
    assert set(figures["targets"]) and "moves / B" in result.stdout
