"""A bot job plays on while only bots are to act (workers/chain.py): bounded, never past a person's
turn, every move through the one command handler, a duplicate job harmless, and the turns it plays
itself get no job of their own."""
from __future__ import annotations

import secrets
import threading

import pytest

import workers.bot_turn
import workers.runtime
from eventstore.handler import Loaded
from workers import chain
from workers.bot_turn import choose, play_bot_turn
from workers.context import build_runtime, runtime_from_environment
from workers.dispatch import BULK, INTERACTIVE, bots_to_act, job_id, lane_queue, lane_queues

from .burst_worker import BurstWorker

BOTS = [{"kind": "bot"}] * 3


@pytest.fixture
def runtime(redis_url, monkeypatch):
    """As in test_bot_turns.py: this test's own queue; a worker in this process has a runtime of its own."""
    import workers.runtime

    queue_name = "test-chain-" + secrets.token_hex(4)
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("STICH_QUEUE", queue_name)
    monkeypatch.delenv("STICH_BOT_THINK_MS", raising=False)
    monkeypatch.setattr(workers.runtime, "_current", None)
    workers.runtime.install(runtime_from_environment())
    return build_runtime(redis_url, bots="rq", queue_name=queue_name)


def count_executes(handler, monkeypatch) -> list:
    """Every ``execute`` call's outcome (or exception), in order: the moves that went through the handler."""
    calls = []
    original = handler.execute

    def execute(*args, **kwargs):
        try:
            outcome = original(*args, **kwargs)
        except Exception as exc:
            calls.append(exc)
            raise
        calls.append(outcome)
        return outcome

    monkeypatch.setattr(handler, "execute", execute)
    return calls


def queued(runtime, lane=BULK) -> set[str]:
    return set(lane_queue(runtime.queue, lane).job_ids)


def test_a_job_plays_n_bot_moves_then_queues_the_rest(runtime, monkeypatch):
    monkeypatch.setenv("STICH_BOT_CHAIN", "5")
    handler = runtime.handler
    game_id = handler.create("scharfe-schoten", 3, {}, BOTS, None).game_id
    start = handler.load(game_id)
    [first] = sorted(handler.table.to_act(start.state))[:1]
    assert queued(runtime) == {job_id(game_id, start.seq, seat) for seat in handler.table.to_act(start.state)}
    calls = count_executes(handler, monkeypatch)

    assert play_bot_turn(game_id, first, start.seq, handler=handler) == "played"

    assert len(calls) == 5 and not any(isinstance(c, Exception) or c.duplicate for c in calls)
    # Exactly the run's events, once each: one seq after the other from where the job started.
    events = runtime.store.read(game_id, after=start.seq)
    assert [e.seq for e in events] == list(range(start.seq + 1, start.seq + 1 + len(events)))
    assert [e.seq for c in calls for e in c.events] == [e.seq for e in events]
    after = handler.load(game_id)
    assert after.seq == calls[-1].loaded.seq
    # The turns the run played itself got no job; the turn after its fifth move did.
    due = handler.table.to_act(after.state)
    assert queued(runtime) - {job_id(game_id, start.seq, s) for s in range(3)} == {
        job_id(game_id, after.seq, seat) for seat in due}


def test_without_a_bound_a_bot_only_game_is_one_job_and_the_duplicates_are_harmless(runtime, monkeypatch):
    handler = runtime.handler
    game_id = handler.create("scharfe-schoten", 3, {"rounds": 1}, BOTS, None).game_id
    start = handler.load(game_id)
    monkeypatch.setenv("STICH_BOT_CHAIN_S", "30")  # the move bound alone, however slow the machine
    monkeypatch.setenv("STICH_BOT_CHAIN", "1000")
    calls = count_executes(handler, monkeypatch)
    assert play_bot_turn(game_id, 0, start.seq, handler=handler) == "played"
    done = handler.load(game_id)
    assert done.state.status == "finished" and len(calls) > 10
    assert queued(runtime) == {job_id(game_id, start.seq, s) for s in range(3)}  # the creation's, nothing since
    seqs = [c.loaded.seq for c in calls]
    # The jobs queued at the start, and a job for any turn the run played, find the seq moved on.
    for seat in range(3):
        assert play_bot_turn(game_id, seat, start.seq, handler=handler) == "moved on"
    assert play_bot_turn(game_id, 0, seqs[3], handler=handler) == "moved on"
    assert handler.load(game_id).seq == done.seq and len(calls) == len(seqs)


