"""SK-3/SK-4/SK-5: announcing, naming, precedence, blocked players, all pass."""
from __future__ import annotations

import pytest

from domain import errors
from tests.domain.harness import event_types, given, when

from .helpers import ALL_GAMES, GAME, dealt, fresh, step

# Seat 0 can call (holds E7, not EA); seat 1 holds all the Aces of its suits.
HANDS = [
    ["EO", "GO", "E7", "G7", "S7", "HK", "H9", "SK"],
    ["EA", "E10", "GA", "G10", "SA", "HO", "HU", "H7"],
    ["SO", "EU", "EK", "E9", "GK", "G9", "S10", "S9"],
    ["GU", "SU", "HA", "H10", "H8", "E8", "G8", "S8"],
]


def announce(state, intents):
    for seat, intent in intents:
        _, state = step(state, seat, {"type": "announce", "intent": intent})
    return state


def test_announcement_starts_left_of_the_dealer():
    state = given(GAME, [dealt(HANDS, dealer=1)], fresh())
    assert GAME.to_act(state) == frozenset({2})


def test_calls_read_by_position():
    state = given(GAME, [dealt(HANDS)], fresh())
    events, state = step(state, 0, {"type": "announce", "intent": "play"})
    assert events[0].data == {"seat": 0, "intent": "play", "call": "Ich spiele"}
    events, state = step(state, 1, {"type": "announce", "intent": "play"})
    assert events[0].data["call"] == "Ich spiele auch"
    events, _ = step(state, 2, {"type": "announce", "intent": "pass"})
    assert events[0].data["call"] == "Weiter"


def test_a_solo_beats_an_earlier_rufspiel():
    state = announce(given(GAME, [dealt(HANDS)], fresh()), [(0, "play"), (1, "play"), (2, "pass"), (3, "pass")])
    assert state.phase == "naming"
    events, state = step(state, 0, {"type": "name_game", "game": "rufspiel", "suit": "E"})
    assert event_types(events) == ["GameNamed"]
    legal = GAME.legal_commands(state, 1)
    assert {"type": "name_game", "game": "rufspiel", "suit": "G"} not in legal
    assert {"type": "name_game", "game": "solo", "suit": "H"} in legal
    events, state = step(state, 1, {"type": "name_game", "game": "solo", "suit": "H"})
    assert event_types(events) == ["GameNamed", "GameDeclared"]
    assert events[1].data == {"declarer": 1, "game": "solo", "suit": "H", "called_ace": None}
    assert GAME.to_act(state) == frozenset({0})  # seat 0 still leads the first trick


def test_equal_rank_goes_to_the_earlier_seat():
    state = announce(given(GAME, [dealt(HANDS)], fresh()), [(0, "play"), (1, "play"), (2, "pass"), (3, "pass")])
    _, state = step(state, 0, {"type": "name_game", "game": "solo", "suit": "E"})
    with pytest.raises(errors.IllegalChoice):
        when(GAME, state, 1, {"type": "name_game", "game": "solo", "suit": "G"})
    with pytest.raises(errors.IllegalChoice):
        when(GAME, state, 1, {"type": "name_game", "game": "wenz"})  # Wenz ranks below Solo
    events, _ = step(state, 1, {"type": "withdraw"})
    assert event_types(events) == ["PlayWithdrawn", "GameDeclared"]
    assert events[1].data["declarer"] == 0 and events[1].data["game"] == "solo"


def test_a_tout_beats_a_solo_and_the_sie_beats_everything():
    state = announce(given(GAME, [dealt(HANDS)], fresh()), [(0, "play"), (1, "play"), (2, "pass"), (3, "pass")])
    _, state = step(state, 0, {"type": "name_game", "game": "solo", "suit": "E"})
    events, _ = step(state, 1, {"type": "name_game", "game": "wenz_tout"})
    assert events[-1].data["game"] == "wenz_tout" and events[-1].data["declarer"] == 1


def test_the_first_namer_may_give_way_to_a_later_player():
    state = announce(given(GAME, [dealt(HANDS)], fresh()), [(0, "play"), (1, "pass"), (2, "play"), (3, "pass")])
    events, state = step(state, 0, {"type": "withdraw"})
    assert event_types(events) == ["PlayWithdrawn"]
    assert {"type": "withdraw"} not in GAME.legal_commands(state, 2)  # he said he plays
    with pytest.raises(errors.IllegalChoice):
        when(GAME, state, 2, {"type": "withdraw"})
    events, _ = step(state, 2, {"type": "name_game", "game": "wenz"})
    assert events[-1].type == "GameDeclared" and events[-1].data["declarer"] == 2


