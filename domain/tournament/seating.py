"""Who sits where in each round, drawn from the tournament's secret seed.

Every random choice is a keyed shuffle (``domain/shuffle.py``) with the key

    HMAC-SHA256(seed, "stich-tournament-v1|" + round + "|" + purpose)

so anyone holding the seed revealed at the end can recompute every round's
seating. Purposes: ``order`` (participant numbers as decimal strings, in
number order, shuffled: round 1 of every method, and the order among equal
standings later) and ``table|<t>`` (the seats of table t's participants).

* ``random``: every round, the shuffled order cut into tables.
* ``by_standings``: from round 2, the standings order (ties in shuffled
  order) cut into tables: the strongest play together.
* ``swiss``: from round 2, in standings order, each table takes the best
  placed participant not yet seated, then fills up one at a time with the
  participant who has met those already at the table the fewest times (ties:
  the better placed), so neighbours in the standings meet while repeat
  meetings are avoided.

Seats within a table: the table's participants, keyed-shuffled.
"""
from __future__ import annotations

import hashlib
import hmac
from collections import Counter
from collections.abc import Iterable

from ..shuffle import keyed_shuffle


def tournament_key(seed: bytes, round_: int, purpose: str) -> bytes:
    return hmac.new(seed, f"stich-tournament-v1|{round_}|{purpose}".encode(), hashlib.sha256).digest()


def shuffled(seed: bytes, round_: int, purpose: str, items: Iterable[int]) -> list[int]:
    return [int(x) for x in keyed_shuffle([str(i) for i in items], tournament_key(seed, round_, purpose))]


def draw(seed: bytes, round_: int, method: str, count: int, players: int, places: dict[int, int],
         met: Counter) -> list[list[int]]:
    """The tables of ``round_`` (1-based), each its participants by seat.

    ``places``: each participant's place in the standings (equal standings share one);
    ``met``: how often each pair (low, high) has shared a table."""
    order = shuffled(seed, round_, "order", range(count))
    if round_ == 1 or method == "random":
        groups = [order[i:i + players] for i in range(0, count, players)]
    else:
        position = {p: i for i, p in enumerate(order)}
        standing = sorted(range(count), key=lambda p: (places[p], position[p]))  # ``order`` breaks ties
        groups = cut(standing, players) if method == "by_standings" else swiss(standing, players, met)
    return [shuffled(seed, round_, f"table|{t}", group) for t, group in enumerate(groups)]


def cut(order: list[int], players: int) -> list[list[int]]:
    return [order[i:i + players] for i in range(0, len(order), players)]


def swiss(order: list[int], players: int, met: Counter) -> list[list[int]]:
    remaining = list(order)
    groups = []
    while remaining:
        table = [remaining.pop(0)]
        while len(table) < players:
            best = min(range(len(remaining)),
                       key=lambda i: (sum(met[pair(x, remaining[i])] for x in table), i))
            table.append(remaining.pop(best))
        groups.append(table)
    return groups


def pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def meetings(tables: Iterable[Iterable[int]]) -> Counter:
    """How often each pair of participants shared a table in ``tables``."""
    met: Counter = Counter()
    for table in tables:
        people = list(table)
        for i, a in enumerate(people):
            for b in people[i + 1:]:
                met[pair(a, b)] += 1
    return met
