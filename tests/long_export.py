"""The longest export an upload admits: a Schafkopf game of random seats played to its event
ceiling, built with the rules alone and chained as the server chains it, so tests can time
the worst verification without a server making it first."""
from __future__ import annotations

import hashlib
import json
import random

from domain import audit, chain
from domain.registry import all_games
from domain.table import Table, TableState

STAMP = "2026-12-01T08:00:00.000Z"


def long_export(max_events: int, seed: int = 7) -> str:
    """An export (JSON Lines) of a finished game cut short at ``max_events`` events."""
    table = Table(all_games())
    rng = random.Random(seed)
    seed_hex = rng.randbytes(32).hex()
    commitment = hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()
    seats = [{"kind": "bot", "bot": "random"}] * 4
    events = [(e, "system") for e in table.create("schafkopf", 4, {"deals": 400, "thrown_in_counts": False}, seats, None, commitment,
                                                  limits={"max_events": max_events})]
    state = table.fold(TableState(), [e for e, _ in events], STAMP, "system")

    def apply(actor, command):
        nonlocal state
        new = table.decide(state, None if actor == "system" else actor, command, STAMP)
        events.extend((e, actor) for e in new)
        state = table.fold(state, new, STAMP, actor)

    while True:
        while (command := table.system_command(state, seed_hex)) is not None:
            apply("system", command)
        if table.is_finished(state):
            break
        seat = min(table.to_act(state))
        legal = table.legal_commands(state, seat)
        passing = [c for c in legal if c.get("intent") == "pass"]  # thrown-in deals: more of them
        apply(seat, passing[0] if passing and rng.random() < 0.5 else rng.choice(legal))
    lines, previous = [], chain.GENESIS
    for seq, (event, actor) in enumerate(events, start=1):
        record = {"seq": seq, "type": event.type, "v": event.v, "at": STAMP, "actor": actor,
                  "visibility": event.visibility.to_json(), "data": json.loads(json.dumps(event.data)),
                  "redacted": False}
        record["hash"] = previous = chain.link(previous, record, seed_hex)
        lines.append(json.dumps(record, separators=(",", ":")))
    summary = table.summary(state)
    header = {"format": audit.FORMAT, "version": audit.FORMAT_VERSION, "game_id": rng.randbytes(8).hex(),
              "game": "schafkopf", "players": 4, "rules": summary["rules"], "seats": summary["seats"],
              "status": summary["status"], "complete": True, "events": len(lines), "head": previous,
              "stich": "test", "scores": summary["scores"]}
    return "\n".join([json.dumps(header, separators=(",", ":")), *lines]) + "\n"
