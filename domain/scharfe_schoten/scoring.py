"""Scoring a round's collection against a prediction (ruling SS-8)."""
from __future__ import annotations

from typing import Mapping

from .cards import COLOURS

POINTS = {"unique": 5, "tied": 3, "wrong": 0}


def prediction_result(counts: Mapping[str, int], colour: str, kind: str) -> str:
    """'unique', 'tied' or 'wrong' for a "most" or "fewest" prediction.

    "most" is right when no other colour has strictly more, unique when every
    other colour has strictly fewer; "fewest" mirrors it. An empty collection
    therefore makes every prediction a tie, which gives the rulebook's 6.
    """
    mine = counts[colour]
    others = [counts[other] for other in COLOURS if other != colour]
    if kind == "most":
        beaten, unique = any(o > mine for o in others), all(o < mine for o in others)
    else:
        beaten, unique = any(o < mine for o in others), all(o > mine for o in others)
    if beaten:
        return "wrong"
    return "unique" if unique else "tied"


def score_prediction(counts: Mapping[str, int], most: str, fewest: str) -> dict:
    """The points for one seat, with the parts that make them up (for the event)."""
    most_result = prediction_result(counts, most, "most")
    fewest_result = prediction_result(counts, fewest, "fewest")
    both_right = most_result != "wrong" and fewest_result != "wrong"
    # Both right implies count(most) >= count(fewest), so the bonus is never negative.
    bonus = counts[most] - counts[fewest] if both_right else 0
    return {
        "most": most_result,
        "fewest": fewest_result,
        "bonus": bonus,
        "points": POINTS[most_result] + POINTS[fewest_result] + bonus,
    }
