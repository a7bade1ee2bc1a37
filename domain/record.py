"""What a finished game leaves for its players' history and ratings, in every game's terms alike.

Each game package has a ``record.py`` that reads its own finished state into these (the game's
``deal_records`` and ``rating_matches``):

* ``DealRecord``: one settled deal (a Scharfe Schoten round) as a player's history shows it — what was
  played (``game_type``), each seat's ``role`` in it, what the deal gave each seat (``results``, in the
  game's own unit) and whether that was a win. History is filtered and counted by these; a duplicate
  round compares the ``results`` of the seats that held the same cards.
* ``Match``: one rating comparison of the sides a game formed: teams of seats, each team's rank (1 best,
  equal ranks tie). A Schafkopf deal is a match of its parties (a Rufspiel two against two, a lone game
  one against three, a Ramsch every seat for itself); a Scharwenzel game of its two sides; a Scharfe
  Schoten game of every seat for itself. A duplicate round adds a match per hand of the players who
  held it at the round's tables, on the round's seats (``domain/tournament/margins.py``). Ratings are
  derived from these alone, so anyone can recompute them from the finished games.

All of it is public once the game has finished (the history records nothing before).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

# Roles a seat may have in a deal.
DECLARER, PARTNER, DEFENDER, PLAYER = "declarer", "partner", "defender", "player"
ROLES = (DECLARER, PARTNER, DEFENDER, PLAYER)  # PLAYER: a deal without parties (Ramsch, a spice round)
WON, LOST, EVEN = "won", "lost", "even"


@dataclass(frozen=True)
class DealRecord:
    deal: int  # the deal's number in its game (0-based, as the deal command counts it)
    game_type: str  # what was played, in the game's own names ("rufspiel", "wenz", "tout", "thrown_in", …)
    roles: tuple[str, ...]  # per seat, one of ROLES
    results: tuple[int, ...]  # per seat, what the deal gave it (money, game points, round points)
    outcomes: tuple[str, ...]  # per seat, WON, LOST or EVEN
    details: Mapping[str, Any] = field(default_factory=dict)  # the deal's own facts (schneider, matadors, …)

    def to_json(self) -> dict:
        return {"deal": self.deal, "game_type": self.game_type, "roles": list(self.roles),
                "results": list(self.results), "outcomes": list(self.outcomes), "details": dict(self.details)}


@dataclass(frozen=True)
class Match:
    teams: tuple[tuple[int, ...], ...]  # seats, each in one team
    ranks: tuple[int, ...]  # per team: 1 best; equal ranks tie
    deal: int | None = None  # the deal it comes from; None: the whole game

    def to_json(self) -> dict:
        return {"teams": [list(t) for t in self.teams], "ranks": list(self.ranks), "deal": self.deal}