def test_blocked_player_cannot_announce_a_rufspiel():
    rules = {"allowed_games": ["rufspiel"]}
    state = announce(given(GAME, [dealt(HANDS)], fresh(rules)), [(0, "pass")])
    assert GAME.legal_commands(state, 1) == [{"type": "announce", "intent": "pass"}]
    with pytest.raises(errors.IllegalChoice):
        when(GAME, state, 1, {"type": "announce", "intent": "play"})


def test_blocked_player_may_not_name_a_rufspiel_but_may_name_a_solo():
    state = announce(given(GAME, [dealt(HANDS)], fresh()), [(0, "pass"), (1, "play"), (2, "pass"), (3, "pass")])
    legal = GAME.legal_commands(state, 1)
    assert not [c for c in legal if c["game"] == "rufspiel"] and legal
    with pytest.raises(errors.IllegalChoice):
        when(GAME, state, 1, {"type": "name_game", "game": "rufspiel", "suit": "E"})


def test_called_ace_must_be_callable():
    state = announce(given(GAME, [dealt(HANDS)], fresh()), [(0, "play"), (1, "pass"), (2, "pass"), (3, "pass")])
    names = [c for c in GAME.legal_commands(state, 0) if c["game"] == "rufspiel"]
    assert names == [{"type": "name_game", "game": "rufspiel", "suit": s} for s in ("E", "G", "S")]
    with pytest.raises(errors.IllegalChoice):
        when(GAME, state, 0, {"type": "name_game", "game": "rufspiel", "suit": "H"})
    events, _ = step(state, 0, {"type": "name_game", "game": "rufspiel", "suit": "G"})
    assert events[-1].data == {"declarer": 0, "game": "rufspiel", "suit": "G", "called_ace": "GA"}


def test_games_not_allowed_cannot_be_named():
    state = announce(given(GAME, [dealt(HANDS)], fresh()), [(0, "play"), (1, "pass"), (2, "pass"), (3, "pass")])
    with pytest.raises(errors.IllegalChoice):
        when(GAME, state, 0, {"type": "name_game", "game": "geier"})
    assert not [c for c in GAME.legal_commands(state, 0) if c["game"] in ("bettel", "geier", "farbwenz")]


def test_sie_needs_all_obers_and_unters():
    state = announce(given(GAME, [dealt(HANDS)], fresh({"allowed_games": ALL_GAMES})),
                     [(0, "play"), (1, "pass"), (2, "pass"), (3, "pass")])
    with pytest.raises(errors.IllegalChoice):
        when(GAME, state, 0, {"type": "name_game", "game": "sie"})


def test_all_pass_throws_the_deal_in_and_the_next_dealer_deals():
    state = announce(given(GAME, [dealt(HANDS, dealer=3, deal=0)], fresh()), [(0, "pass"), (1, "pass"), (2, "pass")])
    events, state = step(state, 3, {"type": "announce", "intent": "pass"})
    assert event_types(events) == ["AnnouncementMade", "DealThrownIn"]
    request = GAME.pending_deal(state)
    assert request.index == 1 and "seats" not in request.decks
    events = when(GAME, state, None, {"type": "deal", "deal": 1, "decks": {"cards": list(request.decks["cards"])}})
    assert events[0].data["dealer"] == 0
    assert GAME.scores(state)["deals"] == [[0, 0, 0, 0]]
    assert GAME.view(state, None)["deal_results"] == [{"game": None, "suit": None, "declarer": None, "declarers": [],
                                            "won": False, "schneider": False, "schwarz": False}]


def test_thrown_in_deal_ends_a_one_deal_session_when_it_counts():
    state = announce(given(GAME, [dealt(HANDS)], fresh({"deals": 1})), [(0, "pass"), (1, "pass"), (2, "pass")])
    events, state = step(state, 3, {"type": "announce", "intent": "pass"})
    assert event_types(events) == ["AnnouncementMade", "DealThrownIn", "GameEnded"]
    assert GAME.is_finished(state)


def test_thrown_in_deal_does_not_count_when_configured():
    state = announce(given(GAME, [dealt(HANDS)], fresh({"deals": 1, "thrown_in_counts": False})),
                     [(0, "pass"), (1, "pass"), (2, "pass")])
    events, state = step(state, 3, {"type": "announce", "intent": "pass"})
    assert event_types(events) == ["AnnouncementMade", "DealThrownIn"]
    assert GAME.pending_deal(state).index == 1