def count_jobs(monkeypatch, after_each=None) -> list:
    """Every bot-turn job a worker in this process runs: (its answer, the moves made meanwhile)."""
    jobs = []
    play = workers.bot_turn.play_bot_turn

    def counted(*args, **kwargs):
        before = MOVES_SEEN[0]
        answer = play(*args, **kwargs)
        jobs.append((answer, MOVES_SEEN[0] - before))
        if after_each:
            after_each(*args)
        return answer

    monkeypatch.setattr(workers.bot_turn, "play_bot_turn", counted)  # RQ finds the job function by name
    return jobs


MOVES_SEEN = [0]


@pytest.fixture
def moves_seen(monkeypatch):
    """Counts the moves bots make in this process (``record_move`` is called once per move)."""
    MOVES_SEEN[0] = 0
    record = workers.bot_turn.record_move

    def counted(*args, **kwargs):
        MOVES_SEEN[0] += 1
        return record(*args, **kwargs)

    monkeypatch.setattr(workers.bot_turn, "record_move", counted)
    return MOVES_SEEN


def drain(runtime):
    BurstWorker(lane_queues(runtime.queue), connection=runtime.queue.connection,
                 serializer=runtime.queue.serializer).work(burst=True, logging_level="ERROR")


def test_a_run_never_plays_a_persons_turn_and_their_bots_still_answer(runtime, monkeypatch, moves_seen):
    handler = runtime.handler
    seats = [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}]
    game_id = handler.create("scharfe-schoten", 3, {"rounds": 1}, seats, None).game_id
    handler.execute(game_id, None, {"type": "take_seat", "seat": 0})

    def person_is_to_act(game, *_):  # after every job: the run stopped at the person's turn, or the end
        state = handler.load(game).state
        assert state.status == "finished" or 0 in handler.table.to_act(state)

    jobs = count_jobs(monkeypatch, person_is_to_act)
    worker = workers.runtime.current_handler()
    original, moves = worker.execute, []

    def execute(game, actor, command, **kwargs):  # whether the person was to act when each bot moved
        moves.append((len(jobs), 0 in worker.table.to_act(worker.load(game).state)))
        return original(game, actor, command, **kwargs)

    monkeypatch.setattr(worker, "execute", execute)
    for _ in range(300):
        loaded = handler.load(game_id)
        if loaded.state.status == "finished":
            break
        if bots_to_act(handler.table, loaded.state):
            assert queued(runtime, INTERACTIVE), "a bot is due and has no job"
            drain(runtime)
        else:
            handler.execute(game_id, 0, handler.table.legal_commands(loaded.state, 0)[0])
    assert handler.load(game_id).state.status == "finished"
    # After the person's card both bots play in one job (and on, while a bot wins the trick and leads)...
    assert max(made for _, made in jobs) >= 2 and sum(made for _, made in jobs) == moves_seen[0] == len(moves)
    # ... but a run goes on only while no person is to act: a turn shared with the person
    # (the simultaneous predictions) is its job's first move, never a later one.
    later = [person for i, (job, person) in enumerate(moves) if i and moves[i - 1][0] == job]
    assert later and not any(later)
    assert any(person for _, person in moves)  # there were shared turns, played each by a job of its own


