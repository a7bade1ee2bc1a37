"""Quick play: join a pool as a player, learn your table by a long poll, leave whenever you like.

``eventstore/pools.py`` keeps the pools and seats their players; ``workers/matchmaker.py`` opens the
tables. A join tries to seat at once (a full table opens in the join's own request); the workers seat
the tables bots complete once their oldest entry has waited. Every route here but the list is the
player's own: its player token with the scope ``play``.
"""
from __future__ import annotations

import time

from flask import Blueprint, request
from marshmallow import ValidationError, fields
from marshmallow import validate as check

from eventstore.pools import MATCHED, POOLS, WAITING, AlreadyWaiting, NotWaiting, PoolFull

from .auth import bearer_token
from .http import (float_arg, json_body, limit_writes, operator_request, query_params, quotas, request_player,
                   runtime, validate)
from .problems import Problem
from .schemas import _Strict

pools = Blueprint("pools", __name__, url_prefix="/v1")

LONGEST_WAIT_S = 60.0
POLL_S = 0.25  # how often a long poll looks at its entry (one Redis GET each)


def boolean(value) -> None:
    if not isinstance(value, bool):
        raise ValidationError("true or false")


class JoinSchema(_Strict):
    # May bots fill the seats nobody takes after the pool's wait? true or false only (a Boolean field takes "yes").
    bots = fields.Raw(load_default=True, validate=boolean)
    rating_range = fields.Float(allow_none=True, load_default=None, validate=check.Range(min=0, max=1000))


def pool_of(name: str):
    pool = POOLS.get(name)
    if pool is None:
        raise Problem(404, "unknown_pool", f"no pool {name!r}; the pools are {sorted(POOLS)}")
    return pool


def described(pool) -> dict:
    return {**pool.to_json(), "waiting": runtime().pools.waiting(pool.name)}


def shown(entry: dict) -> dict:
    """The entry as its player sees it: matched (its table being opened) still reads as waiting."""
    if entry["status"] == MATCHED:
        entry = {**entry, "status": WAITING, "game_id": None, "seat": None}
    out = {key: entry[key] for key in ("pool", "handle", "status", "bots", "game_id", "seat")}
    out["range"] = entry["range"]
    out["joined_at"] = entry["joined_at"]
    out["url"] = f"/v1/games/{entry['game_id']}" if entry["game_id"] else None
    return out


@pools.get("/pools")
def list_pools():
    return {"pools": [described(pool) for pool in POOLS.values()]}


@pools.post("/pools/<pool>/entry")
def join(pool: str):
    limit_writes()
    pool = pool_of(pool)
    player = own_player()
    body = validate(JoinSchema(), json_body(required=False) or {})
    rt = runtime()
    rating = (rt.history.ratings_of(player.handle).get(pool.game) or {}).get("ordinal", 0.0)
    try:
        rt.pools.join(pool, player.handle, body["bots"], body["rating_range"], rating)
    except AlreadyWaiting as exc:
        raise Problem(409, "already_waiting", f"player {player.handle} waits in pool {exc.entry['pool']} already: "
                      "leave it first (DELETE its entry)", pool=exc.entry["pool"]) from None
    except PoolFull:
        raise Problem(503, "pool_full", f"pool {pool.name} has as many waiting as it may; retry in a moment",
                      headers={"Retry-After": "5"}) from None
    rt.matchmaker.seat_now(pool)  # a full table opens now, in this request
    entry = rt.pools.entry(player.handle)
    return shown(entry), 201


@pools.get("/pools/<pool>/entry")
@query_params("wait")
def read(pool: str):
    """The player's entry; with ``wait`` (seconds, up to 60), once it is no longer waiting or the wait is over."""
    pool = pool_of(pool)
    player = own_player()
    wait = float_arg("wait", 0.0, 0.0, LONGEST_WAIT_S)
    store = runtime().pools
    entry = store.entry(player.handle)
    if entry is None or entry["pool"] != pool.name:
        raise Problem(404, "no_entry", f"player {player.handle} has not joined pool {pool.name} (or its entry expired)")
    if entry["status"] in (WAITING, MATCHED) and wait > 0:
        deadline = time.monotonic() + wait
        with quotas().holding_stream(request.remote_addr, operator_request()):
            while entry["status"] in (WAITING, MATCHED) and time.monotonic() < deadline:
                time.sleep(POLL_S)  # a greenlet's sleep under gevent: the process goes on serving
                entry = store.entry(player.handle) or entry
    return shown(entry)


@pools.delete("/pools/<pool>/entry")
def leave(pool: str):
    limit_writes()
    pool = pool_of(pool)
    player = own_player()
    try:
        entry = runtime().pools.leave(pool, player.handle)
    except NotWaiting as exc:
        if exc.entry is not None and exc.entry["pool"] == pool.name and exc.entry["game_id"]:
            raise Problem(409, "already_seated", f"player {player.handle} was seated already: its table is "
                          f"{exc.entry['game_id']}", game_id=exc.entry["game_id"], seat=exc.entry["seat"]) from None
        raise Problem(404, "no_entry", f"player {player.handle} is not waiting in pool {pool.name}") from None
    except TimeoutError:
        raise Problem(503, "pool_busy", "the pool is being matched; retry", headers={"Retry-After": "1"}) from None
    return shown(entry)


def own_player():
    """Quick play is for players: the request's player token, scope ``play`` (401 without a token, 403 for a
    seat token or any other that is not a live player token)."""
    meant = "a player token with the scope 'play' (register with POST /v1/players)"
    token = bearer_token(required=True, credential=meant)
    player = request_player(token, "play", meant)
    if player is None:
        raise Problem(403, "invalid_token", f"this is no player token: send {meant}")
    return player
