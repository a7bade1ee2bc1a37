"""The event feed: a page, a long poll, and Server-Sent Events.

All three return the same event objects, redacted for the caller until the
game has finished (then everything, including the seed, is public). Long
polls and streams wait through the process's ``StreamWatcher``: a waiting
request holds neither a thread nor a Redis connection.

A seat's token is checked when the request comes in, and a waiting request
keeps watching for its seat being taken again (``SeatReclaimed``: the seat
was abandoned and its new holder has a new token): from that event on it
sends the old token nothing — a stream ends with an ``event: error`` frame
(401 ``token_superseded``), a long poll answers that 401 — so the new
holder's hands never reach the old one.
"""
from __future__ import annotations

import json
import time
from typing import Callable

from flask import Blueprint, current_app, request

from domain.table import FINAL_EVENT
from eventstore.codec import StoredEvent, encode_for_viewer
from eventstore.handler import Loaded
from eventstore.watch import StreamWatcher

from .auth import superseded_problem
from .embargo import tournament_of
from .http import (MAX_SEQ, disconnect_probe, event_stream, float_arg, game_json_response, int_arg, json_bytes,
                   operator_request, query_params, quotas, runtime, stream_start, viewer_credential, with_time_left)
from .metrics import OPEN_STREAMS
from .problems import PROBLEM_TYPE, TITLES, Problem
from .view_cache import ViewCache

feed = Blueprint("feed", __name__, url_prefix="/v1")

PAGE = 500
KEEPALIVE_S = 15.0
LONGEST_POLL_S = 60.0
LONGEST_STREAM_S = 86_400.0  # a day; a client reconnects with Last-Event-ID to go on
HANG_UP_CHECK_S = 1.0  # how often a waiting stream looks whether its client has gone (to free its slot)


def watcher() -> StreamWatcher:
    return current_app.extensions["stich.watcher"]


def current(game_id: str) -> Loaded:
    """The game now. While this process follows the game its cached fold is kept current by the
    watcher, so a long poll or a stream starts without a Redis round trip; otherwise a load."""
    handler = runtime().handler
    watch = watcher().current(game_id)
    if watch is not None:
        cached = handler.cached(game_id)
        if cached is not None and cached.seq >= watch.seq:
            return cached
    return handler.load(game_id)


def revealed(finished_before: bool, events: list[StoredEvent]) -> bool:
    """Everything is public once the game has finished, which its final event says."""
    return finished_before or any(e.type == FINAL_EVENT for e in events)


def rendered(game_id: str, events: list[StoredEvent], viewer: int | None, reveal: bool) -> list[str]:
    """The events as JSON for ``viewer``; each rendering of a recent event is made once per process."""
    watch = watcher().current(game_id)
    if watch is None:
        return [encode_for_viewer(e, viewer, reveal) for e in events]
    return [watch.render(e, viewer, reveal) for e in events]


def superseded_at(events: list[StoredEvent], seat: int | None, generation: int | None) -> int | None:
    """The index of the first event that hands ``seat`` to a later holder than the token's
    (``generation``), or None: from there on the token is not the seat's any more."""
    if seat is None or generation is None:
        return None
    for i, event in enumerate(events):
        if event.type == "SeatReclaimed" and event.data.get("seat") == seat \
                and event.data.get("generation", 0) > generation:
            return i
    return None


def error_frame(problem: Problem) -> str:
    """An SSE ``event: error`` message carrying a problem (RFC 9457) as its data: the stream's last."""
    body = {"type": PROBLEM_TYPE + problem.code, "title": TITLES.get(problem.status, "Error"),
            "status": problem.status, "code": problem.code, "detail": problem.detail}
    return f"event: error\ndata: {json.dumps(body, separators=(',', ':'))}\n\n"


