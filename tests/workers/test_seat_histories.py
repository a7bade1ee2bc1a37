"""The bots' history cache (domain/bots/decision.py ``SeatHistories``): a turn reads and redacts
only the events since the last, and its history is exactly the one a fresh build gives — so the
hidden-information scan of tests/domain/test_bot_decision.py, made on fresh builds, holds for it."""
from __future__ import annotations

import random

import pytest

import workers.bot_turn
from domain.bots.decision import SeatHistories, seat_history
from domain.registry import all_games
from tests.api.test_hidden_information import KINDS
from tests.domain.harness import new_table, run_system
from workers.context import build_runtime


@pytest.mark.parametrize("name", sorted(KINDS))
def test_every_seat_at_every_seq_gets_the_fresh_builds_history_reading_each_event_once(name):
    counts, rules, _, _ = KINDS[name]
    game = all_games()[name]
    for players in counts:
        rng = random.Random(f"{name}-{players}")
        seed_hex = rng.randbytes(32).hex()
        table, state, events = new_table(game, players, rules, seed_hex=seed_hex)
        cache, reads = SeatHistories(), []

        def read(after):
            reads.append(after)
            return events[after:]

        while state.status == "active":
            for seat in rng.sample(range(players), players):  # the seats in any order, some skipped
                if rng.random() < 0.7:
                    assert cache.history("g", seat, len(events), read) == seat_history(events, seat)
            seat = rng.choice(sorted(table.to_act(state)))
            new = table.decide(state, seat, rng.choice(table.legal_commands(state, seat)))
            events += new
            state = table.fold(state, new)
            events, state = run_system(table, state, events, seed_hex)
        # Each read asked only for what the cache lacked: every event read once, in order.
        assert reads == sorted(set(reads)) and all(a < b for a, b in zip(reads, reads[1:]))
        # An earlier moment is a prefix of what is cached: no read at all.
        before = len(reads)
        assert cache.history("g", 0, 5, read) == seat_history(events[:5], 0)
        assert len(reads) == before


def test_the_cache_is_bounded_and_a_short_read_is_refused():
    events = list(new_table(all_games()["schafkopf"], 4, {"deals": 1})[2])
    cache = SeatHistories(games=2)
    for game in ("a", "b", "c"):
        cache.history(game, 0, len(events), lambda after: events[after:])
    reads = []
    cache.history("a", 0, len(events), lambda after: reads.append(after) or events[after:])
    assert reads == [0]  # "a" was the least recently used of three: read again from the start
    with pytest.raises(ValueError):
        SeatHistories().history("d", 0, len(events) + 1, lambda after: events[after:])


def test_a_bot_worker_decides_from_the_fresh_history_and_reads_each_event_about_once(redis_url, monkeypatch):
    """A whole game of heuristic bots played inline: every decision's history equals the seat's
    history built fresh from the store at that seq, and the store was asked for each event about once
    (it was asked for the whole history at every turn before)."""
    runtime = build_runtime(redis_url, bots="inline")
    monkeypatch.setattr(workers.bot_turn, "HISTORIES", SeatHistories())
    seen, decide = [], workers.bot_turn.decision_for

    def capture(table, state, events, seat, rng, out_of_time, budget_ms, history=None, playouts=None):
        seen.append((seat, history))
        return decide(table, state, events, seat, rng, out_of_time, budget_ms, history=history, playouts=playouts)

    monkeypatch.setattr(workers.bot_turn, "decision_for", capture)
    choose, turns = workers.bot_turn.choose, []

    def turn(handler, game_id, state, seat, seq, bot=None):
        turns.append(seq)
        return choose(handler, game_id, state, seat, seq, bot)

    monkeypatch.setattr(workers.bot_turn, "choose", turn)
    read, events_read = runtime.store.read, []

    def counted(game_id, after=0, until=None, count=None):
        found = read(game_id, after=after, until=until, count=count)
        events_read.append(len(found))
        return found

    monkeypatch.setattr(runtime.store, "read", counted)
    seats = [{"kind": "bot", "bot": "heuristic"}] * 4
    game_id = runtime.handler.create("schafkopf", 4, {"deals": 2}, seats, None).game_id
    monkeypatch.setattr(runtime.store, "read", read)
    everything = [e.to_domain() for e in runtime.store.read(game_id)]
    assert runtime.handler.load(game_id).state.status == "finished" and len(seen) > 40
    assert len(turns) == len(seen)  # every turn decided (a heuristic bot always has a choice)
    for seq, (seat, history) in zip(turns, seen):
        assert history == seat_history(everything[:seq], seat)
    assert sum(events_read) < 2 * len(everything)
