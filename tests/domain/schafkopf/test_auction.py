"""Auction bidding (SK-3 house rule ``auction``): the band games' target is raised from 61 in tens.

Seed: "all players who wish to play a game better than Bettel but lower than a
Tout game may raise the target score of 60 points (exactly 61) in steps of
ten"; "the following participant can take over by making the highest bid of
winning points"; "the relevant target for winning is the agreed bid instead
of 61 — so 71 for a bid of "70", 81 for a bid of "80"".
"""
from __future__ import annotations

import pytest

from domain import errors
from domain.schafkopf.cards import DECK
from domain.schafkopf.ruleset import config_from_rules
from domain.schafkopf.scoring import settle
from domain.schafkopf.state import Contract
from domain.trick import Trick
from tests.domain.harness import event_types, given, when

from .helpers import ALL_GAMES, GAME, dealt, fresh, step
from .test_announcement import HANDS

RULES = {"auction": True, "allowed_games": ALL_GAMES}
BIDS_FROM_61 = [{"type": "bid", "target": t} for t in (71, 81, 91, 101, 111)] + [{"type": "pass"}]


def naming(plays=(0, 1, 2), rules=RULES):
    """Given: seat 3 dealt, the seats in ``plays`` said "Ich spiele", the others "Weiter"."""
    state = given(GAME, [dealt(HANDS)], fresh(rules))
    for seat in range(4):
        _, state = step(state, seat, {"type": "announce", "intent": "play" if seat in plays else "pass"})
    assert state.phase == "naming"
    return state


def name(state, seat, game, suit=None):
    command = {"type": "name_game", "game": game}
    if suit:
        command["suit"] = suit
    return step(state, seat, command)


def opened():
    """Seat 0 names a Solo, seat 1 a Wenz (joins), seat 2 withdraws: the auction opens."""
    state = naming()
    _, state = name(state, 0, "solo", "E")
    _, state = name(state, 1, "wenz")
    events, state = step(state, 2, {"type": "withdraw"})
    assert event_types(events) == ["PlayWithdrawn", "AuctionOpened"]
    assert events[1].data == {"seats": [0, 1], "holder": 0, "target": 61}
    return state


def test_the_auction_is_off_by_default_and_a_later_band_game_loses_on_precedence():
    state = naming(rules={"allowed_games": ALL_GAMES})
    _, state = name(state, 0, "solo", "E")
    legal = GAME.legal_commands(state, 1)
    assert not [c for c in legal if c.get("game") in ("wenz", "solo")]
    with pytest.raises(errors.WrongPhase):
        when(GAME, state, 1, {"type": "bid", "target": 71})


def test_a_later_band_game_joins_the_auction_instead_of_losing_on_equal_rank():
    state = naming()
    _, state = name(state, 0, "solo", "E")
    legal = GAME.legal_commands(state, 1)
    assert {"type": "name_game", "game": "wenz"} in legal
    assert {"type": "name_game", "game": "solo", "suit": "G"} in legal
    assert {"type": "name_game", "game": "solo_tout", "suit": "G"} in legal  # a Tout still outranks
    assert {"type": "name_game", "game": "bettel"} not in legal  # below the band
    events, state = name(state, 1, "wenz")
    assert events[0].data == {"seat": 1, "game": "wenz", "suit": None, "auction": True}
    assert state.best == (0, "solo", "E")  # the earlier seat holds 61


def test_the_first_to_answer_takes_over_with_a_higher_bid_or_passes():
    state = opened()
    assert state.phase == "auction" and GAME.to_act(state) == frozenset({1})
    assert GAME.legal_commands(state, 1) == BIDS_FROM_61
    assert GAME.legal_commands(state, 0) == []


def test_every_raise_is_answered_and_the_last_holder_plays_his_game_at_his_target():
    state = opened()
    events, state = step(state, 1, {"type": "bid", "target": 71})
    assert events[0].data == {"seat": 1, "target": 71, "call": "70"}
    assert GAME.to_act(state) == frozenset({0})  # the outbid holder answers
    events, state = step(state, 0, {"type": "bid", "target": 91})
    assert GAME.legal_commands(state, 1) == BIDS_FROM_61[3:]
    events, state = step(state, 1, {"type": "pass"})
    assert event_types(events) == ["BidPassed", "GameDeclared"]
    assert events[1].data == {"declarer": 0, "game": "solo", "suit": "E", "called_ace": None, "target": 91}
    assert state.phase == "play" and state.contract.target == 91
    assert GAME.view(state, 2)["declared"]["target"] == 91


def test_a_taken_over_auction_is_won_by_the_later_seat_with_his_named_game():
    state = opened()
    _, state = step(state, 1, {"type": "bid", "target": 81})
    events, state = step(state, 0, {"type": "pass"})
    assert events[-1].data == {"declarer": 1, "game": "wenz", "suit": None, "called_ace": None, "target": 81}


