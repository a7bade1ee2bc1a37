"""The quick-play benchmark's smoke test (bench/pools.py): a short run with a dozen players against a real
`stich serve` seats every join exactly once (the run checks it) and reports its figures."""
from __future__ import annotations

import pytest

from bench.pools import POOLS, run

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_a_short_run_seats_every_join_once_and_reports_its_figures():
    result = run(players=9, minutes=0.12, wait_s=1, workers=1)
    assert result["seated"] + result["left"] == result["joins"] and result["seated"] > 0
    assert result["games"] > 0 and result["moves"] > 0
    assert 0 < result["seating_s"]["p50"] <= result["seating_s"]["p99"]
    assert set(result["seating_s_by_pool"]) == set(POOLS)
    assert result["rating"]["units"] == result["games"] and result["rating"]["ms_per_unit"] > 0
