"""Any JSON a client can send as rules or preset deals is either accepted or an
InvalidSetup naming the field — never a crash (which the API would turn into a 500)."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.errors import InvalidSetup
from domain.registry import all_games

GAMES = all_games()
JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 200) | st.floats(allow_nan=False) |
                    st.text(max_size=6) | st.sampled_from(["EA", "QC", "R9", "long", "short", "ramsch", "solo"]),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                    max_leaves=8)


def option_names(game):
    players = game.player_counts[0]
    return sorted(game.setup(players, {}, None).rules)


@pytest.mark.parametrize("name", sorted(GAMES))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_rules_of_any_shape_are_accepted_or_named(name, data):
    game = GAMES[name]
    players = data.draw(st.sampled_from(game.player_counts))
    keys = st.sampled_from(option_names(game)) | st.text(max_size=5)
    rules = data.draw(st.dictionaries(keys, JSON, max_size=4))
    try:
        game.setup(players, rules, None)
    except InvalidSetup as exc:
        assert exc.errors and all(isinstance(v, list) and v for v in exc.errors.values())


@pytest.mark.parametrize("name", sorted(GAMES))
@settings(max_examples=100, deadline=None)
@given(presets=st.lists(st.dictionaries(st.sampled_from(["hands", "dealer", "cupboard", "numbers", "starter", "x"]),
                                        JSON, max_size=4), max_size=2) | JSON)
def test_preset_deals_of_any_shape_are_accepted_or_named(name, presets):
    game = GAMES[name]
    try:
        game.setup(game.player_counts[0], {}, presets)
    except InvalidSetup as exc:
        assert exc.errors
