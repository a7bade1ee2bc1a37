"""Players: register a handle, manage its player tokens, read a profile.

A player token (``pt_``, ``eventstore/players.py``) acts for its player everywhere a seat token
would, at every table where the player sits (``api/http.py``'s ``player_seat``), with scopes:
``play`` (take seats, play, quick play), ``organise`` (tournaments and bulk pairings as this
player), ``account`` (this route's tokens). Registration is open to anyone, as on lichess, and
counted per address (``Quotas.registrations`` an hour); an operator key is exempt.

The profile is public, as a player's games are once finished: its ratings, counts and most recent
finished games come from the history (``eventstore/history.py``), which records a game only once
it has finished, and a duplicate round's tables only once their round has (nothing of a running
game's hidden cards can be read from it).
"""
from __future__ import annotations

import base64
import binascii
import json
import re

from flask import Blueprint, Response, current_app, request
from marshmallow import fields
from marshmallow import validate as check

from domain.record import ROLES
from domain.seat import HANDLE
from eventstore.history import Filters
from eventstore.players import MAX_LABEL, SCOPES, HandleTaken, TooManyTokens

from .auth import bearer_token
from .cursor import cursor_arg, cursor_of
from .http import int_arg, json_body, limit_writes, operator_request, query_params, quotas, request_player, runtime, validate
from .problems import Problem
from .schemas import _Strict

players = Blueprint("players", __name__, url_prefix="/v1")

HANDLE_RULE = "3..24 characters of A-Z a-z 0-9 _ -, starting with a letter or digit"


class RegisterSchema(_Strict):
    handle = fields.String(required=True, validate=check.Regexp(f"^{HANDLE.pattern}$", error=HANDLE_RULE))


class TokenSchema(_Strict):
    scopes = fields.List(fields.String(validate=check.OneOf(SCOPES)), required=True,
                         validate=check.Length(min=1, max=len(SCOPES)))
    label = fields.String(validate=check.Length(max=MAX_LABEL), load_default="")


def registry():
    return runtime().players


def known(handle: str):
    """The player registered under ``handle`` (any case): 404 ``unknown_player`` when there is none."""
    player = registry().get(handle)
    if player is None:
        raise Problem(404, "unknown_player", f"no player {handle!r} is registered here")
    return player


def seats_for_players(seats: list[dict] | None, where: str = "seats") -> list[dict] | None:
    """A creation's seats as the table takes them: each ``handle`` (a seat kept for a registered player)
    as the ``player`` it names, spelt as the player registered it; 422 ``invalid_setup`` naming each
    handle nobody registered."""
    if seats is None:
        return None
    found = registry().existing([seat["handle"] for seat in seats if seat.get("handle")])
    problems = {f"{where}[{n}].handle": [f"no player {seat['handle']!r} is registered here"]
                for n, seat in enumerate(seats) if seat.get("handle") and seat["handle"] not in found}
    if problems:
        raise Problem(422, "invalid_setup", f"{len(problems)} seats name players nobody registered",
                      errors=problems)
    return [{**{k: v for k, v in seat.items() if k != "handle"},
             **({"player": found[seat["handle"]].handle} if seat.get("handle") else {})} for seat in seats]


def account(handle: str):
    """The request acts for ``handle`` with a token of scope ``account``: 401 without a token, 403 for
    another player's or one without the scope."""
    token = bearer_token(required=True, credential=f"a player token of {handle}'s with the scope 'account'")
    holder = request_player(token, "account", f"a player token of {handle}'s") if token.startswith("pt_") else None
    if holder is None or holder.handle.lower() != handle.lower():
        raise Problem(403, "invalid_token", f"this token is not a player token of {handle}'s with the scope "
                      "'account'")
    return holder


@players.post("/players")
def register():
    limit_writes()
    body = validate(RegisterSchema(), json_body())
    if not operator_request():
        quotas().count_registration(request.remote_addr)
    try:
        player, token, holder = registry().register(body["handle"])
    except HandleTaken:
        raise Problem(409, "handle_taken", f"the handle {body['handle']!r} is taken (handles are unique whatever "
                      "their case); choose another") from None
    answer = {**player.to_json(), "token": token, "token_info": holder.to_json(),
              "url": f"/v1/players/{player.handle}"}
    response = current_app.json.response(answer)
    response.status_code = 201
    response.headers["Location"] = f"/v1/players/{player.handle}"
    return response


@players.get("/players/<handle>")
def profile(handle: str):
    player = known(handle)
    return {**player.to_json(), **history().profile(player.handle)}


@players.get("/players/<handle>/tokens")
def list_tokens(handle: str):
    player = known(handle)
    account(player.handle)
    return {"handle": player.handle, "tokens": [t.to_json() for t in registry().tokens(player.handle)]}


@players.post("/players/<handle>/tokens")
def issue_token(handle: str):
    limit_writes()
    player = known(handle)
    account(player.handle)
    body = validate(TokenSchema(), json_body())
    try:
        token, holder = registry().issue(player.handle, sorted(set(body["scopes"])), body["label"])
    except TooManyTokens:
        raise Problem(409, "too_many_tokens", "a player holds at most 20 live tokens; revoke one first") from None
    response = current_app.json.response({"handle": player.handle, "token": token, "token_info": holder.to_json()})
    response.status_code = 201
    return response


@players.delete("/players/<handle>/tokens/<token_id>")
def revoke_token(handle: str, token_id: str):
    limit_writes()
    player = known(handle)
    account(player.handle)
    hashed = registry().revoke(player.handle, token_id)
    if hashed is None:
        raise Problem(404, "unknown_token", f"player {player.handle} has no token {token_id!r}")
    current_app.extensions["stich.player_credentials"].forget(hashed)
    return Response(status=204)


