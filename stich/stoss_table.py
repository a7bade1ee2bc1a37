"""``stich arena``'s Stoß table for Schafkopf: how far the Stöße went in the arena's deals, and
what each Stoß paid whoever gave it.

Every played deal with two parties (not a Ramsch, not thrown in) counts once per seating, lone
games (one declarer against three) and partner games apart. Two views of the same deals:

* **reached**: each deal at the last level its Stöße reached (none, Kontra, Re, Supra, Resupra):
  the deals, how often the declaring party won, and what the declarer was paid on average (a
  partner is paid the same).
* **given**: each Stoß at the level it was given, whatever followed it (a Supra answered by a
  Resupra counts as a Supra given): the deals, the giving party (the defenders give Kontra and
  Supra, the declaring party Re and Resupra), how often it won, and what the giver was paid on
  average, also by the giver's kind. A level that loses for whoever gives it is a decision to mend
  (issue 36 item 6).

The deal's facts come from its events (``domain.schafkopf.record.deal_records``), the kinds from the
seating.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from domain.record import DEFENDER, WON
from domain.schafkopf.record import deal_records

LEVELS = ("none", "kontra", "re", "supra", "resupra")


def deal_rows(events: Sequence, lineup: Sequence[str]) -> list[dict]:
    """One row per played two-party deal of a game: lone or not, whether the declaring party won,
    the declarer's result, and each Stoß in order with its giver's kind and result."""
    rows = []
    for record in deal_records([{"type": e.type, "data": e.data} for e in events]):
        if record.game_type in ("ramsch", "thrown_in", "schieberrunde_paid"):
            continue
        seats = range(len(record.roles))
        declaring = [seat for seat in seats if record.roles[seat] != DEFENDER]
        givers = list(record.details.get("stoss") or ())[:len(LEVELS) - 1]
        rows.append({"lone": len(declaring) == 1, "won": record.outcomes[declaring[0]] == WON,
                     "declarer": record.results[declaring[0]],
                     "stosse": [{"kind": lineup[seat], "result": record.results[seat],
                                 "won": record.outcomes[seat] == WON} for seat in givers]})
    return rows


def _mean(values: Sequence[float]) -> float:
    return round(sum(values) / len(values), 1)


def table(rows: Sequence[Mapping]) -> dict[str, list[dict]]:
    """The rows summed up: ``reached`` per last level and kind of game, ``given`` per Stoß level and
    kind of game, levels in order."""
    reached, given = [], []
    for lone in (False, True):
        game = "lone" if lone else "partner"
        mine = [r for r in rows if r["lone"] == lone]
        for number, level in enumerate(LEVELS):
            there = [r for r in mine if len(r["stosse"]) == number]
            if there:
                reached.append({"level": level, "game": game, "deals": len(there),
                                "declarers_won": round(sum(r["won"] for r in there) / len(there), 3),
                                "declarer_mean": _mean([r["declarer"] for r in there])})
            stosse = [r["stosse"][number - 1] for r in mine if number and len(r["stosse"]) >= number]
            if stosse:
                kinds = sorted({s["kind"] for s in stosse})
                given.append({"level": level, "game": game, "by": "defenders" if number % 2 else "declarers",
                              "deals": len(stosse), "givers_won": round(sum(s["won"] for s in stosse) / len(stosse), 3),
                              "giver_mean": _mean([s["result"] for s in stosse]),
                              "kinds": {kind: {"deals": len(of), "mean": _mean([s["result"] for s in of])}
                                        for kind in kinds for of in [[s for s in stosse if s["kind"] == kind]]}})
    return {"reached": reached, "given": given}


def lines(summed: Mapping[str, Sequence[Mapping]]) -> list[str]:
    """The table as text, for the arena's report on the terminal."""
    out = ["  Stoß level reached  game     deals  declarers won  declarer's mean"]
    for line in summed["reached"]:
        out.append(f"  {line['level']:<18} {line['game']:<8} {line['deals']:>5}  {line['declarers_won']:>13.0%}  "
                   f"{line['declarer_mean']:>+15.1f}")
    out.append("  Stoß given          game     deals  by         givers won  giver's mean  by kind: deals, mean")
    for line in summed["given"]:
        kinds = "; ".join(f"{kind} {k['deals']}, {k['mean']:+.1f}" for kind, k in line["kinds"].items())
        out.append(f"  {line['level']:<18} {line['game']:<8} {line['deals']:>5}  {line['by']:<10} "
                   f"{line['givers_won']:>10.0%}  {line['giver_mean']:>+12.1f}  {kinds}")
    return out
