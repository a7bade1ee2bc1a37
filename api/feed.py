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
from typing import Callable, Iterator, NamedTuple

from flask import Blueprint, current_app, g, request

from domain.table import FINAL_EVENT
from eventstore.codec import StoredEvent, encode_for_viewer
from eventstore.handler import Loaded
from eventstore.watch import StreamWatcher

from .auth import bearer_token, revoked_problem, superseded_problem
from .embargo import tournament_of
from .http import (MAX_SEQ, disconnect_probe, event_stream, float_arg, game_json_response, int_arg, json_bytes,
                   operator_request, query_params, quotas, runtime, stream_start, viewer_credential, with_time_left)
from .metrics import OPEN_STREAMS
from .problems import Problem, problem_body
from .view_cache import ViewCache

TRANSPORT_KEY = "stich.transport"  # in a request's environ: the transport a stream is followed over (sse when absent)

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
    body = problem_body(problem.status, problem.code, problem.detail)
    return f"event: error\ndata: {json.dumps(body, separators=(',', ':'))}\n\n"


class TurnViews:
    """``views=true``: after the events that make it the seat's turn, its view as an ``event: view``
    message, so a client moves with one request (the command) per move. The view comes from the
    process's fold of the game, which the stream watcher keeps current, so it costs no round trip,
    and from the process's ``ViewCache``, so the command's answer and GET view share it."""

    def __init__(self, handler, game_id: str, seat: int, generation: int | None = 0, views: ViewCache | None = None,
                 tournament: dict | None = None):
        self.handler, self.game_id, self.seat, self.generation = handler, game_id, seat, generation
        self.tournament = tournament  # the game's tournament link, as GET view has it (read at the stream's start)
        self.views = views or ViewCache(size=1)
        self.sent = -1  # the seq of the last view sent: one per turn
        self.superseded = False  # the fold had the seat taken again: no view of it for this token

    def view(self, seq: int) -> bytes | None:
        """The seat's view as JSON if the events up to ``seq`` make it the seat's turn (once per
        turn), else None; sets ``superseded`` where the seat was taken again by a new holder."""
        if seq <= self.sent:
            return None
        loaded = self.handler.cached(self.game_id)
        if loaded is None or loaded.seq < seq:
            loaded = self.handler.load(self.game_id)
        # The fold may be ahead of the events sent so far, past the seat being taken again (a player's
        # seat, ``generation`` None, is its player's whoever takes it again).
        generation = loaded.state.seats[self.seat].generation
        if self.generation is not None and generation != self.generation:
            self.superseded = True
            return None
        table = self.handler.table
        if self.seat not in table.to_act(loaded.state) or loaded.seq <= self.sent:
            return None
        self.sent = loaded.seq
        view = self.views.view(loaded, self.seat, generation, lambda: table.view(loaded.state, self.seat))
        body = {"id": self.game_id, **view, "seq": loaded.seq, "tournament": self.tournament}
        return json_bytes(with_time_left(body))


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
    revoked = None
    if g.get("player") is not None:  # a player's seat is its player's whoever takes it again: no superseding
        generation, revoked = None, player_revoked(bearer_token(required=True))
    views = request.args.get("views")
    if views not in (None, "true", "false"):
        raise Problem(422, "validation_error", "views must be true or false", errors={"views": ["not a boolean"]})
    if views == "true" and seat is None:
        raise Problem(422, "validation_error", "views=true needs a seat token: a view is a seat's",
                      errors={"views": ["needs a seat token"]})
    turns = (TurnViews(runtime().handler, game_id, seat, generation, current_app.extensions["stich.views"],
                       tournament_of(game_id)) if views == "true" else None)
    return followed_stream(watcher(), game_id, loaded.seq, loaded.state.status == "finished", seat, turns,
                           generation, revoked=revoked)


def player_revoked(token: str) -> Callable[[], bool]:
    """Whether ``token`` (a player's) has been revoked: the process's credentials, refreshed every two
    seconds, so a revocation ends the token's open streams within that."""
    credentials = current_app.extensions["stich.player_credentials"]
    return lambda: credentials.holder(token) is None


class Push(NamedTuple):
    """What a followed stream has for its client at one wake: ``events`` (each shown in full where
    ``reveal`` says so), then the seat's ``view`` (JSON) if it is to act, then — the stream's
    last — a ``problem`` that ends it. Nothing at all: a keep-alive is due."""
    events: tuple[StoredEvent, ...] = ()
    reveal: tuple[bool, ...] = ()
    view: bytes | None = None
    problem: Problem | None = None


