"""The organizer's controls: pause and resume, withdraw a participant, abort — Given / When / Then."""
from __future__ import annotations

import pytest

from domain import errors
from domain.event import Event

from domain.tournament.decider import table_game_id

from .test_tournament import SEED, T, config, created, given, play_round, run_system

HUMANS = [{"kind": "human"}, {"kind": "human"}] + [{"kind": "bot"}] * 6


def started(**overrides):
    """A running tournament: created, its humans joined, started, round 1 drawn."""
    state = given(*created(**overrides))
    for p, entry in enumerate(state.participants):
        if entry["kind"] == "human":
            state = T.fold(state, T.decide(state, None, {"type": "join", "participant": p}))
    state = T.fold(state, T.decide(state, None, {"type": "start"}))
    return run_system(state)[0]


def when(state, **command):
    return T.decide(state, None, command)


def open_all(state):
    number = state.current.number
    for slot in state.current.tables:
        state = T.fold(state, when(state, type="open_table", round=number, table=slot.table,
                                   game_id=table_game_id("t1", number, slot.table)))
    return state


def finish_all(state):
    """Every open table of the current round finishes, each participant scoring its number."""
    number = state.current.number
    for slot in state.current.tables:
        totals = list(slot.participants)
        state = T.fold(state, when(state, type="finish_table", round=number, table=slot.table, totals=totals,
                                   places=[1 + sum(o > t for o in totals) for t in totals]))
        state, _ = run_system(state)
    return state


def test_pausing_a_running_tournament_holds_its_next_round_and_resuming_draws_it():
    state = started()
    assert when(state, type="pause", reason="fire alarm") == [Event("TournamentPaused", {"reason": "fire alarm"})]
    paused = T.fold(open_all(state), when(state, type="pause"))
    after_round, drawn = run_system(finish_all(paused))  # the tables already open finish…
    assert after_round.current.finished and len(after_round.rounds) == 1 and not drawn  # …no round 2
    assert not T.needs_system(after_round)
    resumed = T.fold(after_round, when(after_round, type="resume"))
    state, events = run_system(resumed)
    assert [e.type for e in events] == ["RoundDrawn"] and state.current.number == 2


def test_a_paused_tournament_opens_no_table():
    state = T.fold(started(), [Event("TournamentPaused", {"reason": ""})])
    with pytest.raises(errors.WrongPhase, match="paused"):
        when(state, type="open_table", round=1, table=0, game_id="0" * 16)


def test_a_tournament_finishes_only_when_resumed():
    state = T.fold(open_all(started(rounds=1)), [Event("TournamentPaused", {"reason": ""})])
    state, events = run_system(finish_all(state))
    assert state.standings is None and "TournamentFinished" not in [e.type for e in events]
    state, events = run_system(T.fold(state, when(state, type="resume")))
    assert [e.type for e in events] == ["TournamentFinished", "SeedRevealed"]


@pytest.mark.parametrize("command,error", [
    ({"type": "resume"}, errors.WrongPhase),
    ({"type": "pause", "reason": "x" * 201}, errors.InvalidCommand),
    ({"type": "pause", "reason": 7}, errors.InvalidCommand),
])
def test_pause_and_resume_are_refused_out_of_turn(command, error):
    with pytest.raises(error):
        T.decide(started(), None, command)


def test_a_waiting_tournament_is_not_paused_and_a_paused_one_not_twice():
    with pytest.raises(errors.WrongPhase):
        when(given(*created()), type="pause")
    paused = T.fold(started(), [Event("TournamentPaused", {"reason": ""})])
    with pytest.raises(errors.AlreadyDone):
        when(paused, type="pause")


def test_a_withdrawn_participant_is_played_by_the_bot_from_the_next_round_on():
    state = started(participants=HUMANS)
    [withdrawn] = when(state, type="withdraw", participant=1, bot="search")
    assert withdrawn == Event("ParticipantWithdrawn", {"participant": 1, "bot": "search", "from_round": 2})
    state = T.fold(state, [withdrawn])
    [table] = [t for t in state.current.tables if 1 in t.participants]
    seat = table.participants.index(1)
    assert T.table_setup(state, 1, table.table)["seats"][seat] == {"kind": "human"}  # round 1: as it was
    state, _ = run_system(play_round(state))
    [table] = [t for t in state.current.tables if 1 in t.participants]
    assert T.table_setup(state, 2, table.table)["seats"][table.participants.index(1)] == {"kind": "bot",
                                                                                            "bot": "search"}
    row = T.summary(state)["participants"][1]
    assert row["withdrawn"] == {"bot": "search", "from_round": 2} and row["kind"] == "human"


