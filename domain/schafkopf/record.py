"""A finished Schafkopf session for its players' history and ratings (``domain/record.py``).

Every deal that ended is a record, so that a seat's ``results`` add up to its total (SK-13: the totals
are the sums of the payments, the Stock's included). A deal ends in one of three events:

* ``DealSettled`` — a game was played. ``game_type`` is the game (``rufspiel``, ``solo``, …, ``sie``,
  and ``hochzeit`` or ``ramsch``). The **declarer** is the seat that named it (``DealSettled.declarer``):
  in a Hochzeit the marrying player, who named it; in a Schieberrunde whoever played the Solo. The
  **partner** is the other seat of ``declarers``: a Rufspiel's called Ace's holder, a Hochzeit's
  offering player. The rest are **defenders**; a lone game has three. A Ramsch has no parties: every
  seat is a ``player`` (there ``declarers`` names the loser, or the Durchmarsch player, which
  ``details`` give as ``loser`` / ``durchmarsch_by``). Outcomes: a party game is won or lost by its
  side as ``won`` says, whatever the price (a tariff may be 0); a Ramsch seat won or lost as its
  payment says (``even`` at a price of 0).
* ``DealThrownIn`` — everybody passed: ``thrown_in``, every seat a ``player``, ``even``, its result its
  payment into the Stock (0 without one). Nobody played, so no match.
* ``SchieberrundePaid`` — a Schieberrunde in which neither Vorhand nor the dealer played: Vorhand and
  the dealer each paid the other two the Solo price (SK-12). ``schieberrunde_paid``, every seat a
  ``player``, won or lost as its payment says (it counts towards the totals and the deals). No
  cards were played, so no match.

``results`` are the deal's payments, in the table's money (or the tournament scale's points), the
Stock's share included. ``details`` hold the deal's facts from ``DealSettled`` and the events before
it: the suit and called card, Schneider, Schwarz, Laufende, the card points and tricks of the two
sides, the value and its ``multiplier``, which seats doubled (``doppeln``) and gave a Stoß
(``stoss``, Kontra first), the doublings carried from thrown-in deals (``carried_doublings``), the
Stock's change, the auction's target, a Muss-Spiel, a Schieberrunde (``schieberrunde``: the deal was
dealt as one, so its hands are not the preset's), and a Ramsch's card points per seat, Jungfrauen and
Durchmarsch.

Each played deal is a rating match of its parties: the declaring side against the defenders (a
Rufspiel or Hochzeit two against two, a lone game one against three), the side that won ranked first;
a Ramsch is every seat for itself, ranked by its payment.
"""
from __future__ import annotations

from typing import Any, Iterator, Mapping, Sequence

from ..game import rank_places
from ..record import DECLARER, DEFENDER, EVEN, LOST, PARTNER, PLAYER, WON, DealRecord, Match

THROWN_IN, SCHIEBERRUNDE_PAID = "thrown_in", "schieberrunde_paid"
ENDINGS = ("DealSettled", "DealThrownIn", "SchieberrundePaid")
# DealSettled's facts a history shows, as the event names them.
SETTLED = ("suit", "won", "schneider", "schwarz", "laufende", "value", "multiplier", "card_points", "tricks",
           "stock", "target", "schieberrunde_next")


def _by_sign(amount: int) -> str:
    return WON if amount > 0 else LOST if amount < 0 else EVEN


def _deals(events: Sequence[Mapping[str, Any]]) -> Iterator[tuple[str, Mapping[str, Any], dict]]:
    """(ending event type, its data, the deal's facts from the events before it), deal by deal."""
    facts: dict = {}
    for event in events:
        kind, data = event.get("type"), event.get("data") or {}
        if kind == "HandsDealt":
            facts = {"dealer": data["dealer"], "doppeln": [], "stoss": []}
            if data.get("schieberrunde"):
                facts["schieberrunde"] = True
        elif kind == "DoppelnDeclared" and data.get("double"):
            facts["doppeln"].append(data["seat"])
        elif kind == "StossGiven":
            facts["stoss"].append(data["seat"])  # in order: Kontra, Re, Supra, Resupra
        elif kind == "MussSpiel":
            facts["muss"] = True
        elif kind == "GameDeclared":
            if data.get("called_ace") is not None:
                facts["called_ace"] = data["called_ace"]
            if data.get("renonce"):
                facts["renonce"] = True
        elif kind in ENDINGS:
            yield kind, data, facts