def test_a_duplicate_that_moves_first_stops_the_run_and_its_listeners_carry_the_game_on(runtime, monkeypatch,
                                                                                       redis_url):
    """Another process (a sweeper's re-drive, say) plays the turn the run is about to play: the run's
    append finds it done (same key, same command) and the run stops; the other process's dispatcher
    queued the next turn."""
    handler = runtime.handler
    other = build_runtime(redis_url, bots="rq", queue_name=runtime.queue.name)  # another process's caches
    game_id = handler.create("scharfe-schoten", 3, {}, BOTS, None).game_id
    start = handler.load(game_id)
    original = handler.execute
    calls, theirs = [], []

    def other_process_moves(game):
        loaded = other.handler.load(game)
        seat = min(other.handler.table.to_act(loaded.state))
        move = choose(other.handler, game, loaded.state, seat, loaded.seq)
        theirs.append(other.handler.execute(game, seat, move, expected_seq=loaded.seq,
                                            idempotency_key=f"bot-{loaded.seq}"))

    def execute(game, actor, command, **kwargs):
        if len(calls) == 1:  # the run's second move: the other process gets there first (its own thread:
            racer = threading.Thread(target=other_process_moves, args=(game,))  # no run of ours there)
            racer.start()
            racer.join(10)
        calls.append(original(game, actor, command, **kwargs))
        return calls[-1]

    monkeypatch.setattr(handler, "execute", execute)
    assert play_bot_turn(game_id, 0, start.seq, handler=handler) == "played"
    [first, ours], [their] = calls, theirs
    assert ours.duplicate and not their.duplicate and [e.seq for e in ours.events] == [e.seq for e in their.events]
    now = handler.load(game_id)
    assert now.seq == their.loaded.seq  # two moves in all: the run's first, and the other's
    assert len(runtime.store.read(game_id, after=start.seq)) == len(first.events) + len(their.events)
    assert {job_id(game_id, now.seq, seat) for seat in handler.table.to_act(now.state)} <= queued(runtime)


def test_with_a_think_pause_every_move_is_its_own_job(runtime, monkeypatch):
    monkeypatch.setenv("STICH_BOT_THINK_MS", "1")
    handler = workers.runtime.current_handler()
    game_id = handler.create("scharfe-schoten", 3, {}, BOTS, None).game_id
    start = handler.load(game_id)
    calls = count_executes(handler, monkeypatch)
    assert play_bot_turn(game_id, 0, start.seq) == "played"  # as a worker runs it: the pause read from env
    assert len(calls) == 1
    assert job_id(game_id, calls[0].loaded.seq, 1) in queued(runtime)


class Clock:
    now = 0.0

    def __call__(self):
        return self.now


def test_the_run_answers_once_per_seq_what_the_dispatcher_was_told(runtime):
    """The dispatcher and the run ask the same question; the clock running out between the two
    answers must not leave a turn skipped by the dispatcher and not played by the run."""
    table = runtime.handler.table
    loaded = runtime.handler.create("scharfe-schoten", 3, {}, BOTS, None).loaded
    clock = Clock()
    run = chain.Run(loaded.game_id, moves=10, seconds=1.0, clock=clock)
    assert run.goes_on(table, loaded)
    clock.now = 5.0
    assert run.goes_on(table, loaded)  # the answer given for this seq stands
    assert not run.goes_on(table, Loaded(loaded.game_id, loaded.state, loaded.seq + 1))  # a new turn: out of time
    assert not chain.Run("another", 10, 1.0).goes_on(table, loaded)


def test_bot_only_tournament_tables_finish_in_a_few_jobs_each(runtime, monkeypatch, moves_seen):
    jobs = count_jobs(monkeypatch)
    desk = workers.runtime.current_runtime().tournaments
    config = {"game": "schafkopf", "participants": [{"kind": "bot"}] * 8, "rounds": 2, "deals_per_table": 2,
              "seating": "swiss"}
    tournament_id = desk.handler.create_with(lambda c: desk.handler.table.create(config, c),
                                             game_id="t" + secrets.token_hex(8)[1:]).game_id
    runtime.tournaments.handler.execute(tournament_id, None, {"type": "start"})
    for _ in range(50):
        drain(runtime)
        if desk.handler.load(tournament_id).state.status == "finished":
            break
    state = desk.handler.load(tournament_id).state
    assert state.status == "finished"
    games = [slot.game_id for round_ in state.rounds for slot in round_.tables]
    assert len(games) == 4 and all(runtime.handler.load(g).state.status == "finished" for g in games)
    assert moves_seen[0] > 100
    # One job per move before; now a job plays a stretch of a deal or more (jobs found stale count too).
    assert len(jobs) * 8 < moves_seen[0]
