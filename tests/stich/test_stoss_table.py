"""The arena's Stoß table (``stich/stoss_table.py``) from a Schafkopf game's events.

* Given a Solo stoßed up to Supra and won by its declarer, a Rufspiel with a Kontra lost by its
  declarers, one with no Stoß, a Ramsch and a thrown-in deal, when the table is made, then each
  two-party deal counts once at the level it reached, lone and partner games apart, the Ramsch and
  the thrown-in deal not at all; and each Stoß counts at the level it was given, whatever followed,
  with its giving party, how often that won, and what its giver was paid, also by the giver's kind.
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


def test_each_two_party_deal_counts_once_with_its_stosse_in_order():
    rows = stoss_table.deal_rows(EVENTS, LINEUP)
    assert [(r["lone"], r["won"], r["declarer"], [(s["kind"], s["result"], s["won"]) for s in r["stosse"]])
            for r in rows] == [
        (True, True, 480, [("heuristic", -160, False), ("search", 480, True), ("search", -160, False)]),
        (False, False, -40, [("heuristic", 40, True)]),
        (False, True, 20, []),
    ]


def test_the_table_counts_each_deal_where_it_ended_and_each_stoss_where_it_was_given():
    got = stoss_table.table(stoss_table.deal_rows(EVENTS, LINEUP) * 2)  # both seatings alike
    assert [(line["level"], line["game"], line["deals"], line["declarers_won"], line["declarer_mean"])
            for line in got["reached"]] == [
        ("none", "partner", 2, 1.0, 20.0), ("kontra", "partner", 2, 0.0, -40.0), ("supra", "lone", 2, 1.0, 480.0)]
    assert [(line["level"], line["game"], line["by"], line["deals"], line["givers_won"], line["giver_mean"])
            for line in got["given"]] == [
        ("kontra", "partner", "defenders", 2, 1.0, 40.0),
        ("kontra", "lone", "defenders", 2, 0.0, -160.0),  # the lone game's Kontra, answered up to Supra
        ("re", "lone", "declarers", 2, 1.0, 480.0),
        ("supra", "lone", "defenders", 2, 0.0, -160.0)]
    assert got["given"][1]["kinds"] == {"heuristic": {"deals": 2, "mean": -160.0}}
    text = "\n".join(stoss_table.lines(got))
    assert "supra" in text and "search 2, -160.0" in text and "heuristic 2, +40.0" in text
