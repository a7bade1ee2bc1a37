"""``stich arena``'s Stoß table for Schafkopf: how far the Stöße went in the arena's deals, and
what each level paid.

Every played deal with two parties (not a Ramsch, not thrown in) counts once per seating, at its
**level**: the Stöße given (none, Kontra, Re, Supra, Resupra), in lone games (one declarer against
three) and partner games apart. For each level and kind of game the table gives the deals, how
often the declaring party won, and what the declarer was paid on average (a partner is paid the
same). Each level past none also says who gave its last Stoß, and what the giver was paid on
average: a level that loses for whoever gives it is a decision to mend (issue 36 item 6). The
deal's facts come from its events (``domain.schafkopf.record.deal_records``), the kinds from the
seating.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from domain.record import DEFENDER, WON
from domain.schafkopf.record import deal_records

LEVELS = ("none", "kontra", "re", "supra", "resupra")


def deal_rows(events: Sequence, lineup: Sequence[str]) -> list[dict]:
    """One row per played two-party deal of a game: its level, lone or not, whether the declaring
    party won, the declarer's result, and the last Stoß's giver (its kind and result)."""
    rows = []
    for record in deal_records([{"type": e.type, "data": e.data} for e in events]):
        if record.game_type in ("ramsch", "thrown_in", "schieberrunde_paid"):
            continue
        seats = range(len(record.roles))
        declaring = [seat for seat in seats if record.roles[seat] != DEFENDER]
        givers = list(record.details.get("stoss") or ())
        level = min(len(givers), len(LEVELS) - 1)
        last = givers[-1] if givers else None
        rows.append({"level": LEVELS[level], "lone": len(declaring) == 1,
                     "won": record.outcomes[declaring[0]] == WON, "declarer": record.results[declaring[0]],
                     "giver_kind": lineup[last] if last is not None else None,
                     "giver": record.results[last] if last is not None else None})
    return rows


def table(rows: Sequence[Mapping]) -> list[dict]:
    """The rows summed up per level and kind of game (lone or partner), levels in order."""
    out = []
    for level in LEVELS:
        for lone in (False, True):
            mine = [r for r in rows if r["level"] == level and r["lone"] == lone]
            if not mine:
                continue
            line = {"level": level, "game": "lone" if lone else "partner", "deals": len(mine),
                    "declarers_won": round(sum(r["won"] for r in mine) / len(mine), 3),
                    "declarer_mean": round(sum(r["declarer"] for r in mine) / len(mine), 1)}
            if level != "none":
                line["givers"] = {kind: {"deals": len(given), "mean": round(sum(r["giver"] for r in given) / len(given), 1)}
                                  for kind in sorted({r["giver_kind"] for r in mine})
                                  for given in [[r for r in mine if r["giver_kind"] == kind]]}
            out.append(line)
    return out


def lines(rows: Sequence[Mapping]) -> list[str]:
    """The table as text, for the arena's report on the terminal."""
    out = ["  Stoß level  game      deals  declarers won  declarer's mean  the last Stoß's givers: deals, mean"]
    for line in rows:
        givers = "; ".join(f"{kind} {g['deals']}, {g['mean']:+.1f}" for kind, g in line.get("givers", {}).items())
        out.append(f"  {line['level']:<11}  {line['game']:<8} {line['deals']:>6}  {line['declarers_won']:>12.0%}  "
                   f"{line['declarer_mean']:>+15.1f}  {givers}")
    return out