def test_a_human_withdrawn_before_the_start_no_longer_holds_it_up_and_is_a_bot_from_round_one():
    state = given(*created(participants=HUMANS))
    state = T.fold(state, when(state, type="join", participant=0))
    with pytest.raises(errors.WrongPhase, match=r"\[1\]"):
        when(state, type="start")
    state = T.fold(state, when(state, type="withdraw", participant=1))
    state, _ = run_system(T.fold(state, when(state, type="start")))
    [table] = [t for t in state.current.tables if 1 in t.participants]
    assert T.table_setup(state, 1, table.table)["seats"][table.participants.index(1)] == {"kind": "bot",
                                                                                            "bot": "heuristic"}


def test_a_slot_withdrawn_before_anyone_joined_it_cannot_be_joined():
    # Given a human slot withdrawn before its human joined
    state = given(*created(participants=HUMANS))
    state = T.fold(state, when(state, type="withdraw", participant=1))
    # When someone joins it, Then it is refused: the slot is its bot's now
    with pytest.raises(errors.SeatTaken, match="withdrawn"):
        when(state, type="join", participant=1)


@pytest.mark.parametrize("command,error", [
    ({"participant": 2}, errors.WrongPhase),  # a bot
    ({"participant": 8}, errors.InvalidCommand),
    ({"participant": True}, errors.InvalidCommand),
    ({"participant": 0, "bot": "oracle"}, errors.InvalidCommand),
])
def test_a_withdrawal_names_a_human_participant_and_a_known_bot(command, error):
    with pytest.raises(error):
        T.decide(started(participants=HUMANS), None, {"type": "withdraw", **command})


def test_a_participant_withdraws_once():
    state = started(participants=HUMANS)
    state = T.fold(state, when(state, type="withdraw", participant=0))
    with pytest.raises(errors.AlreadyDone):
        when(state, type="withdraw", participant=0)


def test_aborting_records_the_reason_and_the_finished_rounds_standings_then_reveals_the_seed():
    state = run_system(play_round(started(rounds=3)))[0]  # round 1 played, round 2 drawn
    [aborted] = when(state, type="abort", reason="venue closed")
    assert aborted.type == "TournamentAborted" and aborted.data["reason"] == "venue closed"
    assert aborted.data["standings"] == T.summary(state)["standings"]
    assert {row["rounds_played"] for row in aborted.data["standings"]} == {1}
    state, events = run_system(T.fold(state, [aborted]))
    assert [e.type for e in events] == ["SeedRevealed"] and events[0].data["seed"] == SEED
    assert state.status == "finished" and state.aborted == "venue closed"
    summary = T.summary(state)
    assert summary["aborted"] == "venue closed" and summary["final"]
    with pytest.raises(errors.GameFinished):
        when(state, type="open_table", round=2, table=0, game_id="0" * 16)


def test_an_abort_needs_a_reason_and_a_finished_tournament_is_not_aborted():
    with pytest.raises(errors.InvalidCommand):
        when(started(), type="abort", reason=" ")
    finished = run_system(play_round(play_round(started())))[0]
    assert finished.status == "finished"
    with pytest.raises(errors.GameFinished):
        when(finished, type="abort", reason="late")


def test_a_waiting_tournament_is_aborted_too():
    state, events = run_system(T.fold(given(*created()), when(given(*created()), type="abort", reason="no one came")))
    assert state.status == "finished" and [e.type for e in events] == ["SeedRevealed"]




def test_a_tournament_is_paused_at_most_max_pauses_times():
    # Given a running tournament paused and resumed MAX_PAUSES times
    from domain.tournament.decider import MAX_PAUSES

    state = started(participants=HUMANS)
    for _ in range(MAX_PAUSES):
        state = T.fold(state, when(state, type="pause"))
        state = T.fold(state, when(state, type="resume"))
    # When it is paused once more, Then it is refused: each pause is events in it and its tables
    with pytest.raises(errors.WrongPhase, match=f"{MAX_PAUSES} times"):
        when(state, type="pause")
    assert state.pauses == MAX_PAUSES and not state.paused
