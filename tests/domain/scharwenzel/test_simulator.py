"""The simulator agrees with the decider on random deals, step by step.

At every decision of a deal (bids, naming trumps, the tout question, cards): the simulator built
from the decider's state and the one carried along from the deal's first bid both offer exactly
the decider's legal commands to the seat to move; applying the chosen one gives the same phase
after it, the same trick winner and side (or none) and the same end of the deal; the deal's
score equals the ``DealScored`` data (game, first tricks, matadors, tout, Bock in and out,
points and hooks). For 4, 6 and 8 players, with and without the tout,
and both Bock values. ``STICH_SIMULATOR_DEALS=10000`` checks that many deals per set.
"""
from __future__ import annotations

import random

import pytest

from domain.scharwenzel.simulator import action_of, command_of, from_state
from tests.domain.agreement import deals_wanted, drive

from .helpers import GAME

OPTION_SETS = {
    "4_players": (4, {"deals": 1000}),
    "6_players": (6, {"deals": 1000}),
    "8_players": (8, {"deals": 1000}),
    "4_players_no_tout_bock_matadors": (4, {"deals": 1000, "announced_tout": False,
                                            "bock_value": "game_and_matadors"}),
    "6_players_bock_matadors": (6, {"deals": 1000, "bock_value": "game_and_matadors"}),
}
TOUT_RATE = 0.08  # a tout now and then: announced at random on every deal, nearly every deal would be one


def choose(rng: random.Random, state, seat: int, legal: list[dict]) -> dict:
    if {"type": "announce_tout"} in legal:
        return legal[0] if rng.random() < TOUT_RATE else {"type": "no_tout"}
    return legal[rng.randrange(len(legal))]


IN_DEAL = ("bidding", "naming", "tout", "playing")


class Checker:
    def __init__(self):
        self.deals = self.cards = self.touts = self.bocks = self.named = 0
        self.carried = None

    def step(self, state, seat, legal, command, events, after) -> None:
        if state.phase not in IN_DEAL:
            return
        fresh = from_state(state)
        if self.carried is None:
            self.carried = fresh.copy()
        carried = self.carried
        players = state.players
        assert fresh.to_move() == carried.to_move() == seat
        assert fresh.legal() == carried.legal() == sum(1 << action_of(c, players) for c in legal)
        action = action_of(command, players)
        assert command_of(action, players) == command
        winners = {carried.apply(action), fresh.apply(action)}
        if state.phase != "playing":
            assert winners == {-1}
            assert carried.phase == fresh.phase == after.phase
            assert carried.to_move() == min(GAME.to_act(after))
            if after.trumps is not None and state.trumps is None:
                assert carried.rules.trumps == after.trumps and carried.rules.after_all_passed == after.after_all_passed
                self.named += 1
            return
        self.cards += 1
        taken = [e.data["seat"] for e in events if e.type == "TrickTaken"]
        assert winners == {taken[0] if taken else -1}
        scored = [e.data for e in events if e.type == "DealScored"]
        assert carried.is_over() == fresh.is_over() == bool(scored)
        if scored:
            expected = {k: v for k, v in scored[0].items() if k not in ("deal", "named_by", "bid")}
            assert carried.score() == fresh.score() == expected
            assert carried.trick_sides() == state.trick_sides + (taken[0] % 2,)
            self.deals += 1
            self.touts += expected["tout"] or expected["tout_made"] is not None
            self.bocks += expected["bock"]
            self.carried = None
        else:
            assert carried.trick_sides() == after.trick_sides
            assert carried.to_move() == min(GAME.to_act(after))


def check(name: str, deals: int, seed: int = 1) -> Checker:
    players, rules = OPTION_SETS[name]
    checker = Checker()
    drive(GAME, players, rules, seed + list(OPTION_SETS).index(name), deals, checker, choose)
    return checker


@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_simulator_agrees_with_the_decider(name):
    deals = deals_wanted(60)
    checker = check(name, deals)
    assert checker.deals >= deals
    assert checker.touts > 0 and (checker.bocks > 0 or deals < 100)
    assert checker.named >= deals
