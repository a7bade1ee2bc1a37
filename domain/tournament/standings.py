"""Points per round and the standings, with their tie-breaks.

A participant's **result** at a table is its game's final total for its seat
(``scores.totals``): money in Schafkopf (the tournament scale's points with the
``tournament`` preset), threads in Scharwenzel (its side's), points in
Scharfe Schoten.

**Points.** Without duplicate, a round's points are the result. In a duplicate
round every table plays the same deals with the hands rotated (see
``duplicate.py``), so each hand — the same cards in the same position to the
dealer — is held by one participant per table. A participant's points are its
margins over everyone else in the round who held the same hand: the sum, over
each of them, of its result minus theirs. That is n × (its result − the mean
of the n results for that hand), so above zero means it did better with those
cards than the field; every hand has one holder per table, so n is the same
for everyone and the order is that of the differences from the mean. It is
also a whole number, as every number in an event is.

**Standings.** Participants are ordered by total points, then by table wins
(rounds in which it placed first at its table, shared first places included),
then by its best single round's points. Participants equal on all three share
a place (1, 2, 2, 4) and are listed by participant number.
"""
from __future__ import annotations

from .state import RoundState


def held_hand(seat: int, table: int, players: int) -> int:
    """Which of a duplicate round's hands ``seat`` holds at ``table`` (the hands turn by one seat a table)."""
    return (seat - table) % players


def round_points(round_: RoundState, players: int, duplicate: bool) -> dict[int, int]:
    """Each participant's points for a round whose tables have all finished."""
    results = [(table.table, r) for table in round_.tables for r in table.results or ()]
    if not duplicate:
        return {r.participant: r.result for _, r in results}
    by_hand: dict[int, list[int]] = {}
    for table, r in results:
        by_hand.setdefault(held_hand(r.seat, table, players), []).append(r.result)
    return {r.participant: len(held) * r.result - sum(held)  # = the sum of r.result - other for the others
            for table, r in results for held in [by_hand[held_hand(r.seat, table, players)]]}


def standings(config: dict, rounds: tuple[RoundState, ...]) -> list[dict]:
    """The standings over the finished rounds, best first."""
    players, duplicate = config["players"], config["duplicate"]
    count = len(config["participants"])
    points = [0] * count
    raw = [0] * count
    wins = [0] * count
    best: list[int | None] = [None] * count
    played = [0] * count
    for round_ in rounds:
        if not round_.finished:
            continue
        earned = round_points(round_, players, duplicate)
        for table in round_.tables:
            for r in table.results:
                p = r.participant
                points[p] += earned[p]
                raw[p] += r.result
                wins[p] += r.place == 1
                best[p] = earned[p] if best[p] is None else max(best[p], earned[p])
                played[p] += 1
    keys = [(points[p], wins[p], best[p] if best[p] is not None else 0) for p in range(count)]
    places = [1 + sum(1 for other in keys if other > mine) for mine in keys]  # tuples: tie-break order
    rows = []
    for p in sorted(range(count), key=lambda p: (places[p], p)):
        entry = config["participants"][p]
        rows.append({"place": places[p], "participant": p, "kind": entry["kind"], **(
            {"bot": entry["bot"]} if entry["kind"] == "bot" else {}),
            "points": points[p], "results": raw[p], "wins": wins[p], "best_round": best[p],
            "rounds_played": played[p]})
    return rows
