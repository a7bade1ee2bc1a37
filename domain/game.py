"""The decider interface every game implements.

A game is a set of pure functions over its own immutable state::

    setup(players, rules, preset_deals) -> Setup       validate + fill defaults
    initial_state(setup) -> State
    pending_deal(state) -> DealRequest | None           cards needed now?
    decide(state, actor, command) -> list[Event]        raises RuleViolation
    evolve(state, event) -> State                       no checks
    to_act(state) -> frozenset[int]                     several seats when simultaneous
    legal_commands(state, seat) -> list[dict]           each postable as it is
    view(state, seat | None, reveal=False) -> dict      None = spectator; reveal: every hand
    is_finished(state) -> bool
    scores(state) -> dict                               public totals and ranking
    deal_ceiling(setup) -> int                          the most deals a game may take
    deal_records(events) -> list[DealRecord]            a finished game's deals, for history
    rating_matches(events) -> list[Match]               the sides it formed, for ratings
    transcript(events) -> list[str]                     the deals as Markdown, for people

Commands and event data are plain JSON-shaped dicts so that a command a client
posts, a command in ``legal``, and a command a bot picks are the same object.
``actor`` is the seat number, or None for the system (the ``deal`` command,
whose shuffled decks the command handler derives from the game's secret seed).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from .event import Event
from .record import DealRecord, Match


@dataclass(frozen=True)
class Setup:
    """A validated game configuration; recorded in full in the first event."""

    players: int
    rules: Mapping[str, Any]
    preset_deals: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True)
class DealRequest:
    """Deal ``index`` (0-based) needs these decks, each in its canonical order.

    The handler shuffles each deck with the keyed shuffle and sends
    ``{"type": "deal", "deal": index, "decks": {name: shuffled}}``. If the game
    has a preset for this deal it uses the preset and ignores ``decks``.
    """

    index: int
    decks: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


class Game(ABC):
    name: str = ""
    title: str = ""
    player_counts: tuple[int, ...] = ()

    @abstractmethod
    def setup(self, players: int, rules: Mapping[str, Any], preset_deals: list | None) -> Setup:
        """Validate and complete the configuration; raise InvalidSetup naming each bad field."""

    @abstractmethod
    def initial_state(self, setup: Setup) -> Any: ...

    @abstractmethod
    def pending_deal(self, state: Any) -> DealRequest | None: ...

    @abstractmethod
    def decide(self, state: Any, actor: int | None, command: Mapping[str, Any]) -> list[Event]: ...

    @abstractmethod
    def evolve(self, state: Any, event: Event) -> Any: ...

    @abstractmethod
    def to_act(self, state: Any) -> frozenset[int]: ...

    @abstractmethod
    def legal_commands(self, state: Any, seat: int) -> list[dict]: ...

    @abstractmethod
    def view(self, state: Any, seat: int | None, reveal: bool = False) -> dict:
        """What ``seat`` sees (None: a spectator). ``reveal`` shows every seat's hand as it is now,
        as a finished game's past views do (``GET …/view?at=``): once a game has finished
        nothing in it is secret, so a replay may show what each seat held at every moment."""

    @abstractmethod
    def is_finished(self, state: Any) -> bool: ...

    @abstractmethod
    def scores(self, state: Any) -> dict:
        """Public standings: at least ``totals`` (one number per seat) and,
        once finished, ``ranking`` (places per seat, 1 = best, ties share)."""

    @abstractmethod
    def deal_ceiling(self, setup: Setup) -> int:
        """The most deals, thrown-in ones included, that a game of these rules is dealt before
        the table cuts it short. Generous: a game played by its rules stays far below it; it
        exists so that a game whose deals never count (everyone always passes) still ends."""


    @abstractmethod
    def deal_records(self, events: Sequence[Mapping[str, Any]]) -> list[DealRecord]:
        """Every settled deal of a finished game (its ``record.py``): what was played, each seat's role
        and result, for its players' history (``domain/record.py``). ``events``: the game's events as
        the API serves them once it has finished (every one public), as ``transcript`` reads them."""

    @abstractmethod
    def rating_matches(self, events: Sequence[Mapping[str, Any]]) -> list[Match]:
        """The rating comparisons of the sides a finished game formed (its ``record.py``): per deal
        where the parties change from deal to deal, else the whole game (``domain/record.py``)."""

    @abstractmethod
    def transcript(self, events: Sequence[Mapping[str, Any]]) -> list[str]:
        """The game's deals as Markdown lines, in the game's own terms: per deal the hands, the
        bidding or announcements, every trick with its winner and points, and the score sheet.

        ``events`` are the JSON objects the API serves (``seq``, ``type``, ``v``, ``data``,
        ``actor``, ``redacted``…), already redacted for the reader: a field withheld from the
        reader is missing, and a seat's entry in a per-seat list is null. The transcript shows
        what the reader may see and says "hidden" for the rest; it never fails on redacted data."""


def rank_places(totals: list[int | float], higher_is_better: bool = True) -> list[int]:
    """Competition ranking: equal totals share a place (1, 1, 3)."""
    sign = -1 if higher_is_better else 1
    return [1 + sum(1 for other in totals if sign * other < sign * mine) for mine in totals]
