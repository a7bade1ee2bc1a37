"""Bulk pairing: up to ``MAX_GAMES`` games in one request, and the claim links that hand their seats out.

``POST /v1/games/bulk`` (an operator's route where operator keys are configured) takes games as
``POST /v1/games`` does, each human seat optionally naming the ``player`` the organiser chose, and an
optional ``start_at``. Every human seat is taken at creation, so each game waits for nobody: it starts at
once, or at ``start_at`` (the table's ``start``, sent by a sweeper: workers/start.py).

**All or nothing, and a retry completes it.** Every game is validated (by the table's own create) before
any is created. The ``Idempotency-Key`` (required) names a record holding a fingerprint of the request and a
random secret; every game id, seat token and claim of the batch is an HMAC of that secret, so a retry after a
failure midway (the store down, a process killed) derives the same ids and tokens, creates only what is
missing (``create_with`` answers an existing id with its game) and answers exactly as the first attempt
would have. The record lives ``IDEMPOTENCY_TTL_S``; the same key with another body is a 422.

**Tokens or claims.** A human seat without a ``player`` gets its token in the answer. The seats of a named
player get no token yet: the answer holds one claim per player, ``cl_`` and 192 bits, and the seats are the
claim's (the game's ``claimed`` key, written before the game exists): the game's own seat route refuses them,
and only ``POST /v1/claims/{claim}`` takes them, and takes them again once abandoned. Every redemption of a
claim answers the same tokens for its seats, derived from a secret kept with the claim and the seat's
generation (``claim_seat_token``), so concurrent or repeated redemptions hold one set of seats and a lost
answer loses nothing. The claim is kept only as its SHA-256 hash, for ``CLAIM_TTL_S`` after the games start.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import secrets
import time
from typing import Any

from flask import Blueprint, jsonify, request
from marshmallow import fields
from marshmallow import validate as check

from domain.clock import iso
from domain.errors import InvalidSetup
from domain.table import TableState, validate_start_at
from workers.start import schedule_start

from .auth import TOKEN_PREFIX, credential, new_token, token_hash
from .footprint import Footprint, game_footprint
from .http import idempotency_key, json_body, limit_writes, quotas, runtime, validate
from .problems import Problem
from .quotas import API_KEY_HEADER
from .schemas import CreateGameSchema, SeatSchema, _Strict
from .seats import abandoned, reclaim
from .tournaments import creation_statuses

bulk = Blueprint("bulk", __name__, url_prefix="/v1")

MAX_GAMES = 64  # games per request: a league round of 256 players at four a table
MAX_START_AHEAD_S = 30 * 24 * 3600  # start_at at most this far ahead
IDEMPOTENCY_TTL_S = 24 * 3600  # how long a bulk's Idempotency-Key answers its first answer
CLAIM_TTL_S = 7 * 24 * 3600  # how long after the games' start (or creation) a claim may be redeemed
CLAIM_PREFIX = "cl_"
PLAYER = r"^[A-Za-z0-9_.\-]{1,64}$"
CLAIM = re.compile(r"cl_[A-Za-z0-9_\-]{32}")


class BulkSeatSchema(SeatSchema):
    player = fields.String(validate=check.Regexp(PLAYER, error="1..64 characters of A-Z a-z 0-9 _ . -"))


class BulkGameSchema(CreateGameSchema):
    seats = fields.List(fields.Nested(BulkSeatSchema), validate=check.Length(min=1, max=16))


class BulkSchema(_Strict):
    games = fields.List(fields.Nested(BulkGameSchema), required=True,
                        validate=check.Length(min=1, max=MAX_GAMES,
                                              error=f"between 1 and {MAX_GAMES} games in one request"))
    start_at = fields.String()


def derived(secret: bytes, label: str, size: int) -> bytes:
    return hmac.new(secret, label.encode(), hashlib.sha256).digest()[:size]


def urlsafe(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def game_id_of(secret: bytes, number: int) -> str:
    return derived(secret, f"game:{number}", 8).hex()  # the shape of any game id (64 bits, hex)


def seat_token_of(secret: bytes, game_id: str, seat: int) -> str:
    return TOKEN_PREFIX + urlsafe(derived(secret, f"seat:{game_id}:{seat}", 24))


def claim_of(secret: bytes, player: str) -> str:
    return CLAIM_PREFIX + urlsafe(derived(secret, f"claim:{player}", 24))


def claim_seat_token(claim_secret: bytes, game_id: str, seat: int, generation: int) -> str:
    """The token a claim gives ``seat`` for its holder of ``generation`` (``Seat.generation``: 0 until the
    seat is abandoned and taken again): every redemption derives the same one, so they all agree."""
    return TOKEN_PREFIX + urlsafe(derived(claim_secret, f"seat:{game_id}:{seat}:{generation}", 24))


def _key(*parts: str) -> str:
    return ":".join((runtime().store.prefix,) + parts)


@bulk.post("/games/bulk")
def create_games():
    presented = request.headers.get(API_KEY_HEADER)
    operator = quotas().require_key_to_create(presented, "bulk pairing")
    limit_writes()
    key = idempotency_key()
    if key is None:
        raise Problem(422, "validation_error", "bulk pairing needs an Idempotency-Key header: a retry with it "
                      "completes and answers the same batch", errors={"Idempotency-Key": ["required"]})
    body = validate(BulkSchema(), json_body())
    start_ms = start_of(body.get("start_at"))
    games = registered_handles(body["games"])
    ceilings = check_games(games, start_ms)
    footprints = [game_footprint(game.get("seats"), game.get("clock"), game["players"]) for game in games]
    scope = hashlib.sha256((presented if operator else f"address:{request.remote_addr}").encode()).hexdigest()[:16]
    record_key = _key("bulk", scope, hashlib.sha256(key.encode()).hexdigest())
    fingerprint = hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    redis = runtime().store.redis
    record = _record(redis.get(record_key))
    replayed = record is not None
    if record is None:
        # Only a new batch must start ahead of now: a retry of one answers its first answer whatever the time.
        check_ahead(body.get("start_at"), start_ms)
        # The batch's stored events (each game at its max_events ceiling) are reserved before its record
        # exists and given back if it is refused; once the record is stored they stay counted, even if a
        # game fails midway: a retry with the key completes the batch and is not counted again.
        reservation = quotas().reserve_events(None if operator else request.remote_addr, sum(ceilings))
        try:
            if not operator:  # counted by its games: the rate, the active games, their search bots
                quotas().check_create(request.remote_addr, creation_statuses,
                                      Footprint(len(games), sum(f.search_ms for f in footprints)),
                                      creations=len(games))
            fresh = {"fingerprint": fingerprint, "secret": secrets.token_bytes(32).hex()}
            recorded = redis.set(record_key, json.dumps(fresh), nx=True, ex=IDEMPOTENCY_TTL_S)
        except BaseException:
            reservation.refund()
            raise
        if recorded:
            record = fresh
        else:  # a twin request recorded the key first: this one completes that batch, which counted them
            reservation.refund()
            record, replayed = _record(redis.get(record_key)), True
    if record is None or record["fingerprint"] != fingerprint:
        raise Problem(422, "idempotency_key_reused", "this Idempotency-Key was used for another bulk request; "
                      "use a new key for a new batch", errors={"Idempotency-Key": ["already used for another batch"]})
    answer = create_batch(bytes.fromhex(record["secret"]), games, start_ms)
    if not operator:
        for game, footprint in zip(answer["games"], footprints):
            quotas().created(request.remote_addr, game["id"], footprint)
    response = runtime_json(answer, 201)
    if replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return response


def _record(raw) -> dict | None:
    return json.loads(raw) if raw is not None else None


def runtime_json(body: dict, status: int):
    response = jsonify(body)
    response.status_code = status
    return response


def start_of(raw: str | None) -> int | None:
    """``start_at`` in ms (422 when it is not an RFC 3339 time with its zone)."""
    if raw is None:
        return None
    try:
        return validate_start_at(raw)
    except InvalidSetup as exc:
        raise Problem(422, "invalid_setup", str(exc), errors=exc.errors) from None


def check_ahead(raw: str | None, start_ms: int | None) -> None:
    """A new batch's ``start_at``: ahead of now, and at most ``MAX_START_AHEAD_S`` ahead."""
    if start_ms is None:
        return
    now_ms = time.time() * 1000
    if start_ms <= now_ms:
        raise Problem(422, "invalid_setup", f"start_at {raw} has passed; it is {iso(int(now_ms))} now",
                      errors={"start_at": ["must be ahead of now"]})
    if start_ms > now_ms + MAX_START_AHEAD_S * 1000:
        raise Problem(422, "invalid_setup", f"start_at is at most {MAX_START_AHEAD_S // 86400} days ahead",
                      errors={"start_at": [f"at most {MAX_START_AHEAD_S // 86400} days ahead"]})


