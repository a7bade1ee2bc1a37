"""The audit of one game's bot turns: each one played exactly once, when due, as the bot would.

A bot's move is appended with the idempotency key ``<seat>:bot-<seq>``
(``workers/bot_turn.py``), kept with the span of seqs it appended. Replaying
the stream from the first event, every bot move must start right after the
seq its key names, come from a seat that was a bot to act there, be exactly
what the (seeded, reproducible) random bot chooses at that seq, and every
move by a bot seat must be covered by such a key. A lost turn shows as a game
that never finishes; a doubled one as a second move without its own key or
a move out of turn.
"""
from __future__ import annotations

import json

from domain.bots import random_bot
from domain.table import TableState
from eventstore.handler import CommandHandler
from eventstore.store import Span

from . import Violation


def bot_spans(handler: CommandHandler, game_id: str) -> dict[int, tuple[int, Span]]:
    """First seq of each bot move → (seat, span), from the game's idempotency keys."""
    store = handler.store
    spans = {}
    for key, raw in store.redis.hgetall(store.keys(game_id).idem).items():
        actor, _, name = key.decode().partition(":")
        if not name.startswith("bot-"):
            continue
        seq, span = int(name.removeprefix("bot-")), Span.parse(raw)
        if span.first != seq + 1:
            raise Violation(f"game {game_id}: seat {actor}'s bot turn at seq {seq} appended at seq {span.first}")
        spans[span.first] = (int(actor), span)
    return spans


def audit(handler: CommandHandler, game_id: str, finished: bool = True) -> int:
    """Replay the game checking every bot turn; how many there were. Raises ``Violation``."""
    table = handler.table
    events = handler.store.read(game_id)
    seqs = [e.seq for e in events]
    if seqs != list(range(1, len(events) + 1)):
        raise Violation(f"game {game_id}: the stream is not gapless: {seqs[:40]}…")
    spans = bot_spans(handler, game_id)
    state, turns, i = TableState(), 0, 0
    while i < len(events):
        first = events[i].seq
        if first in spans:
            seat, span = spans.pop(first)
            if seat not in table.to_act(state) or state.seats[seat].kind != "bot":
                raise Violation(f"game {game_id}: seat {seat} moved at seq {first} but was not a bot to act")
            command = random_bot.choose(table.legal_commands(state, seat), game_id, first - 1, seat)
            expected = [(e.type, json.loads(json.dumps(e.data))) for e in table.decide(state, seat, command)]
            batch = events[i:i + span.last - span.first + 1]
            stored = [(e.type, e.data) for e in batch if e.actor == seat]
            if stored != expected:
                raise Violation(f"game {game_id}: seat {seat}'s move at seq {first} is not the bot's one move: "
                                f"stored {stored}, the bot decides {expected}")
            state = table.fold(state, [e.to_domain() for e in batch])
            turns += 1
            i += len(batch)
            continue
        actor = events[i].actor
        if isinstance(actor, int) and state.seats and state.seats[actor].kind == "bot":
            raise Violation(f"game {game_id}: bot seat {actor} moved at seq {first} without a turn key of its own "
                            f"(a doubled or foreign move)")
        state = table.fold(state, [events[i].to_domain()])
        i += 1
    if spans:
        raise Violation(f"game {game_id}: bot turn keys point past the stream: {sorted(spans)}")
    if finished and state.status != "finished":
        raise Violation(f"game {game_id} did not finish: {len(events)} events, to act {sorted(table.to_act(state))}")
    return turns
