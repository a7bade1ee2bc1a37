"""Games, seats, views and commands."""
from __future__ import annotations

import threading
from collections import OrderedDict

from flask import Blueprint, g, request

from domain.errors import InvalidCommand, RuleViolation, UnknownCard, UnknownCommand
from eventstore.handler import Loaded, StaleSeq
from eventstore.index import STATUSES

from .auth import bearer_token, new_token, token_hash
from .commands import command_schemas
from .embargo import table_tournaments, tournament_of
from .footprint import game_events, game_footprint
from .http import (counted_write, game_response, idempotency_key, if_match, int_arg, json_body, limit_writes,
                   query_params, quotas, request_player, runtime, seat_view, validate, viewer_credential,
                   with_time_left)
from .listing import listed_page
from .players import seats_for_players
from .problems import Problem
from .quotas import API_KEY_HEADER
from .ratelimit import Reservation
from .schemas import CommandEnvelopeSchema, CreateGameSchema, TakeSeatSchema
from .seats import abandoned, reclaim, take_as_player
from .tournaments import creation_statuses

games = Blueprint("games", __name__, url_prefix="/v1")

# Bad input (422) versus a well-formed command the rules do not allow now (409).
SHAPE_VIOLATIONS = (UnknownCard, UnknownCommand, InvalidCommand)


def summary(loaded: Loaded) -> dict:
    body = {"id": loaded.game_id}
    body.update(runtime().handler.table.summary(loaded.state))
    body["head"] = loaded.head
    body["tournament"] = tournament_of(loaded.game_id)
    return with_time_left(body)


@games.post("/games")
def create_game():
    operator = quotas().require_key_to_create(request.headers.get(API_KEY_HEADER))
    limit_writes()
    body = validate(_instance(CreateGameSchema), json_body())
    footprint = game_footprint(body.get("seats"), body.get("clock"), body["players"])
    handler = runtime().handler
    # The game's events are reserved before it is created, at its max_events ceiling (computed from the
    # rules and limits as the table computes it), and given back if the creation is refused or fails.
    reservation = quotas().reserve_events(None if operator else request.remote_addr,
                                          game_events(handler.table, body))
    rate = Reservation.none()
    try:
        if not operator:
            rate = quotas().check_create(request.remote_addr, creation_statuses, footprint)
        outcome = handler.create(body["game"], body["players"], body.get("rules") or {},
                                 seats_for_players(body.get("seats")), body.get("preset_deals"), body.get("limits"),
                                 body.get("clock"), hints=body.get("hints", False),
                                 rated=body.get("rated", False))
    except BaseException:  # refused or failed: it created nothing, so it costs neither quota
        reservation.refund()
        rate.refund()
        raise
    reservation.settle(outcome.loaded.state.limits.max_events)
    if not operator:
        quotas().created(request.remote_addr, outcome.game_id, footprint)
    return game_response(summary(outcome.loaded), outcome.loaded.seq, 201,
                         {"Location": f"/v1/games/{outcome.game_id}"})


@games.get("/games")
@query_params("status", "game", "limit", "cursor")
def list_games():
    page = listed_page(runtime().index, STATUSES)
    return {"games": without_table_seats(page.entries), "next": page.next}


def without_table_seats(entries: list[dict]) -> list[dict]:
    """A tournament table's free seats are its participants', not open to whoever reads the list."""
    waiting = [e for e in entries if e.get("open_seats")]
    for entry, tournament_id in zip(waiting, table_tournaments([e["id"] for e in waiting])):
        if tournament_id:
            entry["open_seats"] = []
    return entries


@games.get("/games/<game_id>")
def get_game(game_id: str):
    loaded = runtime().handler.load(game_id)
    body = summary(loaded)
    if loaded.state.status == "finished":  # only a finished game can have been imported
        origin = runtime().store.load_origin(game_id)
        if origin is not None:
            body["imported_from"] = origin
    return game_response(body, loaded.seq)