def plain_seats(game: dict) -> list[dict] | None:
    """The seats as the table takes them: without the organiser's ``player`` label (a claim's), and a
    registered player's ``handle`` as the ``player`` the seat is kept for."""
    seats = game.get("seats")
    if seats is None:
        return None
    return [{**{k: v for k, v in seat.items() if k not in ("player", "handle")},
             **({"player": seat["handle"]} if seat.get("handle") else {})} for seat in seats]


def registered_handles(games: list[dict]) -> list[dict]:
    """The games with each seat's ``handle`` spelt as its player registered it; 422 naming a seat that
    gives both a ``player`` label and a ``handle``, or a handle nobody registered."""
    problems: dict[str, list[str]] = {}
    asked = [spec["handle"] for game in games for spec in game.get("seats") or () if spec.get("handle")]
    found = runtime().players.existing(asked)
    for number, game in enumerate(games):
        for seat, spec in enumerate(game.get("seats") or ()):
            where = f"games[{number}].seats[{seat}]"
            if spec.get("handle") and spec.get("player"):
                problems[where] = ["a seat is a claim's (player) or a registered player's (handle), not both"]
            elif spec.get("handle") and spec["handle"] not in found:
                problems[f"{where}.handle"] = [f"no player {spec['handle']!r} is registered here"]
    if problems:
        raise Problem(422, "invalid_setup", f"{len(problems)} problems in the batch; nothing was created",
                      errors=problems)
    return [{**game, "seats": [{**spec, "handle": found[spec["handle"]].handle} if spec.get("handle") else spec
                               for spec in game["seats"]]} if game.get("seats") else game for game in games]


