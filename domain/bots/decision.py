"""What a bot decides from: its seat's view and the history as its seat saw it, nothing more.

A bot is a policy, a function from a ``Decision`` to one of ``decision.legal``.
The decision is built from the full game only through the two functions the API
itself uses to show a seat its game: ``Table.view`` for the view and the one
redactor (``domain.event.redact_data``) for every event. So a bot can know no
more than a human at that seat: not another hand, not the cupboard, not the
seed. ``tests/domain/test_bot_decision.py`` checks that.

The domain has no clock: a search bot's budget is ``playouts`` (a number of
playouts, so it plays alike on any machine), and its safety net comes as
``out_of_time``, which the caller (the bot worker, the arena) builds from its
own clock and ``budget_ms``. Nor does it read
a store: ``SeatHistories`` keeps what a process has redacted so far, and asks its
caller only for the events it has not seen.
"""
from __future__ import annotations

import random
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..event import Event, redact_data
from ..table import DEFAULT_BUDGET_MS, Table, TableState


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
    budget_ms: int = DEFAULT_BUDGET_MS  # the wall-clock safety net behind ``out_of_time``
    playouts: int | None = None  # a search bot's budget: playouts (or simulator steps) a decision; None: its game's default

    @property
    def legal(self) -> list[dict]:
        return list(self.view["legal"])


def seat_history(events: Iterable[Event], seat: int, first_seq: int = 1) -> tuple[dict, ...]:
    """The events as ``seat`` sees them while the game runs: ``seq`` (from ``first_seq``, the seq of
    the first of ``events``), ``type``, ``v``, ``data`` (redacted) and ``redacted``; the same redaction
    as the feed's."""
    out = []
    for seq, event in enumerate(events, start=first_seq):
        data, redacted = redact_data(event.data, event.visibility, seat)
        out.append({"seq": seq, "type": event.type, "v": event.v, "data": data, "redacted": redacted})
    return tuple(out)


class SeatHistories:
    """Each game's history as each of its bot seats sees it, kept by a process between its bots'
    turns, so that a turn redacts (and its caller reads) only the events since the last one instead
    of the whole game. The histories are exactly ``seat_history``'s: built by it, a few events at a
    time. At most ``games`` games are kept (the least recently used go)."""

    def __init__(self, games: int = 256):
        self.games = games
        self._events: OrderedDict[str, list[Event]] = OrderedDict()  # game -> its events 1..n
        self._seats: dict[str, dict[int, list[dict]]] = {}  # game -> seat -> its history so far
        self._lock = threading.Lock()

    def history(self, game_id: str, seat: int, seq: int,
                read: Callable[[int], Sequence[Event]]) -> tuple[dict, ...]:
        """``seat``'s history of events 1..``seq``. ``read(after)`` returns the game's events
        ``after < seq' <= seq``; it is called at most once, for the events this cache lacks."""
        with self._lock:  # one game's extension at a time: no event is appended twice
            events = self._events.get(game_id)
            if events is None:
                events = self._events[game_id] = []
                self._seats[game_id] = {}
                while len(self._events) > self.games:
                    gone, _ = self._events.popitem(last=False)
                    self._seats.pop(gone, None)
            self._events.move_to_end(game_id)
            if len(events) < seq:
                new = list(read(len(events)))
                if len(new) != seq - len(events):
                    raise ValueError(f"read({len(events)}) of game {game_id!r} gave {len(new)} events, "
                                     f"not the {seq - len(events)} up to seq {seq}")
                events.extend(new)
            mine = self._seats[game_id].setdefault(seat, [])
            if len(mine) < seq:
                mine.extend(seat_history(events[len(mine):seq], seat, first_seq=len(mine) + 1))
            return tuple(mine[:seq])

    def forget(self, game_id: str) -> None:
        with self._lock:
            self._events.pop(game_id, None)
            self._seats.pop(game_id, None)


def decision_for(table: Table, state: TableState, events: Iterable[Event] | None, seat: int, rng: random.Random,
                 out_of_time: Callable[[], bool] = lambda: False, budget_ms: int = DEFAULT_BUDGET_MS,
                 history: tuple[dict, ...] | None = None, playouts: int | None = None) -> Decision:
    """The decision ``seat`` faces in ``state`` (the fold of ``events``). ``history``: the seat's
    history of those events, already built (``SeatHistories``); then ``events`` is not read."""
    if history is None:
        history = seat_history(events or (), seat)
    return Decision(game=state.game.name, seat=seat, players=state.players, rules=dict(state.setup.rules),
                    view=table.view(state, seat), history=history, rng=rng,
                    out_of_time=out_of_time, budget_ms=budget_ms, playouts=playouts)


Policy = Callable[[Decision], dict]
