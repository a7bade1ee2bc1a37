"""Seeded random games: card conservation, legality both ways, hidden information and replay."""
import random

import pytest

from domain import errors
from domain.scharfe_schoten.cards import COLOURS, SPICE_DECK
from tests.domain.harness import random_playout

from .support import GAME
from .test_views import assert_no_secret_in_view

DECK = sorted(SPICE_DECK)
PROBES = ([{"type": "play", "card": card} for card in SPICE_DECK]
          + [{"type": "take", "colour": colour} for colour in COLOURS]
          + [{"type": "predict", "most": m, "fewest": f} for m in COLOURS for f in COLOURS])


class Checker:
    """The ``check`` hook of the playout; also probes commands before each move."""

    def __init__(self, probe: bool, peek: bool):
        self.probe, self.peek = probe, peek
        self.inner = None
        self.steps = 0

    def check(self, table_state):
        inner = table_state.inner
        self.inner = inner
        self.steps += 1
        places = [card for hand in inner.hands for card in hand] + list(inner.cupboard)
        places += list(inner.trick.cards) + [card for cards in inner.collections for card in cards]
        assert sorted(places) == DECK, "every card is in exactly one place"
        view = GAME.view(inner, None)
        assert sum(sum(c.values()) for c in view["hand_colours"]) == sum(len(h) for h in inner.hands)
        if self.peek:
            for seat in list(range(inner.players)) + [None]:
                if not GAME.is_finished(inner):
                    assert_no_secret_in_view(inner, seat)

    def choose(self, rng: random.Random, seat: int, legal: list[dict]) -> dict:
        if self.probe and self.inner is not None:
            # A command is accepted iff it is in ``legal`` (checked for a sample).
            for command in rng.sample(PROBES, 6) + [rng.choice(legal)]:
                try:
                    GAME.decide(self.inner, seat, command)
                    accepted = True
                except errors.RuleViolation:
                    accepted = False
                assert accepted == (command in legal), (command, legal)
        return rng.choice(legal)


def play(players, seed, rules, probe=False, peek=False):
    checker = Checker(probe, peek)
    _, state, events = random_playout(GAME, players, seed, rules, choose=checker.choose, check=checker.check)
    inner = state.inner
    assert GAME.is_finished(inner) and state.status == "finished"
    assert len(inner.round_points) == inner.rounds
    assert list(inner.totals) == [sum(points[s] for points in inner.round_points) for s in range(players)]
    return events


def test_a_few_full_games_with_every_check():
    for seed in range(4):
        play(3 + seed % 2, seed, None, probe=True, peek=True)


@pytest.mark.slow
def test_thousand_random_games():
    for seed in range(1000):
        players = 3 + seed % 2
        # Mostly one-round games to keep the run short; every 25th is full length.
        rules = None if seed % 25 == 0 else {"rounds": 1}
        play(players, 1000 + seed, rules, probe=seed % 10 == 0, peek=seed % 50 == 0)
