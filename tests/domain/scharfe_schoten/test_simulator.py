"""The simulator agrees with the decider on random rounds, step by step.

At every prediction, card to play and cupboard take: the simulator built from the decider's
state and the one carried along from the round's first prediction both offer exactly the
decider's legal commands for the seat to move (predictions: for any seat still to predict, in
the order the decider takes them); applying the chosen one gives the same trick winner (or none),
the same phase after it (a take is due, or play goes on), the same collected colours per seat,
and at the round's end the same points per seat as ``RoundScored``. With 3 and 4 players
(4 players: the cupboard runs out two tricks early), and every take takes the decider's card. ``STICH_SIMULATOR_DEALS=10000`` checks
that many rounds per player count.
"""
from __future__ import annotations

import pytest

from domain.scharfe_schoten.cards import COLOURS, SPICE_DECK, colour_counts
from domain.scharfe_schoten.bots.situation import from_simulator as situation, from_state as situation_from_state
from domain.scharfe_schoten.simulator import TAKE, action_of, command_of, from_state
from tests.domain.agreement import deals_wanted, drive

from .support import GAME

PLAYED = ("predicting", "playing", "taking")
OPTION_SETS = {"3_players": (3, {"rounds": 12}), "4_players": (4, {"rounds": 12})}


class Checker:
    def __init__(self):
        self.deals = self.actions = 0
        self.carried = None

    def step(self, state, seat, legal, command, events, after) -> None:
        if state.phase not in PLAYED:
            return
        fresh = from_state(state)
        if self.carried is None:
            self.carried = fresh.copy()
        carried = self.carried
        assert fresh.legal() == carried.legal() == sum(1 << action_of(c) for c in legal)
        action = action_of(command)
        assert command_of(action) == command
        if state.phase == "predicting":
            assert fresh.predicting() and carried.predicting()
            assert fresh.to_move() == carried.to_move() == min(GAME.to_act(state))
            for sim in (fresh, carried):
                sim.predict(seat, action)
                assert sim.predicting() == (after.phase == "predicting")
            self.actions += 1
            return
        assert fresh.to_move() == carried.to_move() == seat
        took = [e.data["card"] for e in events if e.type == "CupboardCardTaken"]
        if took:
            assert SPICE_DECK[carried.next_of(action - TAKE)] == took[0]
        winners = {carried.apply(action), fresh.apply(action)}
        self.actions += 1
        taken = [e.data["winner"] for e in events if e.type == "TrickTaken"]
        assert winners == {taken[0] if taken else -1}
        scored = [e.data for e in events if e.type == "RoundScored"]
        assert carried.is_over() == fresh.is_over() == bool(scored)
        if scored:
            assert carried.points() == fresh.points() == scored[0]["points"]
            for seat_counts, counts in enumerate(scored[0]["counts"]):
                assert carried.collection(seat_counts) == [counts[c] for c in COLOURS]
            self.deals += 1
            self.carried = None
            return
        assert carried.taking() == (after.phase == "taking")
        assert carried.to_move() == min(GAME.to_act(after))
        for other, cards in enumerate(after.collections):
            counts = colour_counts(cards)
            assert carried.collection(other) == [counts[c] for c in COLOURS]


def check(name: str, deals: int, seed: int = 1) -> Checker:
    players, rules = OPTION_SETS[name]
    checker = Checker()
    drive(GAME, players, rules, seed + players, deals, checker)
    return checker


@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_simulator_agrees_with_the_decider(name):
    deals = deals_wanted(150)
    assert check(name, deals).deals >= deals


class SituationChecker:
    """The search's rollouts read a ``Situation`` from the simulator: the same as from the state."""

    def __init__(self):
        self.deals = self.checked = 0

    def step(self, state, seat, legal, command, events, after) -> None:
        if state.phase in PLAYED:
            assert situation(from_state(state), seat) == situation_from_state(state, seat)
            self.checked += 1
        self.deals += any(e.type == "RoundScored" for e in events)


@pytest.mark.parametrize("players", [3, 4])
def test_the_search_reads_the_same_situation_from_the_simulator(players):
    checker = SituationChecker()
    drive(GAME, players, {"rounds": 12}, 40 + players, 20, checker)
    assert checker.checked >= 20 * 40
