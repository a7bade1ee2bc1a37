"""Turn deadlines: each human seat's clock, kept from the events' own times (domain/clock.py).

Given a game with a clock, When seats move (or do not) at given times, Then the
clocks, the deadlines and the time-outs follow. Times are data here: every
decision is folded at the time its events are stamped with.
"""
from __future__ import annotations

import hashlib

import pytest

from domain import errors
from domain.clock import iso
from domain.event import Event
from domain.registry import all_games
from domain.table import Table, TableState

GAMES = all_games()
T0 = 1_800_000_000_000  # ms since the epoch: 2027-01-15
CLOCK = {"per_move_s": 10, "bank_s": 20, "abandon_after": 2}
SEED = "00" * 32


class Timed:
    """A table and its events, every decision folded at a given time, as the command handler does."""

    def __init__(self, game="schafkopf", players=4, clock=None, seats=None):
        self.table = Table(GAMES)
        commitment = hashlib.sha256(bytes.fromhex(SEED)).hexdigest()
        self.events: list[Event] = []
        self.state = TableState()
        self.apply(self.table.create(game, players, {}, seats, None, commitment, clock=clock or CLOCK), T0, "system")
        for seat in range(players):
            if not self.state.seats[seat].taken:
                self.run(None, {"type": "take_seat", "seat": seat}, T0)

    def apply(self, events, at_ms, actor):
        # Stored events carry their time and actor: a replay from them must give the same clocks.
        self.events += [Event(e.type, e.data, e.visibility, e.v, iso(at_ms), actor) for e in events]
        self.state = self.table.fold(self.state, events, iso(at_ms), actor)
        while (command := self.table.system_command(self.state, SEED)) is not None:
            system = self.table.decide(self.state, None, command, iso(at_ms))
            self.events += [Event(e.type, e.data, e.visibility, e.v, iso(at_ms), "system") for e in system]
            self.state = self.table.fold(self.state, system, iso(at_ms), "system")
        return events

    def run(self, actor, command, at_ms):
        decided = self.table.decide(self.state, actor, command, iso(at_ms))
        return self.apply(decided, at_ms, "system" if actor is None else actor)

    def to_act(self):
        return min(self.table.to_act(self.state))

    def move(self, at_ms):
        """The seat to act makes its first legal move at ``at_ms``."""
        seat = self.to_act()
        return seat, self.run(seat, self.table.legal_commands(self.state, seat)[0], at_ms)

    def time_out(self, seat, at_ms):
        move = self.table.legal_commands(self.state, seat)[0]
        return self.run(None, {"type": "time_out", "seat": seat, "move": move}, at_ms)

    def clock(self, seat):
        return self.table.summary(self.state)["clock"]["seats"][seat]


@pytest.mark.parametrize("clock, field", [
    ({}, "clock.per_move_s"),
    ({"per_move_s": 0}, "clock.per_move_s"),
    ({"per_move_s": 5, "bank_s": -1}, "clock.bank_s"),
    ({"per_move_s": 5, "bot": "oracle"}, "clock.bot"),
    ({"per_move_s": 5, "abandon_after": 0}, "clock.abandon_after"),
    ({"per_move_s": 5, "hurry": True}, "clock"),
    ([5], "clock"),
])
def test_a_bad_clock_is_refused_naming_the_field(clock, field):
    with pytest.raises(errors.InvalidSetup) as refused:
        Table(GAMES).create("schafkopf", 4, {}, None, None, "0" * 64, clock=clock)
    assert field in refused.value.errors


def test_a_game_without_a_clock_keeps_the_game_created_it_always_had():
    events = Table(GAMES).create("schafkopf", 4, {}, None, None, "0" * 64)
    assert "clock" not in events[0].data
    assert "clock" not in Table(GAMES).summary(Table(GAMES).fold(TableState(), events))


def test_the_seat_to_act_is_on_the_clock_from_the_deal():
    # Given a clocked game whose seats were taken and dealt at T0
    game = Timed()
    seat = game.to_act()
    # Then that seat's clock runs from T0, due after per_move_s plus its whole bank; nobody else's runs
    assert game.clock(seat) == {"seat": seat, "bank_ms": 20_000, "turn_started_at": iso(T0),
                                "deadline_at": iso(T0 + 30_000), "timeouts": 0, "abandoned": False}
    assert game.table.deadlines(game.state) == {seat: T0 + 30_000}
    assert game.table.summary(game.state)["clock"]["per_move_s"] == 10


def test_a_slow_move_draws_on_the_bank_and_the_next_seat_starts_then():
    game = Timed()
    # When the first seat moves within its 10 s, and the next one after 15 s
    first, _ = game.move(T0 + 4_000)
    second, _ = game.move(T0 + 4_000 + 15_000)
    # Then the first keeps its bank, the second lost 5 s of it, and the third's clock started at its move
    assert game.clock(first)["bank_ms"] == 20_000 and game.clock(first)["deadline_at"] is None
    assert game.clock(second)["bank_ms"] == 15_000
    third = game.to_act()
    assert game.clock(third)["turn_started_at"] == iso(T0 + 19_000)


def test_a_time_out_before_the_deadline_is_refused_and_changes_nothing():
    game = Timed()
    seat = game.to_act()
    before = game.state
    with pytest.raises(errors.WrongPhase, match="has time until"):
        game.time_out(seat, T0 + 29_999)
    assert game.state is before
    # And only the seat on the clock can time out
    other = (seat + 1) % 4
    with pytest.raises(errors.WrongPhase, match="not on the clock"):
        game.run(None, {"type": "time_out", "seat": other, "move": {"type": "pass"}}, T0 + 60_000)


