"""The due-time index and the sweeper: entries follow the games, a pass reads only what
is due, claims keep two sweepers off one turn, backfill finds turns with no entry."""
from __future__ import annotations

import secrets
import threading
import time

import pytest
import redis

from eventstore.handler import Loaded
from eventstore.schedule import Entry
from workers.bot_turn import play_bot_turn
from workers.context import build_runtime
from workers.dispatch import due_bot_seats
from workers.sweeper import Sweeper, event_time

SEATS = [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}]


@pytest.fixture
def runtime(redis_url):
    """Keys and queue of this test's own: the sweeper sees only this test's games."""
    return build_runtime(redis_url, bots="rq", queue_name="sweep-" + secrets.token_hex(4),
                         prefix="t" + secrets.token_hex(4))


class Jobs:
    """A stand-in for the RQ queue: records what a sweeper queues."""

    def __init__(self):
        self.ids: list[str] = []
        self._lock = threading.Lock()

    def enqueue(self, func, game_id, seat, seq, job_id, **options):
        with self._lock:
            self.ids.append(job_id)


def counting_loads(monkeypatch, handler) -> list[str]:
    loaded: list[str] = []
    real = handler.load

    def load(game_id, fresh=True):
        loaded.append(game_id)
        return real(game_id, fresh)

    monkeypatch.setattr(handler, "load", load)
    return loaded


def due_game(runtime) -> str:
    """An active game whose two bots are due (predictions are simultaneous)."""
    game_id = runtime.handler.create("scharfe-schoten", 3, {}, SEATS, None).game_id
    runtime.handler.execute(game_id, None, {"type": "take_seat", "seat": 0})
    return game_id


def human_to_act_game(runtime) -> str:
    """An active game with bots in which only the human is to act."""
    game_id = due_game(runtime)
    for seat in (1, 2):
        assert play_bot_turn(game_id, seat, runtime.store.seq(game_id), handler=runtime.handler) == "played"
    loaded = runtime.handler.load(game_id)
    assert sorted(runtime.handler.table.to_act(loaded.state)) == [0]
    return game_id


def clone(runtime, template_id: str, count: int) -> list[str]:
    """``count`` copies of a game, appended straight to the store and listed in the game
    list (no other listener runs): many active games, cheaply."""
    events = runtime.store.read(template_id)
    raw = runtime.store.redis.xrange(runtime.store.keys(template_id).events)
    payloads = [fields[b"e"] for _, fields in raw]
    state = runtime.handler.load(template_id).state
    ids = []
    for _ in range(count):
        game_id = secrets.token_hex(8)
        assert runtime.store.append(game_id, payloads, expected_seq=0).ok
        runtime.index(Loaded(game_id, state, len(events)), events)
        ids.append(game_id)
    return ids


def entries(runtime) -> dict[str, float]:
    return {m.decode(): s for m, s in runtime.schedule.redis.zrange(runtime.schedule.key, 0, -1, withscores=True)}


def test_the_entry_follows_the_game_from_first_bot_turn_to_the_end(runtime):
    """After every append: exactly one entry, ``bot|<game>|<seq>``, while a bot is due; none otherwise."""
    handler = runtime.handler
    game_id = handler.create("scharfe-schoten", 3, {"rounds": 1}, SEATS, None).game_id
    assert entries(runtime) == {}  # waiting for the human
    before = time.time()
    handler.execute(game_id, None, {"type": "take_seat", "seat": 0})
    (member, score), = entries(runtime).items()
    assert member == f"bot|{game_id}|{handler.load(game_id).seq}"
    assert before + 3 <= score <= time.time() + 3  # overdue STICH_SWEEP_AFTER (3 s) after the append
    checked = 0
    for _ in range(500):  # bounded: a one-round game has far fewer moves
        loaded = handler.load(game_id)
        if loaded.state.status == "finished":
            break
        bots = due_bot_seats(handler, loaded)
        assert set(entries(runtime)) == ({f"bot|{game_id}|{loaded.seq}"} if bots else set())
        checked += 1
        seat = min(handler.table.to_act(loaded.state))
        if seat in bots:
            play_bot_turn(game_id, seat, loaded.seq, handler=handler)
        else:
            handler.execute(game_id, seat, handler.table.legal_commands(loaded.state, seat)[0])
    assert handler.load(game_id).state.status == "finished"
    assert entries(runtime) == {}
    assert checked > 10


def test_games_without_bots_never_touch_the_index(runtime, monkeypatch):
    calls = []
    monkeypatch.setattr(runtime.schedule, "advance", lambda *a, **k: calls.append(a))
    game_id = runtime.handler.create("scharfe-schoten", 3, {}, [{"kind": "human"}] * 3, None).game_id
    for seat in range(3):
        runtime.handler.execute(game_id, None, {"type": "take_seat", "seat": seat})
    assert calls == []


def test_a_pass_loads_only_the_due_games_not_the_active_ones(runtime, monkeypatch):
    """1,000 active games (with bots, a human to act) and one overdue bot turn: a pass
    loads one game and makes one claim. The old scan loaded all 1,001."""
    template = human_to_act_game(runtime)
    clone(runtime, template, 999)
    due = due_game(runtime)
    assert sum(1 for _ in runtime.index.ids(status="active")) == 1001
    sweeper = Sweeper(runtime.handler, runtime.schedule, Jobs(), idle_after=3)
    loaded = counting_loads(monkeypatch, runtime.handler)
    claims = []
    real_claim = runtime.schedule.claim
    monkeypatch.setattr(runtime.schedule, "claim", lambda *a: claims.append(a) or real_claim(*a))

    assert sweeper.sweep_once() == 0  # due, not yet overdue: nothing loaded
    assert (loaded, len(claims)) == ([], 1)
    assert sweeper.sweep_once(now=time.time() + 60) == 2  # both bots of the one due game
    assert (loaded, len(claims)) == ([due], 2)
    assert sweeper.queue.ids and all(j.startswith(f"bot-{due}-") for j in sweeper.queue.ids)


