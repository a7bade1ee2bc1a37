"""A set start and a pause, at the table (domain/table.py), for every game.

Given a game created with ``start_at`` and every seat taken, When the system sends ``start`` (early, or
on time), Then it starts only on time, with the clocks starting then. Given a game in play, When the
system pauses it, Then no seat and no bot may act and no clock runs; When it resumes, Then every running
decision has the time it had left. Times are data: each decision is folded at the time it is stamped with.
"""
from __future__ import annotations

import hashlib

import pytest

from domain import errors
from domain.clock import iso
from domain.registry import all_games
from domain.table import Table, TableState

from .test_clock import CLOCK, SEED, T0, Timed

GAMES = all_games()
COMMITMENT = hashlib.sha256(bytes.fromhex(SEED)).hexdigest()
START = T0 + 3_600_000  # an hour after creation


def seated(game="schafkopf", players=4, start_at=START, clock=CLOCK):
    """A game created at T0 to start at ``start_at``, every seat taken at creation (as bulk pairing does)."""
    timed = Timed.__new__(Timed)
    timed.table, timed.events, timed.state = Table(GAMES), [], TableState()
    timed.apply(timed.table.create(game, players, {}, None, None, COMMITMENT, clock=clock,
                                   start_at=iso(start_at)), T0, "system")
    for seat in range(players):
        timed.run(None, {"type": "take_seat", "seat": seat}, T0)
    return timed


@pytest.mark.parametrize("game,players", [("schafkopf", 4), ("scharfe-schoten", 3), ("scharwenzel", 4)])
def test_a_game_with_a_set_start_waits_full_until_the_system_starts_it_on_time(game, players):
    timed = seated(game, players)
    assert timed.state.status == "waiting" and "GameStarted" not in [e.type for e in timed.events]
    assert timed.table.to_act(timed.state) == frozenset() and timed.table.deadlines(timed.state) == {}
    assert timed.table.summary(timed.state)["start_at"] == iso(START)
    with pytest.raises(errors.GameNotStarted, match=iso(START)):
        timed.table.decide(timed.state, 0, {"type": "pass"}, iso(START))
    with pytest.raises(errors.WrongPhase, match="starts at"):
        timed.run(None, {"type": "start"}, START - 1)
    started = timed.run(None, {"type": "start"}, START)
    assert [e.type for e in started] == ["GameStarted"]
    assert timed.state.status == "active"
    # The clocks start at that moment: each seat to act has per_move_s + bank from START.
    assert timed.table.deadlines(timed.state) == {seat: START + 10_000 + 20_000
                                                  for seat in timed.table.to_act(timed.state)}
    with pytest.raises(errors.AlreadyDone):
        timed.table.decide(timed.state, None, {"type": "start"}, iso(START + 1))


def test_only_the_system_starts_pauses_or_resumes_and_only_a_game_with_a_set_start_is_started():
    timed = seated()
    for command in ("start", "pause", "resume"):
        with pytest.raises(errors.UnknownCommand):
            timed.table.decide(timed.state, 0, {"type": command}, iso(START))
    plain = Timed()
    with pytest.raises(errors.WrongPhase, match="start_at"):
        plain.table.decide(plain.state, None, {"type": "start"}, iso(T0))


@pytest.mark.parametrize("raw", ["tomorrow", "2027-01-15 12:00:00", "2027-01-15T12:00:00", "2027-02-30T12:00:00Z", 7])
def test_a_start_at_that_is_no_rfc_3339_time_is_refused_by_name(raw):
    with pytest.raises(errors.InvalidSetup) as refused:
        Table(GAMES).create("schafkopf", 4, {}, None, None, COMMITMENT, start_at=raw)
    assert "start_at" in refused.value.errors