# -- a player's history ------------------------------------------------------------------------------
PAGE, LONGEST_PAGE = 50, 500
FILTERS = ("game", "game_type", "role", "result", "rated", "tournament", "since", "until")
TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,3})?)?Z?)?")
WORD = re.compile(r"[a-z][a-z_-]{0,39}")
NDJSON = "application/x-ndjson"


def history_filters() -> Filters:
    """The request's filters: 422 naming each bad one."""
    args, problems = request.args, {}

    def word(name: str) -> str | None:
        value = args.get(name)
        if value is not None and not WORD.fullmatch(value):
            problems[name] = ["not a name of ours (lower case letters, _ and -)"]
        return value

    rated = args.get("rated")
    if rated not in (None, "true", "false"):
        problems["rated"] = ["true or false"]
    result = args.get("result")
    if result not in (None, "won", "lost", "even"):
        problems["result"] = ["won, lost or even"]
    role = args.get("role")
    if role not in (None, *ROLES):
        problems["role"] = [f"one of {', '.join(ROLES)}"]
    tournament = args.get("tournament")
    if tournament is not None and not re.fullmatch(r"t[0-9a-f]{15}", tournament):
        problems["tournament"] = ["a tournament id"]
    times = {}
    for name in ("since", "until"):
        value = args.get(name)
        if value is not None and not TIME.fullmatch(value):
            problems[name] = ["an ISO 8601 date or UTC time, e.g. 2026-12-01 or 2026-12-01T18:00:00Z"]
        times[name] = value
    filters = Filters(game=word("game"), game_type=word("game_type"), role=role, result=result,
                      rated=None if rated is None else rated == "true", tournament=tournament, **times)
    if problems:
        raise Problem(422, "validation_error", f"bad filters {sorted(problems)}", errors=problems)
    return filters


def history():
    found = runtime().history
    if found is None:
        raise Problem(503, "history_unavailable", "this server keeps no history", headers={"Retry-After": "60"})
    return found


@players.get("/players/<handle>/games")
@query_params(*FILTERS, "limit", "cursor", "format")
def player_games(handle: str):
    """The player's finished games, newest first, filtered; NDJSON (``?format=ndjson`` or ``Accept``):
    all of them, one game a line, read a page at a time."""
    player = known(handle)
    filters = history_filters()
    wanted = request.args.get("format")
    if wanted not in (None, "json", "ndjson"):
        raise Problem(422, "validation_error", "format must be json or ndjson", errors={"format": ["json or ndjson"]})
    if wanted is None and request.accept_mimetypes.best_match(["application/json", NDJSON]) == NDJSON:
        wanted = "ndjson"
    store = history()
    after = cursor_arg()
    if wanted == "ndjson":
        def lines(after=after):
            while True:
                page = store.games_of(player.handle, filters, LONGEST_PAGE, after)
                for entry in page:
                    yield json.dumps(entry, separators=(",", ":")) + "\n"
                if len(page) < LONGEST_PAGE:
                    return
                after = (page[-1]["finished_at"], page[-1]["game_id"])

        response = Response(lines(), mimetype=NDJSON)
        response.headers["Content-Disposition"] = f'attachment; filename="stich-{player.handle}-games.ndjson"'
        return response
    limit = int_arg("limit", PAGE, 1, LONGEST_PAGE)
    page = store.games_of(player.handle, filters, limit + 1, after)
    more = len(page) > limit
    page = page[:limit]
    return {"handle": player.handle, "games": page, "next": cursor_of(page[-1]["finished_at"], page[-1]["game_id"]) if more else None}


@players.get("/players/<handle>/ratings/<game>")
@query_params("limit")
def player_rating(handle: str, game: str):
    """The player's rating in ``game`` and its latest changes, each naming the game it came from."""
    player = known(handle)
    if game not in runtime().handler.table.games:
        raise Problem(404, "unknown_game_name", f"no game {game!r}; one of {sorted(runtime().handler.table.games)}")
    store = history()
    limit = int_arg("limit", 50, 1, 500)
    return {"handle": player.handle, "game": game, "rating": store.ratings_of(player.handle).get(game),
            "changes": store.rating_changes_of(player.handle, game, limit)}


@players.get("/leaderboards/<game>")
@query_params("limit", "cursor")
def leaderboard(game: str):
    """Best first by the conservative rating (mu - 3 sigma); players and bot kinds alike, provisional
    ratings (fewer than 20 matches) marked."""
    if game not in runtime().handler.table.games:
        raise Problem(404, "unknown_game_name", f"no game {game!r}; one of {sorted(runtime().handler.table.games)}")
    limit = int_arg("limit", PAGE, 1, LONGEST_PAGE)
    raw = request.args.get("cursor")
    after = None
    if raw is not None:
        try:
            ordinal, identity = json.loads(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)))
            after = (float(ordinal), str(identity))
        except (ValueError, TypeError, binascii.Error):
            raise Problem(422, "validation_error", "cursor: not a cursor this server gave out",
                          errors={"cursor": ["not a cursor this server gave out"]}) from None
    rows = history().leaderboard(game, limit + 1, after)
    more = len(rows) > limit
    rows = rows[:limit]
    for place, row in enumerate(rows, 1):
        row["kind"] = "bot" if row["identity"].startswith("bot:") else "player"
    cursor = None
    if more:
        raw = json.dumps([rows[-1]["ordinal"], rows[-1]["identity"]], separators=(",", ":")).encode()
        cursor = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    return {"game": game, "entries": rows, "next": cursor}
