"""One whole game between policies, in process, through the real table: no store, no server.

The arena and the bots' tests use it; the bot worker plays the same policies one turn at a
time through the command handler. Every seat's decision is built by ``decision_for``, so a
policy here sees exactly what it would see in a served game. Each event carries its actor (the
seat, or "system"), as the store records it, so that a played game can be analysed.
"""
from __future__ import annotations

import hashlib
import random
from dataclasses import replace
from typing import Callable, Sequence

from ..event import Event
from ..table import DEFAULT_BUDGET_MS, Table, TableState
from .decision import Decision, Policy, decision_for

Timer = Callable[[int], Callable[[], bool]]  # budget_ms (the safety net) -> out_of_time; the caller owns the clock


def no_clock(_budget_ms: int) -> Callable[[], bool]:
    """Never out of time: a search then stops after its playouts (deterministic; tests use it)."""
    return lambda: False


def play(table: Table, game: str, players: int, rules: dict, policies: Sequence[Policy], seed_hex: str,
         rng_seed: int | str = 0, budget_ms: int = DEFAULT_BUDGET_MS, timer: Timer = no_clock,
         max_moves: int = 20_000, playouts: int | None = None,
         observe: Callable[[TableState, Decision], None] | None = None) -> tuple[TableState, list[Event]]:
    """Play to the end with ``policies[seat]`` at each seat (all human seats, seated by the system),
    dealt from ``seed_hex``: the same seed and rules give the same deals, whoever plays them.
    ``playouts``: every search's budget a decision (None: each bot's default); ``timer(budget_ms)``
    its safety net. ``observe(state, decision)``: called before each seat's policy, with the true state
    (a measurement's: the policies never see it)."""
    events = table.create(game, players, rules, None, None, hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest())
    state = table.fold(TableState(), events)
    for seat in range(players):
        taken = table.decide(state, None, {"type": "take_seat", "seat": seat})
        events += taken
        state = table.fold(state, taken)
    rng = random.Random(f"{rng_seed}")
    for _ in range(max_moves):
        while (command := table.system_command(state, seed_hex)) is not None:
            new = [replace(e, actor="system") for e in table.decide(state, None, command)]
            events += new
            state = table.fold(state, new)
        if state.status == "finished":
            return state, events
        seat = min(table.to_act(state))  # simultaneous phases: the lowest seat first, as fair as any order
        decision = decision_for(table, state, events, seat, random.Random(rng.random()), timer(budget_ms), budget_ms,
                                playouts=playouts)
        if observe is not None:
            observe(state, decision)
        command = policies[seat](decision)
        new = [replace(e, actor=seat) for e in table.decide(state, seat, command)]
        events += new
        state = table.fold(state, new)
    raise RuntimeError(f"the game did not end within {max_moves} moves")