def _carried(multiplier: int, facts: Mapping[str, Any]) -> int:
    """The doublings a deal's price carried from thrown-in deals (``redeal_double``): the multiplier
    is 2 to the power of Doppeln + Stöße + these."""
    return max(0, multiplier.bit_length() - 1 - len(facts["doppeln"]) - len(facts["stoss"]))


def _played(data: Mapping[str, Any], facts: dict) -> DealRecord:
    payments = tuple(data["payments"])
    seats = range(len(payments))
    details = {**facts, **{key: data[key] for key in SETTLED if key in data}}
    details["carried_doublings"] = _carried(data.get("multiplier", 1), facts)
    if data["game"] == "ramsch":
        side = data["declarers"][0]
        details.update(seat_points=data["seat_points"], jungfrauen=data["jungfrauen"],
                       durchmarsch=data["durchmarsch"],
                       loser=None if data["durchmarsch"] else side,
                       durchmarsch_by=side if data["durchmarsch"] else None)
        for key in ("card_points", "tricks", "won"):  # the loser's against the rest: seat_points say it all
            details.pop(key, None)
        return DealRecord(deal=data["deal"], game_type="ramsch", roles=(PLAYER,) * len(payments),
                          results=payments, outcomes=tuple(_by_sign(p) for p in payments), details=details)
    declarers, declarer = set(data["declarers"]), data["declarer"]
    roles = tuple(DECLARER if seat == declarer else PARTNER if seat in declarers else DEFENDER for seat in seats)
    won = bool(data["won"])
    outcomes = tuple(WON if (seat in declarers) == won else LOST for seat in seats)
    return DealRecord(deal=data["deal"], game_type=data["game"], roles=roles, results=payments,
                      outcomes=outcomes, details=details)


def deal_records(events: Sequence[Mapping[str, Any]]) -> list[DealRecord]:
    records = []
    for kind, data, facts in _deals(events):
        if kind == "DealSettled":
            records.append(_played(data, facts))
            continue
        payments = tuple(data["payments"])
        players = (PLAYER,) * len(payments)
        if kind == "DealThrownIn":
            details = {**facts, "stock": data.get("stock", 0), "doubles_next": bool(data.get("doubles_next"))}
            records.append(DealRecord(deal=data["deal"], game_type=THROWN_IN, roles=players, results=payments,
                                      outcomes=(EVEN,) * len(payments), details=details))
        else:
            details = {**facts, "payers": list(data["payers"]), "price": data["price"]}
            records.append(DealRecord(deal=data["deal"], game_type=SCHIEBERRUNDE_PAID, roles=players,
                                      results=payments, outcomes=tuple(_by_sign(p) for p in payments),
                                      details=details))
    return records


def rating_matches(events: Sequence[Mapping[str, Any]]) -> list[Match]:
    """One match per played deal; thrown-in deals and an unplayed Schieberrunde are none."""
    matches = []
    for record in deal_records(events):
        if record.game_type in (THROWN_IN, SCHIEBERRUNDE_PAID):
            continue
        seats = range(len(record.roles))
        if record.game_type == "ramsch":
            matches.append(Match(teams=tuple((seat,) for seat in seats), ranks=tuple(rank_places(list(record.results))),
                                 deal=record.deal))
            continue
        declaring = tuple(seat for seat in seats if record.roles[seat] != DEFENDER)
        defending = tuple(seat for seat in seats if record.roles[seat] == DEFENDER)
        won = record.outcomes[declaring[0]] == WON
        matches.append(Match(teams=(declaring, defending), ranks=(1, 2) if won else (2, 1), deal=record.deal))
    return matches
