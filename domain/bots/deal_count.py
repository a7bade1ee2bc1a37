"""How many ways the unseen cards can be dealt to the other seats: none, one, or more.

Every game's determinization deals the cards a seat has not seen to the other seats within their
hand sizes and what the seat knows of them (voids, cards placed). Where exactly one way fits, the
seat's knowledge fixes every hidden card's holder, and the analysis can solve the one deal there
is instead of sampling (``domain/bots/analysis.py``: ``exact``).
"""
from __future__ import annotations

from typing import Mapping, Sequence

MORE = 2  # "more than one way"
STEPS = 10_000  # past this many placements the count gives up and says MORE: never "fixed" by mistake


def count_deals(cards: Sequence[str], allowed: Mapping[str, Sequence[int]], room: Mapping[int, int]) -> int:
    """0, 1 or ``MORE``: the ways to give every card of ``cards`` to one of its ``allowed`` seats,
    each seat taking exactly its ``room``. The most constrained cards go first."""
    order = sorted(cards, key=lambda card: len(allowed[card]))
    free = dict(room)
    steps = [STEPS]

    def ways(i: int) -> int:
        if i == len(order):
            return 0 if any(free.values()) else 1
        steps[0] -= 1
        if steps[0] < 0:
            return MORE
        found = 0
        for seat in allowed[order[i]]:
            if free.get(seat, 0) > 0:
                free[seat] -= 1
                found += ways(i + 1)
                free[seat] += 1
                if found >= MORE:
                    return MORE
        return found

    return ways(0)
