"""A seat's hint: the search bot's suggestion for its current decision, by the table's agreement.

Only in a game created with ``hints: true`` (recorded in ``GameCreated``, so every seat knows),
and only for the seat whose token asks, from that seat's own view (``workers/hint.py``). The
search runs in a bot worker's interactive lane, never in this process: the first ``GET`` queues
it and waits up to ``WAIT_S`` (holding one of the address's stream slots, like a long poll),
then answers 200 with the hint or 202 with ``Retry-After``. A hint is kept per (game, seq, seat,
token generation), so asking again is answered from the record without a new search; each new
search counts against the address's hint quota (``Quotas.hints``), which an operator key lifts.
"""
from __future__ import annotations

import time

from flask import Blueprint, request

from workers.hint import DONE, QUEUED, Hints, request_hint, stale

from .http import game_response, operator_request, quotas, runtime, viewer_credential
from .problems import Problem

hints = Blueprint("hints", __name__, url_prefix="/v1")

WAIT_S = 2.0  # how long a GET waits for the worker (like a long poll's bounded wait)
POLL_S = 0.05  # how often it looks at the record meanwhile (one Redis GET each)
RETRY_AFTER_S = 1
SHOWN = ("status", "bot", "command", "budget", "think_ms")


@hints.get("/games/<game_id>/seats/<int:seat>/hint")
def hint(game_id: str, seat: int):
    rt = runtime()
    loaded = rt.handler.load(game_id)
    state = loaded.state
    if not 0 <= seat < len(state.seats):
        raise Problem(404, "unknown_seat", f"this game has seats 0..{len(state.seats) - 1}")
    holder, generation = viewer_credential(game_id, required=True)
    if holder != seat:
        raise Problem(403, "not_your_seat", f"this token is seat {holder}'s: a seat asks for its own hint only, "
                      f"at /v1/games/{game_id}/seats/{holder}/hint")
    if not state.hints:
        raise Problem(403, "hints_off", "this game was created without hints (`hints: true` in its creation, "
                      "recorded in GameCreated so that every seat knows): nobody may ask for one")
    if rt.handler.table.is_finished(state):
        raise Problem(409, "game_finished", "the game has finished: there is nothing to decide (its analysis "
                      f"judges every decision: POST /v1/games/{game_id}/analysis)")
    if not rt.handler.table.legal_commands(state, seat):
        raise Problem(409, "not_your_turn", f"seat {seat} has nothing to decide now; ask when it is to act",
                      current_seq=loaded.seq, headers={"ETag": f'"{loaded.seq}"'})
    store = Hints(rt.store)
    record = store.get(game_id, loaded.seq, seat, generation)
    if record is None or stale(record):
        if not operator_request():
            quotas().count_hint(request.remote_addr)
        record, _ = request_hint(rt, game_id, loaded.seq, seat, generation)
    if record["status"] == QUEUED:
        record = waited(store, game_id, loaded.seq, seat, generation, record)
    return answer(game_id, seat, loaded.seq, record)


def waited(store: Hints, game_id: str, seq: int, seat: int, generation: int, record: dict) -> dict:
    """The record once the worker has written it, or as it is after ``WAIT_S``."""
    deadline = time.monotonic() + WAIT_S
    with quotas().holding_stream(request.remote_addr, operator_request()):
        while record["status"] == QUEUED and time.monotonic() < deadline:
            time.sleep(POLL_S)  # a greenlet's sleep under gevent: the process goes on serving
            record = store.get(game_id, seq, seat, generation) or record
    return record


def answer(game_id: str, seat: int, seq: int, record: dict):
    body = {"id": game_id, "seat": seat, **{key: record[key] for key in SHOWN if key in record}}
    headers = {"Cache-Control": "private, no-store"}  # it names a card of the seat's hand
    if record["status"] == DONE:
        return game_response(body, seq, 200, headers)
    if record["status"] == QUEUED:
        return game_response(body, seq, 202, {**headers, "Retry-After": str(RETRY_AFTER_S)})
    raise Problem(503, "hint_failed", f"the search for this hint failed ({record.get('error', 'unknown')}); "
                  "asking again tries again", headers={"Retry-After": str(RETRY_AFTER_S)})