def check_games(games: list[dict], start_ms: int | None) -> list[int]:
    """Every game validated by the table's own create before any is created: 422 naming each bad field.
    The games' ``max_events`` ceilings, as their ``GameCreated`` records them (for the events quota)."""
    table = runtime().handler.table
    problems: dict[str, list[str]] = {}
    ceilings = []
    start_at = iso(start_ms) if start_ms is not None else None
    for number, game in enumerate(games):
        try:
            events = table.create(game["game"], game["players"], game.get("rules") or {}, plain_seats(game),
                                  game.get("preset_deals"), "0" * 64, game.get("limits"), game.get("clock"),
                                  start_at, game.get("hints", False))
        except InvalidSetup as exc:
            problems.update({f"games[{number}].{field}": messages for field, messages in exc.errors.items()})
            continue
        ceilings.append(events[0].data["limits"]["max_events"])
        players = [seat["player"] for seat in game.get("seats") or () if seat.get("player")]
        for player in sorted({p for p in players if players.count(p) > 1}):
            problems.setdefault(f"games[{number}].seats", []).append(f"player {player!r} has one seat a game")
    if problems:
        raise Problem(422, "invalid_setup", f"{len(problems)} problems in the batch; nothing was created",
                      errors=problems)
    return ceilings


def create_batch(secret: bytes, games: list[dict], start_ms: int | None) -> dict:
    """Create every game of the batch that does not exist yet, under its derived id; the answer."""
    rt = runtime()
    table, handler = rt.handler.table, rt.handler
    start_at = iso(start_ms) if start_ms is not None else None
    out, claimed = [], {}
    for number, game in enumerate(games):
        game_id = game_id_of(secret, number)
        seats = game.get("seats") or [{"kind": "human"}] * game["players"]
        listed, assigned = [], {}
        for seat, spec in enumerate(seats):
            entry: dict[str, Any] = {"seat": seat, "kind": spec["kind"]}
            if spec["kind"] == "bot":
                entry["bot"] = spec.get("bot", "random")
            elif spec.get("handle"):  # a registered player's: its player token plays it, no token or claim
                entry["handle"] = spec["handle"]
            elif spec.get("player"):
                entry["player"] = spec["player"]
                claimed.setdefault(spec["player"], []).append([game_id, seat])
                assigned[seat] = token_hash(claim_of(secret, spec["player"]))
            else:
                entry["token"] = seat_token_of(secret, game_id, seat)
                # Before the game exists, so no moment has the seat taken and its token unknown (HSETNX:
                # a retry finds the same hash there).
                rt.store.save_seat_credential(game_id, seat, token_hash(entry["token"]))
            listed.append(entry)
        # Before the game exists, like the tokens above: no moment has a named player's seat open to others.
        rt.store.save_seat_claims(game_id, assigned)

        def build(commitment, game=game):
            events = table.create(game["game"], game["players"], game.get("rules") or {}, plain_seats(game),
                                  game.get("preset_deals"), commitment, game.get("limits"), game.get("clock"),
                                  start_at, game.get("hints", False))
            state = table.fold(TableState(), events)
            for seat in range(state.players):  # every human seat taken now: the game waits for nobody
                if not state.seats[seat].taken:
                    player = state.seats[seat].player  # a registered player's seat is taken as that player
                    taken = table.decide(state, None, {"type": "take_seat", "seat": seat,
                                                       **({"player": player} if player else {})})
                    events, state = events + taken, table.fold(state, taken)
            return events

        handler.create_with(build, game_id=game_id)
        if start_ms is not None:
            schedule_start(rt.schedule, game_id, start_ms)
        out.append({"id": game_id, "url": f"/v1/games/{game_id}", "seats": listed})
    claims = []
    horizon = max(start_ms or 0, int(time.time() * 1000)) / 1000 - time.time() + CLAIM_TTL_S
    for player, seats in claimed.items():
        claim = claim_of(secret, player)
        record = {"player": player, "seats": seats, "secret": derived(secret, f"claim-secret:{player}", 32).hex()}
        rt.store.redis.set(_key("claim", token_hash(claim)), json.dumps(record), ex=max(1, int(horizon)))
        claims.append({"player": player, "claim": claim, "url": f"/v1/claims/{claim}",
                       "seats": [{"game_id": g, "seat": s} for g, s in seats]})
    answer: dict[str, Any] = {"games": out, "claims": claims, "start_at": start_at}
    return answer


