"""The analysis of a finished game: every seat's every decision judged by the search.

A decision is a seat command in the game's events. It is found by folding the events and, where
the next event's actor is a seat, asking the rules which of that seat's legal commands decides
exactly the events that follow (the events record results, not commands). The seat's ``Decision``
is built as a bot's is (``decision_for``: the seat's view and its redacted history, never another
hand), and the game's ``evaluation`` module (``domain/<game>/bots/evaluation.py``) gives the
search's expected value of each move it judges, on sampled worlds of what that seat knew.

Deterministic: each decision's RNG is seeded from the game's head hash and the decision's seq, and
the budget is a number of playouts, never a clock. Bounded: at most ``playouts`` playouts a
decision (``MAX_PLAYOUTS`` at most) and ``max_decisions`` judged decisions a game
(``MAX_DECISIONS`` at most); later decisions are listed with no values.

Every value, loss and threshold is in the game's one unit (``evaluation.UNIT``), which the result
names, with its spread over the sampled worlds (``estimate``): a move is marked only where its loss
reaches the threshold and stands clear of that spread (``judged_row``). Where the seat's knowledge
fixed every hidden card, the one world is solved and the values are ``exact``. It is derived data:
it reads the events and writes none.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from importlib import import_module
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..errors import RuleViolation
from ..event import Event
from ..table import Table, TableState
from . import GAME_BOTS
from .decision import decision_for, seat_history
from .estimate import Estimates

DEFAULT_PLAYOUTS = 96  # per decision: about a second or a few of CPU per game (docs/bots-and-arena.md)
MAX_PLAYOUTS = 400  # what any caller may ask for a decision
DEFAULT_MAX_DECISIONS = 1000  # judged per game; a longer game's later decisions have no values
MAX_DECISIONS = 5000
MARKS = ("inaccuracy", "mistake", "blunder")
SPREADS = 2.0  # a loss marks only past this many of its standard errors: about 98% sure one-sided


@dataclass(frozen=True)
class Budget:
    playouts: int = DEFAULT_PLAYOUTS
    max_decisions: int = DEFAULT_MAX_DECISIONS

    def __post_init__(self):
        if not 1 <= self.playouts <= MAX_PLAYOUTS:
            raise ValueError(f"playouts must be 1..{MAX_PLAYOUTS}")
        if not 0 <= self.max_decisions <= MAX_DECISIONS:
            raise ValueError(f"max_decisions must be 0..{MAX_DECISIONS}")

    def to_json(self) -> dict:
        return {"playouts": self.playouts, "max_decisions": self.max_decisions}


@dataclass(frozen=True)
class Moment:
    """A seat's decision in the game: the state it faced, the command it sent, the seq of the
    first event that command decided."""
    seq: int
    seat: int
    state: TableState
    command: dict


def evaluation_of(game: str):
    """The game's evaluation module (imported by name: this package imports no game)."""
    return import_module(GAME_BOTS[game] + ".evaluation")


def thresholds(game: str) -> dict[str, float]:
    """The least loss, in the game's score units, that earns each mark."""
    return dict(evaluation_of(game).THRESHOLDS)


def moments(table: Table, events: Sequence[Event]) -> Iterable[Moment]:
    """Every seat command of the game, in order. A seat's events that no legal command of the
    seat decides (a seat taken, a time-out's move made by the system) are folded and skipped."""
    state = TableState()
    index = 0
    while index < len(events):
        event = events[index]
        actor = event.actor
        if isinstance(actor, int) and not isinstance(actor, bool) and actor in table.to_act(state):
            found = _command_for(table, state, actor, events, index)
            if found is not None:
                command, decided = found
                yield Moment(index + 1, actor, state, command)
                for later in events[index:index + decided]:
                    state = table.evolve_timed(state, later, None, None)
                index += decided
                continue
        state = table.evolve_timed(state, event, None, None)
        index += 1


def _command_for(table: Table, state: TableState, seat: int, events: Sequence[Event],
                 index: int) -> tuple[dict, int] | None:
    for command in table.legal_commands(state, seat):
        try:
            decided = table.decide(state, seat, command)
        except RuleViolation:  # a legal command the rules refuse is theirs to mend, not the analysis's
            continue
        if decided and list(events[index:index + len(decided)]) == decided:
            return command, len(decided)
    return None


def mark_of(loss: float | None, limits: Mapping[str, float]) -> str | None:
    if loss is None:
        return None
    mark = None
    for name in MARKS:
        if loss >= limits[name]:
            mark = name
    return mark