class TurnViews:
    """``views=true``: after the events that make it the seat's turn, its view as an ``event: view``
    message, so a client moves with one request (the command) per move. The view comes from the
    process's fold of the game, which the stream watcher keeps current, so it costs no round trip,
    and from the process's ``ViewCache``, so the command's answer and GET view share it."""

    def __init__(self, handler, game_id: str, seat: int, generation: int = 0, views: ViewCache | None = None,
                 tournament: dict | None = None):
        self.handler, self.game_id, self.seat, self.generation = handler, game_id, seat, generation
        self.tournament = tournament  # the game's tournament link, as GET view has it (read at the stream's start)
        self.views = views or ViewCache(size=1)
        self.sent = -1  # the seq of the last view sent: one per turn
        self.superseded = False  # the fold had the seat taken again: no view of it for this token

    def message(self, seq: int) -> bytes:
        if seq <= self.sent:
            return b""
        loaded = self.handler.cached(self.game_id)
        if loaded is None or loaded.seq < seq:
            loaded = self.handler.load(self.game_id)
        # The fold may be ahead of the events sent so far, past the seat being taken again.
        if loaded.state.seats[self.seat].generation != self.generation:
            self.superseded = True
            return b""
        table = self.handler.table
        if self.seat not in table.to_act(loaded.state) or loaded.seq <= self.sent:
            return b""
        self.sent = loaded.seq
        view = self.views.view(loaded, self.seat, self.generation, lambda: table.view(loaded.state, self.seat))
        body = with_time_left({"id": self.game_id, **view, "seq": loaded.seq, "tournament": self.tournament})
        return b"event: view\ndata: " + json_bytes(body) + b"\n\n"


@feed.get("/games/<game_id>/events")
@query_params("after", "wait", "limit")
def events(game_id: str):
    loaded = current(game_id)
    seat, generation = viewer_credential(game_id, required=False) or (None, None)
    after = int_arg("after", 0, 0, MAX_SEQ)
    wait = float_arg("wait", 0.0, 0.0, LONGEST_POLL_S)
    limit = int_arg("limit", PAGE, 1, PAGE)
    finished = loaded.state.status == "finished"
    found: list[StoredEvent] = []
    if after < loaded.seq:
        watch = watcher().current(game_id)
        found = (watch.cached_after(after, limit) if watch else None) or runtime().store.read(game_id, after,
                                                                                             count=limit)
    elif wait > 0 and not finished:  # a finished game has nothing more to wait for
        with quotas().holding_stream(request.remote_addr, operator_request()), watcher().watching(game_id) as watch, \
                OPEN_STREAMS.labels("long_poll").track_inprogress():
            found = watcher().next_events(watch, after, wait, limit)
    if superseded_at(found, seat, generation) is not None:  # taken again meanwhile: nothing for this token
        raise superseded_problem()
    reveal = revealed(finished, found)
    seq = max(loaded.seq, found[-1].seq if found else 0)
    # Assembled from the events' renderings: the same event goes to every waiter of the game.
    body = (f'{{"id":{json.dumps(game_id)},"game":{json.dumps(loaded.state.game.name)},'
            f'"events":[{",".join(rendered(game_id, found, seat, reveal))}],"seq":{seq}}}')
    return game_json_response(body, seq)


@feed.get("/games/<game_id>/events/stream")
@query_params("after", "timeout", "views")
def stream(game_id: str):
    loaded = current(game_id)
    seat, generation = viewer_credential(game_id, required=False) or (None, None)
    views = request.args.get("views")
    if views not in (None, "true", "false"):
        raise Problem(422, "validation_error", "views must be true or false", errors={"views": ["not a boolean"]})
    if views == "true" and seat is None:
        raise Problem(422, "validation_error", "views=true needs a seat token: a view is a seat's",
                      errors={"views": ["needs a seat token"]})
    turns = (TurnViews(runtime().handler, game_id, seat, generation, current_app.extensions["stich.views"],
                       tournament_of(game_id)) if views == "true" else None)
    return followed_stream(watcher(), game_id, loaded.seq, loaded.state.status == "finished", seat, turns,
                           generation)


