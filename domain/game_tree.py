"""Solving a trick-taking deal with every card known: alpha-beta over the game's simulator.

Two parties play against each other (Schafkopf's declarers and defenders, Scharwenzel's two
sides), so the deal's value for one seat is a minimax value: the seat's party takes the
maximum, the other party the minimum. A game supplies what differs (``Position``): who is on
which party, the moves (equivalent cards merged, the likely best first), the value of a finished
deal and a key for the transposition table. The table is only consulted at trick boundaries:
there, hands that reached the same cards left by a different order of play (the same points
and tricks so far) have the same value, and inside a trick a key would rarely repeat.

The search counts its nodes and gives up (``OutOfNodes``) past its budget, so what it may solve
does not depend on the machine's speed.
"""
from __future__ import annotations

INFINITY = float("inf")
EPSILON = 1e-6  # below any difference between two values of a deal


class OutOfNodes(Exception):
    """The node budget ran out before the position was solved."""


class Position:
    """One game's rules for the solver, for one simulator (a subclass per game). ``side``: the
    seats whose value is maximised."""

    side: frozenset[int] = frozenset()

    def is_over(self, sim) -> bool:
        raise NotImplementedError

    def to_move(self, sim) -> int:
        raise NotImplementedError

    def moves(self, sim) -> list[int]:
        """The legal moves, one of each set of equivalent ones, the most promising first."""
        raise NotImplementedError

    def outcome(self, sim) -> float:
        """A finished deal's value for the side."""
        raise NotImplementedError

    def bounds(self, sim) -> tuple[float, float]:
        """At a trick boundary: the least and the most the side can still end with, however the
        rest is played (the other party taking every trick left, or the side). Cheap, and where
        they meet (the game is decided) nothing below needs searching."""
        return -INFINITY, INFINITY

    def key(self, sim):
        """The transposition key of a position at a trick boundary (its future and the value of
        every way it can end), or None inside a trick."""
        raise NotImplementedError


class Solver:
    """Alpha-beta with a transposition table of bounds, over copies of a simulator.

    ``nodes`` counts the positions visited over every call; past ``limit`` a call raises
    ``OutOfNodes`` (the table stays valid, so a later call with more budget reuses it)."""

    def __init__(self, position: Position, limit: int):
        self.position, self.limit, self.nodes = position, limit, 0
        self.table: dict = {}

    def values(self, sim, moves: list[int]) -> dict[int, float]:
        """The exact value for the side of each of ``moves`` (legal for the seat to move in
        ``sim``), the rest played perfectly by both parties."""
        out, guess = {}, 0.0
        for move in moves:
            child = sim.copy()
            child.apply(move)
            out[move] = guess = self.value(child, guess)
        return out

    def value(self, sim, guess: float = 0.0) -> float:
        """The exact value of ``sim`` for the side, by MTD(f): zero-window searches from ``guess``
        until the bounds meet. A deal's payout takes few distinct values, so a few narrow
        searches, which cut far more than one wide one, find it."""
        low, high, got = -INFINITY, INFINITY, guess
        while low < high:
            beta = got if got > low else low + EPSILON
            got = self._search(sim, beta - EPSILON, beta)
            if got < beta:
                high = got
            else:
                low = got
        return got

    def _search(self, sim, alpha: float, beta: float) -> float:
        self.nodes += 1
        if self.nodes > self.limit:
            raise OutOfNodes
        position = self.position
        if position.is_over(sim):
            return position.outcome(sim)
        key = position.key(sim)
        low, high = -INFINITY, INFINITY
        if key is not None:
            least, most = position.bounds(sim)
            if least >= beta or least == most:
                return least
            if most <= alpha:
                return most
            bounds = self.table.get(key)
            if bounds is not None:
                low, high = bounds
                if low >= beta or low == high:
                    return low
                if high <= alpha:
                    return high
                alpha, beta = max(alpha, low), min(beta, high)
        maximise = position.to_move(sim) in position.side
        best = -INFINITY if maximise else INFINITY
        a, b = alpha, beta
        for move in position.moves(sim):
            child = sim.copy()
            child.apply(move)
            got = self._search(child, a, b)
            if maximise:
                if got > best:
                    best = got
                    if best > a:
                        a = best
            elif got < best:
                best = got
                if best < b:
                    b = best
            if a >= b:
                break
        if key is not None:
            # Fail-soft: a value at or outside the window bounds the true value from one side only.
            if best <= alpha:
                high = min(high, best)
            elif best >= beta:
                low = max(low, best)
            else:
                low = high = best
            self.table[key] = (low, high)
        return best


def merge_equivalent(legal: int, live: int, orders, masks, worth) -> list[int]:
    """One card of each run of equivalent legal cards (a mask), lowest first: of one follow key
    and one worth, with no live card of another seat (or an illegal one of this seat's) ranked
    between them. Playing either card of a run comes to the same. ``live``: a mask of every card
    still in a hand or on the table; ``orders[key]``: the cards of a follow key, weakest first;
    ``masks[key]``: the same cards as a mask; ``worth[card]``: what taking the card scores."""
    out = []
    for key, cards in enumerate(orders):
        if not legal & masks[key]:
            continue
        previous = -1
        for card in cards:
            if not live >> card & 1:
                continue
            if not legal >> card & 1:
                previous = -1
            elif previous < 0 or worth[previous] != worth[card]:
                out.append(card)
                previous = card
            else:
                previous = card  # the run goes on: its lowest card stands for it
    return out
