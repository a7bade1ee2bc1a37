"""When all pass (house rule ``all_pass``), the Stock (pot), Muss-Spiel and As-Renonce."""
from __future__ import annotations

import pytest

from domain import errors
from domain.schafkopf.game_types import is_blocked
from tests.domain.harness import event_types, when

from .helpers import GAME, announce, complete, dealt_state, deal_next, play_out, public_record, settled, step
from .test_called_ace import HANDS  # seat 0: EO, can call Eichel (seat 2 holds EA)


def all_pass(state):
    """Everybody says "Weiter" (and does not double); return (events, state)."""
    events = []
    while state.phase in ("doppeln", "announce"):
        seat = next(iter(GAME.to_act(state)))
        command = ({"type": "doppeln", "double": False} if state.phase == "doppeln"
                   else {"type": "announce", "intent": "pass"})
        new, state = step(state, seat, command)
        events += new
    return events, state


def test_redeal_double_doubles_the_next_game_and_again_after_another_all_pass():
    state = dealt_state([HANDS] * 4, {"all_pass": "redeal_double", "stoss": 0})
    events, state = all_pass(state)
    assert event_types(events)[-1] == "DealThrownIn" and events[-1].data["doubles_next"] is True
    state = deal_next(state)
    assert GAME.view(state, 0)["multiplier"] == 2
    _, state = all_pass(state)
    state = deal_next(state)
    assert GAME.view(state, 0)["multiplier"] == 4
    state = announce(state, plays=(0,))
    _, state = step(state, 0, {"type": "name_game", "game": "rufspiel", "suit": "E"})
    events, state = play_out(state)
    assert settled(events)["multiplier"] == 4
    state = deal_next(state)
    assert GAME.view(state, 0)["multiplier"] == 1  # a game came about: back to single


def test_stock_every_player_pays_the_rufspiel_price_into_the_pot():
    state = dealt_state([HANDS] * 2, {"all_pass": "stock"})
    events, state = all_pass(state)
    assert events[-1].data["payments"] == [-10, -10, -10, -10] and events[-1].data["stock"] == 40
    assert state.stock == 40 and state.totals == (-10, -10, -10, -10)
    assert GAME.view(state, None)["stock"] == 40 and GAME.scores(state)["stock"] == 40


def test_stock_double_and_doppeln_multiply_the_payment_in():
    state = dealt_state([HANDS], {"all_pass": "stock_double", "doppeln": "all", "tariffs": {"stock": 5}})
    state = state
    while state.phase == "doppeln":
        seat = next(iter(GAME.to_act(state)))
        _, state = step(state, seat, {"type": "doppeln", "double": seat == 1})
    _, state = all_pass(state)
    assert state.stock == 4 * 5 * 2 * 2


STRONG = complete({0: ["EO", "GO", "HO", "SO", "EU", "GU", "E7", "HA"],
                   2: ["EA", "E10", "EK", "HU", "SU", "H10", "HK", "H9"]})


def _rufspiel_after_stock(rules, declarer_wins: bool):
    """Deal 0: all pass (pot 40). Deal 1: seat 0 calls Eichel (partner seat 2)."""
    hands = STRONG if declarer_wins else HANDS
    state = dealt_state([hands] * 2, dict({"all_pass": "stock", "stoss": 0}, **rules))
    _, state = all_pass(state)
    state = announce(deal_next(state), plays=(0,))
    _, state = step(state, 0, {"type": "name_game", "game": "rufspiel", "suit": "E"})

    import itertools
    for first, second in itertools.product((0, -1), repeat=2):  # some way of playing gives the outcome
        def policy(st, seat, cards):
            return cards[first] if seat in (0, 2) else cards[second]
        events, after = play_out(state, policy)
        if settled(events)["won"] == declarer_wins:
            return settled(events), after
    raise AssertionError("no policy gives the outcome")


def test_a_won_rufspiel_takes_the_stock_with_the_partner():
    result, state = _rufspiel_after_stock({}, declarer_wins=True)
    assert result["won"] and result["stock"] == -40
    base = result["value"]
    assert result["payments"] == [base + 20, -base, base + 20, -base]
    assert state.stock == 0


def test_the_game_maker_alone_takes_the_stock_when_agreed():
    result, state = _rufspiel_after_stock({"stock_winner": "declarer"}, declarer_wins=True)
    base = result["value"]
    assert result["payments"] == [base + 40, -base, base, -base]


def test_a_lost_rufspiel_doubles_the_stock():
    result, state = _rufspiel_after_stock({}, declarer_wins=False)
    assert not result["won"] and result["stock"] == 40
    base = result["value"]
    assert result["payments"] == [-base - 20, base, -base - 20, base]
    assert state.stock == 80
    assert sum(result["payments"]) + result["stock"] == 0


@pytest.mark.parametrize("lone", [False, True])
def test_lone_games_win_the_stock_only_when_agreed(lone):
    state = dealt_state([HANDS] * 2, {"all_pass": "stock", "stoss": 0, "stock_lone_games": lone})
    _, state = all_pass(state)
    state = announce(deal_next(state), plays=(0,))
    _, state = step(state, 0, {"type": "name_game", "game": "solo", "suit": "H"})
    result = settled(play_out(state)[0])
    assert result["stock"] == ((-40 if result["won"] else 40) if lone else 0)


