"""Hochzeit (house rule ``hochzeit``): offered with one trump, accepted by swapping a card.

The offer is an intent of the announcement every seat makes, so nobody can
tell from the public record who could have offered (see the last tests).
"""
from __future__ import annotations

import pytest

from domain import errors
from domain.event import Event, redact_data
from tests.domain.harness import event_types, given, when

from .helpers import GAME, announce, complete, dealt_state, play_out, public_record, say_doppeln, settled, step

# Seat 1 holds a single trump (the Herz Seven); seat 0 has plain cards to give.
HANDS = complete({1: ["H7", "EA", "E10", "EK", "GA", "G10", "SA", "S10"],
                  0: ["EO", "GO", "HO", "SO", "EU", "E9", "G9", "S9"]})
RULES = {"hochzeit": True, "stoss": 0}
OFFER = {"type": "announce", "intent": "hochzeit"}
PASS = {"type": "announce", "intent": "pass"}


def offered():
    """Given: dealt by seat 3; Vorhand (seat 0) passes, seat 1 offers."""
    state = dealt_state(HANDS, RULES)
    _, state = step(state, 0, PASS)
    events, state = step(state, 1, OFFER)
    assert [(e.type, e.data) for e in events] == [
        ("HochzeitOffered", {"seat": 1, "call": "Ich biete eine Hochzeit an"})]
    return state


def test_only_a_player_with_exactly_one_trump_may_offer_and_only_in_his_announcement():
    state = dealt_state(HANDS, RULES)
    assert state.phase == "announce" and GAME.to_act(state) == frozenset({0})
    assert OFFER not in GAME.legal_commands(state, 0)
    with pytest.raises(errors.IllegalChoice):
        when(GAME, state, 0, OFFER)
    with pytest.raises(errors.NotYourTurn):
        when(GAME, state, 1, OFFER)
    _, state = step(state, 0, PASS)
    assert GAME.legal_commands(state, 1) == [PASS, {"type": "announce", "intent": "play"}, OFFER]
    off = dealt_state(HANDS, {})  # off by default
    _, off = step(off, 0, PASS)
    assert OFFER not in GAME.legal_commands(off, 1)
    with pytest.raises(errors.IllegalChoice):
        when(GAME, off, 1, OFFER)


def test_the_offer_comes_before_the_announcement_so_vorhand_speaks_again():
    state = dealt_state(HANDS, RULES)
    _, state = step(state, 0, {"type": "announce", "intent": "play"})  # void once the offer comes
    _, state = step(state, 1, OFFER)
    assert state.phase == "announce" and state.announcements == () and state.hochzeit == 1
    assert GAME.to_act(state) == frozenset({0})
    assert GAME.view(state, 2)["hochzeit"] == 1 and GAME.view(state, None)["announcements"] == []
    assert OFFER not in GAME.legal_commands(state, 0)
    _, state = step(state, 0, PASS)
    assert OFFER not in GAME.legal_commands(state, 1)  # one offer per deal
    with pytest.raises(errors.IllegalChoice):
        when(GAME, state, 1, OFFER)
    state = announce(state)
    assert state.phase == "dealing" and state.settlements[-1].game is None  # nobody married: thrown in


def test_an_offer_by_the_last_seat_is_not_an_all_pass():
    hands = complete({3: ["H7", "EA", "E10", "EK", "GA", "G10", "SA", "S10"],
                      0: ["EO", "GO", "HO", "SO", "EU", "E9", "G9", "S9"]})
    state = dealt_state(hands, RULES)
    for seat in (0, 1, 2):
        _, state = step(state, seat, PASS)
    events, state = step(state, 3, OFFER)
    assert event_types(events) == ["HochzeitOffered"]
    assert state.phase == "announce" and GAME.to_act(state) == frozenset({0})
    state = announce(state, plays=(0,))
    events, state = step(state, 0, {"type": "name_game", "game": "hochzeit"})
    assert events[-1].data["partner"] == 3 and state.phase == "exchange"


def test_another_player_marries_by_naming_the_hochzeit():
    married()