def test_while_paused_no_seat_acts_no_bot_is_due_and_the_clock_stops_then_resume_gives_back_the_time_left():
    timed = Timed(seats=[{"kind": "human"}, {"kind": "bot"}, {"kind": "human"}, {"kind": "bot"}])
    while timed.table.bot_for(timed.state, timed.to_act()) is not None:  # to a human's turn
        timed.move(T0)
    human = timed.to_act()
    due = timed.table.deadlines(timed.state)[human]
    paused_at = T0 + 4_000  # 4 s into the human's decision
    assert [e.type for e in timed.run(None, {"type": "pause"}, paused_at)] == ["GamePaused"]
    assert timed.table.to_act(timed.state) == frozenset()
    assert timed.table.legal_commands(timed.state, human) == []
    assert timed.table.deadlines(timed.state) == {}
    assert timed.table.summary(timed.state)["paused"] is True
    assert timed.table.summary(timed.state)["clock"]["seats"][human]["deadline_at"] is None
    with pytest.raises(errors.WrongPhase, match="paused"):
        timed.table.decide(timed.state, human, {"type": "anything"}, iso(paused_at + 1))
    with pytest.raises(errors.WrongPhase):  # its time cannot run out while the clock stands
        timed.table.decide(timed.state, None, {"type": "time_out", "seat": human, "move": {}}, iso(due + 60_000))
    with pytest.raises(errors.AlreadyDone):
        timed.table.decide(timed.state, None, {"type": "pause"}, iso(paused_at + 1))
    resumed_at = paused_at + 600_000  # ten minutes later
    assert [e.type for e in timed.run(None, {"type": "resume"}, resumed_at)] == ["GameResumed"]
    assert timed.table.deadlines(timed.state) == {human: due + 600_000}  # the 4 s spent stay spent
    assert timed.to_act() == human
    with pytest.raises(errors.AlreadyDone):
        timed.table.decide(timed.state, None, {"type": "resume"}, iso(resumed_at + 1))


def test_a_paused_bot_only_game_has_no_bot_to_act():
    table = Table(GAMES)
    events = table.create("scharfe-schoten", 3, {}, [{"kind": "bot"}] * 3, None, COMMITMENT)
    state = table.fold(TableState(), events)
    while (command := table.system_command(state, SEED)) is not None:
        state = table.fold(state, table.decide(state, None, command))
    assert table.to_act(state)
    state = table.fold(state, table.decide(state, None, {"type": "pause"}))
    assert table.to_act(state) == frozenset()
    assert table.system_command(state, SEED) is None


def test_a_replay_of_the_stored_events_gives_the_same_clocks_after_a_pause_and_a_set_start():
    timed = seated()
    timed.run(None, {"type": "start"}, START)
    timed.move(START + 2_000)
    timed.run(None, {"type": "pause"}, START + 3_000)
    timed.run(None, {"type": "resume"}, START + 9_000)
    state = TableState()
    for event in timed.events:
        state = timed.table.evolve_timed(state, event, None, None)
    assert state.clocks == timed.state.clocks
    assert timed.table.deadlines(state) == timed.table.deadlines(timed.state)


def test_a_table_paused_while_it_waits_for_a_seat_starts_paused_and_deals_on_resume():
    table = Table(GAMES)
    events = table.create("scharfe-schoten", 3, {}, [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}], None,
                          COMMITMENT)
    state = table.fold(TableState(), events)
    state = table.fold(state, table.decide(state, None, {"type": "pause"}))
    started = table.decide(state, None, {"type": "take_seat", "seat": 0})
    assert [e.type for e in started] == ["SeatTaken", "GameStarted"]
    state = table.fold(state, started)
    assert state.status == "active" and state.paused and table.system_command(state, SEED) is None
    state = table.fold(state, table.decide(state, None, {"type": "resume"}))
    assert table.system_command(state, SEED)["type"] == "deal"


def test_a_waiting_table_is_not_paused_past_its_ceiling_however_often_it_is_asked():
    # Given a table waiting for its seat, with a ceiling of 40 events
    table = Table(GAMES)
    events = table.create("scharfe-schoten", 3, {}, [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}], None,
                          COMMITMENT, limits={"max_events": 40})
    state = table.fold(TableState(), events)
    # When the system pauses and resumes it again and again, Then a pause near the ceiling is refused
    for _ in range(100):
        try:
            state = table.fold(state, table.decide(state, None, {"type": "pause"}))
        except errors.WrongPhase as refused:
            assert "ceiling of 40 events" in str(refused)
            break
        state = table.fold(state, table.decide(state, None, {"type": "resume"}))
    else:
        raise AssertionError("the pauses were never refused")
    assert state.events <= 40 and not state.paused
    # ... and a game paused just under it may always be resumed
    assert table.decide(state, None, {"type": "take_seat", "seat": 0})
