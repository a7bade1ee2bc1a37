"""``bench.oracle``: the search handed the true deal, small. It must hand the true state to the
oracle seats' searches in every game, and change nothing for any other seat."""
from __future__ import annotations

import json
import math

import pytest

from bench import oracle
from domain.bots import match, policy as policy_of
from domain.registry import all_games
from domain.schafkopf.bots import search as schafkopf_search
from domain.scharfe_schoten.bots import search as scharfe_schoten_search
from domain.scharwenzel.bots import search as scharwenzel_search
from domain.table import Table
from stich.arena import SHORT_RULES, seed_of


@pytest.fixture
def installed(monkeypatch):
    """The patches, undone after the test (monkeypatch restores the originals it saw first)."""
    monkeypatch.setattr(schafkopf_search, "_sampler", schafkopf_search._sampler)
    monkeypatch.setattr(scharwenzel_search, "sampled_state", scharwenzel_search.sampled_state)
    monkeypatch.setattr(scharfe_schoten_search, "Determinizer", scharfe_schoten_search.Determinizer)
    monkeypatch.setattr(schafkopf_search, "_oracle_installed", False, raising=False)
    oracle.install()


def _events(game: str) -> list:
    search = policy_of(oracle.SEARCH, game)
    _, events = match.play(Table(all_games()), game, 4, SHORT_RULES[game], [search] * 4, seed_of("oracle-test", 1),
                           rng_seed=1, playouts=8)
    return [(e.type, e.data) for e in events]


@pytest.mark.parametrize("game", oracle.GAMES)
def test_the_oracle_is_handed_the_true_state_and_others_are_not(installed, game):
    result = oracle.play_deal((game, "oracle-test", 0, oracle.SEARCH))
    assert math.isfinite(result["difference"])
    assert result["handed"] > 0, "the search no longer asks for its samples where the oracle hands them"


@pytest.mark.parametrize("game", oracle.GAMES)
def test_the_patches_change_nothing_outside_an_oracle_seat(monkeypatch, game):
    before = _events(game)
    monkeypatch.setattr(schafkopf_search, "_sampler", schafkopf_search._sampler)
    monkeypatch.setattr(scharwenzel_search, "sampled_state", scharwenzel_search.sampled_state)
    monkeypatch.setattr(scharfe_schoten_search, "Determinizer", scharfe_schoten_search.Determinizer)
    monkeypatch.setattr(schafkopf_search, "_oracle_installed", False, raising=False)
    oracle.install()
    assert _events(game) == before
    assert oracle.Truth.active is False


def test_the_command_line_writes_a_result_per_game(tmp_path, capsys):
    out = tmp_path / "oracle.json"
    assert oracle.main(["--games", "scharfe-schoten", "--deals", "2", "--procs", "1", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    (result,) = report["results"]
    assert result["game"] == "scharfe-schoten" and result["deals"] == 2 and result["true_states_handed"] > 0
    low, high = result["oracle_minus_search"]["ci95"]
    assert low <= result["oracle_minus_search"]["mean"] <= high
    assert "oracle - search" in capsys.readouterr().out


def test_unknown_games_are_refused(capsys):
    with pytest.raises(SystemExit):
        oracle.main(["--games", "skat"])
    assert "unknown games ['skat']" in capsys.readouterr().err


def test_a_kind_that_is_no_search_of_a_game_is_refused(capsys):
    with pytest.raises(SystemExit):
        oracle.main(["--games", "scharfe-schoten", "--kind", "heuristic"])
    assert "--kind heuristic is not a search of scharfe-schoten" in capsys.readouterr().err
