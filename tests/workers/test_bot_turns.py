"""Bot turns through RQ: deterministic job ids, quiet exits, exactly one move per turn; the lanes, the
analyses' among them."""
from __future__ import annotations

import dataclasses
import secrets
import time

import pytest
from rq import Queue

from workers.bot_turn import play_bot_turn
from workers.context import build_runtime, runtime_from_environment
from workers.dispatch import ANALYSIS, BOT_LANES, BULK, INTERACTIVE, LANES, SLOW, job_id, lane_queue, lane_queues

from .burst_worker import BurstWorker


@pytest.fixture
def runtime(redis_url, monkeypatch):
    """A runtime whose queue is this test's own; jobs run by an in-process worker use a
    runtime of their own, built from the same environment a real worker reads."""
    import workers.runtime

    queue_name = "test-bots-" + secrets.token_hex(4)
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("STICH_QUEUE", queue_name)
    monkeypatch.setattr(workers.runtime, "_current", None)
    workers.runtime.install(runtime_from_environment())
    return build_runtime(redis_url, bots="rq", queue_name=queue_name)


def drain(runtime):
    worker = BurstWorker(lane_queues(runtime.queue), connection=runtime.queue.connection,
                          serializer=runtime.queue.serializer)
    worker.work(burst=True, logging_level="ERROR")


def predict_all_humans(runtime, game_id):
    handler = runtime.handler
    loaded = handler.load(game_id)
    for seat in sorted(handler.table.to_act(loaded.state)):
        if loaded.state.seats[seat].kind == "human":
            handler.execute(game_id, seat, handler.table.legal_commands(loaded.state, seat)[0])
            loaded = handler.load(game_id)


def test_due_bots_get_one_job_each_with_a_deterministic_id(runtime):
    outcome = runtime.handler.create("scharfe-schoten", 3, {}, [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}], None)
    game_id = outcome.game_id
    assert outcome.loaded.state.status == "waiting"
    runtime.handler.execute(game_id, None, {"type": "take_seat", "seat": 0})
    seq = runtime.handler.load(game_id).seq
    queued = set(lane_queue(runtime.queue, INTERACTIVE).job_ids)  # a person plays here
    # Predictions are simultaneous: both bots are due at once.
    assert {job_id(game_id, seq, 1), job_id(game_id, seq, 2)} <= queued


def test_worker_plays_the_bots_and_the_game_goes_on(runtime):
    game_id = runtime.handler.create("scharfe-schoten", 3, {"rounds": 1},
                                     [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}], None).game_id
    runtime.handler.execute(game_id, None, {"type": "take_seat", "seat": 0})
    for _ in range(200):
        predict_all_humans(runtime, game_id)
        drain(runtime)
        state = runtime.handler.load(game_id).state
        if state.status == "finished":
            break
    assert runtime.handler.load(game_id).state.status == "finished"


def test_a_late_or_duplicate_job_exits_quietly_and_moves_once(runtime):
    game_id = runtime.handler.create("scharfe-schoten", 3, {}, [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}], None).game_id
    runtime.handler.execute(game_id, None, {"type": "take_seat", "seat": 0})
    seq = runtime.handler.load(game_id).seq
    assert play_bot_turn(game_id, 1, seq, handler=runtime.handler) == "played"
    after = runtime.handler.load(game_id).seq
    assert play_bot_turn(game_id, 1, seq, handler=runtime.handler) == "moved on"
    assert play_bot_turn(game_id, 1, after, handler=runtime.handler) == "not due"  # already predicted
    assert runtime.handler.load(game_id).seq == after
    assert play_bot_turn("no-such-game", 1, 1, handler=runtime.handler) == "unknown game"


