"""Scharwenzel's exact solver: a deal with every card known, played perfectly by both sides.

The value is what the deal is worth to one seat's side (``outcome.side_value``: the points and
hooks of SW-4, SW-5 and SW-7 on one scale: the majority, "for the first", the matadors, tout
made or missed), the seat's side maximising it and the other side minimising it, at 4, 6 or 8
players. It hangs only on the tricks each side takes and on whether one side took all of the
first majority of tricks, so the transposition key at a trick boundary is the hands, the
leader, side 0's tricks and which sides have taken one of those first tricks. The moves are
the simulator's cards, runs of equal cards merged (``game_tree.merge_equivalent``) and the
heuristic's card first while the tree below is large enough to pay for asking it. The bid,
the trumps and the tout are settled before card play and are no moves here.
"""
from __future__ import annotations

import random
from functools import lru_cache

from ...bitmask import members
from ...game_tree import OutOfNodes, Position, Solver, merge_equivalent
from ..scoring import majority, settle
from ..simulator import PLAYING, Simulator, tables
from .outcome import side_value
from .rollout import rollout_heuristic

ORDERED_ABOVE = 2  # cards left to the seat to move: above this the heuristic orders the moves

__all__ = ["OutOfNodes", "ScharwenzelPosition", "Solver", "solvable", "solver_for"]


@lru_cache(maxsize=None)
def _orders(trumps: str, players: int) -> tuple[tuple[int, ...], ...]:
    """Each follow key's cards, weakest first, for ``merge_equivalent``."""
    _, masks, power = tables(trumps, players)
    return tuple(tuple(sorted(members(masks[key]), key=power[key].__getitem__)) for key in range(5))


def solvable(sim: Simulator) -> bool:
    """Is ``sim`` in card play, with tricks left?"""
    return sim.phase == PLAYING and not sim.is_over()


class ScharwenzelPosition(Position):
    """The rules the solver needs of one deal, valued for ``seat``'s side."""

    def __init__(self, sim: Simulator, seat: int, order_by_heuristic: bool = True):
        rules = sim.rules
        self.players, self.total, self.head = rules.players, rules.total, majority(rules.total)
        self.own = seat % 2
        self.side = frozenset(s for s in range(rules.players) if s % 2 == self.own)
        self.orders, self.masks = _orders(rules.trumps, rules.players), rules.masks
        self.worth = (0,) * len(rules.follow)  # a card taken scores nothing of itself
        self.rules, self.tout_side = rules, sim.tout_side
        self.order_by_heuristic = order_by_heuristic
        self.outcomes: dict = {}
        self.rng = random.Random(0)  # the heuristic's card play draws nothing, but asks for one

    def is_over(self, sim: Simulator) -> bool:
        return sim.done == self.total

    def to_move(self, sim: Simulator) -> int:
        return (sim.leader + len(sim.trick)) % self.players

    def _tally(self, sim: Simulator) -> tuple[int, int]:
        """Side 0's tricks, and which sides have taken one of the first majority of tricks
        (bit 0: side 0, bit 1: side 1)."""
        head = min(sim.done, self.head)
        ones = (sim.sides & ((1 << head) - 1)).bit_count()
        return sim.taken[0], (head - ones > 0) | (ones > 0) << 1

    def _value(self, taken: int, first: int) -> int:
        """The side's value of a deal that ends with side 0's ``taken`` tricks and ``first`` (``_tally``)."""
        got = self.outcomes.get((taken, first))
        if got is None:
            rules = self.rules
            scored = settle(trumps=rules.trumps, after_all_passed=rules.after_all_passed,
                            tricks=[taken, self.total - taken],
                            first_side=None if first == 3 else 0 if first == 1 else 1, runs=rules.runs,
                            tout_side=self.tout_side, bock_in=rules.bock_in, bock_value=rules.bock_value)
            got = self.outcomes[(taken, first)] = side_value(scored, self.own)
        return got

    def outcome(self, sim: Simulator) -> float:
        return self._value(*self._tally(sim))

    def bounds(self, sim: Simulator) -> tuple[float, float]:
        taken, first = self._tally(sim)
        left = self.total - sim.done
        if not left:
            value = self._value(taken, first)
            return value, value
        head_left = sim.done < self.head
        # The value moves one way with a side's tricks: either side taking the rest bounds it.
        ends = (self._value(taken + left, first | head_left), self._value(taken, first | head_left << 1))
        return min(ends), max(ends)

    def key(self, sim: Simulator):
        if sim.trick:
            return None
        return (*sim.hands, sim.leader, self._tally(sim))

    def moves(self, sim: Simulator) -> list[int]:
        legal = sim.legal()
        if legal & (legal - 1) == 0:
            return [legal.bit_length() - 1]
        live = 0
        for hand in sim.hands:
            live |= hand
        for card in sim.trick:
            live |= 1 << card
        out = merge_equivalent(legal, live, self.orders, self.masks, self.worth)
        seat = self.to_move(sim)
        if len(out) > 1 and self.order_by_heuristic and sim.hands[seat].bit_count() > ORDERED_ABOVE:
            first = rollout_heuristic(sim, seat, members(legal), self.rng)
            # A card inside a run is played as its run's lowest card, the nearest kept one below.
            key = self.rules.follow[first]
            cards = self.orders[key]
            below = [card for card in out if self.rules.follow[card] == key
                     and cards.index(card) <= cards.index(first)]
            out.remove(below[-1])
            out.insert(0, below[-1])
        return out


def solver_for(sim: Simulator, seat: int, limit: int, order_by_heuristic: bool = True) -> Solver:
    """A solver of ``sim``'s deal valued for ``seat``'s side, within ``limit`` nodes (``solvable(sim)``)."""
    return Solver(ScharwenzelPosition(sim, seat, order_by_heuristic), limit)
