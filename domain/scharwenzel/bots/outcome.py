"""What a deal is worth to a side: the one measure the search maximises and the arena compares.

Points and hooks are put on one scale: a hook counts as a thread (SW-7) and a thread takes 24
points of running score (SW-6), so a hook is worth 24 points. Only the difference between the
sides counts, because every point one side does not score is a point nearer the other's thread.
A Bock is worth 0 to both: the carried value goes to whoever wins a later deal.
"""
from __future__ import annotations

from typing import Mapping

HOOK_POINTS = 24


def side_value(scored: Mapping, side: int) -> int:
    """``scored`` is a ``DealScored`` event's data; the value for ``side`` (0 or 1)."""
    points, hooks = scored["points"], scored["hooks"]
    other = 1 - side
    return points[side] - points[other] + HOOK_POINTS * (hooks[side] - hooks[other])
