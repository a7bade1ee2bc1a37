"""The archive benchmark's smoke test (bench/archive.py): a short run moves every game it played out of
Redis into the archive, and reports figures that add up."""
from __future__ import annotations

import pytest

from bench.archive import run

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_a_short_run_archives_every_game_and_reports_its_figures():
    result = run(24, None, say=lambda line: None, exports=20)
    archive, redis, exports = result["archive"], result["redis"], result["export_ms"]
    assert archive["games"] == 30 + 24  # the warm-up's and the run's, all archived (counted before the exports)
    assert archive["stored_bytes_per_game"] < archive["event_bytes_per_game"] and archive["compression"] > 1
    assert archive["sqlite_file_bytes_per_game"] > 0 and result["database"] == "sqlite"
    # A finished game held kilobytes in Redis; what is left of each once archived is a small fraction.
    assert redis["finished_game_bytes_in_redis"] > 5_000
    assert redis["after_minus_before_bytes_per_game"] < redis["finished_game_bytes_in_redis"] / 4
    for timing in (exports["live"], exports["archived_first_read"], exports["archived_again"]):
        assert 0 < timing["p50"] <= timing["p95"] <= timing["max"]