def analyse(table: Table, events: Sequence[Event], head: str, budget: Budget = Budget(),
            progress: Callable[[int, int], None] = lambda done, total: None) -> dict[str, Any]:
    """The analysis of a finished game's ``events`` (every event, unredacted, with its actor):
    ``head`` (the game's head hash) seeds it. ``progress(done, total)`` is called after each
    decision. The result has the shape of ``GET /v1/games/{id}/analysis``'s ``done`` answer."""
    found = list(moments(table, events))
    if not found:
        return _result(head, budget, [], 0, [])
    game = found[0].state.game.name
    evaluation = evaluation_of(game)
    unit = evaluation.UNIT
    limits = evaluation.THRESHOLDS
    total = min(len(found), budget.max_decisions)
    rows = []
    for number, moment in enumerate(found):
        row = {"seq": moment.seq, "seat": moment.seat,
               "played": {"command": moment.command, "value": None, "spread": None},
               "best": {"command": moment.command, "value": None, "spread": None},
               "loss": None, "loss_spread": None, "worlds": 0, "exact": False, "mark": None}
        if number < total:
            judged = judge(table, events, head, moment, budget.playouts, evaluation)
            if judged is not None:
                row.update(judged_row(*judged, limits))
            progress(number + 1, total)
        rows.append(row)
    return _result(head, budget, rows, total, range(found[0].state.players), limits, unit)


def judge(table: Table, events: Sequence[Event], head: str, moment: Moment, playouts: int, evaluation):
    """(the moves' estimates, the played move's index, the best's) of one decision, or None where
    the search does not judge it (one legal move, or a kind of decision its game's search does not
    play out)."""
    legal = table.legal_commands(moment.state, moment.seat)
    if len(legal) < 2:
        return None
    rng = random.Random(f"{head}:{moment.seq}")
    history = seat_history(events[:moment.seq - 1], moment.seat)
    decision = decision_for(table, moment.state, None, moment.seat, rng, history=history)
    got = evaluation.values(decision, moment.command, playouts)
    if got is None or not got.worlds:
        return None
    played = got.index(moment.command)
    if played is None:
        return None
    best = max(range(len(got.commands)), key=lambda i: (got.mean(i), i == played))
    return got, played, best


def judged_row(got: Estimates, played: int, best: int, limits: Mapping[str, float]) -> dict[str, Any]:
    """A judged decision's values, spreads and mark. The loss is best minus played; its spread is
    the standard error of that difference world by world (``Estimates.difference_spread``), and a
    move is marked only where the loss reaches the mark's threshold and is more than
    ``SPREADS`` spreads (from two worlds up, or exact): a loss the sampled worlds cannot tell from
    none marks nothing."""
    # Rounded first, so that anyone can check a mark against the figures shown.
    loss = round(max(got.mean(best) - got.mean(played), 0.0), 3)
    loss_spread = round(got.difference_spread(best, played), 3)
    # One sampled world has no spread to measure: only the one world there is (exact) marks alone.
    certain = (got.exact or got.worlds > 1) and loss > SPREADS * loss_spread
    return {"played": {"command": got.commands[played], "value": round(got.mean(played), 3),
                       "spread": round(got.spread(played), 3)},
            "best": {"command": got.commands[best], "value": round(got.mean(best), 3),
                     "spread": round(got.spread(best), 3)},
            "loss": loss, "loss_spread": loss_spread, "worlds": got.worlds,
            "exact": got.exact, "mark": mark_of(loss, limits) if certain else None}


def _result(head: str, budget: Budget, rows: list[dict], total: int, seats: Iterable[int],
            limits: Mapping[str, float] | None = None, unit: str | None = None) -> dict[str, Any]:
    summaries = []
    for seat in seats:
        judged = [r for r in rows if r["seat"] == seat and r["loss"] is not None]
        marks = [r["mark"] for r in judged]
        summaries.append({"seat": seat, "summary": {
            "decisions": len(judged),
            "inaccuracies": marks.count("inaccuracy"), "mistakes": marks.count("mistake"),
            "blunders": marks.count("blunder"),
            "average_loss": round(sum(r["loss"] for r in judged) / len(judged), 3) if judged else 0.0}})
    return {"status": "done", "progress": {"done": total, "total": total}, "head": head,
            "budget": budget.to_json(), "thresholds": dict(limits or {}), "unit": unit, "seats": summaries,
            "decisions": rows}