@bulk.post("/claims/<claim>")
def redeem_claim(claim: str):
    """A player's claim: the tokens of its seats, the same in every answer (``claim_seat_token``); a seat
    abandoned after its time-outs is taken again for the claim's holder. The first redemption is the 201."""
    limit_writes()
    rt = runtime()
    key = _key("claim", token_hash(claim)) if CLAIM.fullmatch(claim) else None
    raw = rt.store.redis.get(key) if key else None
    if raw is None:
        raise Problem(404, "unknown_claim", "no such claim: the claim link is the credential here, as the "
                      "organiser handed it out; it may have expired")
    record = json.loads(raw)
    if "secret" not in record:  # a claim made before claims were repeatable: its seats' tokens once
        return _redeem_once(record)
    claim_secret = bytes.fromhex(record["secret"])
    seats = [_claimed_seat(claim_secret, game_id, seat) for game_id, seat in record["seats"]]
    # One answer is the redemption (201); the others, concurrent or later, answer the same tokens (200).
    first = rt.store.redis.set(f"{key}:redeemed", iso(int(time.time() * 1000)), nx=True,
                               ex=max(1, rt.store.redis.ttl(key)))
    redeemed_at = rt.store.redis.get(f"{key}:redeemed")
    body = {"player": record["player"], "seats": seats,
            "redeemed_at": redeemed_at.decode() if redeemed_at else None}
    response = runtime_json(body, 201 if first else 200)
    if not first:
        response.headers["Idempotent-Replayed"] = "true"
    return response


def _claimed_seat(claim_secret: bytes, game_id: str, seat: int) -> dict:
    """The claim's token for ``seat`` now: recorded at the first redemption (HSETNX: a racing one finds the
    same hash there), and for a seat abandoned after its time-outs, taken again with the next generation's."""
    rt = runtime()
    loaded = rt.handler.load(game_id)
    if abandoned(loaded, seat):
        generation = loaded.state.seats[seat].generation + 1
        try:
            loaded = reclaim(loaded, seat, claim_seat_token(claim_secret, game_id, seat, generation))[1].loaded
        except Problem:  # a racing redemption took it again first, with the same token: read it back
            loaded = rt.handler.load(game_id)
    generation = loaded.state.seats[seat].generation
    token = claim_seat_token(claim_secret, game_id, seat, generation)
    if generation == 0:
        rt.store.save_seat_credential(game_id, seat, token_hash(token))
    else:  # the reclaim's credential may not be written yet by the redemption that won: write the same
        before = rt.store.seat_credentials(game_id).get(seat, "")
        if not before.startswith(token_hash(token)):
            rt.store.replace_seat_credential(game_id, seat, credential(token_hash(token), generation, before))
    return {"game_id": game_id, "seat": seat, "token": token, "url": f"/v1/games/{game_id}"}


def _redeem_once(record: dict):
    rt = runtime()
    seats = []
    for game_id, seat in record["seats"]:
        token = new_token()
        # HSETNX: only the first redemption records a hash, so the claim gives each seat's token once.
        if rt.store.save_seat_credential(game_id, seat, token_hash(token)):
            seats.append({"game_id": game_id, "seat": seat, "token": token, "url": f"/v1/games/{game_id}"})
    if not seats:
        raise Problem(410, "claim_redeemed", "this claim was redeemed already: a claim made before this server's "
                      "upgrade gives its seats' tokens once; ask the organiser if you lost them")
    return runtime_json({"player": record["player"], "seats": seats, "redeemed_at": None}, 201)