@games.post("/games/<game_id>/seats/<int:seat>")
def take_seat(game_id: str, seat: int):
    limit_writes()
    body = validate(_instance(TakeSeatSchema), json_body(required=False))
    player = request_player(scope="play")  # a player token takes the seat as its player; none: anonymously
    rt = runtime()
    loaded = rt.handler.load(game_id)
    [tournament_id] = table_tournaments([game_id])
    mine = player is not None and 0 <= seat < len(loaded.state.seats) and \
        loaded.state.seats[seat].player == player.handle
    if tournament_id and not mine:  # whoever asks: a table's seats are its participants', abandoned ones too
        raise Problem(403, "tournament_seat", f"this game is a table of tournament {tournament_id}: each seat is "
                      "its participant's, who takes it (or takes it again once abandoned) with POST "
                      f"/v1/tournaments/{tournament_id}/participants/{{participant}}/seat and its participant "
                      "token", tournament_id=tournament_id)
    seats = loaded.state.seats
    if not 0 <= seat < len(seats):
        raise Problem(404, "unknown_seat", f"this game has seats 0..{len(seats) - 1}")
    if seats[seat].kind != "human":
        raise Problem(409, "seat_taken", f"seat {seat} is played by a bot")
    if rt.store.seat_claim(game_id, seat):  # whoever asks: the named player's claim takes it, and takes it again
        raise Problem(403, "claimed_seat", f"seat {seat} was assigned by a bulk pairing to a named player: only "
                      "that player's claim takes it, or takes it again once abandoned (POST /v1/claims/{claim})")
    if seats[seat].player is not None and not mine:
        raise Problem(403, "player_seat", f"seat {seat} is player {seats[seat].player}'s: only that player's token "
                      "takes it, or takes it again once abandoned", player=seats[seat].player)
    if player is not None:
        return take_as_player(loaded, seat, player.handle, body.get("entropy", ""))
    if loaded.state.rated:
        raise Problem(403, "player_required", "a rated game's seats are players': take this one with a player "
                      "token (scope play; register with POST /v1/players)")
    if abandoned(loaded, seat):
        token, outcome = reclaim(loaded, seat)
        body = {"id": game_id, "seat": seat, "token": token, "status": outcome.loaded.state.status}
        return game_response(body, outcome.loaded.seq, 201)
    if seats[seat].taken:
        raise Problem(409, "seat_taken", f"seat {seat} is already taken")
    token = new_token()
    # The credential is claimed first (HSETNX), so two clients racing for one
    # seat cannot both get a token; the loser's claim appends nothing.
    if not rt.store.save_seat_credential(game_id, seat, token_hash(token)):
        raise Problem(409, "seat_taken", f"seat {seat} is already taken")
    try:
        outcome = rt.handler.execute(game_id, None, {"type": "take_seat", "seat": seat,
                                                     "entropy": body.get("entropy", "")})
    except RuleViolation as exc:
        rt.store.delete_seat_credential(game_id, seat)
        raise Problem(409, exc.code, exc.detail)
    except Exception:
        rt.store.delete_seat_credential(game_id, seat)
        raise
    body = {"id": game_id, "seat": seat, "token": token, "status": outcome.loaded.state.status}
    return game_response(body, outcome.loaded.seq, 201)


@games.get("/games/<game_id>/view")
@query_params("at")
def view(game_id: str):
    rt = runtime()
    loaded = rt.handler.load(game_id)
    seat, generation = viewer_credential(game_id, required=False) or (None, None)
    body = {"id": game_id}
    if not request.environ.get("QUERY_STRING") or request.args.get("at") is None:  # now, not a past moment
        body.update(seat_view(loaded, seat, generation))
        body["tournament"] = tournament_of(game_id)
        return game_response(with_time_left(body), loaded.seq)
    # A past moment: hidden then is hidden now, unless the game has finished since (then a
    # replay shows every hand). ``seq`` is the moment shown; ``latest_seq`` the game's own.
    at = int_arg("at", loaded.seq, 1, loaded.seq)
    past = rt.handler.load_at(game_id, at)
    body.update(rt.handler.table.view(past.state, seat, reveal=rt.handler.table.is_finished(loaded.state)))
    body["tournament"] = tournament_of(game_id)
    body["at"] = at
    body["latest_seq"] = loaded.seq
    return game_response(body, at)