def married():
    state = offered()
    assert state.phase == "announce" and GAME.view(state, 3)["hochzeit"] == 1
    state = announce(state, plays=(0,))
    assert {"type": "name_game", "game": "hochzeit"} in GAME.legal_commands(state, 0)
    events, state = step(state, 0, {"type": "name_game", "game": "hochzeit"})
    assert events[-1].data == {"declarer": 0, "game": "hochzeit", "suit": None, "called_ace": None,
                               "partner": 1}
    assert state.phase == "exchange" and GAME.to_act(state) == frozenset({0})
    legal = GAME.legal_commands(state, 0)
    assert legal == [{"type": "give_card", "card": c} for c in ("E9", "G9", "S9")]
    with pytest.raises(errors.IllegalChoice):
        when(GAME, state, 0, {"type": "give_card", "card": "EO"})
    return state


def test_the_swap_is_private_to_giver_and_receiver():
    state = married()
    events, state = step(state, 0, {"type": "give_card", "card": "G9"})
    assert event_types(events) == ["HochzeitCardGiven", "HochzeitCardReceived"]
    given, received = events
    assert redact_data(given.data, given.visibility, 0)[0]["received"] == "H7"
    for viewer in (None, 1, 2, 3):
        assert redact_data(given.data, given.visibility, viewer)[0] == {"seat": 0, "to": 1}
    assert redact_data(received.data, received.visibility, 1)[0]["card"] == "G9"
    for viewer in (None, 0, 2, 3):
        assert redact_data(received.data, received.visibility, viewer)[0] == {"seat": 1, "from": 0}
    assert "H7" in state.hands[0] and "G9" in state.hands[1]
    assert GAME.view(state, 0)["swap"] == {"from": 0, "to": 1, "gave": "G9", "received": "H7"}
    assert GAME.view(state, 1)["swap"] == {"from": 0, "to": 1, "gave": "H7", "received": "G9"}
    assert GAME.view(state, 2)["swap"] == {"from": 0, "to": 1}
    assert GAME.view(state, 2)["partner"] == 1  # the partners are known to all
    assert state.phase == "play"
    result = settled(play_out(state)[0])
    assert result["game"] == "hochzeit" and result["declarers"] == [0, 1]
    assert abs(result["payments"][0]) == result["value"] and result["value"] >= 20


def test_hochzeit_ranks_like_a_rufspiel_and_below_a_solo():
    state = announce(offered(), plays=(0, 2))
    events, state = step(state, 0, {"type": "name_game", "game": "hochzeit"})
    assert event_types(events) == ["GameNamed"]
    legal = GAME.legal_commands(state, 2)
    assert not [c for c in legal if c.get("game") in ("hochzeit", "rufspiel")]
    assert [c for c in legal if c.get("game") == "solo"]
    events, state = step(state, 2, {"type": "name_game", "game": "solo", "suit": "E"})
    assert events[-1].data["declarer"] == 2 and state.phase == "play"


def test_the_offerer_cannot_marry_himself():
    state = announce(offered(), plays=(1,))
    assert {"type": "name_game", "game": "hochzeit"} not in GAME.legal_commands(state, 1)
    with pytest.raises(errors.IllegalChoice):
        when(GAME, state, 1, {"type": "name_game", "game": "hochzeit"})


def test_a_player_without_a_non_trump_card_may_not_marry():
    hands = complete({1: ["H7", "EA", "E10", "EK", "GA", "G10", "SA", "S10"],
                      2: ["EO", "GO", "HO", "SO", "EU", "GU", "HU", "SU"]})
    state = dealt_state(hands, RULES)
    _, state = step(state, 0, PASS)
    _, state = step(state, 1, OFFER)
    state = announce(state, plays=(0, 2))
    _, state = step(state, 0, {"type": "withdraw"})
    assert {"type": "name_game", "game": "hochzeit"} not in GAME.legal_commands(state, 2)
    with pytest.raises(errors.IllegalChoice):
        when(GAME, state, 2, {"type": "name_game", "game": "hochzeit"})


