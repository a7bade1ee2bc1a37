"""Request parsing and game responses shared by the blueprints."""
from __future__ import annotations

import json
import re
import socket
import time
from contextlib import contextmanager
from typing import Callable, Iterator

import orjson
from flask import Response, current_app, g, request
from marshmallow import Schema, ValidationError
from werkzeug.exceptions import RequestEntityTooLarge

from domain.clock import millis
from eventstore.handler import Loaded, WriteLimited
from eventstore.players import TOKEN_PREFIX as PLAYER_TOKEN_PREFIX

from .auth import bearer_token, superseded_problem, token_hash
from .problems import Problem
from .quotas import API_KEY_HEADER, QuotaKeeper
from .ratelimit import WriteCounters


OCTET_STREAM = "application/octet-stream"


def download(body, native: str) -> Response:
    """A download (an export, the contracts, the icon) under its own media type, or as
    ``application/octet-stream`` to a client whose ``Accept`` prefers that (the contract offers both:
    code generators that know no JSON Lines or YAML read the bytes as bytes). No ``Accept``, or
    ``*/*``: its own. ``Vary: Accept``, so that a cache keeps the two apart."""
    response = Response(body, mimetype=request.accept_mimetypes.best_match([native, OCTET_STREAM], default=native))
    response.vary.add("Accept")
    return response


def runtime():
    return current_app.extensions["stich"]


def json_body(required: bool = True):
    """The parsed JSON body; 400 for malformed JSON, 415 for another media type, 413 when too large."""
    raw = request.get_data(cache=True)
    # A chunked body has no Content-Length to check up front: the stream stops one byte past
    # the limit (MAX_CONTENT_LENGTH is the limit + 1), so reaching that byte means too large.
    if len(raw) >= current_app.config["MAX_CONTENT_LENGTH"]:
        raise RequestEntityTooLarge()
    if not raw.strip():
        if required:
            raise Problem(422, "validation_error", "a JSON body is required", errors={"_body": ["missing"]})
        return {}
    if request.mimetype and request.mimetype != "application/json" and not request.mimetype.endswith("+json"):
        raise Problem(415, "unsupported_media_type", "send the body as application/json")
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:  # RecursionError: absurdly deep nesting
        raise Problem(400, "malformed_json", f"the body is not valid JSON: {exc}")


def validate(schema: Schema, data, code: str = "validation_error"):
    if not isinstance(data, dict):
        raise Problem(422, code, "the body must be a JSON object", errors={"_body": ["not an object"]})
    try:
        return schema.load(data)
    except ValidationError as exc:
        raise Problem(422, code, "the body does not match the schema", errors=exc.messages)


MAX_SEQ = 2**53  # seqs a feed accepts (Redis stream ids are 64-bit; JSON numbers exact to 2**53)


def stream_start() -> int:
    """Where a stream resumes: after ``Last-Event-ID`` if the client sent one (a reconnect), else
    after ``?after=`` (which is checked either way)."""
    after = int_arg("after", 0, 0, MAX_SEQ)
    last_event_id = request.headers.get("Last-Event-ID")
    if last_event_id is not None:
        value = last_event_id.strip()
        # ASCII digits only ('²'.isdigit() is True), at most 2**53 like `after`.
        if not (value.isascii() and value.isdigit()) or len(value) > 16 or int(value) > MAX_SEQ:
            raise Problem(400, "bad_last_event_id", "Last-Event-ID must be a seq")
        after = int(value)
    return after


GONE_KEY = "stich.gone"  # in a request's environ: a transport's own check whether its client has gone


def disconnect_probe() -> Callable[[], bool] | None:
    """A check whether this request's client has hung up, for a stream that waits between writes:
    without one the server learns of it only at its next write (a keep-alive, up to 15 s later)
    and the stream's slot stays held meanwhile. It peeks at the connection without blocking:
    end of file is a client gone (an SSE client sends nothing once its request is in). None when
    the server does not hand the socket over (only gunicorn's ``gunicorn.socket`` is known). A
    transport that knows itself when its client has gone hands its own check in (``GONE_KEY``: a
    socket's subscription, whose environ is not a connection of its own)."""
    probe = request.environ.get(GONE_KEY)
    if probe is not None:
        return probe
    sock = request.environ.get("gunicorn.socket")
    if sock is None:
        return None
    # gevent's socket would wait for data on a non-blocking read; its underlying socket does not.
    raw = getattr(sock, "_sock", sock)
    flags = socket.MSG_PEEK | getattr(socket, "MSG_DONTWAIT", 0)

    def gone() -> bool:
        try:
            return raw.recv(1, flags) == b""
        except (BlockingIOError, InterruptedError):
            return False  # nothing to read: still there
        except OSError:
            return True  # reset, or closed under us
    return gone


