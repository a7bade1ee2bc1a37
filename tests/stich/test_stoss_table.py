"""The arena's Stoß table (``stich/stoss_table.py``) from a Schafkopf game's events.

* Given a Solo stoßed up to Supra and won by its declarer, a Rufspiel with a Kontra lost by its
  declarers, one with no Stoß, a Ramsch and a thrown-in deal, when the table is made, then each
  two-party deal counts once at its level, lone and partner games apart, the Ramsch and the
  thrown-in deal not at all, and each level names the last Stoß's giver by kind and what it was paid.
"""
from __future__ import annotations

from types import SimpleNamespace

from stich import stoss_table


def event(kind: str, **data):
    return SimpleNamespace(type=kind, data=data)


def settled(deal: int, game: str, declarers: list[int], won: bool, payments: list[int], multiplier: int = 1):
    return event("DealSettled", deal=deal, game=game, declarers=declarers, declarer=declarers[0], won=won,
                 payments=payments, multiplier=multiplier)


EVENTS = [
    event("HandsDealt", dealer=3),
    event("StossGiven", seat=1), event("StossGiven", seat=0), event("StossGiven", seat=2),  # Kontra, Re, Supra
    settled(0, "solo", [0], True, [480, -160, -160, -160], multiplier=8),
    event("HandsDealt", dealer=0),
    event("StossGiven", seat=3),  # Kontra
    settled(1, "rufspiel", [1, 2], False, [40, -40, -40, 40], multiplier=2),
    event("HandsDealt", dealer=1),
    settled(2, "rufspiel", [2, 3], True, [-20, -20, 20, 20]),
    event("HandsDealt", dealer=2),
    event("DealSettled", deal=3, game="ramsch", declarers=[1], declarer=1, won=False, payments=[10, -30, 10, 10],
          multiplier=1, seat_points=[30, 61, 20, 9], jungfrauen=[], durchmarsch=False),
    event("HandsDealt", dealer=3),
    event("DealThrownIn", deal=4, payments=[0, 0, 0, 0]),
]
LINEUP = ["search", "heuristic", "search", "heuristic"]


def test_each_two_party_deal_counts_once_at_its_level():
    rows = stoss_table.deal_rows(EVENTS, LINEUP)
    assert [(r["level"], r["lone"], r["won"], r["declarer"], r["giver_kind"], r["giver"]) for r in rows] == [
        ("supra", True, True, 480, "search", -160),
        ("kontra", False, False, -40, "heuristic", 40),
        ("none", False, True, 20, None, None),
    ]


def test_the_table_sums_the_levels_in_order_and_names_the_givers():
    rows = stoss_table.deal_rows(EVENTS, LINEUP) * 2  # both seatings alike
    got = stoss_table.table(rows)
    assert [(line["level"], line["game"], line["deals"]) for line in got] == [
        ("none", "partner", 2), ("kontra", "partner", 2), ("supra", "lone", 2)]
    assert got[0]["declarers_won"] == 1.0 and got[0]["declarer_mean"] == 20.0 and "givers" not in got[0]
    assert got[1]["declarers_won"] == 0.0 and got[1]["givers"] == {"heuristic": {"deals": 2, "mean": 40.0}}
    assert got[2]["declarer_mean"] == 480.0 and got[2]["givers"] == {"search": {"deals": 2, "mean": -160.0}}
    text = "\n".join(stoss_table.lines(got))
    assert "supra" in text and "search 2, -160.0" in text and "heuristic 2, +40.0" in text