# --------------------------------------------------------------------------- nothing revealed by asking

# Three deals alike for seats 2 and 3 (same hands); seats 0 and 1 trade one card:
# in ONE_TRUMP seat 1 holds exactly one trump (H7) and could offer; in TWO_TRUMPS it holds two,
# in NO_TRUMP none, and there nobody at the table holds exactly one. Observers: a spectator and
# the seats whose hands are the same in every deal.
SEAT_2 = ["EO", "GO", "HO", "SO", "EU", "GU", "EA", "E10"]
SEAT_3 = ["HK", "H9", "H8", "E9", "E8", "E7", "G7", "S7"]
ONE_TRUMP = [["HU", "SU", "HA", "H10", "G9", "G8", "S9", "S8"],
             ["H7", "GA", "G10", "GK", "SA", "S10", "SK", "EK"], SEAT_2, SEAT_3]
TWO_TRUMPS = [["HU", "SU", "HA", "EK", "G9", "G8", "S9", "S8"],
              ["H7", "GA", "G10", "GK", "SA", "S10", "SK", "H10"], SEAT_2, SEAT_3]
NO_TRUMP = [["HU", "SU", "HA", "H10", "H7", "G8", "S9", "S8"],
            ["G9", "GA", "G10", "GK", "SA", "S10", "SK", "EK"], SEAT_2, SEAT_3]
def seat_2_plays_a_solo(state, seat):
    if state.phase == "doppeln":
        return {"type": "doppeln", "double": seat == 2}
    if state.phase == "announce":
        return {"type": "announce", "intent": "play" if seat == 2 else "pass"}
    return {"type": "name_game", "game": "solo", "suit": "E"}


def everybody_passes(state, seat):
    if state.phase == "doppeln":
        return {"type": "doppeln", "double": False}
    if state.phase == "announce":
        return PASS
    return {"type": "withdraw"}  # the Renonce round


@pytest.mark.parametrize("rules,choose,last", [
    ({"hochzeit": True}, seat_2_plays_a_solo, "GameDeclared"),
    ({"hochzeit": True, "doppeln": "all"}, seat_2_plays_a_solo, "GameDeclared"),
    ({"hochzeit": True, "all_pass": "stock"}, everybody_passes, "DealThrownIn"),
    ({"hochzeit": True, "renonce": True, "all_pass": "ramsch"}, everybody_passes, "GameDeclared"),
], ids=["solo", "doppeln", "all_pass", "renonce_ramsch"])
def test_a_weiter_with_exactly_one_trump_is_the_same_as_any_other_weiter(rules, choose, last):
    """Given: three deals alike but for whether seat 1 holds exactly one trump (and so may offer).
    When: every seat makes the same choices (seat 1 says "Weiter" where it could have offered).
    Then: the same events in the same order, with the same public data, the same ``to_act`` after every
    step and the same views for a spectator and for the seats whose hands are alike."""
    seat_1_may_offer = []
    records = []
    for hands in (ONE_TRUMP, TWO_TRUMPS, NO_TRUMP):
        state = say_doppeln(dealt_state(hands, rules), ())
        _, state = step(state, 0, PASS)
        seat_1_may_offer.append(OFFER in GAME.legal_commands(state, 1))
        record = public_record(hands, rules, choose, observers=(None, 2, 3))
        assert record[-1]["events"][None][-1][0] == last
        records.append(record)
    assert seat_1_may_offer == [True, False, False]  # the deals do differ where it matters
    assert records[0] == records[1] == records[2]



def test_a_stored_game_from_the_old_offering_phase_still_replays():
    """Given a deal stored before the offer moved into the announcement (its ``HochzeitSpoken`` came
    before the first announcement): it folds to the state the new flow gives, offer and all."""
    spoken = Event("HochzeitSpoken", {"seat": 1, "offer": True, "call": "Ich biete eine Hochzeit an", "last": True})
    old = given(GAME, [spoken], dealt_state(HANDS, RULES))
    assert old.phase == "announce" and old.hochzeit == 1 and GAME.to_act(old) == frozenset({0})
    assert old == offered()
