"""Short deck (24 cards), Bettel with Stichzwang, and presets with overrides."""
from __future__ import annotations

import pytest

from domain import errors
from domain.schafkopf.cards import SHORT_DECK
from domain.schafkopf.game import hands_from_deck
from domain.schafkopf.tariffs import TOURNAMENT_TARIFFS
from tests.domain.harness import new_table

from .helpers import GAME, complete, declared_state, play_out, settled

SHORT = {"deck": "short"}


def test_short_deck_has_24_cards_dealt_three_and_three():
    assert len(SHORT_DECK) == 24 and not [c for c in SHORT_DECK if c[1:] in ("7", "8")]
    hands = hands_from_deck(list(SHORT_DECK), dealer=3, half=3)
    assert hands[0] == list(SHORT_DECK[0:3]) + list(SHORT_DECK[12:15])
    assert hands[3] == list(SHORT_DECK[9:12]) + list(SHORT_DECK[21:24])
    table, state, events = new_table(GAME, 4, SHORT, seed_hex="cd" * 32)
    assert GAME.pending_deal(GAME.initial_state(GAME.setup(4, SHORT, None))).decks["cards"] == SHORT_DECK
    assert [len(h) for h in state.inner.hands] == [6, 6, 6, 6]


def test_short_deck_is_played_out_in_six_tricks_with_120_points():
    hands = complete({0: ["EO", "GO", "HO", "SO", "EU", "E9"]}, deck=SHORT_DECK)
    state = declared_state(hands, 0, "rufspiel", "E", rules=dict(SHORT, stoss=0))
    result = settled(play_out(state)[0])
    assert sum(result["card_points"].values()) == 120
    assert sum(result["tricks"].values()) == 6


def test_short_deck_laufende_stop_at_the_deck():
    # The declarers hold no trump at all: the defenders' run ("without") is every trump
    # the short deck has (12), not 14 as if the missing H8 and H7 were held by the declarers.
    hands = [["E9", "EK", "G9", "GK", "S9", "SK"], ["EA", "E10", "GA", "G10", "SA", "S10"],
             ["EO", "GO", "HO", "SO", "EU", "GU"], ["HU", "SU", "HA", "H10", "HK", "H9"]]
    state = declared_state(hands, 0, "rufspiel", "E", rules=dict(SHORT, stoss=0))
    result = settled(play_out(state)[0])
    assert result["laufende"] == 12


@pytest.mark.parametrize("rules,field", [
    (dict(SHORT, allowed_games=["sie", "rufspiel"]), "rules.allowed_games"),
    (dict(SHORT, allowed_games=["bettel", "rufspiel"]), "rules.allowed_games"),
    (dict(SHORT, all_pass="ramsch"), "rules.all_pass"),
    ({"all_pass": "muss", "allowed_games": ["solo"]}, "rules.all_pass"),
])
def test_invalid_combinations_are_named(rules, field):
    with pytest.raises(errors.InvalidSetup) as info:
        GAME.setup(4, rules, None)
    assert field in info.value.errors and "short deck" in str(info.value) or "Rufspiel" in str(info.value)


def test_short_deck_drops_the_sie_from_the_default_games_and_checks_presets():
    assert "sie" not in GAME.setup(4, SHORT, None).rules["allowed_games"]
    with pytest.raises(errors.InvalidSetup) as info:
        GAME.setup(4, SHORT, [{"hands": [["EA"] * 8] * 4}])
    assert "must hold 6 cards" in str(info.value)


BETTEL = [
    ["E10", "E7", "G7", "G8", "H7", "H8", "S7", "S8"],
    ["EA", "E9", "EK", "GA", "G10", "GK", "HA", "H10"],
    ["EO", "EU", "E8", "GO", "GU", "G9", "HK", "HO"],
    ["HU", "H9", "SA", "S10", "SK", "SO", "SU", "S9"],
]


@pytest.mark.parametrize("stichzwang,expected", [(False, {"EA", "E9", "EK"}), (True, {"EA", "EK"})])
def test_bettel_stichzwang_must_beat_the_trick_when_able(stichzwang, expected):
    rules = {"allowed_games": ["bettel", "rufspiel"], "bettel_stichzwang": stichzwang}
    state = declared_state(BETTEL, 0, "bettel", rules=rules)
    from .helpers import step
    _, state = step(state, 0, {"type": "play", "card": "E10"})
    cards = {c["card"] for c in GAME.legal_commands(state, 1) if c["type"] == "play"}
    assert cards == expected  # Bettel order A K O U 10 9 8 7: the Nine cannot beat the Ten
    _, state = step(state, 1, {"type": "play", "card": "EK"})
    later = {c["card"] for c in GAME.legal_commands(state, 2) if c["type"] == "play"}
    assert later == {"EO", "EU", "E8"}  # nothing beats the King: any Eichel card


def test_tournament_preset_no_stoss_and_the_point_scale():
    rules = GAME.setup(4, {"preset": "tournament"}, None).rules
    assert rules["preset"] == "tournament" and rules["stoss"] == 0
    assert rules["tariffs"]["solo"] == TOURNAMENT_TARIFFS["solo"] and rules["tariffs"]["stock"] == 1


def test_a_preset_is_overridden_option_by_option():
    rules = GAME.setup(4, {"preset": "tournament", "stoss": 2, "tariffs": {"bettel": {"base": 6}}}, None).rules
    assert rules["stoss"] == 2 and rules["tariffs"]["bettel"] == {"base": 6}
    assert rules["tariffs"]["rufspiel"]["base"] == 1  # the preset's scale elsewhere
    with pytest.raises(errors.InvalidSetup) as info:
        GAME.setup(4, {"preset": "pub"}, None)
    assert "rules.preset" in info.value.errors


def test_tournament_scale_rufspiel_and_solo():
    from .test_called_ace import HANDS
    rules = {"preset": "tournament"}
    result = settled(play_out(declared_state(HANDS, 0, "rufspiel", "E", rules=rules))[0])
    assert abs(result["payments"][0]) == 1 + result["schneider"] + result["schwarz"]
    result = settled(play_out(declared_state(HANDS, 0, "solo", "H", rules=rules))[0])
    per_opponent = 5 + result["schneider"] + result["schwarz"]
    assert abs(result["payments"][0]) == 3 * per_opponent and abs(result["payments"][1]) == per_opponent