def test_three_bidders_answer_in_turn():
    state = naming()
    _, state = name(state, 0, "geier")
    _, state = name(state, 1, "solo", "H")
    events, state = name(state, 2, "farbwenz", "S")
    assert events[-1].data == {"seats": [0, 1, 2], "holder": 0, "target": 61}
    _, state = step(state, 1, {"type": "bid", "target": 71})
    assert GAME.to_act(state) == frozenset({2})
    _, state = step(state, 2, {"type": "pass"})
    assert GAME.to_act(state) == frozenset({0})
    _, state = step(state, 0, {"type": "bid", "target": 81})
    assert GAME.to_act(state) == frozenset({1}) and state.bidders == (1,)  # seat 2 is out
    events, state = step(state, 1, {"type": "pass"})
    assert events[-1].data["declarer"] == 0 and events[-1].data["target"] == 81
    view = GAME.view(state, None)["auction"]
    assert view["bids"] == [{"seat": 1, "target": 71}, {"seat": 2, "passed": True},
                            {"seat": 0, "target": 81}, {"seat": 1, "passed": True}]
    assert (view["target"], view["holder"]) == (81, 0)


def test_bids_go_up_in_tens_to_111():
    state = opened()
    for target in (75, 61, 121):
        with pytest.raises(errors.IllegalChoice):
            when(GAME, state, 1, {"type": "bid", "target": target})
    with pytest.raises(errors.InvalidCommand):
        when(GAME, state, 1, {"type": "bid", "target": "71"})
    with pytest.raises(errors.NotYourTurn):
        when(GAME, state, 0, {"type": "bid", "target": 71})
    _, state = step(state, 1, {"type": "bid", "target": 111})
    assert GAME.legal_commands(state, 0) == [{"type": "pass"}]
    with pytest.raises(errors.IllegalChoice):
        when(GAME, state, 0, {"type": "bid", "target": 121})


def test_a_tout_beats_the_band_and_no_auction_is_held():
    state = naming()
    _, state = name(state, 0, "solo", "E")
    _, state = name(state, 1, "wenz")
    events, state = name(state, 2, "solo_tout", "G")
    assert event_types(events) == ["GameNamed", "GameDeclared"]
    assert events[1].data == {"declarer": 2, "game": "solo_tout", "suit": "G", "called_ace": None}


def test_a_single_band_game_is_declared_at_61():
    state = naming(plays=(0,))
    events, state = name(state, 0, "wenz")
    assert events[-1].data == {"declarer": 0, "game": "wenz", "suit": None, "called_ace": None, "target": 61}


def test_a_rufspiel_named_first_is_not_in_the_auction():
    state = naming()
    _, state = name(state, 0, "rufspiel", "E")
    events, state = name(state, 1, "solo", "E")
    assert "auction" not in events[0].data  # beats the Rufspiel by precedence
    events, state = name(state, 2, "wenz")
    assert events[-1].data == {"seats": [1, 2], "holder": 1, "target": 61}


def test_the_band_ties_even_where_precedence_would_decide():
    state = naming()
    _, state = name(state, 0, "farbgeier", "S")
    events, state = name(state, 1, "solo", "E")  # a Solo outranks a Farbgeier, but not in the auction
    assert events[0].data["auction"] is True and state.best[0] == 0


def _tricks(points_to_declarer: int):
    """Eight tricks; the declarer (seat 0) takes cards worth exactly ``points_to_declarer``."""
    import itertools
    ranks = ("A", "10", "K", "O", "U")
    worth = {"A": 11, "10": 10, "K": 4, "O": 3, "U": 2}
    counts = next(c for c in itertools.product(range(5), repeat=5)
                  if sum(n * worth[r] for n, r in zip(c, ranks)) == points_to_declarer)
    mine = [suit + rank for n, rank in zip(counts, ranks) for suit in "EGHS"[:n]]
    rest = [card for card in DECK if card not in mine]
    while len(mine) % 4:  # fill with cards worth nothing
        blank = next(card for card in rest if card[1:] in ("9", "8", "7"))
        rest.remove(blank)
        mine.append(blank)
    tricks = []
    for pile, winner in ((mine, 0), (rest, 1)):
        for i in range(0, len(pile), 4):
            trick = Trick(winner)
            for seat, card in enumerate(pile[i:i + 4]):
                trick = trick.with_play(seat, card)
            tricks.append((winner, trick))
    return tricks


@pytest.mark.parametrize("target,points,won,schneider", [
    (61, 75, True, False), (81, 75, False, False), (81, 81, True, False), (71, 70, False, False),
    (101, 95, False, False), (101, 101, True, True),
])
def test_the_winning_target_replaces_61_and_schneider_keeps_its_thresholds(target, points, won, schneider):
    config = config_from_rules(GAME.setup(4, RULES, None).rules)
    hands = [tuple(DECK[i * 8:(i + 1) * 8]) for i in range(4)]
    result = settle(0, hands, _tricks(points), Contract("solo", "H", 0, target=target), None, config)
    assert result.card_points == (points, 120 - points)
    assert (result.won, result.schneider, result.target) == (won, schneider, target)
    assert result.payments[0] == (3 if won else -3) * result.value
