"""The values a search gave several moves on the same sampled worlds, and how far to trust them.

Every move is tried in every sampled world (a world: one deal consistent with what the seat knew),
so the per-world values of two moves are paired. ``Estimates`` keeps them by move and world, with
each world's weight (inference weighs a world by how likely the others' talk and play are in it;
uniform sampling weighs each 1), and gives each move's weighted mean, the **spread** of that mean
(its standard error over the sampled worlds), and the spread of the difference of two moves' means,
taken world by world, which is what decides whether one move is worse than another at all: two
moves' values swing together with the luck of the world, so their difference is far steadier than
either value.

The standard error of a weighted mean is the usual ratio estimate,
``sqrt(sum(w_k^2 (x_k - mean)^2)) / sum(w_k)``, times ``sqrt(n / (n - 1))`` for the mean taken
from the same n worlds (with equal weights: the sample standard deviation over the root of n);
with one world, or where the seat's knowledge fixed every hidden card (``exact``), it is 0.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence


@dataclass
class Estimates:
    commands: list[dict]
    weights: list[float] = field(default_factory=list)  # one per sampled world
    columns: list[list[float]] = field(default_factory=list)  # per command, its value in each world
    exact: bool = False  # one world only, the true one, solved exactly

    def __post_init__(self):
        if not self.columns:
            self.columns = [[] for _ in self.commands]

    def add(self, values: Sequence[float], weight: float = 1.0) -> None:
        """One sampled world: each command's value in it, in ``commands``' order."""
        if len(values) != len(self.commands):
            raise ValueError("one value per command")
        self.weights.append(weight)
        for column, value in zip(self.columns, values):
            column.append(value)

    @property
    def worlds(self) -> int:
        return len(self.weights)

    def index(self, command: dict) -> int | None:
        return next((i for i, c in enumerate(self.commands) if c == command), None)

    def mean(self, i: int) -> float:
        return _mean(self.columns[i], self.weights)

    def spread(self, i: int) -> float:
        """The standard error of command ``i``'s mean."""
        return 0.0 if self.exact else _error(self.columns[i], self.weights)

    def difference_spread(self, i: int, j: int) -> float:
        """The standard error of mean(i) - mean(j), world by world."""
        if self.exact:
            return 0.0
        return _error([a - b for a, b in zip(self.columns[i], self.columns[j])], self.weights)

    def kept(self, keep: Sequence[int]) -> Estimates:
        """Only the commands at ``keep``, on the same worlds."""
        return Estimates([self.commands[i] for i in keep], list(self.weights),
                         [list(self.columns[i]) for i in keep], self.exact)


def _mean(values: Sequence[float], weights: Sequence[float]) -> float:
    total = sum(weights)
    return sum(w * v for w, v in zip(weights, values)) / total if total else 0.0


def _error(values: Sequence[float], weights: Sequence[float]) -> float:
    total = sum(weights)
    if len(values) < 2 or not total:
        return 0.0
    mean = _mean(values, weights)
    n = len(values)
    return math.sqrt(sum((w * (v - mean)) ** 2 for w, v in zip(weights, values)) * n / (n - 1)) / total
