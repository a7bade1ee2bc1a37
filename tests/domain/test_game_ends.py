"""Every game ends, even one that nobody plays: Given a game and the time of its last event, When the
system sends ``end_game`` (idle, or its tournament aborted) at some time, Then ``GameCutShort`` naming
why, the seed revealed, and the standings of the deals settled so far (none for a game never started)."""
from __future__ import annotations

import hashlib

import pytest

from domain import errors
from domain.clock import iso, millis
from domain.limits import DEFAULT_IDLE_S
from domain.registry import all_games
from domain.table import Table, TableState

from .harness import event_types, run_system

GAMES = all_games()
SEED = "00" * 32
T0 = "2030-01-01T12:00:00.000Z"


def later(seconds: float, start: str = T0) -> str:
    return iso(millis(start) + round(seconds * 1000))


def created(table: Table, seats=None, limits=None, players=3, at=T0) -> tuple[TableState, list]:
    events = table.create("scharfe-schoten", players, {"rounds": 1}, seats, None,
                          hashlib.sha256(bytes.fromhex(SEED)).hexdigest(), limits)
    return table.fold(TableState(), events, at, "system"), events


def take(table: Table, state: TableState, seat: int, at: str):
    new = table.decide(state, None, {"type": "take_seat", "seat": seat}, at)
    return table.fold(state, new, at, "system"), new


def end(table: Table, state: TableState, at: str, **command):
    """When the system ends the game at ``at``: its events, the system's after them, and the state."""
    new = table.decide(state, None, {"type": "end_game", **command}, at)
    state = table.fold(state, new, at, "system")
    events, state = run_system(table, state, list(new), SEED)
    return events, state


def test_a_game_waiting_for_a_person_who_never_comes_ends_once_idle_for_its_ceiling():
    table = Table(GAMES)
    # Given a game created with an hour's idle ceiling, one of three seats taken 10 minutes in
    state, _ = created(table, limits={"max_idle_s": 3600})
    state, _ = take(table, state, 0, later(600))
    assert state.last_at == later(600) and state.limits.max_idle_s == 3600
    # When the system asks before the hour since the last event is up: refused, nothing happens
    with pytest.raises(errors.WrongPhase):
        table.decide(state, None, {"type": "end_game", "reason": "idle"}, later(600 + 3599))
    # When it asks an hour after the last event
    events, state = end(table, state, later(600 + 3600), reason="idle")
    # Then the game is cut short for being idle, since when, and its seed revealed: finished, every total 0
    assert event_types(events) == ["GameCutShort", "SeedRevealed"]
    assert events[0].data == {"reason": "idle", "limit": 3600, "events": 2, "idle_since": later(600)}
    assert state.status == "finished" and state.cut_short == "idle"
    summary = table.summary(state)
    assert summary["cut_short"] == "idle" and summary["seed"] == SEED
    assert summary["scores"]["totals"] == [0, 0, 0] and summary["scores"]["ranking"] == [1, 1, 1]


def test_an_active_game_whose_seat_never_moves_ends_with_the_standings_so_far():
    table = Table(GAMES)
    state, _ = created(table, limits={"max_idle_s": 60})
    for seat in range(3):
        state, _ = take(table, state, seat, later(seat))
    events, state = run_system(table, state, [], SEED)  # dealt
    assert state.status == "active" and table.to_act(state)
    # Every move resets the idle time: a prediction at 30 s
    seat = min(table.to_act(state))
    move = table.legal_commands(state, seat)[0]
    state = table.fold(state, table.decide(state, seat, move), later(30), seat)
    with pytest.raises(errors.WrongPhase):
        table.decide(state, None, {"type": "end_game", "reason": "idle"}, later(30 + 59))
    events, state = end(table, state, later(30 + 60), reason="idle")
    assert event_types(events) == ["GameCutShort", "SeedRevealed"] and state.status == "finished"
    assert table.summary(state)["scores"]["ranking"] == [1, 1, 1]  # no deal settled: every total 0, one place


def test_a_paused_table_does_not_end_for_being_idle_but_an_aborted_one_ends_paused_or_not():
    table = Table(GAMES)
    state, _ = created(table, limits={"max_idle_s": 60})
    state = table.fold(state, table.decide(state, None, {"type": "pause"}), T0, "system")
    with pytest.raises(errors.WrongPhase):
        table.decide(state, None, {"type": "end_game", "reason": "idle"}, later(10_000))
    events, state = end(table, state, later(10_000), reason="aborted", detail="tournament t123: the hall closed")
    assert event_types(events) == ["GameCutShort", "SeedRevealed"]
    assert events[0].data == {"reason": "aborted", "detail": "tournament t123: the hall closed", "events": 2}
    assert state.status == "finished" and state.cut_short == "aborted"


def test_only_the_system_ends_a_game_and_never_one_that_has_ended():
    table = Table(GAMES)
    state, _ = created(table, seats=[{"kind": "human"}] * 3)
    with pytest.raises(errors.UnknownCommand):
        table.decide(state, 0, {"type": "end_game", "reason": "idle"}, later(DEFAULT_IDLE_S))
    with pytest.raises(errors.InvalidCommand):
        table.decide(state, None, {"type": "end_game", "reason": "aborted", "detail": "x" * 201}, T0)
    with pytest.raises(errors.WrongPhase):
        table.decide(state, None, {"type": "end_game", "reason": "max_deals"}, later(DEFAULT_IDLE_S))
    _, state = end(table, state, later(DEFAULT_IDLE_S), reason="idle")  # the default ceiling: six hours
    for reason in ("idle", "aborted"):
        with pytest.raises(errors.GameFinished):
            table.decide(state, None, {"type": "end_game", "reason": reason}, later(10 * DEFAULT_IDLE_S))


def test_a_server_sets_the_default_idle_ceiling_and_a_creator_may_set_its_own():
    assert created(Table(GAMES, default_idle_s=900))[0].limits.max_idle_s == 900
    assert created(Table(GAMES, default_idle_s=900), limits={"max_idle_s": 120})[0].limits.max_idle_s == 120
    for bad in (59, 30 * 24 * 3600 + 1, "600", True):
        with pytest.raises(errors.InvalidSetup) as refused:
            created(Table(GAMES), limits={"max_idle_s": bad})
        assert "limits.max_idle_s" in refused.value.errors


def test_a_game_recorded_before_the_idle_ceiling_takes_the_default():
    table = Table(GAMES, default_idle_s=120)
    _, events = created(table)
    events[0].data["limits"].pop("max_idle_s")
    assert table.fold(TableState(), events).limits.max_idle_s == DEFAULT_IDLE_S
