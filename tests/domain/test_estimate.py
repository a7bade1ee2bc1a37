"""The analysis's estimates (``domain/bots/estimate.py``): means, spreads and a loss's spread.

* Given equal weights, a move's spread is the sample standard deviation over the root of the worlds.
* Given two moves whose values swing together, the spread of their difference, world by world, is
  far below either move's spread; with one world, or exact, every spread is 0.
* Given weights, the mean is weighted; ``kept`` keeps the worlds; a row of the wrong length is refused.
"""
from __future__ import annotations

import math
import statistics

import pytest

from domain.bots.estimate import Estimates

A, B = {"type": "play", "card": "A"}, {"type": "play", "card": "B"}


def test_equal_weights_give_the_sample_standard_error():
    got = Estimates([A, B])
    worlds = [(10.0, 8.0), (-30.0, -31.0), (50.0, 47.0), (0.0, -2.0)]
    for row in worlds:
        got.add(row)
    a = [row[0] for row in worlds]
    assert got.worlds == 4 and got.mean(0) == pytest.approx(statistics.mean(a))
    assert got.spread(0) == pytest.approx(statistics.stdev(a) / math.sqrt(4))
    differences = [x - y for x, y in worlds]
    assert got.difference_spread(0, 1) == pytest.approx(statistics.stdev(differences) / 2)
    assert got.difference_spread(0, 1) < got.spread(0) / 10  # they swing together
    assert got.index(B) == 1 and got.index({"type": "stoss"}) is None


def test_one_world_or_an_exact_value_has_no_spread():
    one = Estimates([A, B])
    one.add([3.0, 1.0])
    assert one.spread(0) == 0.0 and one.difference_spread(0, 1) == 0.0
    exact = Estimates([A, B], exact=True)
    exact.add([3.0, 1.0])
    exact.add([5.0, 1.0])
    assert exact.spread(0) == 0.0 and exact.difference_spread(0, 1) == 0.0


def test_weights_kept_worlds_and_refusals():
    got = Estimates([A, B])
    got.add([10.0, 0.0], weight=3.0)
    got.add([0.0, 0.0], weight=1.0)
    assert got.mean(0) == pytest.approx(7.5)
    only = got.kept([1])
    assert only.commands == [B] and only.weights == [3.0, 1.0] and only.columns == [[0.0, 0.0]]
    with pytest.raises(ValueError):
        got.add([1.0])
