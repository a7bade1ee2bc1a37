"""The table around every game: seats, start, system commands, the seed reveal."""
from __future__ import annotations

import hashlib

import pytest

from domain import errors
from domain.registry import all_games
from domain.table import Table, TableState

from .harness import event_types, new_table

GAME = all_games()["scharfe-schoten"]


def created(seats=None):
    table = Table({GAME.name: GAME})
    commitment = hashlib.sha256(bytes(32)).hexdigest()
    events = table.create(GAME.name, 3, {}, seats, None, commitment)
    return table, table.fold(TableState(), events), events


def test_bot_seats_are_taken_at_creation_and_the_last_human_starts_the_game():
    table, state, events = created([{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}])
    assert event_types(events) == ["GameCreated", "SeatTaken", "SeatTaken"] and state.status == "waiting"
    started = table.decide(state, None, {"type": "take_seat", "seat": 0, "entropy": "abc"})
    assert event_types(started) == ["SeatTaken", "GameStarted"]
    assert table.fold(state, started).entropy == "abc,,"


def test_a_seat_is_taken_once_and_entropy_is_checked():
    table, state, _ = created()
    state = table.fold(state, table.decide(state, None, {"type": "take_seat", "seat": 0}))
    with pytest.raises(errors.SeatTaken):
        table.decide(state, None, {"type": "take_seat", "seat": 0})
    with pytest.raises(errors.InvalidCommand):
        table.decide(state, None, {"type": "take_seat", "seat": 1, "entropy": "no spaces"})
    with pytest.raises(errors.InvalidCommand):
        table.decide(state, None, {"type": "take_seat", "seat": 3})


def test_commands_before_the_start_are_refused():
    table, state, _ = created()
    with pytest.raises(errors.GameNotStarted):
        table.decide(state, 0, {"type": "predict", "most": "R", "fewest": "G"})


@pytest.mark.parametrize("command", [{"type": "deal", "deal": 1, "decks": {}},
                                     {"type": "take_seat", "seat": 1},
                                     {"type": "reveal_seed", "seed": "00" * 32}])
def test_a_seat_can_never_send_a_system_command(command):
    table, state, _ = new_table(GAME, 3)
    with pytest.raises(errors.UnknownCommand):
        table.decide(state, 0, command)


def test_the_last_event_reveals_the_committed_seed_and_no_other():
    seed = "00" * 32
    table, state, events = new_table(GAME, 3, rules={"rounds": 1}, seed_hex=seed)
    while not GAME.is_finished(state.inner):
        seat = min(table.to_act(state))
        state = table.fold(state, table.decide(state, seat, table.legal_commands(state, seat)[0]))
        while table.needs_system(state) and not GAME.is_finished(state.inner):  # deals only
            state = table.fold(state, table.decide(state, None, table.system_command(state, seed)))
    with pytest.raises(errors.InvalidCommand):
        table.decide(state, None, {"type": "reveal_seed", "seed": "11" * 32})
    revealed = table.decide(state, None, table.system_command(state, seed))
    assert event_types(revealed) == ["SeedRevealed"]
    assert table.fold(state, revealed).status == "finished"
