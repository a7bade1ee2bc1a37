"""How shuffled decks become hands, the starter and the rotation of rounds (SS-9)."""
import pytest

from domain import errors
from domain.event import redact_data
from domain.scharfe_schoten.cards import NUMBER_DECK, SPICE_DECK
from tests.domain.harness import event_types, given, new_table, random_playout, run_system, when

from .support import GAME, dealt, fill_deal, preset

SHUFFLED = list(reversed(SPICE_DECK))
NUMBERS = ["2", "10", "1", "9", "3", "4", "5", "6", "7", "8", "11", "12"]


def test_pending_deal_asks_for_seats_only_when_the_starter_is_drawn():
    state = GAME.initial_state(GAME.setup(3, {}, None))
    request = GAME.pending_deal(state)
    assert request.index == 0
    assert request.decks == {"spice": SPICE_DECK, "numbers": NUMBER_DECK, "seats": ("0", "1", "2")}
    state = GAME.initial_state(GAME.setup(3, {"first_starter": 1}, None))
    assert set(GAME.pending_deal(state).decks) == {"spice", "numbers"}


@pytest.mark.parametrize("players,size", [(3, 12), (4, 10)])
def test_shuffled_decks_become_hands_cupboard_pairing_and_starter(players, size):
    state = GAME.initial_state(GAME.setup(players, {}, None))
    seats = [str(s) for s in range(players)][::-1]
    events = when(GAME, state, None, {"type": "deal", "deal": 0,
                                      "decks": {"spice": SHUFFLED, "numbers": NUMBERS, "seats": seats}})
    assert event_types(events) == ["HandsDealt", "CupboardStocked"]
    dealt_data, stocked = events[0].data, events[1].data
    for seat in range(players):
        assert sorted(dealt_data["hands"][seat]) == sorted(SHUFFLED[seat * size:(seat + 1) * size])
    assert stocked["cards"] == SHUFFLED[players * size:]
    assert dealt_data["numbers"] == {"R": 2, "G": 10, "Y": 1, "B": 9}
    assert dealt_data["starter"] == players - 1
    state = given(GAME, events, state)
    assert state.cupboard == tuple(SHUFFLED[players * size:])
    assert GAME.to_act(state) == set(range(players))


def test_deal_event_shows_each_seat_only_its_hand():
    _, events = dealt(3, [preset(*fill_deal(3))])
    hands_dealt, stocked = events
    for viewer in (0, 1, 2):
        seen, _ = redact_data(hands_dealt.data, hands_dealt.visibility, viewer)
        assert [h is not None for h in seen["hands"]] == [s == viewer for s in range(3)]
        assert seen["hand_colours"] == hands_dealt.data["hand_colours"]
    assert redact_data(hands_dealt.data, hands_dealt.visibility, None)[0]["hands"] == [None] * 3
    # The cupboard's values: nobody sees them, its colours everyone.
    for viewer in (0, 1, 2, None):
        assert redact_data(stocked.data, stocked.visibility, viewer)[0] == {
            "deal": 0, "colours": {"R": 0, "G": 0, "Y": 0, "B": 12}}


def test_deal_command_errors():
    state = GAME.initial_state(GAME.setup(3, {"first_starter": 0}, None))
    good = {"spice": SHUFFLED, "numbers": NUMBERS}
    with pytest.raises(errors.InvalidCommand):
        when(GAME, state, 0, {"type": "deal", "deal": 0, "decks": good})
    with pytest.raises(errors.InvalidCommand):
        when(GAME, state, None, {"type": "deal", "deal": 1, "decks": good})
    with pytest.raises(errors.InvalidCommand):
        when(GAME, state, None, {"type": "deal", "deal": 0, "decks": {"spice": SHUFFLED[:-1], "numbers": NUMBERS}})
    with pytest.raises(errors.InvalidCommand):
        when(GAME, state, None, {"type": "deal", "deal": 0, "decks": {"spice": SHUFFLED}})
    state = given(GAME, when(GAME, state, None, {"type": "deal", "deal": 0, "decks": good}), state)
    with pytest.raises(errors.WrongPhase):
        when(GAME, state, None, {"type": "deal", "deal": 0, "decks": good})


def starters(events):
    return [e.data["starter"] for e in events if e.type == "HandsDealt"]


def test_starter_rotates_left_each_round():
    _, state, events = random_playout(GAME, 4, seed=7, rules={"first_starter": 2})
    assert starters(events) == [2, 3, 0, 1]
    assert len(GAME.scores(state.inner)["rounds"]) == 4


def test_first_starter_is_drawn_by_the_shuffle_then_rotates():
    _, state, events = new_table(GAME, 3, {"rounds": 3}, seed_hex="ab" * 32)
    first = starters(events)[0]
    assert GAME.view(state.inner, None)["starter"] == first
    _, _, events = random_playout(GAME, 3, seed=11, rules={"rounds": 5})
    first = starters(events)[0]
    assert starters(events) == [(first + k) % 3 for k in range(5)]


def test_preset_starter_and_rotation_across_preset_and_shuffled_deals():
    hands, cupboard = fill_deal(3)
    table, state, events = new_table(GAME, 3, {"rounds": 2}, preset_deals=[preset(hands, cupboard, starter=1)])
    assert list(state.inner.hands[0]) == hands[0]
    while state.status == "active":
        seat = min(table.to_act(state))
        new = table.decide(state, seat, table.legal_commands(state, seat)[0])
        events, state = run_system(table, table.fold(state, new), events + new, "00" * 32)
    # Round 1 from the preset, round 2 from the shuffle, left of seat 1.
    assert starters(events) == [1, 2]


def test_default_length_is_one_round_per_player():
    assert GAME.setup(3, {}, None).rules == {"rounds": 3, "first_starter": None}
    assert GAME.setup(4, {}, None).rules == {"rounds": 4, "first_starter": None}
