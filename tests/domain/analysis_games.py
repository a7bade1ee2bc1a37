"""Finished games for the analysis tests: heuristic bots at every seat, each event stamped with the
seat (or "system") that decided it, as the store records them."""
from __future__ import annotations

import hashlib
import random
from dataclasses import replace

from domain.bots import policy
from domain.bots.decision import decision_for
from domain.registry import all_games
from domain.table import Table, TableState

GAMES = {  # one short game of each: (players, rules)
    "schafkopf": (4, {"deals": 1}),
    "scharwenzel": (4, {"deals": 1}),
    "scharfe-schoten": (3, {"rounds": 1}),
}


def finished_game(name: str, seed: int = 1, kind: str = "heuristic", rules: dict | None = None,
                  presets: list | None = None, override=None) -> tuple[Table, list]:
    """``rules`` (default ``GAMES``'), ``presets`` (preset deals) and ``override(decision)``: a
    command to play instead of the bot's (None: the bot's), for games with a move made on purpose."""
    players, default_rules = GAMES[name]
    rules = default_rules if rules is None else rules
    table = Table(all_games())
    seed_hex = random.Random(seed).randbytes(32).hex()
    events = [replace(e, actor="system") for e in
              table.create(name, players, rules, None, presets, hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest())]
    state = table.fold(TableState(), events)

    def add(new, actor):
        nonlocal state
        new = [replace(e, actor=actor) for e in new]
        events.extend(new)
        state = table.fold(state, new)

    for seat in range(players):
        add(table.decide(state, None, {"type": "take_seat", "seat": seat}), "system")
    rng = random.Random(seed)
    for _ in range(5000):
        while (command := table.system_command(state, seed_hex)) is not None:
            add(table.decide(state, None, command), "system")
        if state.status == "finished":
            return table, events
        seat = min(table.to_act(state))
        decision = decision_for(table, state, events, seat, random.Random(rng.random()))
        command = override(decision) if override is not None else None
        add(table.decide(state, seat, command or policy(kind, name)(decision)), seat)
    raise RuntimeError("the game did not finish")


def card_decisions(name: str, seeds, rules: dict):
    """(the true state, the seat's Decision as the analysis builds it, the card it played) at every
    card decision with a choice of the heuristic games of ``seeds``."""
    from domain.bots.analysis import moments
    from domain.bots.decision import seat_history

    for seed in seeds:
        table, events = finished_game(name, seed=seed, rules=rules)
        for moment in moments(table, events):
            if moment.command.get("type") != "play" or len(table.legal_commands(moment.state, moment.seat)) < 2:
                continue
            yield moment.state, decision_for(table, moment.state, None, moment.seat, random.Random(moment.seq),
                                             history=seat_history(events[:moment.seq - 1], moment.seat)), \
                moment.command
