"""A finished Scharwenzel game for its players' history and ratings (``domain/record.py``).

Partners sit alternately (SW-8: even seats are side 0, odd seats side 1) for the whole game. Each
deal's ``DealScored`` is a record:

* ``game_type`` is the line of the rulebook's score table the deal was played under: ``clubs``
  (clubs trumps after a bid, 4 for the game), ``other_suit`` (another trump suit, 2),
  ``all_passed`` (clubs because all passed, 2), or ``announced_tout`` when a side announced tout
  before the first card (SW-7: that replaces the deal's normal scoring). What the play made of it is
  in ``details`` and the outcomes: ``bock`` (equal tricks, SW-5), ``tout`` (every trick),
  ``tout_made``, ``first`` ("for the first", 2 or 0), ``matadors`` and ``matador_cards``.
* Roles: the **declarer** is the seat that set the deal's contract — the one who announced tout, else
  the one who named trumps (``named_by``; after a "besser" bid the bidder, for whom clubs are named
  automatically). His side are **partners**, the other side **defenders**. When all passed and
  nobody announced tout nobody declared anything: every seat is a ``player`` (the sides still play,
  as results and outcomes show).
* ``results``: each seat's side's points for the deal (the score sheet's points: game, "first",
  matadors and any Bock carried in); hooks are in ``details.hooks`` per side. Outcomes: the side
  that scored the deal (``winner``) won, the other lost; a Bock is ``even`` for all.

The game is one rating match of its two sides, ranked by their threads (lines and hooks, a
Petersdorfer counting two): ``GameEnded``'s, or for a game cut short (``GameCutShort``) the threads
drawn so far, as the table ranks a cut game; none if no deal was scored.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..game import rank_places
from ..record import DECLARER, DEFENDER, EVEN, LOST, PARTNER, PLAYER, WON, DealRecord, Match
from .scoring import side_of

CLUBS, OTHER_SUIT, ALL_PASSED, ANNOUNCED_TOUT = "clubs", "other_suit", "all_passed", "announced_tout"
# DealScored's facts a history shows, as the event names them.
DETAILS = ("named_by", "bid", "trumps", "after_all_passed", "tricks", "majority_side", "winner", "game", "first",
           "matadors", "matador_cards", "bock", "bock_in", "bock_out", "tout", "announced_tout", "tout_made",
           "hooks")


def _players(events: Sequence[Mapping[str, Any]]) -> int:
    """The table's size, from ``GameCreated`` or, in the game's own events, the first deal's hands."""
    for event in events:
        if event.get("type") == "GameCreated":
            return int(event["data"]["players"])
        if event.get("type") == "HandsDealt":
            return len(event["data"]["hands"])
    return 0  # nothing was dealt: nothing to record


def _game_type(data: Mapping[str, Any]) -> str:
    if data.get("announced_tout") is not None:
        return ANNOUNCED_TOUT
    if data["after_all_passed"]:
        return ALL_PASSED
    return CLUBS if data["trumps"] == "C" else OTHER_SUIT


def deal_records(events: Sequence[Mapping[str, Any]]) -> list[DealRecord]:
    players = _players(events)
    seats = range(players)
    records = []
    announced_by = None
    for event in events:
        kind, data = event.get("type"), event.get("data") or {}
        if kind == "HandsDealt":
            announced_by = None
        elif kind == "ToutAnnounced":
            announced_by = data["seat"]
        if kind != "DealScored":
            continue
        declarer = announced_by if announced_by is not None else data.get("named_by")
        if declarer is None:
            roles = (PLAYER,) * players
        else:
            roles = tuple(DECLARER if seat == declarer else PARTNER if side_of(seat) == side_of(declarer)
                          else DEFENDER for seat in seats)
        winner = data["winner"]
        outcomes = tuple(EVEN if winner is None else WON if side_of(seat) == winner else LOST for seat in seats)
        details = {key: data[key] for key in DETAILS if key in data}
        details["tout_announced_by"] = announced_by
        records.append(DealRecord(deal=data["deal"], game_type=_game_type(data), roles=roles,
                                  results=tuple(data["points"][side_of(seat)] for seat in seats),
                                  outcomes=outcomes, details=details))
    return records


def _threads(events: Sequence[Mapping[str, Any]]) -> list[int] | None:
    """Each side's threads: ``GameEnded``'s, else (cut short) the sheet's so far; None: nothing scored
    or the game has not ended."""
    lines, hooks, scored, cut = [0, 0], [0, 0], False, False
    for event in events:
        kind, data = event.get("type"), event.get("data") or {}
        if kind == "GameEnded":
            return list(data["threads"])
        if kind == "ThreadWon":
            lines[data["side"]] += data["threads"]
        elif kind == "DealScored":
            scored = True
            hooks = [h + new for h, new in zip(hooks, data["hooks"])]
        elif kind == "GameCutShort":
            cut = True
    return [lines[side] + hooks[side] for side in (0, 1)] if scored and cut else None


def rating_matches(events: Sequence[Mapping[str, Any]]) -> list[Match]:
    threads = _threads(events)
    if threads is None:
        return []
    players = _players(events)
    sides = (tuple(range(0, players, 2)), tuple(range(1, players, 2)))
    return [Match(teams=sides, ranks=tuple(rank_places(threads)))]