def test_same_job_enqueued_twice_makes_one_move(runtime):
    game_id = runtime.handler.create("scharfe-schoten", 3, {}, [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}], None).game_id
    runtime.handler.execute(game_id, None, {"type": "take_seat", "seat": 0})
    seq = runtime.handler.load(game_id).seq
    queue = Queue(runtime.queue.name, connection=runtime.queue.connection, serializer=runtime.queue.serializer)
    queue.enqueue("workers.bot_turn.play_bot_turn", game_id, 1, seq, job_id=job_id(game_id, seq, 1))
    drain(runtime)
    events = runtime.store.read(game_id, after=seq)
    assert [e.data.get("seat") for e in events if e.type == "PredictionMade"].count(1) == 1


def queued_in(runtime, lane):
    return set(lane_queue(runtime.queue, lane).job_ids)


def test_a_turn_goes_to_the_lane_of_who_waits_for_it(runtime):
    """Games with a person: interactive, or slow for a long search; bot-only games: bulk (the base queue)."""
    def started(seats):
        game_id = runtime.handler.create("scharfe-schoten", len(seats), {}, seats, None).game_id
        for seat, spec in enumerate(seats):
            if spec["kind"] == "human":
                runtime.handler.execute(game_id, None, {"type": "take_seat", "seat": seat})
        return game_id, runtime.handler.load(game_id).seq

    quick, quick_seq = started([{"kind": "human"}, {"kind": "bot"}, {"kind": "bot", "bot": "search"}])
    slow, slow_seq = started([{"kind": "human"}, {"kind": "bot", "bot": "search", "budget_ms": 2000},
                              {"kind": "bot", "bot": "search", "budget_ms": 300}])
    bots, bots_seq = started([{"kind": "bot", "bot": "search", "budget_ms": 2000}, {"kind": "bot"},
                              {"kind": "bot", "bot": "heuristic"}])
    interactive, long_searches, bulk = (queued_in(runtime, lane) for lane in (INTERACTIVE, SLOW, BULK))
    assert {job_id(quick, quick_seq, 1), job_id(quick, quick_seq, 2)} <= interactive  # the default cap, 500 ms
    assert job_id(slow, slow_seq, 1) in long_searches and job_id(slow, slow_seq, 2) in interactive
    assert {job_id(bots, bots_seq, seat) for seat in range(3)} <= bulk
    assert not {quick, slow} & {j.split("-")[1] for j in bulk}
    assert runtime.queue.name == lane_queue(runtime.queue, BULK).name  # jobs that name no lane: bulk


def test_a_worker_takes_a_persons_turn_before_queued_bot_only_work(runtime):
    """The bulk lane is full (a bot-only game's turns queued first); a worker of every lane still takes
    the person's game's turn first, and an interactive-only worker never touches the bulk lane."""
    bots = runtime.handler.create("scharfe-schoten", 3, {}, [{"kind": "bot"}] * 3, None).game_id
    bots_seq = runtime.handler.load(bots).seq
    person = runtime.handler.create("scharfe-schoten", 3, {}, [{"kind": "human"}, {"kind": "bot"}, {"kind": "human"}],
                                    None).game_id
    runtime.handler.execute(person, None, {"type": "take_seat", "seat": 0})
    runtime.handler.execute(person, None, {"type": "take_seat", "seat": 2})
    person_seq = runtime.handler.load(person).seq
    assert job_id(bots, bots_seq, 0) in queued_in(runtime, BULK)

    job, queue = Queue.dequeue_any(lane_queues(runtime.queue), None, connection=runtime.queue.connection,
                                   serializer=runtime.queue.serializer)  # what a worker of every lane pops
    assert (job.id, queue.name) == (job_id(person, person_seq, 1), lane_queue(runtime.queue, INTERACTIVE).name)
    lane_queue(runtime.queue, INTERACTIVE).enqueue_job(job)  # put back, for the reserved worker below

    reserved = BurstWorker(lane_queues(runtime.queue, (INTERACTIVE,)), connection=runtime.queue.connection,
                            serializer=runtime.queue.serializer)
    reserved.work(burst=True, logging_level="ERROR")
    assert runtime.store.seq(person) > person_seq  # the person's bot moved
    assert runtime.store.seq(bots) == bots_seq and job_id(bots, bots_seq, 0) in queued_in(runtime, BULK)

    order = [q.name for q in lane_queues(runtime.queue, (ANALYSIS, BULK, INTERACTIVE, SLOW))]
    assert order == [lane_queue(runtime.queue, lane).name for lane in LANES]  # priority order, however named
    assert LANES[-1] == ANALYSIS and set(BOT_LANES) == set(LANES) - {ANALYSIS}
    with pytest.raises(ValueError):
        lane_queues(runtime.queue, ("urgent",))