def test_a_pass_is_bounded(runtime, monkeypatch):
    games = [due_game(runtime) for _ in range(30)]
    sweeper = Sweeper(runtime.handler, runtime.schedule, Jobs(), idle_after=3, batch=10, max_per_pass=25)
    loaded = counting_loads(monkeypatch, runtime.handler)
    now = time.time() + 60
    assert sweeper.sweep_once(now=now) == 50
    assert len(loaded) == 25
    assert sweeper.sweep_once(now=now) == 10  # the rest; the first 25 are leased
    assert sorted(loaded) == sorted(games)


def test_two_sweepers_never_redrive_one_turn_twice(runtime):
    games = [due_game(runtime) for _ in range(20)]
    jobs = Jobs()
    sweepers = [Sweeper(runtime.handler, runtime.schedule, jobs, idle_after=3, batch=3) for _ in range(3)]
    now = time.time() + 60
    threads = [threading.Thread(target=s.sweep_once, args=(now,)) for s in sweepers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    turns = [j.rsplit("-r", 1)[0] for j in jobs.ids]
    assert len(turns) == len(set(turns)) == 2 * len(games)


def test_a_claim_whose_sweeper_died_comes_due_again(runtime):
    game_id = due_game(runtime)
    now = time.time() + 60
    assert len(runtime.schedule.claim(now, now + 3, 10)) == 1  # a sweeper claims it, then dies
    sweeper = Sweeper(runtime.handler, runtime.schedule, Jobs(), idle_after=3)
    assert sweeper.sweep_once(now=now + 1) == 0  # still leased
    assert sweeper.sweep_once(now=now + 3) == 2
    assert all(j.startswith(f"bot-{game_id}-") for j in sweeper.queue.ids)
    assert sweeper.sweep_once(now=now + 4) == 0  # re-driven once per lease, not once per pass
    assert sweeper.sweep_once(now=now + 6) == 2  # the re-driven job was lost too: again


def test_entries_for_gone_finished_or_moved_on_games_are_dropped(runtime):
    schedule = runtime.schedule
    human = human_to_act_game(runtime)
    unknown = secrets.token_hex(8)
    past = time.time() - 1
    schedule.add(Entry("bot", unknown, 9), past)
    schedule.add(Entry("bot", human, runtime.store.seq(human)), past)
    schedule.add(Entry("bot", human, 2), past)
    sweeper = Sweeper(runtime.handler, schedule, Jobs(), idle_after=3)
    assert sweeper.sweep_once() == 0
    assert entries(runtime) == {}


def test_an_entry_left_behind_stands_in_for_the_turn_due_now(runtime):
    """A process died between its append and its listener: the old seq's entry is still
    there and a bot is due at the new seq. The sweeper moves the entry on, due when
    the game's last event is ``idle_after`` old, and re-drives it from then."""
    game_id = due_game(runtime)
    seq = runtime.store.seq(game_id)
    runtime.schedule.drop(Entry("bot", game_id, seq))
    runtime.schedule.add(Entry("bot", game_id, seq - 1), time.time() - 1)
    sweeper = Sweeper(runtime.handler, runtime.schedule, Jobs(), idle_after=3)
    assert sweeper.sweep_once() == 0
    last_at = event_time(runtime.store.read(game_id)[-1].at)
    assert entries(runtime) == {f"bot|{game_id}|{seq}": pytest.approx(last_at + 3)}
    assert sweeper.sweep_once(now=last_at + 3) == 2


def test_backfill_adds_the_due_turns_that_have_no_entry(runtime):
    """Games that were active before the index existed: one paged pass over the active games."""
    template = human_to_act_game(runtime)
    clone(runtime, template, 5)
    due = [due_game(runtime) for _ in range(3)]
    runtime.schedule.redis.delete(runtime.schedule.key)
    sweeper = Sweeper(runtime.handler, runtime.schedule, Jobs(), idle_after=3)
    assert sweeper.backfill(runtime.index, page_size=2) == 3
    assert set(entries(runtime)) == {f"bot|{g}|{runtime.store.seq(g)}" for g in due}
    assert sweeper.backfill(runtime.index) == 0  # entries already there are left as they are
    assert sweeper.backfill_unless_recent(runtime.index, "a") == 0
    assert sweeper.backfill_unless_recent(runtime.index, "b") is None  # one worker per quiet period


def test_a_backfill_that_starts_while_the_store_is_down_waits_for_it(runtime, monkeypatch):
    # Given a worker that starts while the store does not answer (twice), then does
    sweeper = Sweeper(runtime.handler, runtime.schedule, runtime.queue, idle_after=0.0)
    reserve, failures = runtime.schedule.reserve, []

    def flaky_reserve(*args):
        if len(failures) < 2:
            failures.append(1)
            raise redis.ConnectionError("the store is down")
        return reserve(*args)

    monkeypatch.setattr(runtime.schedule, "reserve", flaky_reserve)
    # When its backfill starts, Then it waits and makes its pass instead of dying with the outage
    assert sweeper.backfill_unless_recent(runtime.index, "w" + secrets.token_hex(2), retry_s=0.01) == 0
    assert len(failures) == 2
    # And a stop during the wait ends it quietly
    failures.clear()
    stop = threading.Event()
    stop.set()
    assert sweeper.backfill_unless_recent(runtime.index, "x", stop=stop, retry_s=0.01) is None
