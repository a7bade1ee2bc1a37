"""Scharfe Schoten's exact solvers: a round's last tricks with every card known.

Every seat plays for its own points, so a round has no two parties and no single minimax value.
Two readings are solved here, on the simulator's integer cards and bitmask hands:

- **paranoid** (``paranoid_solver``): the seat maximises its points and every other seat is
  taken to minimise them. A two-party game, so the shared alpha-beta (``game_tree.Solver``)
  solves it; the other seats' collections do not change the seat's points, so the
  transposition key at a trick boundary holds only the seat's own.
- **max-n** (``MaxN``): every seat maximises its own points; a seat indifferent between two
  moves takes the one worse for the seat being solved for (the cautious reading of an
  indifferent opponent), then a fixed order (``preference``). No cut-offs, a table of exact
  points per seat at trick boundaries.

Both merge equivalent cards (two cards of one colour with no live card ranked between them
take the same tricks, and a collection counts only colours; a super trump is its own run, since
other colours rank between it and its colour's cards) and the cupboard takes are moves of the
trick's winner. Both count nodes and give up (``OutOfNodes``) past their budget, so what they
solve does not depend on the machine's speed.
"""
from __future__ import annotations

from functools import lru_cache

from ...bitmask import members
from ...game_tree import OutOfNodes, Position, Solver, merge_equivalent
from ..simulator import Simulator, strengths

__all__ = ["MaxN", "OutOfNodes", "paranoid_solver", "solvable"]


def solvable(sim: Simulator) -> bool:
    """Is ``sim`` past the predictions, with cards left to play?"""
    return not sim.predicting() and not sim.is_over()


@lru_cache(maxsize=256)
def runs(numbers: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """The follow keys ``merge_equivalent`` merges within, for a deal's numbers: each colour's
    plain cards weakest first, then each super trump alone; and each key's mask."""
    power = strengths(numbers)
    plain = [sorted((c * 12 + v for v in range(12) if power[c * 12 + v] < 1000), key=power.__getitem__)
             for c in range(4)]
    trumps = [[card] for card in range(48) if power[card] >= 1000]
    orders = tuple(tuple(cards) for cards in plain + trumps)
    return orders, tuple(sum(1 << card for card in cards) for cards in orders)


WORTH = (0,) * 48  # every card of a key is of one colour, and a collection counts colours only


def moves_of(sim: Simulator) -> list[int]:
    """The legal moves of ``sim``, one card of each run of equivalent cards (a take is a move too)."""
    legal = sim.legal()
    if legal & (legal - 1) == 0 or sim.taking():
        return members(legal)
    live = 0
    for hand in sim.hands:
        live |= hand
    for card in sim.trick:
        live |= 1 << card
    orders, masks = runs(sim.numbers)
    return merge_equivalent(legal, live, orders, masks, WORTH)


class ParanoidPosition(Position):
    """The round valued as ``seat``'s points, every other seat minimising them."""

    def __init__(self, seat: int):
        self.seat = seat
        self.side = frozenset({seat})

    def is_over(self, sim: Simulator) -> bool:
        return sim.is_over()

    def to_move(self, sim: Simulator) -> int:
        return sim.to_move()

    def moves(self, sim: Simulator) -> list[int]:
        return moves_of(sim)

    def outcome(self, sim: Simulator) -> float:
        return sim.points()[self.seat]

    def key(self, sim: Simulator):
        if sim.trick:
            return None
        return (*sim.hands, sim.leader, sim.taker, sim.cupboard, *sim.collection(self.seat))


def paranoid_solver(seat: int, limit: int) -> Solver:
    """A paranoid solver for ``seat`` within ``limit`` nodes."""
    return Solver(ParanoidPosition(seat), limit)


def preference(points: tuple[int, ...], mover: int, seat: int) -> tuple:
    """How much ``mover`` prefers an ending with ``points``: its own first, then the one worse
    for ``seat``, then (any fixed order, so that the order of the moves never decides) the lower
    points of the others."""
    return points[mover], -points[seat], tuple(-p for p in points)


class MaxN:
    """Max-n over copies of a simulator: each seat to move takes the move best for itself,
    ties resolved against ``seat``. ``nodes`` counts positions over every call; past ``limit``
    a call raises ``OutOfNodes`` (the table stays valid)."""

    def __init__(self, seat: int, limit: int):
        self.seat, self.limit, self.nodes = seat, limit, 0
        self.table: dict = {}

    def values(self, sim: Simulator, moves: list[int]) -> dict[int, float]:
        """``seat``'s points after each of ``moves`` (legal for the seat to move in ``sim``)."""
        out = {}
        for move in moves:
            child = sim.copy()
            child.apply(move)
            out[move] = self.points(child)[self.seat]
        return out

    def points(self, sim: Simulator) -> tuple[int, ...]:
        """Every seat's points of the round from ``sim``, played out by max-n."""
        self.nodes += 1
        if self.nodes > self.limit:
            raise OutOfNodes
        if sim.is_over():
            return tuple(sim.points())
        key = None
        if not sim.trick:
            key = (*sim.hands, sim.leader, sim.taker, sim.cupboard, *sim.counts)
            known = self.table.get(key)
            if known is not None:
                return known
        mover, seat = sim.to_move(), self.seat
        best, preferred = None, None
        for move in moves_of(sim):
            child = sim.copy()
            child.apply(move)
            got = self.points(child)
            rank = preference(got, mover, seat)
            if best is None or rank > preferred:
                best, preferred = got, rank
        if key is not None:
            self.table[key] = best
        return best
