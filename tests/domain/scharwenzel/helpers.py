"""Shared fixtures: a driver over the game, and the scripted deals the tests use."""
from __future__ import annotations

from domain.scharwenzel.game import Scharwenzel
from tests.domain.harness import given, roundtrip, when

GAME = Scharwenzel()


class Driver:
    """Applies commands with the harness's given/when and keeps every event."""

    def __init__(self, players: int, rules: dict | None = None, presets: list | None = None):
        setup = GAME.setup(players, rules or {}, presets)
        self.state = GAME.initial_state(setup)
        self.events = []

    def do(self, actor, command):
        events = when(GAME, self.state, actor, command)
        self.state = given(GAME, [roundtrip(e) for e in events], self.state)
        self.events += events
        return events

    def deal(self):
        return self.do(None, {"type": "deal", "deal": self.state.deal, "decks": {}})

    def seat(self):
        (seat,) = GAME.to_act(self.state)
        return seat

    def bids(self, *commands):
        """Commands for the seats in bidding order; None means pass."""
        out = []
        for command in commands:
            out += self.do(self.seat(), command or {"type": "pass"})
        return out

    def no_touts(self):
        while self.state.phase == "tout":
            self.do(self.seat(), {"type": "no_tout"})

    def play_script(self, script):
        """``script[seat]`` lists the cards that seat plays, trick by trick."""
        out = []
        while self.state.phase == "playing":
            seat = self.seat()
            card = script[seat][len(self.state.trick_sides)]
            out += self.do(seat, {"type": "play", "card": card})
        return out


def of_type(events, kind):
    return [e for e in events if e.type == kind]


# -- Four players: the rulebook's scoring example --------------------------------
# Dealer seat 3, so Anna (seat 0) is forehand. Clubs trumps after Dan bids "3 besser".
# Anna and Carla take tricks 1-5, Ben takes 6-8.
SCORING_EXAMPLE = [
    ["QC", "7C", "QS", "AH", "KH", "7S", "10D", "QD"],  # Anna
    ["JS", "AC", "JD", "7H", "10H", "AS", "AD", "KS"],  # Ben
    ["JC", "9C", "JH", "8H", "QH", "8S", "8D", "10S"],  # Carla
    ["8C", "10C", "KC", "9H", "7D", "9S", "9D", "KD"],  # Dan
]

# -- Eight players, clubs after all passed (nobody holds 3 of a printed suit) -----
# Tricks 1-2 to the leader (side of seat 0), tricks 3-4 to seat 5: 2-2, a Bock.
TIE_8 = [
    ["AH", "AD", "9S", "QS"],
    ["KH", "KD", "10S", "JC"],
    ["QH", "QD", "KS", "JS"],
    ["10H", "10D", "AS", "JH"],
    ["9H", "9D", "8C", "JD"],
    ["8H", "8D", "QC", "7C"],
    ["7H", "7S", "9C", "AC"],
    ["7D", "8S", "10C", "KC"],
]
# Seat 4 holds QC and 7C: side 0 (even seats) takes all four tricks.
TOUT_8 = [list(h) for h in TIE_8]
TOUT_8[4] = ["9H", "9D", "QC", "7C"]
TOUT_8[5] = ["8H", "8D", "8C", "JD"]
# Seat 4 holds QC, seat 5 the 7C: side 0 takes tricks 1-3, side 1 the last: 3-1.
MAJORITY_8 = [list(h) for h in TIE_8]
MAJORITY_8[4] = ["9H", "9D", "QC", "JD"]
MAJORITY_8[5] = ["8H", "8D", "8C", "7C"]


def rotate(hands, steps):
    """The same deal moved ``steps`` seats to the left (seat s's cards go to seat s + steps)."""
    n = len(hands)
    return [list(hands[(s - steps) % n]) for s in range(n)]
