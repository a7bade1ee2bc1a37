"""Rule options and preset deals are validated at creation, each problem under its field path."""
import pytest

from domain import errors
from domain.scharfe_schoten.cards import SPICE_DECK

from .support import GAME, fill_deal, preset


def problems(players, rules, presets=None) -> dict:
    with pytest.raises(errors.InvalidSetup) as caught:
        GAME.setup(players, rules, presets)
    return caught.value.errors


def test_defaults_fill_the_complete_ruleset():
    setup = GAME.setup(4, {"rounds": 2}, None)
    assert setup.rules == {"rounds": 2, "first_starter": None}
    assert setup.preset_deals == ()


def test_unknown_rule_options_are_named():
    found = problems(3, {"rounds": 3, "jokers": True, "speed": 1})
    assert set(found) == {"rules.jokers", "rules.speed"}


@pytest.mark.parametrize("rounds", [0, 13, "3", True, 2.5, None])
def test_rounds_must_be_1_to_12(rounds):
    assert "rules.rounds" in problems(3, {"rounds": rounds})


@pytest.mark.parametrize("starter", [3, -1, "0", False])
def test_first_starter_must_be_a_seat(starter):
    assert "rules.first_starter" in problems(3, {"first_starter": starter})


def test_rules_must_be_an_object():
    assert "rules" in problems(3, [1, 2])


def test_valid_preset_is_normalised_to_json():
    hands, cupboard = fill_deal(4)
    setup = GAME.setup(4, {"rounds": 1}, [preset(tuple(map(tuple, hands)), tuple(cupboard), starter=2)])
    assert setup.preset_deals == ({"hands": hands, "cupboard": cupboard,
                                   "numbers": {"R": 2, "G": 10, "Y": 1, "B": 9}, "starter": 2},)


def test_preset_card_problems_name_the_field():
    hands, cupboard = fill_deal(3)
    hands[1][0] = hands[0][0]  # a card twice, another missing
    found = problems(3, {}, [preset(hands, cupboard)])
    assert any("appears twice" in m for m in found["preset_deals[0].hands[1]"])
    assert any("missing cards" in m for m in found["preset_deals[0]"])

    hands, cupboard = fill_deal(3)
    hands[2][3] = "Z9"
    assert "unknown card 'Z9'" in problems(3, {}, [preset(hands, cupboard)])["preset_deals[0].hands[2]"]

    hands, cupboard = fill_deal(3)
    cupboard.append(hands[0].pop())
    found = problems(3, {}, [preset(hands, cupboard)])
    assert "must hold 12 cards, got 11" in found["preset_deals[0].hands[0]"]
    assert "must hold 12 cards, got 13" in found["preset_deals[0].cupboard"]

    assert "preset_deals[0].hands" in problems(3, {}, [preset(fill_deal(3)[0][:2], fill_deal(3)[1])])


@pytest.mark.parametrize("numbers", [
    {"R": 1, "G": 2, "Y": 3},
    {"R": 1, "G": 2, "Y": 3, "B": 3},
    {"R": 0, "G": 2, "Y": 3, "B": 4},
    {"R": 1, "G": 2, "Y": 3, "B": 13},
    {"R": 1, "G": 2, "Y": 3, "B": "4"},
    [1, 2, 3, 4],
])
def test_preset_numbers_are_four_distinct_values_for_the_four_colours(numbers):
    assert "preset_deals[1].numbers" in problems(3, {}, [preset(*fill_deal(3)), preset(*fill_deal(3), numbers)])


def test_preset_structure_problems():
    hands, cupboard = fill_deal(3)
    assert "preset_deals[0].cupboard" in problems(3, {}, [{"hands": hands, "numbers": {"R": 1, "G": 2, "Y": 3, "B": 4}}])
    assert "preset_deals[0].extra" in problems(3, {}, [dict(preset(hands, cupboard), extra=1)])
    assert "preset_deals[0]" in problems(3, {}, ["not a deal"])
    assert "preset_deals" in problems(3, {}, {"hands": hands})


def test_no_more_presets_than_rounds():
    entry = preset(*fill_deal(3))
    assert "preset_deals" in problems(3, {"rounds": 1}, [entry, entry])


def test_preset_starters():
    entry = preset(*fill_deal(3))
    assert "preset_deals[0].starter" in problems(3, {}, [dict(entry, starter=3)])
    assert "preset_deals[0].starter" in problems(3, {"first_starter": 1}, [dict(entry, starter=2)])
    # A later round's starter may only repeat the rotation: left of the previous starter.
    assert "preset_deals[1].starter" in problems(3, {}, [dict(entry, starter=1), dict(entry, starter=1)])
    GAME.setup(3, {}, [dict(entry, starter=1), dict(entry, starter=2)])


def test_every_card_in_exactly_one_place():
    hands, cupboard = fill_deal(4)
    assert sorted(sum(hands, []) + cupboard) == sorted(SPICE_DECK)