def event_stream(messages, release) -> Response:
    """A Server-Sent Events response of ``messages``; ``release`` runs when the server closes it
    (whether or not the stream ran), so its slot and lease are given back in every case."""
    response = Response(messages, mimetype="text/event-stream")
    response.call_on_close(release)
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"  # a reverse proxy must pass each event on at once
    return response


def with_time_left(body: dict) -> dict:
    """A clocked game's body, each running clock's ``remaining_ms`` added as of now: the domain
    knows deadlines (times are data there), only a response knows when it is sent."""
    clock = body.get("clock")
    if clock:
        now_ms = time.time() * 1000
        for seat in clock["seats"]:
            due = seat["deadline_at"]
            seat["remaining_ms"] = None if due is None else max(0, round(millis(due) - now_ms))
    return body


def seat_view(loaded: Loaded, seat: int | None, generation: int | None) -> dict:
    """The game's view for ``seat`` now, made once per (game, seq, seat, token generation) in this
    process and shared by the command's answer, the seat's stream and GET view (``ViewCache``).
    Shared: a caller copies it before changing it."""
    table = runtime().handler.table
    return current_app.extensions["stich.views"].view(loaded, seat, generation,
                                                      lambda: table.view(loaded.state, seat))


def viewer_seat(game_id: str, required: bool) -> int | None:
    """The seat of the bearer token (None for a spectator when not required)."""
    found = viewer_credential(game_id, required)
    return None if found is None else found[0]


def viewer_credential(game_id: str, required: bool) -> tuple[int, int] | None:
    """The seat of the bearer token and its holder's generation. A token of a seat's earlier
    holder (the seat was abandoned and taken again since) is a 401 ``token_superseded``, checked
    against this process's latest fold of the game (a route loads the game before it asks).
    A player token (``pt_``) is its player's seat at this table, of the seat's generation now."""
    token = bearer_token(required)
    if token is None:
        return None
    if token.startswith(PLAYER_TOKEN_PREFIX):
        return player_seat(game_id, token)
    credentials = current_app.extensions["stich.credentials"]
    seat, generation = credentials.seat(game_id, token)
    cached = runtime().handler.cached(game_id)
    if cached is not None and seat < len(cached.state.seats) and cached.state.seats[seat].generation != generation:
        seat, generation = credentials.seat(game_id, token, fresh=True)  # a 401 if its hash was replaced
        known = cached.state.seats[seat].generation
        if generation > known:  # a newer holder than this process's fold knows: the fold is behind
            known = runtime().handler.load(game_id).state.seats[seat].generation
        if known != generation:  # taken again, its new hash not yet written
            raise superseded_problem()
    return seat, generation


def request_player(token: str | None = None, scope: str | None = None, meant: str = "a seat token or a player token"):
    """The player the request's bearer token acts for (an ``eventstore.players.Holder``), or None when
    it presents no player token; 403 ``invalid_token`` for an unknown or revoked one (naming the
    credential ``meant``), 403 ``insufficient_scope`` when it lacks ``scope``. Remembered for the
    request (``g.player``)."""
    token = token or bearer_token(required=False, credential=meant)
    if token is None or not token.startswith(PLAYER_TOKEN_PREFIX):
        return None
    holder = current_app.extensions["stich.player_credentials"].holder(token)
    if holder is None:
        raise Problem(403, "invalid_token", f"this player token is not one of this server's, or was revoked; "
                      f"send {meant}")
    if scope is not None and scope not in holder.scopes:
        raise Problem(403, "insufficient_scope", f"this player token lacks the scope {scope!r} (it has "
                      f"{sorted(holder.scopes)}); issue one with it: POST /v1/players/{holder.handle}/tokens",
                      scope=scope)
    g.player = holder
    return holder


def player_seat(game_id: str, token: str) -> tuple[int, int]:
    """The seat the token's player holds at this table, and that seat's generation now: a player's seat
    is its player's whoever took it again (only its player can), so the token follows it."""
    holder = request_player(token, "play")
    handler = runtime().handler
    for fresh in (False, True):  # this process's fold first; a seat just taken elsewhere: the store's
        loaded = handler.cached(game_id) if not fresh else handler.load(game_id)
        if loaded is None:
            continue
        for seat, held in enumerate(loaded.state.seats):
            if held.player == holder.handle:
                return seat, held.generation
    raise Problem(403, "invalid_token", f"player {holder.handle} holds no seat of this game (take a free one, "
                  f"or your own, with POST /v1/games/{game_id}/seats/{{seat}} and this token)")


def if_match() -> int | None:
    raw = request.headers.get("If-Match")
    if raw is None:
        return None
    value = raw.strip().removeprefix("W/").strip('"')
    # ASCII digits only ('²'.isdigit() is True but int() rejects it); a seq has at most 16 digits.
    if not (value.isascii() and value.isdigit()) or len(value) > 16:
        raise Problem(400, "bad_if_match", "If-Match must be a game seq, e.g. If-Match: \"12\"")
    return int(value)


