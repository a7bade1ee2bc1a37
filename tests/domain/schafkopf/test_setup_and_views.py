"""Ruleset validation, presets, the deal mapping, views and command schemas."""
from __future__ import annotations

import pytest

from domain import errors
from domain.schafkopf.cards import DECK
from domain.schafkopf.game import hands_from_deck
from domain.schafkopf.tariffs import DEFAULT_TARIFFS
from tests.domain.harness import new_table

from .helpers import GAME, declared_state, play_tricks
from .test_called_ace import HANDS


def test_setup_returns_the_complete_ruleset():
    rules = GAME.setup(4, {}, None).rules
    assert rules == {
        "preset": "standard",
        "deals": 8,
        "deck": "long",
        "allowed_games": ["sie", "solo_tout", "wenz_tout", "solo", "wenz", "rufspiel"],
        "tariffs": dict(DEFAULT_TARIFFS, stock=10),
        "all_pass": "redeal",
        "thrown_in_counts": True,
        "stoss": 4,
        "doppeln": "off",
        "stock_winner": "declarer_and_partner",
        "stock_lone_games": False,
        "ramsch_durchmarsch": "all_tricks",
        "ramsch_jungfrau": "off",
        "bettel_stichzwang": False,
        "renonce": False,
        "hochzeit": False,
        "auction": False,
        "schieberrunde": False,
        "schieberrunde_hinting": False,
    }
    assert rules["tariffs"]["wenz"]["laufende_min"] == 2
    assert rules["tariffs"]["bettel"] == {"base": 30}


def test_partial_tariffs_are_merged_into_the_defaults():
    rules = GAME.setup(4, {"tariffs": {"geier": {"base": 200, "schneider": 50}}}, None).rules
    assert rules["tariffs"]["geier"] == {"base": 200, "schneider": 50, "schwarz": 10, "laufende": 10,
                                         "laufende_min": 2}
    assert rules["tariffs"]["solo"]["base"] == 50


@pytest.mark.parametrize("rules,field", [
    ({"ramsch": True}, "rules"),
    ({"preset": "pub"}, "rules.preset"),
    ({"stoss": 5}, "rules.stoss"),
    ({"stoss": True}, "rules.stoss"),
    ({"doppeln": "yes"}, "rules.doppeln"),
    ({"deck": "tiny"}, "rules.deck"),
    ({"stock_winner": "partner"}, "rules.stock_winner"),
    ({"ramsch_jungfrau": True}, "rules.ramsch_jungfrau"),
    ({"bettel_stichzwang": 1}, "rules.bettel_stichzwang"),
    ({"tariffs": {"stock": -5}}, "rules.tariffs.stock"),
    ({"deals": 0}, "rules.deals"),
    ({"allowed_games": ["rufspiel", "hochzeit"]}, "rules.allowed_games"),
    ({"allowed_games": []}, "rules.allowed_games"),
    ({"tariffs": {"solo": {"base": -1}}}, "rules.tariffs.solo.base"),
    ({"tariffs": {"solo": {"stock": 1}}}, "rules.tariffs.solo"),
    ({"tariffs": {"kontra": {}}}, "rules.tariffs"),
    ({"tariffs": {"ramsch": {"base": 20, "schneider": 10}}}, "rules.tariffs.ramsch"),
    ({"all_pass": "pay"}, "rules.all_pass"),
    ({"thrown_in_counts": "yes"}, "rules.thrown_in_counts"),
])
def test_bad_rules_name_the_field(rules, field):
    with pytest.raises(errors.InvalidSetup) as info:
        GAME.setup(4, rules, None)
    assert field in info.value.errors


def test_unknown_rule_keys_are_named():
    with pytest.raises(errors.InvalidSetup) as info:
        GAME.setup(4, {"kontra": True, "klopfen": True}, None)
    assert "kontra" in str(info.value.errors["rules"]) and "klopfen" in str(info.value.errors["rules"])


def test_presets_are_validated_as_a_partition_of_the_deck():
    hands = [list(DECK[i * 8:(i + 1) * 8]) for i in range(4)]
    assert GAME.setup(4, {}, [{"hands": hands, "dealer": 3}]).preset_deals[0]["dealer"] == 3
    bad = [list(h) for h in hands]
    bad[2][0] = bad[1][0]
    with pytest.raises(errors.InvalidSetup) as info:
        GAME.setup(4, {}, [{"hands": bad}])
    assert "appears twice" in info.value.errors["preset_deals[0].hands[2]"][0]
    short = [list(h) for h in hands]
    short[1] = short[1][:7]
    with pytest.raises(errors.InvalidSetup) as info:
        GAME.setup(4, {}, [{"hands": hands}, {"hands": short}])
    assert "preset_deals[1].hands[1]" in info.value.errors
    with pytest.raises(errors.InvalidSetup) as info:
        GAME.setup(4, {}, [{"hands": hands, "dealer": 4, "cut": 1}])
    assert {"preset_deals[0].dealer", "preset_deals[0]"} <= set(info.value.errors)


def test_deal_mapping_two_halves_of_four_from_the_dealers_left():
    hands = hands_from_deck(list(DECK), dealer=2)
    assert hands[3] == list(DECK[0:4]) + list(DECK[16:20])
    assert hands[0] == list(DECK[4:8]) + list(DECK[20:24])
    assert hands[2] == list(DECK[12:16]) + list(DECK[28:32])


