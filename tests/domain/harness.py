"""Given events / When command / Then events, and a seeded random playout.

Tests of every game use these so that a rule test reads like the rulebook::

    state = given(game, events)
    then(when(game, state, seat, {"type": "play", "card": "R9"}), [...])
"""
from __future__ import annotations

import json
import random
from typing import Any, Callable, Iterable

from domain.event import Event, redact_data
from domain.game import Game
from domain.table import Table, TableState


def given(game: Game, events: Iterable[Event], state: Any = None) -> Any:
    """Fold events into a game state (start from ``state`` or a fresh one)."""
    for event in events:
        state = game.evolve(state, event)
    return state


def when(game: Game, state: Any, actor: int | None, command: dict) -> list[Event]:
    """Decide a command; RuleViolation propagates so tests can ``pytest.raises`` it."""
    return game.decide(state, actor, command)


def roundtrip(event: Event) -> Event:
    """The event as it comes back from the store: data through JSON (tuples become lists)."""
    return Event(event.type, json.loads(json.dumps(event.data)), event.visibility, event.v)


def event_types(events: Iterable[Event]) -> list[str]:
    return [e.type for e in events]


def new_table(game: Game, players: int, rules: dict | None = None, preset_deals=None,
              seed_hex: str = "00" * 32, seats=None) -> tuple[Table, TableState, list[Event]]:
    """A started table with every seat a human, dealt from ``seed_hex``."""
    import hashlib

    table = Table({game.name: game})
    commitment = hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()
    events = table.create(game.name, players, rules or {}, seats, preset_deals, commitment)
    state = table.fold(TableState(), events)
    for seat in range(players):
        if not state.seats[seat].taken:
            new = table.decide(state, None, {"type": "take_seat", "seat": seat})
            events += new
            state = table.fold(state, new)
    events, state = run_system(table, state, events, seed_hex)
    return table, state, events


def run_system(table: Table, state: TableState, events: list[Event], seed_hex: str):
    """Apply the system's commands (deals, the seed reveal) until none is due."""
    while (command := table.system_command(state, seed_hex)) is not None:
        new = table.decide(state, None, command)
        events.extend(new)
        state = table.fold(state, new)
    return events, state


def random_playout(game: Game, players: int, seed: int, rules: dict | None = None, preset_deals=None,
                   choose: Callable[[random.Random, int, list[dict]], dict] | None = None,
                   check: Callable[[TableState], None] | None = None,
                   max_moves: int = 100_000) -> tuple[Table, TableState, list[Event]]:
    """Play a whole game with uniformly random legal commands and check the invariants.

    After every command: it was in ``legal_commands`` of the acting seat,
    ``check(state)`` holds, and at the end replaying all events from scratch
    gives an equal state.
    """
    rng = random.Random(seed)
    seed_hex = rng.randbytes(32).hex()
    table, state, events = new_table(game, players, rules, preset_deals=preset_deals, seed_hex=seed_hex)
    moves = 0
    while state.status == "active":
        to_act = sorted(table.to_act(state))
        assert to_act, "an active game must have someone to act"
        seat = rng.choice(to_act)
        legal = table.legal_commands(state, seat)
        assert legal, f"seat {seat} is to act but has no legal command"
        command = choose(rng, seat, legal) if choose else rng.choice(legal)
        assert command in legal
        new = table.decide(state, seat, command)
        events.extend(new)
        state = table.fold(state, new)
        events, state = run_system(table, state, events, seed_hex)
        if check:
            check(state)
        moves += 1
        assert moves < max_moves, "game did not end"
    replayed = table.fold(TableState(), [roundtrip(e) for e in events])
    assert replayed == state, "replaying the stored (JSON) events must give the same state"
    return table, state, events


def served(events: Iterable[Event], viewer: int | None = None, reveal: bool = True) -> list[dict]:
    """The events as the API serves them (data through JSON): every one in full once ``reveal``
    (after the game), else redacted for ``viewer`` (a seat, or None for a spectator)."""
    out = []
    for seq, event in enumerate(events, 1):
        data, redacted = (event.data, False) if reveal else redact_data(event.data, event.visibility, viewer)
        out.append({"seq": seq, "type": event.type, "v": event.v, "data": json.loads(json.dumps(data)),
                    "actor": None, "redacted": redacted})
    return out


def by_deal(events: Iterable[Event]) -> list[list[Event]]:
    """The game's events grouped by deal, each group opening with its HandsDealt."""
    groups: list[list[Event]] = []
    for event in events:
        if event.type == "HandsDealt":
            groups.append([])
        if groups:
            groups[-1].append(event)
    return groups