def followed_stream(follow: StreamWatcher, stream_id: str, seq: int, finished: bool, viewer: int | None,
                    turns: TurnViews | None = None, generation: int | None = None,
                    shows: Callable[[list[StoredEvent]], Callable[[StoredEvent], bool]] | None = None):
    """An SSE response that follows ``stream_id`` (a game's or a tournament's) from ``after`` or
    ``Last-Event-ID``: each event rendered for ``viewer`` (everything once the final event is
    there), keep-alives while nothing happens, ``turns``' views; it ends after the final event,
    at ``?timeout``, when the client hangs up, or — ``generation`` being the viewer's token's —
    with an ``event: error`` (401 ``token_superseded``) where the seat is taken again by a new
    holder. ``shows(batch)`` tells which events of a batch to show in full before the final
    event (a tournament's results of a finished round). ``seq`` and ``finished``: the stream as
    the route loaded it."""
    after = stream_start()
    timeout = float_arg("timeout", LONGEST_STREAM_S, 0.0, LONGEST_STREAM_S)
    gone = disconnect_probe()
    wait_s = HANG_UP_CHECK_S if gone is not None else KEEPALIVE_S
    # Both registered now, before the answer starts, so that a full server can still say 503 and
    # a busy address 429; released when the server closes the response, whether or not it ran.
    slot = quotas().stream_slot(request.remote_addr, operator_request())
    try:
        lease = follow.lease(stream_id)
    except BaseException:
        slot.release()
        raise

    OPEN_STREAMS.labels("sse").inc()
    counted = True

    def release() -> None:  # called twice (the stream's end, the server's close): count once
        nonlocal counted
        if counted:
            counted = False
            lease.release()
            slot.release()
            OPEN_STREAMS.labels("sse").dec()

    def generate():
        last, reveal = after, finished
        deadline = time.monotonic() + timeout
        keepalive = time.monotonic() + KEEPALIVE_S
        try:
            yield "retry: 2000\n\n"
            if reveal and last >= seq:
                return  # it is over and the caller has every event
            if turns is not None and last >= seq:  # caught up: if it is the seat's turn, say so now
                message = turns.message(seq)
                if turns.superseded:
                    yield error_frame(superseded_problem())
                    return
                yield message
            while (remaining := deadline - time.monotonic()) > 0:
                until_keepalive = max(0.0, keepalive - time.monotonic())
                found = follow.next_events(lease.watch, last, min(remaining, wait_s, until_keepalive), PAGE, known=seq)
                if not found:
                    if gone is not None and gone():
                        return  # the client hung up: give its slot back now, not at the next write
                    if time.monotonic() >= keepalive:
                        keepalive = time.monotonic() + KEEPALIVE_S
                        yield ": keep-alive\n\n"
                    continue
                cut = superseded_at(found, viewer, generation)
                if cut is not None:
                    found = found[:cut]  # what the token's holder could read until then, and no more
                reveal = revealed(reveal, found)
                shown = shows(found) if shows is not None else None
                # One write per batch: its events' messages as the watch rendered them for this
                # viewer (shared with the game's other streams), then the seat's view if it is to act.
                push = [lease.watch.frame(e, viewer, reveal or bool(shown and shown(e))) for e in found]
                if cut is not None:
                    yield b"".join(push) + error_frame(superseded_problem()).encode()
                    return
                last = found[-1].seq
                keepalive = time.monotonic() + KEEPALIVE_S
                if turns is not None:
                    message = turns.message(last)
                    if turns.superseded:
                        yield b"".join(push) + error_frame(superseded_problem()).encode()
                        return
                    push.append(message)
                yield b"".join(push)
                if found[-1].type == FINAL_EVENT:
                    return  # the final event was the last one there will ever be
        finally:
            release()

    return event_stream(generate(), release)
