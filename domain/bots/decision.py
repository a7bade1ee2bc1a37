"""What a bot decides from: its seat's view and the history as its seat saw it, nothing more.

A bot is a policy, a function from a ``Decision`` to one of ``decision.legal``.
The decision is built from the full game only through the two functions the API
itself uses to show a seat its game: ``Table.view`` for the view and the one
redactor (``domain.event.redact_data``) for every event. So a bot can know no
more than a human at that seat: not another hand, not the cupboard, not the
seed. ``tests/domain/test_bot_decision.py`` checks that.

The domain has no clock: a search bot's budget comes as ``out_of_time``, which
the caller (the bot worker, the arena) builds from its own clock.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from ..event import Event, redact_data
from ..table import Table, TableState


@dataclass(frozen=True)
class Decision:
    game: str
    seat: int
    players: int
    rules: Mapping[str, Any]
    view: Mapping[str, Any]  # Table.view(state, seat): what GET …/view shows this seat, ``legal`` included
    history: tuple[Mapping[str, Any], ...]  # every event so far as this seat's feed shows it (see seat_history)
    rng: random.Random = field(compare=False)
    out_of_time: Callable[[], bool] = field(compare=False, default=lambda: False)
    budget_ms: int = 150

    @property
    def legal(self) -> list[dict]:
        return list(self.view["legal"])


def seat_history(events: Iterable[Event], seat: int) -> tuple[dict, ...]:
    """The events as ``seat`` sees them while the game runs: ``seq`` (from 1), ``type``, ``v``,
    ``data`` (redacted) and ``redacted``; the same redaction as the feed's."""
    out = []
    for seq, event in enumerate(events, start=1):
        data, redacted = redact_data(event.data, event.visibility, seat)
        out.append({"seq": seq, "type": event.type, "v": event.v, "data": data, "redacted": redacted})
    return tuple(out)


def decision_for(table: Table, state: TableState, events: Iterable[Event], seat: int, rng: random.Random,
                 out_of_time: Callable[[], bool] = lambda: False, budget_ms: int = 150) -> Decision:
    """The decision ``seat`` faces in ``state`` (the fold of ``events``)."""
    return Decision(game=state.game.name, seat=seat, players=state.players, rules=dict(state.setup.rules),
                    view=table.view(state, seat), history=seat_history(events, seat), rng=rng,
                    out_of_time=out_of_time, budget_ms=budget_ms)


Policy = Callable[[Decision], dict]
