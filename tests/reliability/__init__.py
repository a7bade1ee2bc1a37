"""Reliability tests: races, credentials and a stateful model of the API.

The promise they prove: an acknowledged move is never lost or applied twice,
no input crashes the server or corrupts a game, and nobody sees cards they may
not see. The helpers below are the shared checks.
"""
from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from domain.table import TableState

# Rule violations are 409; a bad shape is 422; a stale If-Match is 412.
RULE_CODES = {"not_your_turn", "wrong_phase", "already_done", "illegal_choice", "card_not_in_hand",
              "must_follow_suit", "illegal_card", "game_finished", "game_not_started", "seat_taken",
              "rule_violation"}
SHAPE_CODES = {"unknown_card", "unknown_command", "invalid_command", "validation_error", "idempotency_key_reused"}


@dataclass
class Reply:
    """A finished HTTP response, detached from its client (safe across threads)."""

    status: int
    mimetype: str
    body: Any
    headers: dict
    request: dict = field(default_factory=dict)  # what was sent: seat, command, key, if_match

    @classmethod
    def of(cls, response, **request) -> "Reply":
        body = response.get_json(silent=True, force=True)
        return cls(response.status_code, response.mimetype, body, dict(response.headers), request)


def assert_clean(reply: Reply) -> None:
    """200/201, or a 4xx problem+json whose status matches its code's class. Never a 5xx."""
    assert reply.status < 500, f"server error {reply.status}: {reply.body} for {reply.request}"
    if reply.status in (200, 201):
        assert isinstance(reply.body, dict) and "seq" in reply.body, reply.body
        assert reply.headers.get("ETag") == f'"{reply.body["seq"]}"'
        return
    assert 400 <= reply.status < 500, reply
    assert reply.mimetype == "application/problem+json", reply
    body = reply.body
    assert isinstance(body, dict) and isinstance(body.get("code"), str) and body["code"], body
    assert body["status"] == reply.status and body.get("detail"), body
    if body["code"] in RULE_CODES:
        assert reply.status == 409, body
    if body["code"] in SHAPE_CODES:
        assert reply.status == 422, body
    if body["code"] == "stale_seq":
        assert reply.status == 412 and isinstance(body.get("current_seq"), int), body


def race(app, jobs: list[Callable[[Any], Reply]]) -> list[Reply]:
    """Run every job in its own thread with its own test client, released together."""
    barrier = threading.Barrier(len(jobs))
    results: list[Reply | None] = [None] * len(jobs)
    errors: list[BaseException] = []

    def run(i, job):
        client = app.test_client()
        try:
            barrier.wait(timeout=30)
            results[i] = job(client)
        except BaseException as exc:  # surfaced below: a crashed client thread fails the test
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i, job), daemon=True) for i, job in enumerate(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a racing client hung"
    assert not errors, errors
    return results  # type: ignore[return-value]


def comparable(state: TableState):
    """A TableState with its Game decider replaced by the game's name.

    Snapshots are pickled, so a state restored from one holds another instance
    of the (stateless) decider; everything else must be equal.
    """
    return dataclasses.replace(state, game=state.game.name if state.game is not None else None)


def assert_replay_equal(app, game_id: str) -> None:
    """The handler's state equals a fresh fold of the stored events, cached and uncached."""
    rt = app.extensions["stich"]
    handler, store = rt.handler, rt.store
    events = store.read(game_id)
    fresh = handler.table.fold(TableState(), [e.to_domain() for e in events])
    loaded = handler.load(game_id)
    assert loaded.seq == len(events)
    assert comparable(loaded.state) == comparable(fresh), "cached state differs from a fresh replay"
    handler.forget(game_id)
    reloaded = handler.load(game_id)
    assert reloaded.seq == len(events)
    assert comparable(reloaded.state) == comparable(fresh), "reloaded state differs from a fresh replay"


def assert_gapless(app, game_id: str) -> list:
    store = app.extensions["stich"].store
    events = store.read(game_id)
    assert [e.seq for e in events] == list(range(1, len(events) + 1)), "stream seqs are not gapless 1..n"
    assert store.seq(game_id) == len(events)
    return events


class Ledger:
    """Which acknowledged command claimed which seq of one game.

    Every non-duplicate 200 claims the seqs of the events it reports; no seq may
    be claimed twice, and every event a human seat caused must be claimed by
    exactly one acknowledged command (no lost and no phantom moves).
    """

    def __init__(self, game_id: str, human_seats):
        self.game_id = game_id
        self.humans = set(human_seats)
        self.claimed: dict[int, dict] = {}  # seq -> the event as the 200 reported it
        self.by_key: dict[tuple[int, str], list[int]] = {}  # (seat, idempotency key) -> seqs
        self.lock = threading.Lock()

    def record(self, reply: Reply) -> None:
        assert_clean(reply)
        if reply.status != 200:
            return
        body = reply.body
        seqs = [e["seq"] for e in body["events"]]
        assert seqs, f"a 200 without events: {body}"
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), f"an answer's events are not one batch: {seqs}"
        assert body["seq"] >= seqs[-1]
        seat = reply.request.get("seat")
        assert body["events"][0]["actor"] == seat, (seat, body["events"][0])
        key = reply.request.get("key")
        with self.lock:
            if key is not None:
                first = self.by_key.setdefault((seat, key), seqs)
                assert first == seqs, f"idempotency key {key!r} answered with seqs {seqs}, earlier {first}"
            if body["duplicate"]:
                assert key is not None, "a duplicate answer to a request without an Idempotency-Key"
                return
            for event in body["events"]:
                assert event["seq"] not in self.claimed, (
                    f"seq {event['seq']} reported by two acknowledged commands: "
                    f"{self.claimed[event['seq']]} and {event}")
                self.claimed[event["seq"]] = event

    def verify(self, app) -> list:
        """After the traffic: gapless, claims match the stream, no unacknowledged human move."""
        events = assert_gapless(app, self.game_id)
        by_seq = {e.seq: e for e in events}
        for seq, reported in self.claimed.items():
            stored = by_seq.get(seq)
            assert stored is not None, f"acknowledged event seq {seq} is not in the stream"
            assert (stored.type, stored.actor) == (reported["type"], reported["actor"]), (stored, reported)
        for event in events:
            if event.actor in self.humans:
                assert event.seq in self.claimed, f"human move at seq {event.seq} was never acknowledged: {event}"
        for (seat, key), seqs in self.by_key.items():
            assert all(by_seq[s].seq == s for s in seqs)
        assert_replay_equal(app, self.game_id)
        return events
