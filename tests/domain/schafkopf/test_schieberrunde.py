"""The Schieberrunde (house rule ``schieberrunde``), seed "Passing Round": after a won Herz-Solo.

Vorhand gets the Eichel and Gras Ober first, the dealer is two cards short;
Vorhand plays a Solo after passing two cards round (Vorhand -> Mittelhand ->
Hinterhand -> dealer), or offers the Obers to the dealer, who plays without
passing; if neither plays, both pay the Solo price to the other two.
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from domain import errors
from domain.event import Event, per_seat, redact_data
from domain.schafkopf.cards import DECK, SHORT_DECK
from domain.schafkopf.schieberrunde import follows
from tests.domain.harness import event_types, given, when

from .helpers import GAME, complete, dealt_state, deal_next, fresh, play_out, settled, step

RULES = {"schieberrunde": True, "stoss": 0}
# Dealer 3: seat 0 is Vorhand (10 cards with EO GO), seat 3 the dealer (6 cards).
SCHIEBER_HANDS = [
    ["EO", "GO", "HO", "EA", "E10", "GA", "HA", "H7", "S7", "S8"],
    ["SO", "EU", "EK", "E9", "GK", "G9", "S10", "S9"],
    ["GU", "SU", "H10", "H8", "E8", "G8", "SA", "SK"],
    ["HU", "HK", "H9", "E7", "G7", "G10"],
]


def schieber_dealt(rules=RULES):
    """Given: seat 3 has dealt a Schieberrunde."""
    event = Event("HandsDealt", {"deal": 1, "dealer": 3, "hands": SCHIEBER_HANDS, "schieberrunde": True},
                  per_seat("hands"))
    return given(GAME, [event], fresh(rules))


def test_a_won_herz_solo_makes_the_next_deal_a_schieberrunde():
    # Seat 0 holds every Ober and Unter: the Herz-Solo cannot be lost.
    first = complete({0: ["EO", "GO", "HO", "SO", "EU", "GU", "HU", "SU"]})
    second = complete({1: ["EA", "E10", "EK", "E9", "GA", "G10", "GK", "G9"]})
    state = dealt_state([first, second], RULES)
    state = _name_solo(state, 0, "H")
    events, state = play_out(state)
    result = settled(events)
    assert result["won"] and result["schieberrunde_next"] is True
    assert state.schieber_due and GAME.view(state, 2)["schieberrunde_next"] is True
    state = deal_next(state)
    assert state.phase == "schieber" and GAME.to_act(state) == frozenset({0})
    assert [len(h) for h in state.hands] == [10, 8, 8, 6]
    assert {"EO", "GO"} <= set(state.hands[0]) and not state.schieber_due
    assert GAME.view(state, 1)["schieberrunde"] == {"vorhand": 0, "calls": [], "pushes": []}


def _name_solo(state, seat, suit):
    while state.phase == "announce":
        who = next(iter(GAME.to_act(state)))
        _, state = step(state, who, {"type": "announce", "intent": "play" if who == seat else "pass"})
    _, state = step(state, seat, {"type": "name_game", "game": "solo", "suit": suit})
    return state


def test_only_a_won_herz_solo_triggers_it_and_only_with_the_rule():
    config = fresh(RULES).config
    assert follows(config, "solo", "H", True) and follows(config, "solo_tout", "H", True)
    assert not follows(config, "solo", "H", False)
    assert not follows(config, "solo", "E", True) and not follows(config, "wenz", None, True)
    assert not follows(fresh({}).config, "solo", "H", True)


def test_the_deal_gives_vorhand_the_two_obers_and_leaves_the_dealer_short():
    state = replace(fresh(RULES), schieber_due=True, dealer=2, next_deal=1, deal=0)
    rest = [c for c in DECK if c not in ("EO", "GO")]
    events = when(GAME, state, None, {"type": "deal", "deal": 1, "decks": {"cards": list(DECK)}})
    assert event_types(events) == ["HandsDealt"]
    data = events[0].data
    assert data["schieberrunde"] is True and data["dealer"] == 3
    hands = data["hands"]
    assert hands[0] == ["EO", "GO"] + rest[0:4] + rest[16:20]  # Vorhand: the Obers, then two batches
    assert hands[1] == rest[4:8] + rest[20:24]
    assert hands[2] == rest[8:12] + rest[24:28]
    assert hands[3] == rest[12:16] + rest[28:30]  # the dealer's second batch is two short


def test_the_short_deck_deals_three_and_three():
    state = replace(fresh(dict(RULES, deck="short", allowed_games=["solo", "rufspiel"])),
                    schieber_due=True, dealer=2, next_deal=1, deal=0)
    hands = when(GAME, state, None, {"type": "deal", "deal": 1, "decks": {"cards": list(SHORT_DECK)}})[0].data["hands"]
    assert [len(h) for h in hands] == [8, 6, 6, 4] and hands[0][:2] == ["EO", "GO"]


def test_vorhand_plays_and_the_passed_cards_go_round_to_the_dealer():
    state = schieber_dealt()
    assert GAME.legal_commands(state, 0) == [{"type": "schieber", "play": True},
                                             {"type": "schieber", "play": False}]
    events, state = step(state, 0, {"type": "schieber", "play": True})
    assert events[0].data == {"seat": 0, "play": True, "call": "Ich spiele"}
    assert state.phase == "push" and GAME.to_act(state) == frozenset({0})
    legal = GAME.legal_commands(state, 0)
    assert len(legal) == 45 and {"type": "push", "cards": ["S7", "S8"]} not in legal  # deck order: S8 S7
    events, state = step(state, 0, {"type": "push", "cards": ["S8", "S7"]})
    assert event_types(events) == ["CardsPushed", "CardsReceived"]
    assert GAME.to_act(state) == frozenset({1}) and len(state.hands[1]) == 10
    _, state = step(state, 1, {"type": "push", "cards": ["E9", "G9"]})
    _, state = step(state, 2, {"type": "push", "cards": ["E8", "G8"]})
    assert [len(h) for h in state.hands] == [8, 8, 8, 8]
    assert {"E8", "G8"} <= set(state.hands[3]) and {"S7", "S8"} <= set(state.hands[1])
    # Vorhand names the trump suit only now.
    assert state.phase == "naming" and GAME.to_act(state) == frozenset({0})
    assert GAME.legal_commands(state, 0) == [{"type": "name_game", "game": "solo", "suit": s} for s in "EGHS"]
    events, state = step(state, 0, {"type": "name_game", "game": "solo", "suit": "E"})
    assert events[-1].data == {"declarer": 0, "game": "solo", "suit": "E", "called_ace": None,
                               "schieberrunde": True}
    assert state.phase == "play" and GAME.to_act(state) == frozenset({0})
    result = settled(play_out(state)[0])
    assert sum(result["card_points"].values()) == 120 and result["declarers"] == [0]


def test_passed_cards_are_seen_only_by_giver_and_receiver():
    _, state = step(schieber_dealt(), 0, {"type": "schieber", "play": True})
    events, state = step(state, 0, {"type": "push", "cards": ["S8", "S7"]})
    pushed, received = events
    assert redact_data(pushed.data, pushed.visibility, 0)[0]["cards"] == ["S8", "S7"]
    assert redact_data(received.data, received.visibility, 1)[0]["cards"] == ["S8", "S7"]
    for viewer in (None, 1, 2, 3):
        assert redact_data(pushed.data, pushed.visibility, viewer)[0] == {"seat": 0, "to": 1}
    for viewer in (None, 0, 2, 3):
        assert redact_data(received.data, received.visibility, viewer)[0] == {"seat": 1, "from": 0}
    assert GAME.view(state, 0)["schieberrunde"]["pushes"] == [{"from": 0, "to": 1, "cards": ["S8", "S7"]}]
    assert GAME.view(state, 1)["schieberrunde"]["pushes"] == [{"from": 0, "to": 1, "cards": ["S8", "S7"]}]
    for viewer in (None, 2, 3):
        assert GAME.view(state, viewer)["schieberrunde"]["pushes"] == [{"from": 0, "to": 1}]


def test_a_push_must_name_two_of_ones_own_cards_in_deck_order():
    _, state = step(schieber_dealt(), 0, {"type": "schieber", "play": True})
    with pytest.raises(errors.CardNotInHand):
        when(GAME, state, 0, {"type": "push", "cards": ["S7", "SA"]})
    with pytest.raises(errors.InvalidCommand):
        when(GAME, state, 0, {"type": "push", "cards": ["S7", "S8"]})
    with pytest.raises(errors.InvalidCommand):
        when(GAME, state, 0, {"type": "push", "cards": ["S7", "S7"]})
    with pytest.raises(errors.InvalidCommand):
        when(GAME, state, 0, {"type": "push", "cards": ["S7"]})
    with pytest.raises(errors.NotYourTurn):
        when(GAME, state, 1, {"type": "push", "cards": ["E9", "G9"]})


def test_vorhand_declines_and_the_dealer_plays_with_the_obers_without_passing():
    events, state = step(schieber_dealt(), 0, {"type": "schieber", "play": False})
    assert events[0].data == {"seat": 0, "play": False, "call": "Ich spiele nicht", "offered_to": 3}
    assert state.phase == "schieber" and GAME.to_act(state) == frozenset({3})
    events, state = step(state, 3, {"type": "schieber", "play": True})
    assert event_types(events) == ["SchieberSpoken", "ObersHandedOver"]
    assert events[1].data == {"seat": 0, "to": 3, "cards": ["EO", "GO"]}
    assert [len(h) for h in state.hands] == [8, 8, 8, 8] and {"EO", "GO"} <= set(state.hands[3])
    assert state.phase == "naming" and GAME.to_act(state) == frozenset({3}) and not state.pushes
    assert {"type": "withdraw"} not in GAME.legal_commands(state, 3)
    events, state = step(state, 3, {"type": "name_game", "game": "solo", "suit": "H"})
    assert events[-1].data["declarer"] == 3 and state.phase == "play"
    assert GAME.to_act(state) == frozenset({0})  # Vorhand still leads


def test_neither_plays_and_both_pay_the_solo_price_to_the_other_two():
    _, state = step(schieber_dealt(), 0, {"type": "schieber", "play": False})
    events, state = step(state, 3, {"type": "schieber", "play": False})
    assert event_types(events) == ["SchieberSpoken", "SchieberrundePaid"]
    assert events[1].data == {"deal": 1, "dealer": 3, "payers": [0, 3], "price": 50,
                              "payments": [-100, 100, 100, -100]}
    assert state.phase == "dealing" and state.totals == (-100, 100, 100, -100)
    assert state.deals_counted == 1 and state.settlements[-1].game is None


def test_the_schieberrunde_needs_the_solo():
    with pytest.raises(errors.InvalidSetup) as raised:
        GAME.setup(4, {"schieberrunde": True, "allowed_games": ["rufspiel", "wenz"]}, None)
    assert "rules.schieberrunde" in raised.value.errors


# The passing round with hinting (house rule ``schieberrunde_hinting``): the rulebook's example, "if they
# pass a Hearts card and hint 'two above', they mean that they believe Acorns will be trump".
HINTING = {**RULES, "schieberrunde_hinting": True}


def pushed_to_mittelhand(rules=HINTING):
    """Given: Vorhand (seat 0) plays and has passed S8 S7 to Mittelhand (seat 1)."""
    _, state = step(schieber_dealt(rules), 0, {"type": "schieber", "play": True})
    _, state = step(state, 0, {"type": "push", "cards": ["S8", "S7"]})
    return state


def test_mittelhand_hints_the_third_player_two_above_a_hearts_card_means_eichel():
    state = pushed_to_mittelhand()
    assert {"type": "push", "cards": ["GK", "H7"], "hint": {"card": "H7", "above": 2}} not in \
        GAME.legal_commands(state, 1)  # Mittelhand holds no H7: its own cards only
    events, state = step(state, 1, {"type": "push", "cards": ["E9", "S10"], "hint": {"card": "S10", "above": 1}})
    pushed, received = events
    assert received.data == {"seat": 2, "from": 1, "cards": ["E9", "S10"],
                             "hint": {"card": "S10", "above": 1, "suit": "H"}}
    assert pushed.data["hint"] == received.data["hint"]
    # Seen by the passer and the third player alone, with the cards, until the session ends.
    assert redact_data(received.data, received.visibility, 2)[0]["hint"]["suit"] == "H"
    for viewer in (None, 0, 1, 3):
        assert redact_data(received.data, received.visibility, viewer)[0] == {"seat": 2, "from": 1}
    for viewer in (None, 0, 2, 3):
        assert redact_data(pushed.data, pushed.visibility, viewer)[0] == {"seat": 1, "to": 2}
    hint = {"card": "S10", "above": 1, "suit": "H"}
    assert GAME.view(state, 2)["schieberrunde"]["pushes"][1] == {"from": 1, "to": 2, "cards": ["E9", "S10"],
                                                                 "hint": hint}
    assert GAME.view(state, 1)["schieberrunde"]["pushes"][1]["hint"] == hint
    for viewer in (None, 0, 3):
        assert GAME.view(state, viewer)["schieberrunde"]["pushes"][1] == {"from": 1, "to": 2}


def test_the_rulebooks_example_hearts_two_above_is_eichel():
    state = pushed_to_mittelhand()
    state = replace(state, hands=tuple(["H7", *h[1:]] if i == 1 else h for i, h in enumerate(state.hands)))
    hand = sorted(state.hands[1], key=DECK.index)
    other = next(c for c in hand if c != "H7")
    cards = sorted([other, "H7"], key=DECK.index)
    events = when(GAME, state, 1, {"type": "push", "cards": cards, "hint": {"card": "H7", "above": 2}})
    assert events[1].data["hint"] == {"card": "H7", "above": 2, "suit": "E"}


def test_only_mittelhands_push_may_hint_and_only_within_the_suits():
    state = pushed_to_mittelhand()
    legal = GAME.legal_commands(state, 1)
    plain = [c for c in legal if "hint" not in c]
    assert len(plain) == 45  # every pair, and beside each its hints: a card's own suit and those above
    assert {"type": "push", "cards": ["E9", "S10"], "hint": {"card": "S10", "above": 3}} in legal
    assert {"type": "push", "cards": ["E9", "S10"], "hint": {"card": "E9", "above": 1}} not in legal
    for hint in ({"card": "E9", "above": 1}, {"card": "S10", "above": 4}, {"card": "SA", "above": 0},
                 {"card": "S10", "above": "1"}, {"card": "S10", "above": True}, {"card": "S10"}, "E", None):
        with pytest.raises(errors.InvalidCommand):
            when(GAME, state, 1, {"type": "push", "cards": ["E9", "S10"], "hint": hint})
    _, third = step(state, 1, {"type": "push", "cards": ["E9", "G9"]})  # a hint is never owed
    with pytest.raises(errors.InvalidCommand, match="only Mittelhand"):  # "the third player ... without any hint"
        when(GAME, third, 2, {"type": "push", "cards": ["E8", "G8"], "hint": {"card": "E8", "above": 0}})
    assert not any("hint" in c for c in GAME.legal_commands(third, 2))
    _, vorhand = step(schieber_dealt(HINTING), 0, {"type": "schieber", "play": True})
    with pytest.raises(errors.InvalidCommand, match="only Mittelhand"):
        when(GAME, vorhand, 0, {"type": "push", "cards": ["S8", "S7"], "hint": {"card": "S8", "above": 0}})


def test_without_the_house_rule_nobody_hints():
    state = pushed_to_mittelhand(RULES)
    assert not any("hint" in c for c in GAME.legal_commands(state, 1))
    with pytest.raises(errors.InvalidCommand, match="schieberrunde_hinting"):
        when(GAME, state, 1, {"type": "push", "cards": ["E9", "S10"], "hint": {"card": "S10", "above": 1}})


def test_hinting_needs_the_schieberrunde():
    from domain.schafkopf.ruleset import validate_rules

    with pytest.raises(errors.InvalidSetup) as refused:
        validate_rules({"schieberrunde_hinting": True})
    assert "rules.schieberrunde_hinting" in refused.value.errors
    assert validate_rules({"schieberrunde": True, "schieberrunde_hinting": True})["schieberrunde_hinting"] is True
