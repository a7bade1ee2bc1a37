"""Offline verification of a finished game's deals, from its events alone.

An auditor needs no trust in the server: given the events and the revealed
seed, ``verify_deals`` checks the seed against the commitment in the first
event, folds every event in order, and wherever the system dealt cards
recomputes that deal with the documented keyed shuffle and compares it event
by event. Preset deals are checked against the preset recorded in the
first event.
"""
from __future__ import annotations

from typing import Sequence

from .errors import RuleViolation
from .event import Event
from .shuffle import seed_commitment
from .table import Table, TableState


def verify_deals(table: Table, events: Sequence[Event]) -> list[str]:
    """Problems found (an empty list means every deal is the one the seed gives)."""
    if not events or events[0].type != "GameCreated":
        return ["the first event is not GameCreated"]
    revealed = [e for e in events if e.type == "SeedRevealed"]
    if not revealed:
        return ["the seed has not been revealed (the game has not finished)"]
    seed_hex = revealed[-1].data["seed"]
    problems = []
    if seed_commitment(bytes.fromhex(seed_hex)) != events[0].data["seed_sha256"]:
        problems.append("the revealed seed does not match the commitment in GameCreated")
    state = TableState()
    i = 0
    deals = 0
    while i < len(events):
        command = table.system_command(state, seed_hex) if table.needs_system(state) else None
        expected = []
        if command and command["type"] == "deal":
            try:
                expected = table.decide(state, None, command)
            except RuleViolation:  # mid-batch, the state may not accept a deal at all
                expected = []
        # A deal falls due only between batches; inside a batch (a deal's last
        # trick followed by the game's end) the next event is not a deal at all.
        if expected and events[i].type == expected[0].type:
            actual = list(events[i:i + len(expected)])
            if [(e.type, e.data) for e in expected] != [(e.type, e.data) for e in actual]:
                problems.append(f"deal {command['deal']} at event {i + 1} is not the one the seed gives")
            deals += 1
            state = table.fold(state, expected)  # go on from the deal the seed gives
            i += len(expected)
            continue
        try:
            state = table.evolve(state, events[i])
        except Exception as exc:  # an event that cannot follow from the ones before it
            problems.append(f"event {i + 1} ({events[i].type}) does not follow from the events before it: {exc!r}")
            break
        i += 1
    if deals == 0:
        problems.append("no deal was found to verify")
    return problems