class Following:
    """One client following a stream (a game's or a tournament's): its quota slot and its lease on
    the process's watch, held until ``release``, and ``pushes()``, what it is owed in order. The one
    loop behind both transports: an SSE response (``followed_stream``) and a socket's subscription
    (``api/sockets.py``) only write its pushes in their own framing."""

    def __init__(self, follow: StreamWatcher, stream_id: str, seq: int, finished: bool, viewer: int | None,
                 turns: TurnViews | None, generation: int | None, shows, revoked, after: int, timeout: float,
                 gone: Callable[[], bool] | None, slot, lease):
        self.follow, self.stream_id, self.seq, self.finished = follow, stream_id, seq, finished
        self.viewer, self.turns, self.generation, self.shows, self.revoked = viewer, turns, generation, shows, revoked
        self.after, self.timeout, self.gone = after, timeout, gone
        self.slot, self.lease = slot, lease
        self.watch = lease.watch
        self.transport = request.environ.get(TRANSPORT_KEY, "sse")
        OPEN_STREAMS.labels(self.transport).inc()
        self._held = True

    def release(self) -> None:
        """Called twice (the stream's end, the server's close): gives back once."""
        if self._held:
            self._held = False
            self.lease.release()
            self.slot.release()
            OPEN_STREAMS.labels(self.transport).dec()

    def pushes(self) -> Iterator[Push]:
        """Until the final event, the timeout, the client's going (``gone``), or an error push."""
        follow, seq, turns = self.follow, self.seq, self.turns
        last, reveal = self.after, self.finished
        # A stream of a player token wakes often enough to notice its revocation (the token is looked up
        # at most every two seconds), and one with a probe often enough to notice its client leave.
        wait_s = HANG_UP_CHECK_S if self.gone is not None or self.revoked is not None else KEEPALIVE_S
        deadline = time.monotonic() + self.timeout
        keepalive = time.monotonic() + KEEPALIVE_S
        if reveal and last >= seq:
            return  # it is over and the caller has every event
        if turns is not None and last >= seq:  # caught up: if it is the seat's turn, say so now
            view = turns.view(seq)
            if turns.superseded:
                yield Push(problem=superseded_problem())
                return
            if view is not None:
                yield Push(view=view)
        while (remaining := deadline - time.monotonic()) > 0:
            until_keepalive = max(0.0, keepalive - time.monotonic())
            found = follow.next_events(self.watch, last, min(remaining, wait_s, until_keepalive), PAGE, known=seq)
            if self.revoked is not None and self.revoked():
                yield Push(problem=revoked_problem())
                return
            if not found:
                if self.gone is not None and self.gone():
                    return  # the client hung up: give its slot back now, not at the next write
                if time.monotonic() >= keepalive:
                    keepalive = time.monotonic() + KEEPALIVE_S
                    yield Push()
                continue
            cut = superseded_at(found, self.viewer, self.generation)
            if cut is not None:
                found = found[:cut]  # what the token's holder could read until then, and no more
            reveal = revealed(reveal, found)
            shown = self.shows(found) if self.shows is not None else None
            flags = tuple(reveal or bool(shown and shown(e)) for e in found)
            if cut is not None:
                yield Push(tuple(found), flags, problem=superseded_problem())
                return
            last = found[-1].seq
            keepalive = time.monotonic() + KEEPALIVE_S
            view = None
            if turns is not None:
                view = turns.view(last)
                if turns.superseded:
                    yield Push(tuple(found), flags, problem=superseded_problem())
                    return
            yield Push(tuple(found), flags, view)
            if found[-1].type == FINAL_EVENT:
                return  # the final event was the last one there will ever be


def open_following(follow: StreamWatcher, stream_id: str, seq: int, finished: bool, viewer: int | None,
                   turns: TurnViews | None = None, generation: int | None = None,
                   shows: Callable[[list[StoredEvent]], Callable[[StoredEvent], bool]] | None = None,
                   revoked: Callable[[], bool] | None = None) -> Following:
    """A ``Following`` of ``stream_id`` from ``after`` or ``Last-Event-ID``, until ``?timeout``: each
    event rendered for ``viewer`` (everything once the final event is there), keep-alives while
    nothing happens, ``turns``' views; it ends after the final event, when the client hangs up, or —
    ``generation`` being the viewer's token's — with a 401 ``token_superseded`` where the seat is
    taken again by a new holder. ``shows(batch)`` tells which events of a batch to show in full
    before the final event (a tournament's results of a finished round). ``seq`` and ``finished``:
    the stream as the route loaded it. ``revoked()``: whether the player token it was opened with
    has been revoked since (looked at whenever the stream wakes): then it ends with a 401
    ``token_revoked`` before it sends anything more."""
    after = stream_start()
    timeout = float_arg("timeout", LONGEST_STREAM_S, 0.0, LONGEST_STREAM_S)
    gone = disconnect_probe()
    # Both registered now, before the answer starts, so that a full server can still say 503 and
    # a busy address 429; released when the server closes the response, whether or not it ran.
    slot = quotas().stream_slot(request.remote_addr, operator_request())
    try:
        lease = follow.lease(stream_id)
    except BaseException:
        slot.release()
        raise
    return Following(follow, stream_id, seq, finished, viewer, turns, generation, shows, revoked, after, timeout,
                     gone, slot, lease)


def followed_stream(follow: StreamWatcher, stream_id: str, seq: int, finished: bool, viewer: int | None,
                    turns: TurnViews | None = None, generation: int | None = None,
                    shows: Callable[[list[StoredEvent]], Callable[[StoredEvent], bool]] | None = None,
                    revoked: Callable[[], bool] | None = None):
    """An SSE response of an ``open_following`` (which see): each push one write, its events as
    the watch framed them for this viewer (shared with the stream's other clients), an ``event:
    view`` message, an ``event: error`` message that ends it. The response's ``following``: the
    same, for a transport that writes the pushes itself (a socket's subscription)."""
    following = open_following(follow, stream_id, seq, finished, viewer, turns, generation, shows, revoked)
    watch = following.watch

    def generate():
        try:
            yield "retry: 2000\n\n"
            for push in following.pushes():
                parts = [watch.frame(e, viewer, shown) for e, shown in zip(push.events, push.reveal)]
                if push.view is not None:
                    parts.append(b"event: view\ndata: " + push.view + b"\n\n")
                if push.problem is not None:
                    parts.append(error_frame(push.problem).encode())
                yield b"".join(parts) if parts else b": keep-alive\n\n"
        finally:
            following.release()

    response = event_stream(generate(), following.release)
    response.following = following
    return response
