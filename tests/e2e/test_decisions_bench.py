"""``bench.decisions``: a search's decision time, small. It must time every decision with a
choice and count the sampled worlds each game's solving search solved."""
from __future__ import annotations

import json

import pytest

from bench import decisions


@pytest.mark.parametrize("game,kind,late", [("scharwenzel", "search", 4), ("scharfe-schoten", "search-maxn", 3)])
def test_a_solving_search_is_timed_and_its_solved_worlds_counted(tmp_path, game, kind, late):
    out = tmp_path / "decisions.json"
    assert decisions.main(["--game", game, "--kinds", kind, "--deals", "1", "--late", str(late), "--out", str(out)]) == 0
    timed = json.loads(out.read_text())["kinds"][kind]
    assert timed["decisions"] > 0 and 0 < timed["p50_ms"] <= timed["p99_ms"]
    assert timed["late_card_decisions"] > 0
    assert 0 < timed["worlds_solved"]["solved"] <= timed["worlds_solved"]["tried"]


def test_a_game_it_does_not_know_is_refused(capsys):
    with pytest.raises(SystemExit):
        decisions.main(["--game", "skat"])
    assert "invalid choice: 'skat'" in capsys.readouterr().err
