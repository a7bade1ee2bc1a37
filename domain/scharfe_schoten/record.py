"""A finished Scharfe Schoten game for its players' history and ratings (``domain/record.py``).

Each round's ``RoundScored`` is a record (``game_type`` ``round``): every seat plays for itself (role
``player``), its result is the round's points (SS-8), and it won the round when no seat scored more
(several may share the top), lost otherwise, and every seat is ``even`` when all scored alike.
``details``: the round (1-based), its starting seat, each seat's prediction and how each half of it
came out (``most_result`` / ``fewest_result``: ``unique``, ``tied`` or ``wrong``, and the ``bonus``
for two right ones), and each seat's collection by colour (``counts``).

The game is one rating match of every seat for itself, ranked by its totals as the rulebook ranks them
(SS-9: highest total wins, equal totals share the place): ``GameEnded``'s, or for a game cut short
(``GameCutShort``) the totals of the rounds scored so far, as the table ranks a cut game; none if no
round was scored.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..game import rank_places
from ..record import EVEN, LOST, PLAYER, WON, DealRecord, Match


def _predictions(data: Mapping[str, Any]) -> list[dict]:
    return [{"most": p["most"], "fewest": p["fewest"], "most_result": r["most"], "fewest_result": r["fewest"],
             "bonus": r["bonus"]} for p, r in zip(data["predictions"], data["results"])]


def deal_records(events: Sequence[Mapping[str, Any]]) -> list[DealRecord]:
    records = []
    starter = None
    for event in events:
        kind, data = event.get("type"), event.get("data") or {}
        if kind == "HandsDealt":
            starter = data["starter"]
        if kind != "RoundScored":
            continue
        points = tuple(data["points"])
        best = max(points)
        outcomes = tuple(EVEN if min(points) == best else WON if p == best else LOST for p in points)
        details = {"round": data["round"], "starter": starter, "predictions": _predictions(data),
                   "counts": data["counts"]}
        records.append(DealRecord(deal=data["deal"], game_type="round", roles=(PLAYER,) * len(points),
                                  results=points, outcomes=outcomes, details=details))
    return records


def rating_matches(events: Sequence[Mapping[str, Any]]) -> list[Match]:
    """Every seat for itself; a game cut short before any round was scored: none."""
    totals, ended = None, False
    for event in events:
        kind = event.get("type")
        if kind in ("RoundScored", "GameEnded"):
            totals = list(event["data"]["totals"])
        ended = ended or kind in ("GameEnded", "GameCutShort")
    if totals is None or not ended:
        return []
    return [Match(teams=tuple((seat,) for seat in range(len(totals))), ranks=tuple(rank_places(totals)))]
