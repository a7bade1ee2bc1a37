"""A table's seats: who plays each (a person, or a bot of a kind and budget), and which player holds it.

A seat may be a **player's**: a registered identity that outlives a game, named by its handle.
``GameCreated`` may assign a human seat to a player (a pool's table, a bulk pairing by handle, a
tournament's table), and a free seat is taken by a player as itself (``SeatTaken.player``). Either
way the handle is public, so exports, transcripts and verification carry who sat where; a seat
without one is anonymous, as seats always were. Only its player takes an assigned seat, or takes a
player's seat again once abandoned: the table refuses anyone else (``PlayerSeat``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from . import errors
from .bots.roster import default_playouts  # imports no game: the default is looked up when a seat needs it

BOT_KINDS = ("random", "heuristic", "search")
# A search bot's budget is a number of playouts a decision (its seat's ``playouts``; omitted: its
# game's default, recorded in GameCreated so that the game's bots replay alike on any machine),
# and the wall clock only a safety net: at most ``budget_ms`` a decision, whatever the playouts.
DEFAULT_BUDGET_MS = 500
BUDGET_MS_RANGE = (10, 2000)
PLAYOUTS_RANGE = (8, 20_000)
# A player's handle: 3..24 letters, digits, _ and -, starting with a letter or digit; unique whatever
# the case (the registry's business), recorded as the player registered it.
HANDLE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{2,23}")


class PlayerSeat(errors.RuleViolation):
    """The seat is assigned to (or held by) another player, or the player sits at this table already."""

    code = "player_seat"


@dataclass(frozen=True)
class Seat:
    kind: str  # human | bot
    bot: str | None = None
    taken: bool = False
    entropy: str = ""
    budget_ms: int | None = None  # a search bot's wall-clock cap per decision (the safety net)
    playouts: int | None = None  # a search bot's budget per decision; None (games before it existed): the default
    generation: int = 0  # how often the seat was taken again after it was abandoned (its token's generation)
    player: str | None = None  # the handle of the player it is assigned to or taken by; None: anonymous

    def to_json(self, number: int) -> dict:
        out = {"seat": number, "kind": self.kind, "taken": self.taken}
        if self.bot:
            out["bot"] = self.bot
        if self.budget_ms is not None:
            out["budget_ms"] = self.budget_ms
        if self.playouts is not None:
            out["playouts"] = self.playouts
        if self.player is not None:
            out["player"] = self.player
        return out

    @classmethod
    def recorded(cls, raw: Mapping[str, Any]) -> "Seat":
        """A seat as ``GameCreated`` records it."""
        return cls(raw["kind"], raw.get("bot"), budget_ms=raw.get("budget_ms"), playouts=raw.get("playouts"),
                   player=raw.get("player"))


def player_of(command: Mapping[str, Any]) -> str | None:
    """The handle a ``take_seat`` names (None: an anonymous seat); InvalidCommand when it is not one."""
    player = command.get("player")
    if player is not None and not (isinstance(player, str) and HANDLE.fullmatch(player)):
        raise errors.InvalidCommand(f"player must be a handle ({HANDLE.pattern}), not {player!r}")
    return player


def check_taker(seats: tuple[Seat, ...], seat: int, player: str | None) -> None:
    """Who may take ``seat``: its own player if it has one, and a player only where it sits nowhere else."""
    assigned = seats[seat].player
    if assigned is not None and player != assigned:
        raise PlayerSeat(f"seat {seat} is player {assigned}'s: only that player takes it")
    if player is not None and any(s.player == player for n, s in enumerate(seats) if n != seat):
        raise PlayerSeat(f"player {player} has a seat at this table already")


def _search_option(raw: Mapping, name: str, what: str, bot: str, bounds: tuple[int, int], unit: str,
                   where: str, problems: dict[str, list[str]]) -> int | None:
    """A search seat's whole-number option ``name`` (``what`` it is to a reader), None when omitted;
    a problem when another bot names it or it is out of ``bounds``."""
    value = raw.get(name)
    low, high = bounds
    if value is not None and bot != "search":
        problems[f"{where}.{name}"] = [f"only a search bot takes {what}"]
    elif value is not None and (not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high):
        problems[f"{where}.{name}"] = [f"must be a whole number of {unit} {low}..{high}"]
    return value


def validate_seats(game: str, players: int, seats: Any) -> list[Seat]:
    """The creator's seats (raises InvalidSetup naming each bad field); None: every seat human."""
    if seats is None:
        return [Seat("human") for _ in range(players)]
    if len(seats) != players:
        raise errors.InvalidSetup({"seats": [f"expected {players} seats, got {len(seats)}"]})
    out = []
    problems: dict[str, list[str]] = {}
    for i, raw in enumerate(seats):
        kind = raw.get("kind")
        if kind == "human":
            if any(raw.get(key) is not None for key in ("bot", "budget_ms", "playouts")):
                problems[f"seats[{i}].bot"] = ["only bot seats name a bot or a budget"]
            player = raw.get("player")
            if player is not None and not (isinstance(player, str) and HANDLE.fullmatch(player)):
                problems[f"seats[{i}].player"] = [f"must be a player's handle ({HANDLE.pattern})"]
            out.append(Seat("human", player=player))
        elif kind == "bot":
            bot = raw.get("bot", "random")
            if bot not in BOT_KINDS:
                problems[f"seats[{i}].bot"] = [f"unknown bot {bot!r}; one of {list(BOT_KINDS)}"]
            if raw.get("player") is not None:
                problems[f"seats[{i}].player"] = ["only a human seat is a player's"]
            budget = _search_option(raw, "budget_ms", "a budget", bot, BUDGET_MS_RANGE, "milliseconds",
                                    f"seats[{i}]", problems)
            playouts = _search_option(raw, "playouts", "playouts", bot, PLAYOUTS_RANGE, "playouts",
                                      f"seats[{i}]", problems)
            if bot == "search":
                budget = DEFAULT_BUDGET_MS if budget is None else budget
                playouts = default_playouts(game) if playouts is None else playouts
            out.append(Seat("bot", bot=bot, budget_ms=budget, playouts=playouts))
        else:
            problems[f"seats[{i}].kind"] = ["must be 'human' or 'bot'"]
    named = [s.player.lower() for s in out if s.player]
    for handle in sorted({h for h in named if named.count(h) > 1}):
        problems.setdefault("seats", []).append(f"player {handle!r} has one seat a game")
    if problems:
        raise errors.InvalidSetup(problems)
    return out