def test_an_analysis_waits_in_a_lane_no_bot_worker_drains_and_an_analysis_worker_runs_it(runtime, monkeypatch):
    """A worker of the default lanes (every bot lane) leaves a queued analysis alone: an analysis is minutes
    of search, and a bot worker inside one plays no bot-only game (tests/e2e/test_fair_analysis.py). A
    worker of the analysis lane runs it to done."""
    from workers import analysis

    monkeypatch.setenv("STICH_ANALYSIS_PLAYOUTS", "8")
    game_id = runtime.handler.create("scharfe-schoten", 3, {"rounds": 1}, [{"kind": "bot"}] * 3, None).game_id
    drain(runtime)  # the bots play it to its end
    loaded = runtime.handler.load(game_id)
    assert runtime.handler.table.is_finished(loaded.state)
    head = analysis.head_of(loaded)
    record = analysis.request_analysis(runtime, game_id, head, analysis.budget_from_env())
    assert record["status"] == "queued"
    assert queued_in(runtime, ANALYSIS) == {analysis.job_id(game_id, head)}
    assert not any(queued_in(runtime, lane) for lane in BOT_LANES)

    drain(runtime)
    records = analysis.Analyses(runtime.store)
    assert records.get(game_id, head)["status"] == "queued" and queued_in(runtime, ANALYSIS)
    BurstWorker(lane_queues(runtime.queue, (ANALYSIS,)), connection=runtime.queue.connection,
                 serializer=runtime.queue.serializer).work(burst=True, logging_level="ERROR")
    done = records.get(game_id, head)
    assert done["status"] == "done" and done["progress"]["done"] == done["progress"]["total"] > 0
    assert not queued_in(runtime, ANALYSIS)


def test_the_worker_searches_the_seats_playouts_and_the_net_stops_a_search_at_its_budget_ms(runtime, monkeypatch):
    """Each search seat decides with its own playouts and cap: 8 playouts end long before a 2 s cap;
    20,000 would take far longer than 10 ms, so the net stops that search (it asks before each playout)."""
    import workers.bot_turn

    seen = {}
    real = workers.bot_turn.policy

    def watched(kind, game):
        bot = real(kind, game)

        def decide(decision):
            stopped = []

            def out_of_time():
                stopped.append(decision.out_of_time())
                return stopped[-1]

            started = time.monotonic()
            command = bot(dataclasses.replace(decision, out_of_time=out_of_time))
            seen[decision.seat] = {"playouts": decision.playouts, "budget_ms": decision.budget_ms,
                                   "stopped": any(stopped), "seconds": time.monotonic() - started}
            return command
        return decide

    monkeypatch.setattr(workers.bot_turn, "policy", watched)
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "search", "playouts": 8, "budget_ms": 2000},
             {"kind": "bot", "bot": "search", "playouts": 20_000, "budget_ms": 10}]
    game_id = runtime.handler.create("scharfe-schoten", 3, {"rounds": 1}, seats, None).game_id
    runtime.handler.execute(game_id, None, {"type": "take_seat", "seat": 0})
    for seat in (1, 2):  # both predict at once; each job moves its seat alone (the human is to act too)
        assert play_bot_turn(game_id, seat, runtime.handler.load(game_id).seq, handler=runtime.handler) == "played"
    assert (seen[1]["playouts"], seen[1]["budget_ms"], seen[1]["stopped"]) == (8, 2000, False)
    assert (seen[2]["playouts"], seen[2]["budget_ms"], seen[2]["stopped"]) == (20_000, 10, True)
    assert seen[2]["seconds"] < 5  # stopped: 20,000 playouts of a prediction take minutes