def test_muss_spiel_the_eichel_ober_must_call():
    state = dealt_state(HANDS, {"all_pass": "muss"})
    events, state = all_pass(state)
    assert events[-1].type == "MussSpiel" and events[-1].data == {"seat": 0}
    assert GAME.to_act(state) == frozenset({0}) and GAME.view(state, 1)["mode"] == "muss"
    assert GAME.legal_commands(state, 0) == [{"type": "name_game", "game": "rufspiel", "suit": "E"}]
    with pytest.raises(errors.IllegalChoice):
        when(GAME, state, 0, {"type": "withdraw"})
    with pytest.raises(errors.IllegalChoice):
        when(GAME, state, 0, {"type": "name_game", "game": "solo", "suit": "H"})
    events, state = step(state, 0, {"type": "name_game", "game": "rufspiel", "suit": "E"})
    assert events[-1].type == "GameDeclared" and events[-1].data["called_ace"] == "EA"
    # No Stoß in a Muss-Spiel.
    for _ in range(8):
        seat = next(iter(GAME.to_act(state)))
        assert {"type": "stoss"} not in GAME.legal_commands(state, seat)
        card = next(c for c in GAME.legal_commands(state, seat) if c["type"] == "play")
        _, state = step(state, seat, card)


@pytest.mark.parametrize("hand,calls", [
    (["EO", "EA", "E10", "GA", "G9", "HA", "H9", "H8"], {"S": "SA"}),  # void in Schellen
    (["EO", "EA", "GA", "SA", "E9", "G9", "S9", "H7"], {"E": "E10", "G": "G10", "S": "S10"}),
    (["EO", "EA", "GA", "SA", "E10", "G10", "S10", "H7"], {"E": "EK", "G": "GK", "S": "SK"}),
])
def test_muss_spiel_with_as_renonce(hand, calls):
    hands = complete({0: hand})
    state = dealt_state(hands, {"all_pass": "muss"})
    _, state = all_pass(state)
    legal = GAME.legal_commands(state, 0)
    assert legal == [{"type": "name_game", "game": "rufspiel", "suit": s} for s in calls]
    suit = next(iter(calls))
    events, state = step(state, 0, {"type": "name_game", "game": "rufspiel", "suit": suit})
    assert events[-1].data["called_ace"] == calls[suit] and events[-1].data["renonce"] is True
    assert GAME.view(state, 1)["declared"]["called_ace"] == calls[suit]
    holder = next(s for s in range(4) if calls[suit] in hands[s])
    assert state.partner == holder
    events, _ = play_out(state)
    assert [e.data["seat"] for e in events if e.type == "PartnerRevealed"] == [holder]


BLOCKED = ["EO", "EA", "E10", "GA", "G9", "HA", "H9", "H8"]


def test_renonce_a_blocked_player_may_play_when_all_passed():
    hands = complete({1: BLOCKED})
    state = dealt_state(hands, {"renonce": True})
    events, state = all_pass(state)
    assert events[-1].type == "RenonceRound" and 1 in events[-1].data["seats"]
    while GAME.to_act(state) != frozenset({1}):
        _, state = step(state, next(iter(GAME.to_act(state))), {"type": "withdraw"})
    assert GAME.legal_commands(state, 1) == [{"type": "name_game", "game": "rufspiel", "suit": "S"},
                                             {"type": "withdraw"}]
    events, state = step(state, 1, {"type": "name_game", "game": "rufspiel", "suit": "S"})
    assert events[-1].data == {"declarer": 1, "game": "rufspiel", "suit": "S", "called_ace": "SA",
                               "renonce": True}
    assert state.phase == "play"


def test_renonce_declined_falls_back_to_the_all_pass_rule():
    hands = complete({1: BLOCKED})
    state = dealt_state(hands, {"renonce": True, "all_pass": "stock"})
    _, state = all_pass(state)
    events = []
    while state.phase == "naming":
        new, state = step(state, next(iter(GAME.to_act(state))), {"type": "withdraw"})
        events += new
    assert event_types(events)[-1] == "DealThrownIn" and state.stock == 40


# Two deals alike for seats 2 and 3: in the first seats 0 and 1 are blocked, in the second (they trade
# G9 for S7) nobody is.
BLOCKED_DEAL = complete({1: BLOCKED, 0: ["GO", "HO", "SO", "EU", "GU", "S7", "S8", "SA"]})
NOBODY_BLOCKED = complete({1: ["EO", "EA", "E10", "GA", "S7", "HA", "H9", "H8"],
                           0: ["GO", "HO", "SO", "EU", "GU", "G9", "S8", "SA"]})


def _pass_and_withdraw(state, seat):
    return {"type": "announce", "intent": "pass"} if state.phase == "announce" else {"type": "withdraw"}


def test_the_renonce_round_asks_every_seat_so_it_shows_nobody_is_blocked():
    """Given: two deals, one with blocked seats and one without (seats 2 and 3 hold the same cards).
    When: all pass, and every seat declines As-Renonce.
    Then: both deals hold the Renonce round, asking all four seats in speaking order; the events,
    ``to_act`` and views of a spectator and of seats 2 and 3 are the same."""
    assert [is_blocked(h) for h in BLOCKED_DEAL] == [True, True, False, False]
    assert not any(is_blocked(h) for h in NOBODY_BLOCKED)
    rules = {"renonce": True, "all_pass": "stock"}
    blocked, nobody = (public_record(hands, rules, _pass_and_withdraw, observers=(None, 2, 3))
                       for hands in (BLOCKED_DEAL, NOBODY_BLOCKED))
    assert blocked == nobody
    events = [event for step in blocked for event in step["events"][None]]
    assert ("RenonceRound", ({"seats": [0, 1, 2, 3]}, False)) in events
    assert [t for t, _ in events].count("PlayWithdrawn") == 4 and events[-1][0] == "DealThrownIn"
    state = all_pass(dealt_state(NOBODY_BLOCKED, rules))[1]
    assert [GAME.legal_commands(state, 0)] == [[{"type": "withdraw"}]]  # not blocked: nothing to name
    with pytest.raises(errors.IllegalChoice):
        when(GAME, state, 0, {"type": "name_game", "game": "rufspiel", "suit": "E"})
