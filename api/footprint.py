"""What a creation weighs against an address's quotas until it finishes (``api/quotas.py``): the
games it keeps open at once and the search budget its bots may think with (``Footprint``), and the
events its games may store (``game_events``, ``tournament_events``), each read from its body before
it is created."""
from __future__ import annotations

from dataclasses import dataclass

from domain.errors import InvalidSetup
from domain.table import DEFAULT_BUDGET_MS, Table


@dataclass(frozen=True)
class Footprint:
    """What one creation holds until it finishes: games open at once, and search budget per decision."""
    games: int = 1
    search_ms: int = 0

    def encode(self) -> str:
        return f"{self.games}:{self.search_ms}"

    @classmethod
    def decode(cls, raw) -> "Footprint":
        if raw is None:  # recorded before footprints were: one game, as it was counted then
            return cls()
        games, search_ms = (raw.decode() if isinstance(raw, bytes) else raw).split(":")
        return cls(int(games), int(search_ms))


def game_footprint(seats: list[dict] | None, clock: dict | None = None, players: int = 0) -> Footprint:
    """A game's: itself, and the cap of each seat a search may play — a search bot's (its cap or the
    default), and, when the clock's bot is the search, each human seat's (an abandoned seat is played by
    it at the default cap), so a creation is weighed by what it may become, not by what it starts as.
    ``players``: the seats when ``seats`` is None (every seat human)."""
    searched_humans = isinstance(clock, dict) and clock.get("bot") == "search"
    if seats is None:
        return Footprint(1, players * DEFAULT_BUDGET_MS if searched_humans and isinstance(players, int) else 0)
    total = 0
    for seat in seats or ():
        if seat.get("kind") == "bot" and seat.get("bot") == "search":
            total += seat.get("budget_ms") or DEFAULT_BUDGET_MS
        elif seat.get("kind", "human") == "human" and searched_humans:
            total += DEFAULT_BUDGET_MS
    return Footprint(1, total)


def tournament_footprint(config: dict, withdrawn: tuple = ()) -> Footprint:
    """A tournament's (its validated config): every table of a round plays at once, every participant
    seated, and each participant a search may play thinks within the default cap: a search bot, a human
    withdrawn to the search (``withdrawn``: ``(participant, bot, from_round)`` as the tournament's state
    keeps them), and, when the clock's bot is the search, every human (an abandoned seat's bot)."""
    participants = config["participants"]
    to_search = {p for p, bot, _ in withdrawn if bot == "search"}
    clock = config.get("clock")
    humans_searched = isinstance(clock, dict) and clock.get("bot") == "search"
    searches = sum(1 for n, p in enumerate(participants)
                   if p.get("bot") == "search" or (p.get("kind") == "human" and (n in to_search or humans_searched)))
    return Footprint(len(participants) // config["players"], searches * DEFAULT_BUDGET_MS)


def game_events(table: Table, body: dict) -> int:
    """The ``max_events`` ceiling of the game a create body (shape-checked) makes (``Table.ceilings``,
    as ``Table.create`` records it), so the events are reserved before the game is created. 0 when
    the body does not validate: the creation then refuses it itself (and ``settle`` would correct a
    0 that was wrong)."""
    try:
        return table.ceilings(body.get("game"), body.get("players"), body.get("rules"), body.get("preset_deals"),
                              body.get("limits")).max_events
    except InvalidSetup:
        return 0


def tournament_events(table: Table, config: dict) -> int:
    """The events a tournament (its validated config) may store: every table game it will open (the
    tables of a round x its rounds), each at the ceiling its driver creates it with
    (``Tournaments.table_setup``: the tournament's rules, no limits of its own, so the default ones).
    A duplicate tournament's tables also get preset deals, drawn later from its seed; the ceiling
    does not depend on them (``Game.deal_ceiling`` reads the rules)."""
    per_game = table.ceilings(config["game"], config["players"], config["rules"]).max_events
    tables = len(config["participants"]) // config["players"]
    return tables * config["rounds"] * per_game
