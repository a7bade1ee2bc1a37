"""The event feed: a page, a long poll, and Server-Sent Events.

All three return the same event objects, redacted for the caller until the
game has finished (then everything, including the seed, is public).
"""
from __future__ import annotations

import json
import time

from flask import Blueprint, Response, request, stream_with_context

from .http import float_arg, game_response, int_arg, runtime, viewer_seat
from .problems import Problem

feed = Blueprint("feed", __name__, url_prefix="/v1")

PAGE = 500
KEEPALIVE_S = 15.0


@feed.get("/games/<game_id>/events")
def events(game_id: str):
    rt = runtime()
    rt.handler.load(game_id)
    seat = viewer_seat(game_id, required=False)
    after = int_arg("after", 0, 0, 2**53)
    wait = float_arg("wait", 0.0, 0.0, 60.0)
    limit = int_arg("limit", PAGE, 1, PAGE)
    found = rt.store.wait(game_id, after, int(wait * 1000), count=limit)
    loaded = rt.handler.load(game_id)  # after the wait: the game may have finished meanwhile
    reveal = loaded.state.status == "finished"
    return game_response({"id": game_id, "events": [e.for_viewer(seat, reveal) for e in found]}, loaded.seq)


@feed.get("/games/<game_id>/events/stream")
def stream(game_id: str):
    rt = runtime()
    rt.handler.load(game_id)
    seat = viewer_seat(game_id, required=False)
    last_event_id = request.headers.get("Last-Event-ID")
    if last_event_id is not None:
        value = last_event_id.strip()
        # At most 2**53 like `after` (Redis stream ids are 64-bit); ASCII digits only ('²'.isdigit() is True).
        if not (value.isascii() and value.isdigit()) or len(value) > 16 or int(value) > 2**53:
            raise Problem(400, "bad_last_event_id", "Last-Event-ID must be a seq")
        after = int(value)
    else:
        after = int_arg("after", 0, 0, 2**53)
    timeout = float_arg("timeout", 300.0, 0.0, 3600.0)

    def generate():
        last = after
        deadline = time.monotonic() + timeout
        yield "retry: 2000\n\n"
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            found = rt.store.wait(game_id, last, int(min(remaining, KEEPALIVE_S) * 1000), count=PAGE)
            if not found:
                yield ": keep-alive\n\n"
                continue
            loaded = rt.handler.load(game_id)
            reveal = loaded.state.status == "finished"
            for event in found:
                payload = json.dumps(event.for_viewer(seat, reveal), separators=(",", ":"))
                yield f"id: {event.seq}\ndata: {payload}\n\n"
                last = event.seq
            if reveal and last >= loaded.seq:
                return  # the game is over and the caller has every event

    response = Response(stream_with_context(generate()), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response
