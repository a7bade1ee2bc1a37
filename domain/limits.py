"""The ceilings every game has, so that every game ends (``GameCreated.limits``).

* ``max_deals``: deals dealt, thrown-in ones included (a game's rules may let it run for ever:
  in Schafkopf, deals that do not count while everyone passes);
* ``max_events``: events stored;
* ``max_idle_s``: seconds with no event at all — a game waiting for a person who never comes, or
  for moves that never come in a game without a clock. Time is data here: the system's
  ``end_game`` with reason ``idle`` is decided at the time it is stamped with, which must be at
  least ``max_idle_s`` after the game's last event (``TableState.last_at``).

A game reaching one ends with ``GameCutShort`` naming it (the table's ``end_game``, then the seed
reveal); the standings are those of the deals settled so far, ranked by their totals. A game
created before a ceiling existed takes today's default for it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from . import errors

MAX_DEALS = 5_000
MAX_EVENTS = 100_000
# The default max_events is EVENTS_PER_DEAL per deal of the deal ceiling (the games take 55-95 a
# deal), at most MAX_EVENTS: about 20 MB of Redis for the largest game.
EVENTS_PER_DEAL = 150
# Six hours without an event: long past any table's pause for a meal, short enough that an abandoned
# lobby does not hold a seat, a stream or a quota slot for days. A server sets its own default for the
# games created there (``Table(default_idle_s=…)``, ``STICH_IDLE_AFTER``); a creator may give less.
DEFAULT_IDLE_S = 6 * 3600
IDLE_S_RANGE = (60, 30 * 24 * 3600)
LIMIT_NAMES = ("max_deals", "max_events", "max_idle_s")


@dataclass(frozen=True)
class Limits:
    max_deals: int
    max_events: int
    max_idle_s: int = DEFAULT_IDLE_S

    def to_json(self) -> dict:
        return {"max_deals": self.max_deals, "max_events": self.max_events, "max_idle_s": self.max_idle_s}


def default_limits(deal_ceiling: int, idle_s: int = DEFAULT_IDLE_S) -> Limits:
    """The ceilings of a game whose rules allow ``deal_ceiling`` deals."""
    max_deals = min(deal_ceiling, MAX_DEALS)
    return Limits(max_deals, min(EVENTS_PER_DEAL * max_deals + 100, MAX_EVENTS), idle_s)


def recorded_limits(raw: Mapping[str, Any]) -> Limits:
    """The ``GameCreated.limits`` of a game; one from before the idle ceiling takes its default."""
    return Limits(raw["max_deals"], raw["max_events"], raw.get("max_idle_s", DEFAULT_IDLE_S))


def validate_limits(raw: Any, defaults: Limits) -> Limits:
    """The creator's ceilings, each within its range; an omitted one takes its default."""
    if raw is None:
        return defaults
    if not isinstance(raw, Mapping):
        raise errors.InvalidSetup({"limits": ["must be an object with max_deals, max_events and/or max_idle_s"]})
    problems: dict[str, list[str]] = {}
    for key in sorted(set(raw) - set(LIMIT_NAMES)):
        problems.setdefault("limits", []).append(f"unknown limit {key!r}; one of {list(LIMIT_NAMES)}")
    values = defaults.to_json()
    for name, (low, high) in (("max_deals", (1, MAX_DEALS)), ("max_events", (1, MAX_EVENTS)),
                              ("max_idle_s", IDLE_S_RANGE)):
        value = raw.get(name, values[name])
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            problems[f"limits.{name}"] = [f"must be a whole number {low}..{high}"]
        values[name] = value
    if problems:
        raise errors.InvalidSetup(problems)
    return Limits(**values)
