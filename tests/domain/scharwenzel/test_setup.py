import pytest

from domain import errors
from domain.event import redact_data
from domain.scharwenzel.cards import deck
from tests.domain.harness import new_table
from tests.domain.scharwenzel.helpers import GAME, SCORING_EXAMPLE, TIE_8, Driver


def test_defaults_fill_the_complete_ruleset():
    assert dict(GAME.setup(4, {}, None).rules) == {"deals": None, "threads": 3, "announced_tout": True,
                                                   "bock_value": "game"}
    assert GAME.setup(6, {"deals": 2}, None).rules["threads"] is None


@pytest.mark.parametrize("rules, field", [
    ({"rounds": 3}, "rules.rounds"),
    ({"deals": 0}, "rules.deals"),
    ({"threads": "3"}, "rules.threads"),
    ({"deals": 2, "threads": 3}, "rules"),
    ({"announced_tout": "yes"}, "rules.announced_tout"),
    ({"bock_value": "all"}, "rules.bock_value"),
])
def test_bad_rules_are_named(rules, field):
    with pytest.raises(errors.InvalidSetup) as raised:
        GAME.setup(4, rules, None)
    assert field in raised.value.errors


def test_bad_presets_name_the_field_path():
    hands = [list(h) for h in SCORING_EXAMPLE]
    hands[2][0] = "QC"
    with pytest.raises(errors.InvalidSetup) as raised:
        GAME.setup(4, {}, [{"hands": hands}])
    assert "QC appears twice (also in preset_deals[0].hands[0])" in raised.value.errors["preset_deals[0].hands[2]"]
    short = [list(h) for h in SCORING_EXAMPLE]
    short[1] = short[1][:7]
    with pytest.raises(errors.InvalidSetup) as raised:
        GAME.setup(4, {}, [{"hands": short}])
    assert raised.value.errors["preset_deals[0].hands[1]"] == ["must hold 8 cards, got 7"]
    with pytest.raises(errors.InvalidSetup) as raised:
        GAME.setup(4, {}, [{"hands": SCORING_EXAMPLE}, {"hands": SCORING_EXAMPLE, "dealer": 1}])
    assert "preset_deals[1].dealer" in raised.value.errors
    with pytest.raises(errors.InvalidSetup) as raised:
        GAME.setup(6, {}, [{"hands": SCORING_EXAMPLE}])
    assert "preset_deals[0].hands" in raised.value.errors


def test_pending_deal_asks_for_the_deck_and_the_first_dealer():
    state = GAME.initial_state(GAME.setup(6, {}, None))
    request = GAME.pending_deal(state)
    assert request.index == 0
    assert request.decks["cards"] == deck(6)
    assert request.decks["seats"] == ("0", "1", "2", "3", "4", "5")


def test_shuffled_deck_becomes_hands_in_packets():
    state = GAME.initial_state(GAME.setup(4, {}, None))
    cards = list(deck(4))
    (event,) = GAME.decide(state, None, {"type": "deal", "deal": 0,
                                         "decks": {"cards": cards, "seats": ["2", "0", "1", "3"]}})
    assert event.data["dealer"] == 2 and event.data["forehand"] == 3
    hands = event.data["hands"]
    assert hands[3] == cards[0:3] + cards[12:14] + cards[20:23]
    assert hands[2] == cards[9:12] + cards[18:20] + cards[29:32]
    # Only your own hand is visible while the game runs.
    seen, hidden = redact_data(event.data, event.visibility, 1)
    assert hidden and seen["hands"][1] == hands[1] and seen["hands"][0] is None
    assert seen["hand_sizes"] == [8, 8, 8, 8]


def test_view_shows_own_hand_only():
    d = Driver(8, presets=[{"hands": TIE_8, "dealer": 7}])
    d.deal()
    view = GAME.view(d.state, 3)
    assert sorted(view["hand"]) == sorted(TIE_8[3])
    assert view["sides"] == [0, 1, 0, 1, 0, 1, 0, 1]
    assert view["to_act"] == [0] and view["forehand"] == 0 and view["dealer"] == 7
    assert "hands" not in view and "starting_hands" not in view
    spectator = GAME.view(d.state, None)
    assert spectator["hand"] is None
    text = repr(spectator)
    assert not any(f"'{card}'" in text for hand in TIE_8 for card in hand)
    assert view["score_sheet"] == {"points": [0, 0], "threads": [0, 0], "hooks": [0, 0],
                                   "total_threads": [0, 0], "bock_carried": 0}


def test_table_deals_from_the_seed_and_the_system_only():
    table, state, events = new_table(GAME, 4, {"deals": 1})
    assert state.inner.phase == "bidding"
    dealt = [e for e in events if e.type == "HandsDealt"][0]
    assert sorted(c for h in dealt.data["hands"] for c in h) == sorted(deck(4))
    with pytest.raises(errors.NotYourTurn):
        GAME.decide(GAME.initial_state(GAME.setup(4, {}, None)), 0, {"type": "deal", "deal": 0, "decks": {}})
