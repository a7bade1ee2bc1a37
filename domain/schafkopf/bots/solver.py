"""Schafkopf's exact solver: a deal with every card known, played perfectly by both parties.

The value is one seat's payment of the deal (Stoß and Stock included), the seat's party
maximising it and the other party minimising it: a partner game's declarers against the
defenders, a lone game's declarer against the three. Ramsch has no parties, so it is not
solved here (``solvable``). The moves are the simulator's cards, equivalent ones merged
(``game_tree.merge_equivalent``: the Nine and the Eight with the Seven gone, two Obers next to
each other) and the heuristic's card first while the tree below is large enough to pay for
asking it. The transposition key at a trick boundary is the hands, the leader, the declarers'
card points so far, whether each party has taken a trick (Schwarz, Tout and Bettel hang on
it) and the called Ace's state. A Stoß is no move: the solver plays cards at today's price.

The payment alone, without the playouts' small bonus for card points, takes a handful of
values, which is what lets the zero-window searches (``Solver.value``) cut deep; cards that
pay the same are left to the heuristic to choose between.
"""
from __future__ import annotations

import random
from functools import lru_cache

from ...bitmask import members
from ...game_tree import OutOfNodes, Position, Solver, merge_equivalent
from ..cards import PLAYERS
from ..ramsch import TOTAL
from ..scoring import DECLARER_SCHNEIDER, DEFENDER_SCHNEIDER
from ..simulator import POINTS, Simulator, tables
from .rollout import heuristic_rollout

ORDERED_ABOVE = 3  # cards left to the seat to move: above this the heuristic orders the moves

__all__ = ["OutOfNodes", "SchafkopfPosition", "Solver", "solvable", "solver_for"]


@lru_cache(maxsize=None)
def _orders(game: str, suit: str | None) -> tuple[tuple[int, ...], ...]:
    """Each follow key's cards, weakest first, for ``merge_equivalent``."""
    _, masks, power = tables(game, suit)
    return tuple(tuple(sorted(members(masks[key]), key=power[key].__getitem__)) for key in range(5))


def solvable(sim: Simulator) -> bool:
    """Is ``sim`` in card play of a game with two parties (anything but Ramsch)?"""
    return sim.talk is None and sim.rules.kind != "ramsch" and not sim.is_over()


class SchafkopfPosition(Position):
    """The rules the solver needs of one deal, valued for ``seat``."""

    def __init__(self, sim: Simulator, seat: int, order_by_heuristic: bool = True):
        rules = sim.rules
        self.seat, self.declarers = seat, rules.declarers
        others = frozenset(range(PLAYERS)) - set(rules.declarers)
        self.side = others if seat in others else frozenset(rules.declarers)
        contract = rules.contract
        self.orders, self.masks = _orders(contract.game, contract.suit), rules.masks
        self.hand_size = rules.hand_size
        self.order_by_heuristic = order_by_heuristic
        self.target = rules.target
        self.end = sim.copy()  # settles the imagined ends of the deal (``_payment``)
        self.end.done = rules.hand_size
        self.outcomes: dict = {}
        self.rng = random.Random(0)  # the heuristic's card play draws nothing, but asks for one

    def is_over(self, sim: Simulator) -> bool:
        return sim.done == self.hand_size

    def to_move(self, sim: Simulator) -> int:
        return (sim.leader + len(sim.trick)) % PLAYERS

    def _tally(self, sim: Simulator) -> tuple[int, int]:
        """The declarers' card points, and whether each party has taken a trick (bit 0: the
        declarers, bit 1: the defenders)."""
        points = taken = 0
        for seat in self.declarers:
            points += sim.points[seat]
            taken += sim.taken[seat]
        return points, (taken > 0) | (taken < sim.done) << 1

    def _payment(self, points: int, tricks: int) -> int:
        """The seat's payment of a deal that ends with the declarers' ``points`` and ``tricks``
        flags (``_tally``). The points count only through the settlement's thresholds, so one
        settlement answers for each class of them."""
        grade = (points >= self.target, points >= DECLARER_SCHNEIDER, TOTAL - points >= DEFENDER_SCHNEIDER)
        got = self.outcomes.get((grade, tricks))
        if got is None:
            end = self.end.copy()
            end.points = [0] * PLAYERS
            end.taken = [0] * PLAYERS
            end.points[self.declarers[0]] = points
            # Any count of tricks with the flags' meaning settles alike.
            end.taken[self.declarers[0]] = 0 if not tricks & 1 else self.hand_size if not tricks & 2 else 1
            got = self.outcomes[(grade, tricks)] = end.settlement().payments[self.seat]
        return got

    def outcome(self, sim: Simulator) -> float:
        return self._payment(*self._tally(sim))

    def bounds(self, sim: Simulator) -> tuple[float, float]:
        points, tricks = self._tally(sim)
        if sim.done == self.hand_size:
            value = self._payment(points, tricks)
            return value, value
        left = TOTAL - points - self.defenders_points(sim)
        # The payment moves one way with the declarers' points and tricks: either extreme bounds it.
        ends = (self._payment(points + left, tricks | 1), self._payment(points, tricks | 2))
        return min(ends), max(ends)

    def defenders_points(self, sim: Simulator) -> int:
        return sum(sim.points) - sum(sim.points[seat] for seat in self.declarers)

    def key(self, sim: Simulator):
        if sim.trick:
            return None
        hands = sim.hands
        return (hands[0], hands[1], hands[2], hands[3], sim.leader, self._tally(sim), sim.called_suit_led,
                sim.ace_free)

    def moves(self, sim: Simulator) -> list[int]:
        legal = sim.legal()
        if legal & (legal - 1) == 0:
            return [legal.bit_length() - 1]
        hands = sim.hands
        live = hands[0] | hands[1] | hands[2] | hands[3]
        for card in sim.trick:
            live |= 1 << card
        out = merge_equivalent(legal, live, self.orders, self.masks, POINTS)
        seat = self.to_move(sim)
        if len(out) > 1 and self.order_by_heuristic and hands[seat].bit_count() > ORDERED_ABOVE:
            first = heuristic_rollout(sim, seat, members(legal), self.rng)
            # A card inside a run is played as its run's lowest card, the nearest kept one below.
            cards = self.orders[sim.rules.follow[first]]
            below = [card for card in out if card in cards and cards.index(card) <= cards.index(first)]
            out.remove(below[-1])
            out.insert(0, below[-1])
        return out


def solver_for(sim: Simulator, seat: int, limit: int, order_by_heuristic: bool = True) -> Solver:
    """A solver of ``sim``'s deal valued for ``seat``, within ``limit`` nodes (``solvable(sim)``)."""
    return Solver(SchafkopfPosition(sim, seat, order_by_heuristic), limit)