@games.post("/games/<game_id>/commands")
def post_command(game_id: str):
    rt = runtime()
    # The write counts against the rate limits in the append's own round trip (``counted_write``).
    with counted_write(bearer_token(required=True)) as write:
        loaded = rt.handler.load(game_id, fresh=False)  # only its game's name is needed here
        seat, generation = viewer_credential(game_id, required=True)
        command = parse_command(loaded, json_body(), request.get_data(cache=True))
        expected = if_match()
        try:
            outcome = rt.handler.execute(game_id, seat, command, expected_seq=expected,
                                         idempotency_key=idempotency_key(), generation=generation, counters=write)
        except StaleSeq as exc:
            raise Problem(412, "stale_seq", str(exc), current_seq=exc.current,
                          headers={"ETag": f'"{exc.current}"'})
        except RuleViolation as exc:
            current = rt.handler.load(game_id)
            raise Problem(422 if isinstance(exc, SHAPE_VIOLATIONS) else 409, exc.code, exc.detail,
                          legal=rt.handler.table.legal_commands(current.state, seat), current_seq=current.seq,
                          headers={"ETag": f'"{current.seq}"'})
    after = outcome.loaded
    g.game = after.state.game.name  # for the command metrics
    reveal = after.state.status == "finished"
    body = {
        "id": game_id,
        "game": after.state.game.name,
        "duplicate": outcome.duplicate,
        "events": [e.for_viewer(seat, reveal) for e in outcome.events],
    }
    # RFC 7240: a client that gets its views from the stream asks for the answer without one.
    minimal = "return=minimal" in request.headers.get("Prefer", "").replace(" ", "").lower().split(",")
    if not minimal:
        body["view"] = with_time_left(seat_view(after, seat, generation))
    response = game_response(body, after.seq)
    if minimal:
        response.headers["Preference-Applied"] = "return=minimal"
    return response


COMMAND_CACHE = 4096  # checked commands kept: a game has a few dozen distinct ones (its cards x its moves)
COMMAND_BYTES = 256  # longer bodies are checked every time (no command of ours is that long)
_checked: OrderedDict[tuple[str, bytes], dict] = OrderedDict()
_checked_lock = threading.Lock()


def parse_command(loaded: Loaded, raw, body: bytes | None = None) -> dict:
    """Check the command's shape against its game's schema (422 on a bad shape). ``body``: the
    request's bytes that ``raw`` was parsed from. The check is a pure function of the game and
    those bytes, and the same few commands come again and again (two marshmallow loads cost a
    command more than the rest of its request layer), so an accepted one is remembered by them."""
    game = loaded.state.game.name
    key = (game, body) if body is not None and len(body) <= COMMAND_BYTES else None
    if key is not None:
        with _checked_lock:
            found = _checked.get(key)
            if found is not None:
                _checked.move_to_end(key)
        if found is not None:
            return _fresh(found)
    command = _check_command(game, raw)
    if key is not None:
        with _checked_lock:
            _checked[key] = _fresh(command)
            while len(_checked) > COMMAND_CACHE:
                _checked.popitem(last=False)
    return command


def _fresh(value):
    """A copy of a checked command, so that no caller changes the one remembered."""
    if isinstance(value, dict):
        return {k: _fresh(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_fresh(v) for v in value]
    return value


def _check_command(game: str, raw) -> dict:
    envelope = validate(_instance(CommandEnvelopeSchema), raw)
    schemas = command_schemas(game)
    schema = schemas.get(envelope["type"])
    if schema is None:
        raise Problem(422, "unknown_command", f"{game} has no command {envelope['type']!r}; "
                      f"its commands are {sorted(schemas)}", errors={"type": ["unknown command"]})
    return validate(_instance(schema), raw)


_instances: dict[type, object] = {}


def _instance(schema_class):
    """Schema instances are reusable for ``load``; building one per request costs more than the check."""
    instance = _instances.get(schema_class)
    if instance is None:
        instance = _instances[schema_class] = schema_class()
    return instance
