"""Duplicate margins: the players of a duplicate round who held the same cards, compared deal by deal.

In a duplicate round every table plays the round's base deals turned by its table index
(``duplicate.py``): hand h of deal k is held at table t by seat ``(h + t) mod n``, so each base hand
of each deal has one holder per table. ``compare`` reads each table's ``deal_records`` (its game's
``record.py``) and gives, for every (deal k, hand h) held at two tables or more, a ``Comparison``:

* each holder's ``result`` for deal k (the record's, in the game's unit: money or the tournament
  scale's points in Schafkopf, the side's points in Scharwenzel, the round's points in Scharfe
  Schoten) and its **margin**: its result minus the mean of all holders' results for those cards
  (above zero: it did better with them than the field). The margins of one comparison sum to 0;
  they are for the players' history and for a leaderboard of margins (a "daily challenge").
* a rating ``Match`` of individuals: each holder its own team, ranked by result (higher first, equal
  results tie), ``deal`` k. A match compares seats of different tables, so its seats are the
  **round's seats**: table t's seat s is ``t * n + s`` (``round_seat``), which is the position of
  its participant in the round's draw read table by table (``RoundDrawn.tables[t].participants[s]``).

What is comparable:

* Deals take the same numbers at every table, thrown-in ones included (a Schafkopf deal everybody
  passed is a result too: 0, or the payment into the Stock, against what the others made of the
  cards). Only deals within the round's preset set (``deals``: ``duplicate.deal_count``) are
  compared: beyond it a table deals from its own seed, so its cards are its own.
* A deal a table never dealt or never finished has no record there (its game was cut short first,
  or it played its length in fewer deal numbers: Schafkopf with thrown-in deals that count), so
  that table is left out of that deal's comparisons.
* A Schafkopf deal dealt as a Schieberrunde (a won Herz-Solo before it at that table,
  ``details.schieberrunde``) is left out for that table: Vorhand gets both black Obers first, so
  its hands are not the preset's.
* A result is what the deal gave at its table, as its total counts it, so it includes what the
  table's own earlier deals carried into it: a Stock won (``all_pass: stock``), doublings after a
  thrown-in deal (``redeal_double``), a Scharwenzel Bock (``details.bock_in``). The tournament
  preset and the default rules carry nothing in Schafkopf; Scharwenzel's Bock is the game's own.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Mapping, Sequence

from ..game import rank_places
from ..record import DealRecord, Match
from .standings import held_hand


@dataclass(frozen=True)
class Holding:
    """One holder of one base hand of one deal: where it sat, what the deal gave it, and its margin."""

    table: int
    seat: int
    result: int
    margin: float  # result minus the mean of every holder's result for these cards

    def to_json(self) -> dict:
        return {"table": self.table, "seat": self.seat, "result": self.result, "margin": self.margin}


@dataclass(frozen=True)
class Comparison:
    """Base hand ``hand`` of deal ``deal`` at every table that played it, in table order."""

    deal: int
    hand: int
    holdings: tuple[Holding, ...]
    match: Match  # each holder its own team, by round seat (``round_seat``)

    def to_json(self) -> dict:
        return {"deal": self.deal, "hand": self.hand, "holdings": [h.to_json() for h in self.holdings],
                "match": self.match.to_json()}


def round_seat(table: int, seat: int, players: int) -> int:
    """A seat of a whole round: the position of table ``table``'s seat ``seat`` in the draw read table by table."""
    return table * players + seat


def comparable(record: DealRecord, deals: int) -> bool:
    """Was this deal dealt from the round's presets as they are?"""
    return record.deal < deals and not record.details.get("schieberrunde")


def compare(tables: Mapping[int, Sequence[DealRecord]], players: int, deals: int) -> list[Comparison]:
    """``tables``: each table's index and its game's ``deal_records``; ``deals``: how many preset deals
    the round drew. One comparison per (deal, hand) held at two tables or more, by deal, then hand."""
    held: dict[tuple[int, int], list[tuple[int, int, int]]] = defaultdict(list)
    for table in sorted(tables):
        for record in tables[table]:
            if not comparable(record, deals):
                continue
            for seat, result in enumerate(record.results):
                held[(record.deal, held_hand(seat, table, players))].append((table, seat, result))
    out = []
    for (deal, hand), holders in sorted(held.items()):
        if len(holders) < 2:
            continue  # nobody to compare with
        count, total = len(holders), sum(result for _, _, result in holders)
        holdings = tuple(Holding(table, seat, result, (count * result - total) / count)
                         for table, seat, result in holders)
        match = Match(teams=tuple((round_seat(h.table, h.seat, players),) for h in holdings),
                      ranks=tuple(rank_places([h.result for h in holdings])), deal=deal)
        out.append(Comparison(deal, hand, holdings, match))
    return out