def test_first_deal_draws_the_dealer_from_the_seat_deck():
    table, state, events = new_table(GAME, 4, {}, seed_hex="ab" * 32)
    request = GAME.pending_deal(GAME.initial_state(GAME.setup(4, {}, None)))
    assert request.index == 0 and request.decks == {"cards": DECK, "seats": ("0", "1", "2", "3")}
    dealt = [e for e in events if e.type == "HandsDealt"][0]
    assert dealt.visibility.scope == "per_seat"
    assert GAME.to_act(state.inner) == frozenset({(dealt.data["dealer"] + 1) % 4})


def test_preset_deal_uses_its_hands_and_dealer():
    table, state, events = new_table(GAME, 4, {}, preset_deals=[{"hands": HANDS, "dealer": 3}])
    assert state.inner.hands == tuple(tuple(h) for h in HANDS)
    assert GAME.to_act(state.inner) == frozenset({0})


def test_views_hide_other_hands_and_card_points_while_running():
    table, state, _ = new_table(GAME, 4, {}, preset_deals=[{"hands": HANDS, "dealer": 3}])
    spectator = table.view(state, None)["game_state"]
    assert spectator["hand"] is None and "hands" not in spectator
    mine = table.view(state, 1)["game_state"]
    assert sorted(mine["hand"]) == sorted(HANDS[1])
    assert not any(card in str(mine) for card in HANDS[0] if card not in HANDS[1])
    assert mine["card_points"] is None and mine["hand_sizes"] == [8, 8, 8, 8]
    assert table.view(state, 0)["legal"] == GAME.legal_commands(state.inner, 0)


def test_view_of_a_running_trick():
    state = declared_state(HANDS, 0, "rufspiel", "E")
    _, state = play_tricks(state, [["HK", "H7", "HU", "H8"], ["EA"]])
    view = GAME.view(state, 3)
    assert view["declared"] == {"game": "rufspiel", "suit": "E", "declarer": 0, "called_ace": "EA"}
    assert view["partner"] == 2 and view["tricks_taken"] == [0, 0, 1, 0]
    assert view["current_trick"] == {"leader": 2, "plays": [{"seat": 2, "card": "EA"}]}
    assert view["last_trick"]["plays"][2] == {"seat": 2, "card": "HU"}
    assert view["to_act"] == [3] and view["card_points"] is None


def test_command_schemas_are_strict():
    from marshmallow import ValidationError
    from api.commands.schafkopf import COMMANDS
    assert set(COMMANDS) == {"announce", "name_game", "withdraw", "play", "doppeln", "stoss",
                             "give_card", "bid", "pass", "schieber", "push"}
    COMMANDS["bid"]().load({"type": "bid", "target": 71})
    COMMANDS["pass"]().load({"type": "pass"})
    COMMANDS["schieber"]().load({"type": "schieber", "play": False})
    COMMANDS["push"]().load({"type": "push", "cards": ["E7", "G10"]})
    for command in ({"type": "bid", "target": "71"}, {"type": "bid", "target": 75}, {"type": "pass", "x": 1},
                    {"type": "schieber", "play": "no"}, {"type": "push", "cards": ["E7"]},
                    {"type": "push", "cards": ["E7", "X9"]}):
        with pytest.raises(ValidationError):
            COMMANDS[command["type"]]().load(command)
    COMMANDS["announce"]().load({"type": "announce", "intent": "hochzeit"})
    with pytest.raises(ValidationError):
        COMMANDS["announce"]().load({"type": "announce", "intent": "marry"})
    COMMANDS["give_card"]().load({"type": "give_card", "card": "G10"})
    COMMANDS["name_game"]().load({"type": "name_game", "game": "hochzeit"})
    with pytest.raises(ValidationError):
        COMMANDS["give_card"]().load({"type": "give_card", "card": "X1"})
    COMMANDS["doppeln"]().load({"type": "doppeln", "double": True})
    COMMANDS["stoss"]().load({"type": "stoss"})
    with pytest.raises(ValidationError):
        COMMANDS["doppeln"]().load({"type": "doppeln", "double": "yes"})
    with pytest.raises(ValidationError):
        COMMANDS["stoss"]().load({"type": "stoss", "level": 2})
    COMMANDS["name_game"]().load({"type": "name_game", "game": "rufspiel", "suit": "E"})
    COMMANDS["name_game"]().load({"type": "name_game", "game": "wenz"})
    with pytest.raises(ValidationError):
        COMMANDS["announce"]().load({"type": "announce", "intent": "maybe"})
    with pytest.raises(ValidationError):
        COMMANDS["play"]().load({"type": "play", "card": "EO", "extra": 1})


def test_last_deal_in_the_view_names_the_declarer_and_suit_like_the_event():
    from tests.domain.harness import random_playout

    from domain.registry import all_games

    game = all_games()["schafkopf"]
    for seed in range(20):
        table, state, events = random_playout(game, 4, seed=seed, rules={"deals": 2})
        settled = [e for e in events if e.type == "DealSettled"]
        if settled and settled[-1].data.get("game") not in (None, "ramsch"):
            break
    last = game.view(state.inner, None)["last_deal"]
    assert (last["declarer"], last["suit"]) == (settled[-1].data["declarer"], settled[-1].data["suit"])