def test_at_the_deadline_the_clocks_bot_moves_and_the_bank_is_spent():
    game = Timed()
    seat = game.to_act()
    move = game.table.legal_commands(game.state, seat)[0]
    seq, before = game.state.events, game.state.inner
    # When the time-out comes at the deadline
    events = game.time_out(seat, T0 + 30_000)
    # Then TurnTimedOut records the seat, the seq it was due at and the move, followed by that move's events
    assert events[0].type == "TurnTimedOut"
    assert events[0].data == {"seat": seat, "seq": seq, "move": move, "timeouts": 1, "abandoned": False}
    assert [e.type for e in events[1:]] == [e.type for e in game.table.games["schafkopf"].decide(before, seat, move)]
    # The move stays the seat's secret while the game runs (it could be a hidden one)
    assert events[0].visibility.scope == "seat" and "move" not in events[0].visibility.public_keys
    assert game.clock(seat)["bank_ms"] == 0 and game.clock(seat)["timeouts"] == 1


def test_a_time_out_must_make_a_legal_move():
    game = Timed()
    seat = game.to_act()
    with pytest.raises(errors.InvalidCommand, match="legal commands"):
        game.run(None, {"type": "time_out", "seat": seat, "move": {"type": "play", "card": "nonsense"}},
                 T0 + 30_000)


def test_a_seat_cannot_send_a_time_out():
    game = Timed()
    seat = game.to_act()
    with pytest.raises(errors.UnknownCommand):
        game.run(seat, {"type": "time_out", "seat": seat, "move": {}}, T0 + 60_000)


def run_until_on_the_clock(game, seat, at_ms):
    """Other seats move (at ``at_ms``) until ``seat`` is to act again."""
    while game.to_act() != seat:
        game.move(at_ms)


def test_consecutive_time_outs_abandon_the_seat_until_it_is_taken_again():
    game = Timed()
    seat = game.to_act()
    now = T0 + 30_000
    game.time_out(seat, now)
    run_until_on_the_clock(game, seat, now)
    # The second time-out in a row comes after per_move_s alone: the bank is spent
    due = game.table.deadlines(game.state)[seat]
    assert due == game.state.clocks[seat].since_ms + 10_000
    events = game.time_out(seat, due)
    # Then the seat is abandoned: the clock's bot plays it, and no clock runs for it
    assert events[0].data["abandoned"] is True and events[0].data["timeouts"] == 2
    assert game.table.bot_for(game.state, seat) == "heuristic"
    run_until_on_the_clock(game, seat, due)
    assert seat not in game.table.deadlines(game.state)
    # When the seat is taken again, it is reclaimed (a new generation of its token) and on the clock again
    reclaimed = game.run(None, {"type": "take_seat", "seat": seat}, due + 1_000)
    assert [e.type for e in reclaimed] == ["SeatReclaimed"] and reclaimed[0].data == {"seat": seat, "generation": 1}
    assert game.state.seats[seat].generation == 1 and game.table.bot_for(game.state, seat) is None
    assert game.clock(seat) == {"seat": seat, "bank_ms": 0, "turn_started_at": iso(due + 1_000),
                                "deadline_at": iso(due + 11_000), "timeouts": 0, "abandoned": False}
    # A seat that is not abandoned cannot be taken twice
    with pytest.raises(errors.SeatTaken):
        game.run(None, {"type": "take_seat", "seat": seat}, due + 2_000)


def test_a_move_of_its_own_resets_the_time_outs():
    game = Timed()
    seat = game.to_act()
    game.time_out(seat, T0 + 30_000)
    run_until_on_the_clock(game, seat, T0 + 30_000)
    game.move(T0 + 31_000)
    assert game.state.clocks[seat].timeouts == 0 and not game.state.clocks[seat].abandoned


def test_an_abandoned_seat_keeps_the_time_outs_its_last_time_out_counted():
    # Given a clock that abandons a seat after one time-out, and the seat's time runs out
    game = Timed(clock={**CLOCK, "abandon_after": 1})
    seat = game.to_act()
    events = game.time_out(seat, T0 + 30_000)
    assert events[0].data["timeouts"] == 1 and events[0].data["abandoned"] is True
    # When the clock's bot plays the seat's next turns (moves made for the seat, not by it)
    for _ in range(3):
        while game.to_act() != seat:
            game.move(T0 + 31_000)
        game.move(T0 + 31_000)
    # Then its clock still counts the one time-out that TurnTimedOut recorded
    assert game.clock(seat)["timeouts"] == 1 and game.clock(seat)["abandoned"] is True


def test_bot_seats_have_no_clock():
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot"}, {"kind": "bot"}]
    game = Timed(seats=seats)
    assert set(game.table.deadlines(game.state)) <= {0}
    assert all(game.clock(s)["deadline_at"] is None for s in (1, 2, 3))


@pytest.mark.parametrize("name, players", [("schafkopf", 4), ("scharwenzel", 4), ("scharfe-schoten", 3)])
def test_replaying_the_stored_events_gives_the_same_clocks(name, players):
    # Given a clocked game of every kind played for a while at varying speeds, with time-outs
    game = Timed(name, players)
    now = T0
    timeouts = 0
    for step in range(60):
        if not game.table.to_act(game.state):
            break  # the game is over
        seat = game.to_act()
        if step % 7 == 3:
            now = game.table.deadlines(game.state)[seat]
            game.time_out(seat, now)
            timeouts += 1
        else:
            now += 1_000 * (step % 13)
            game.move(now)
    assert timeouts >= 2
    # When the stored events (each with its own time and actor) are folded from nothing
    replayed = game.table.fold(TableState(), game.events)
    # Then the clocks are the live ones
    assert replayed.clocks == game.state.clocks
    assert game.table.summary(replayed) == game.table.summary(game.state)
