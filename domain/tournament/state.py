"""A tournament's state: folded from its events, never stored on its own."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Result:
    """One participant's game at one table: its seat, the game's total for it, and its place at the table."""

    participant: int
    seat: int
    result: int | float
    place: int

    def to_json(self) -> dict:
        return {"participant": self.participant, "seat": self.seat, "result": self.result, "place": self.place}


@dataclass(frozen=True)
class TableSlot:
    table: int
    participants: tuple[int, ...]  # by seat
    game_id: str | None = None  # once opened
    results: tuple[Result, ...] | None = None  # once finished, by seat
    cut_short: str | None = None  # the ceiling that ended its game, if one did

    @property
    def finished(self) -> bool:
        return self.results is not None


@dataclass(frozen=True)
class RoundState:
    number: int  # 1-based
    tables: tuple[TableSlot, ...]
    deals: tuple[Any, ...] = ()  # a duplicate round's preset deals, before rotation (secret until the end)
    finished: bool = False

    @property
    def all_tables_finished(self) -> bool:
        return all(table.finished for table in self.tables)


@dataclass(frozen=True)
class TournamentState:
    config: dict | None = None
    status: str = "new"  # new | waiting | active | finished
    seed_sha256: str = ""
    seed: str | None = None  # hex, once revealed
    joined: frozenset[int] = frozenset()  # human participants who took their slot
    players: tuple[tuple[int, str], ...] = ()  # (participant, the handle of the player who joined as it)
    rounds: tuple[RoundState, ...] = ()
    standings: tuple[dict, ...] | None = None  # final, once TournamentFinished (or TournamentAborted)
    paused: bool = False  # by its organizer: no table opens and no round is drawn until resumed
    pauses: int = 0  # how often it was paused (at most decider.MAX_PAUSES)
    aborted: str | None = None  # the organizer's reason, once aborted
    withdrawn: tuple[tuple[int, str, int], ...] = ()  # (participant, the bot that plays for it, from round)
    events: int = 0

    def replacement(self, participant: int, round_: int) -> str | None:
        """The bot that plays for ``participant`` in ``round_``, if it has withdrawn by then."""
        for p, bot, start in self.withdrawn:
            if p == participant and round_ >= start:
                return bot
        return None

    def player_of(self, participant: int) -> str | None:
        """The player a human participant is: the one its slot was kept for, or that joined as it."""
        for p, handle in self.players:
            if p == participant:
                return handle
        return self.participants[participant].get("player") if self.config else None

    def has_withdrawn(self, participant: int) -> bool:
        return any(p == participant for p, _, _ in self.withdrawn)

    @property
    def keeps_deals_secret(self) -> bool:
        """A duplicate tournament with a human in it: while a round runs, its deals — and so each
        table's results, which tell how they played — are kept from everybody (bots need no secret)."""
        config = self.config
        return bool(config and config["duplicate"] and any(p["kind"] == "human" for p in config["participants"]))

    @property
    def participants(self) -> list[dict]:
        return self.config["participants"] if self.config else []

    @property
    def table_size(self) -> int:
        return self.config["players"]

    @property
    def current(self) -> RoundState | None:
        return self.rounds[-1] if self.rounds else None