def idempotency_key() -> str | None:
    raw = request.headers.get("Idempotency-Key")
    if raw is None:
        return None
    if not 1 <= len(raw) <= 128 or not raw.isprintable():
        raise Problem(400, "bad_idempotency_key", "Idempotency-Key must be 1..128 printable characters")
    return raw


def json_bytes(body) -> bytes:
    """Compact JSON as UTF-8 (orjson: a game's view encodes about ten times faster than with the
    standard library's encoder). Keys that are not strings (seat numbers) become strings, as
    ``json.dumps`` makes them."""
    return orjson.dumps(body, option=orjson.OPT_NON_STR_KEYS)


def game_response(body: dict, seq: int, status: int = 200, headers: dict | None = None) -> Response:
    body["seq"] = seq
    return game_json_response(json_bytes(body), seq, status, headers)


def game_json_response(text: str | bytes, seq: int, status: int = 200, headers: dict | None = None) -> Response:
    """A body already encoded as JSON, with the game's seq as its ETag."""
    response = Response(text, status=status, mimetype="application/json")
    response.headers["ETag"] = f'"{seq}"'
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


# Plain ASCII decimals only: int() and float() also take '١٢', '1_000', ' 5', '1e3', 'nan' and 'inf'.
INTEGER = re.compile(r"[0-9]{1,16}")
NUMBER = re.compile(r"[0-9]{1,16}(\.[0-9]{1,16})?")


def int_arg(name: str, default: int, low: int, high: int) -> int:
    return _number_arg(name, default, low, high, INTEGER, int, "an integer")


def float_arg(name: str, default: float, low: float, high: float) -> float:
    return _number_arg(name, default, low, high, NUMBER, float, "a number")


def _number_arg(name, default, low, high, pattern, parse, what):
    """A query argument in [low, high]; 422 naming it when it is not."""
    raw = request.args.get(name)
    if raw is None:
        return default
    if not pattern.fullmatch(raw):
        raise Problem(422, "validation_error", f"{name} must be {what} in plain decimal digits",
                      errors={name: [f"not {what}"]})
    value = parse(raw)
    if not low <= value <= high:
        raise Problem(422, "validation_error", f"{name} must be {low}..{high}", errors={name: ["out of range"]})
    return value


def query_params(*names: str):
    """Declare the query parameters a route takes; any other is a 422 (see ``refuse_unknown_query``)."""
    def declare(view):
        view.query_params = frozenset(names)
        return view
    return declare


def refuse_unknown_query() -> None:
    """Before every request: a query parameter the route does not take, or one given twice, is a 422,
    so a misspelt ``limt=5`` is an error and not a silent default."""
    # No query string (nearly every request): nothing to parse (parsing an empty one costs more than this check).
    if not request.environ.get("QUERY_STRING") or not request.args or request.endpoint is None:
        return  # (no such route: the 404 or 405 comes first)
    view = current_app.view_functions.get(request.endpoint)
    allowed = getattr(view, "query_params", frozenset())
    errors = {name: ["unknown query parameter"] for name in request.args if name not in allowed}
    errors.update({name: ["given more than once"] for name in request.args
                   if name in allowed and len(request.args.getlist(name)) > 1})
    if errors:
        takes = ", ".join(sorted(allowed)) or "none"
        raise Problem(422, "validation_error", f"bad query parameters {sorted(errors)}; this route takes: {takes}",
                      errors=errors)


def quotas() -> QuotaKeeper:
    return current_app.extensions["stich.quotas"]


def operator_request() -> bool:
    """Whether the request carries one of the server's operator keys (exempt from quotas)."""
    return quotas().operator(request.headers.get(API_KEY_HEADER))


def limit_writes(token: str | None = None) -> None:
    """Count a write against the caller's address (and seat token); 429 past the limit.
    An operator's requests are not counted against their address."""
    address = None if operator_request() else request.remote_addr
    current_app.extensions["stich.limiter"].check(address, token_hash(token) if token else None)


@contextmanager
def counted_write(token: str) -> Iterator[WriteCounters | None]:
    """``limit_writes`` for a command, whose append counts the write in its own script: the block
    hands the counters to the append; whatever did not reach it (a refusal, a replayed answer, a
    Redis Cluster) is counted when the block ends, and a 429 then wins over the block's own error,
    as when the count came first."""
    limiter = current_app.extensions["stich.limiter"]
    address = None if operator_request() else request.remote_addr
    write = limiter.counters(address, token_hash(token))
    if write is None:
        yield None
        return
    try:
        yield write
    except WriteLimited:
        raise write.refusal() from None
    except Exception:
        limiter.count(write)
        raise
    limiter.count(write)
