"""Tournaments: create, join, start, read, standings (JSON or CSV), the event feed and its stream.

A tournament lives in its own stream, decided by ``domain.tournament`` through
a command handler of its own (``workers/tournament.py`` holds it, with the
driver that opens and records the tables). Credentials work as for seats:
creating a tournament returns the organizer's token (needed to start it),
joining a human participant slot returns that participant's token (needed to
take its seat at each round's table); both are 192 random bits, kept only as
SHA-256 hashes beside the tournament's stream, compared in constant time.
"""
from __future__ import annotations

import csv
import hmac
import io
import json
import secrets
from typing import Callable

from flask import Blueprint, Flask, Response, current_app, request

from domain.errors import RuleViolation
from domain.tournament import Tournaments, TournamentState, bundle
from domain.table import BOT_KINDS
from domain.tournament.decider import MAX_REASON
from eventstore.codec import StoredEvent, encode_for_viewer
from eventstore.connection import connect_blocking
from eventstore.handler import Loaded, UnknownGame
from eventstore.tournament_index import STATUSES
from eventstore.watch import BLOCK_S, StreamWatcher

from .audit import export_lines, header as table_export_header
from .auth import bearer_token, new_token, token_hash
from .footprint import tournament_events, tournament_footprint
from .http import (
    PLAYER_TOKEN_PREFIX,
    download,
    game_json_response,
    game_response,
    int_arg,
    json_body,
    limit_writes,
    query_params,
    quotas,
    request_player,
    MAX_SEQ,
    runtime,
)
from .feed import followed_stream, revealed
from .listing import listed_page
from .meta import version
from .players import seats_for_players
from .problems import Problem
from .quotas import API_KEY_HEADER
from .ratelimit import Reservation
from .seats import abandoned, reclaim, take_as_player

tournaments = Blueprint("tournaments", __name__, url_prefix="/v1")

ORGANIZER = -1  # the organizer's credential, beside the participants' (0..n-1)
PAGE = 500
CSV_COLUMNS = ("place", "participant", "kind", "bot", "points", "results", "wins", "best_round", "rounds_played")


def install(app: Flask, redis_url: str, max_watched: int) -> None:
    """The blueprint, and a stream watcher for tournaments' streams (their own key space)."""
    desk = app.extensions["stich"].tournaments
    app.extensions["stich.tournament_watcher"] = StreamWatcher(
        desk.handler.store, connect_blocking(redis_url, BLOCK_S, max_connections=max_watched),
        max_games=max_watched, on_batch=desk.handler.advance)
    app.register_blueprint(tournaments)


def desk():
    return runtime().tournaments


def load(tournament_id: str) -> Loaded:
    try:
        return desk().handler.load(tournament_id)
    except UnknownGame:
        raise Problem(404, "unknown_tournament", f"no tournament {tournament_id!r}") from None


def body_of(loaded: Loaded) -> dict:
    body = {"id": loaded.game_id, **desk().handler.table.summary(loaded.state)}
    for round_ in body["schedule"]:
        for table in round_["tables"]:
            table["url"] = f"/v1/games/{table['game_id']}" if table["game_id"] else None
    return body


def credential(tournament_id: str, who: int, state: TournamentState | None = None) -> None:
    """The bearer token must be ``who``'s (the organizer, or a participant); every 401 and 403
    names that token, as a participant's seat token is a third kind the caller may hold. A player
    token stands for a participant that is its player (scope ``play``), and for the organizer of a
    tournament its player organised (scope ``organise``)."""
    if who == ORGANIZER:
        whose = "the organizer's token (from POST /v1/tournaments)"
    else:
        whose = f"participant {who}'s participant token (from POST /v1/tournaments/{{id}}/participants/{who})"
    token = bearer_token(required=True, credential=whose)
    if token.startswith(PLAYER_TOKEN_PREFIX):
        holder = request_player(token, meant=whose)
        state = state or load(tournament_id).state
        mine = (organiser_of(tournament_id) if who == ORGANIZER else state.player_of(who))
        if mine is None or mine != holder.handle:
            raise Problem(403, "invalid_token", f"this player token is not {whose} for this tournament, nor its "
                          "player's")
        request_player(token, "organise" if who == ORGANIZER else "play", whose)  # its own: the scope then
        return
    stored = desk().handler.store.seat_credentials(tournament_id).get(who)
    if stored is None or not hmac.compare_digest(token_hash(token), stored):
        raise Problem(403, "invalid_token", f"this token is not {whose} for this tournament")


def organiser_of(tournament_id: str) -> str | None:
    """The player who organised the tournament with a player token (scope ``organise``), if one did."""
    raw = desk().handler.store.redis.get(organiser_key(tournament_id))
    return raw.decode() if raw is not None else None


def organiser_key(tournament_id: str) -> str:
    return f"{desk().handler.store.prefix}:{{g:{tournament_id}}}:organiser"


def creation_statuses(ids: list[str]) -> list[str | None]:
    """The statuses the per-address active quota counts: games from the game list, tournaments
    (ids starting with "t") from their own streams. A running tournament is one active creation
    of its address, so nobody keeps more of them going than the quota allows."""
    statuses = runtime().index.statuses([i for i in ids if not i.startswith("t")])
    out = []
    for game_id in ids:
        if not game_id.startswith("t"):
            out.append(statuses.pop(0))
            continue
        try:
            out.append(desk().handler.load(game_id).state.status)
        except UnknownGame:
            out.append(None)
    return out


def rule_problem(exc: RuleViolation) -> Problem:
    return Problem(409, exc.code, exc.detail, **exc.context)


@tournaments.post("/tournaments")
def create_tournament():
    operator = quotas().require_key_to_create(request.headers.get(API_KEY_HEADER), "creating a tournament")
    limit_writes()
    raw = json_body()
    if not isinstance(raw, dict):
        raise Problem(422, "validation_error", "the body must be a JSON object", errors={"_body": ["not an object"]})
    handler = desk().handler
    organiser = request_player(scope="organise")  # a player organising it: its token is the organizer's too
    if isinstance(raw.get("participants"), list):
        raw = {**raw, "participants": seats_for_players(raw["participants"], "participants")}
    # Validated before an id or a secret is spent on it (422 invalid_setup), and before the quotas, which
    # weigh it by the tables its rounds open and its search participants.
    config = handler.table.create(raw, "")[0].data
    footprint = tournament_footprint(config)
    if not operator:
        quotas().check_tournament(config)
    # Every table game it will open counts against the stored-events quota now, at the ceiling the driver
    # creates it with, reserved before the tournament exists and given back if its creation fails.
    reservation = quotas().reserve_events(None if operator else request.remote_addr,
                                          tournament_events(runtime().handler.table, config))
    rate = Reservation.none()
    try:
        if not operator:  # counts against the address's creation rate and active creations, like its games
            rate = quotas().check_create(request.remote_addr, creation_statuses, footprint)
        token = new_token()
        outcome = handler.create_with(lambda commitment: handler.table.create(raw, commitment),
                                      game_id="t" + secrets.token_hex(8)[1:])  # "t": never mistaken for a game's
        handler.store.save_seat_credential(outcome.game_id, ORGANIZER, token_hash(token))
        if organiser is not None:
            handler.store.redis.set(organiser_key(outcome.game_id), organiser.handle)
    except BaseException:
        reservation.refund()
        rate.refund()
        raise
    if not operator:
        quotas().created(request.remote_addr, outcome.game_id, footprint)
    body = body_of(outcome.loaded)
    body["token"] = token
    if organiser is not None:
        body["organiser"] = organiser.handle
    return game_response(body, outcome.loaded.seq, 201, {"Location": f"/v1/tournaments/{outcome.game_id}"})


@tournaments.get("/tournaments")
@query_params("status", "game", "limit", "cursor")
def list_tournaments():
    """Newest first, as the game list: anyone may read it, as anyone may read a tournament."""
    page = listed_page(desk().index, STATUSES)
    return {"tournaments": page.entries, "next": page.next}


@tournaments.get("/tournaments/<tournament_id>")
def get_tournament(tournament_id: str):
    loaded = load(tournament_id)
    return game_response(body_of(loaded), loaded.seq)


@tournaments.post("/tournaments/<tournament_id>/participants/<int:participant>")
def join(tournament_id: str, participant: int):
    limit_writes()
    loaded = load(tournament_id)
    entries = loaded.state.participants
    if not 0 <= participant < len(entries):
        raise Problem(404, "unknown_participant", f"this tournament has participants 0..{len(entries) - 1}")
    store = desk().handler.store
    player = request_player(scope="play", meant="a player token (to join as its player), or none")
    if player is not None:
        return join_as_player(loaded, participant, player.handle)
    if entries[participant].get("player"):
        raise Problem(403, "player_seat", f"participant {participant} is player {entries[participant]['player']}'s "
                      "slot: only that player's token joins as it", player=entries[participant]["player"])
    if loaded.state.config.get("rated"):
        raise Problem(403, "player_required", "a rated tournament's participants are players: join with a player "
                      "token (scope play; register with POST /v1/players)")
    token = new_token()
    # Claimed first (HSETNX), so two clients racing for one slot cannot both get a token.
    if entries[participant]["kind"] != "human" or not store.save_seat_credential(tournament_id, participant,
                                                                                   token_hash(token)):
        raise Problem(409, "seat_taken", f"participant {participant} is a bot or has joined already")
    try:
        outcome = desk().handler.execute(tournament_id, None, {"type": "join", "participant": participant})
    except RuleViolation as exc:
        store.delete_seat_credential(tournament_id, participant)
        raise rule_problem(exc)
    except Exception:
        store.delete_seat_credential(tournament_id, participant)
        raise
    body = {"id": tournament_id, "participant": participant, "token": token}
    return game_response(body, outcome.loaded.seq, 201)


def join_as_player(loaded: Loaded, participant: int, handle: str):
    """A player joins as itself (``ParticipantJoined.player``, public): no participant token, its player
    token stands for the participant, and plays its seat at every table."""
    if loaded.state.participants[participant]["kind"] != "human":
        raise Problem(409, "seat_taken", f"participant {participant} is a bot")
    try:
        outcome = desk().handler.execute(loaded.game_id, None, {"type": "join", "participant": participant,
                                                               "player": handle})
    except RuleViolation as exc:
        raise Problem(403 if exc.code == "player_seat" else 409, exc.code, exc.detail)
    body = {"id": loaded.game_id, "participant": participant, "player": handle}
    return game_response(body, outcome.loaded.seq, 201)


@tournaments.post("/tournaments/<tournament_id>/start")
def start(tournament_id: str):
    limit_writes()
    load(tournament_id)
    credential(tournament_id, ORGANIZER)
    try:
        desk().handler.execute(tournament_id, None, {"type": "start"}, idempotency_key="start")
    except RuleViolation as exc:
        raise rule_problem(exc)
    loaded = load(tournament_id)  # inline, the tables may have played meanwhile
    return game_response(body_of(loaded), loaded.seq)


@tournaments.post("/tournaments/<tournament_id>/participants/<int:participant>/seat")
def take_table_seat(tournament_id: str, participant: int):
    """The participant's seat at its table in the current round: the seat's token, taken on its behalf;
    a seat abandoned after its time-outs is taken again here, with a new token (and only here: the
    game's own seat route refuses a tournament table's seats)."""
    limit_writes()
    loaded = load(tournament_id)
    state = loaded.state
    if not 0 <= participant < len(state.participants):
        raise Problem(404, "unknown_participant", f"this tournament has participants 0..{len(state.participants) - 1}")
    credential(tournament_id, participant)
    round_ = state.current
    found = [(t, t.participants.index(participant)) for t in (round_.tables if round_ else ())
             if participant in t.participants]
    if state.status != "active" or not found or round_.finished:
        raise Problem(409, "no_table", "no round is being played: wait for the next one (GET the tournament)")
    slot, seat = found[0]
    if slot.game_id is None:
        raise Problem(409, "table_not_open", "the table is being opened; retry in a moment",
                      headers={"Retry-After": "1"})
    rt = runtime()
    game = rt.handler.load(slot.game_id)
    if game.state.seats[seat].kind != "human":  # withdrawn before this round: its bot's seat has no token to hand out
        raise Problem(409, "seat_taken", f"participant {participant} has withdrawn: its bot plays its seat at this table")
    body = {"id": tournament_id, "participant": participant, "round": round_.number, "table": slot.table,
            "game_id": slot.game_id, "seat": seat}
    handle = game.state.seats[seat].player
    if handle is not None:  # a player's seat: its player token plays it, taken (again) as the player
        taken = take_as_player(game, seat, handle, "")
        return game_response({**body, "player": handle}, int(taken.headers["ETag"].strip('"')), taken.status_code)
    if abandoned(game, seat):  # timed out and played by the clock's bot: only its participant takes it again
        body["token"], outcome = reclaim(game, seat)
        return game_response(body, outcome.loaded.seq, 201)
    token = new_token()
    if not rt.store.save_seat_credential(slot.game_id, seat, token_hash(token)):
        raise Problem(409, "seat_taken", f"participant {participant} has taken its seat at this table already")
    body["token"] = token
    if game.state.seats[seat].taken:  # a clocked tournament's table started at once: only the token is new
        return game_response(body, game.seq, 201)
    try:
        outcome = rt.handler.execute(slot.game_id, None, {"type": "take_seat", "seat": seat})
    except RuleViolation as exc:
        rt.store.delete_seat_credential(slot.game_id, seat)
        raise rule_problem(exc)
    except Exception:
        rt.store.delete_seat_credential(slot.game_id, seat)
        raise
    return game_response(body, outcome.loaded.seq, 201)


def control_body(fields: dict[str, Callable[[object], bool]], required: tuple[str, ...] = ()) -> dict:
    """An organizer's control's body: an object of only ``fields``, each passing its check (else 422)."""
    raw = json_body(required=bool(required))
    if not isinstance(raw, dict):
        raise Problem(422, "validation_error", "the body must be a JSON object", errors={"_body": ["not an object"]})
    problems = {key: ["unknown field"] for key in raw if key not in fields}
    problems.update({key: ["is required"] for key in required if key not in raw})
    problems.update({key: [f"not a valid {key}"] for key, ok in fields.items() if key in raw and not ok(raw[key])})
    if problems:
        raise Problem(422, "validation_error", "the body does not match the schema", errors=problems)
    return raw


def reason_text(required: bool) -> Callable[[object], bool]:
    return lambda v: isinstance(v, str) and len(v) <= MAX_REASON and (bool(v.strip()) or not required)


def control(tournament_id: str, command: Callable[[TournamentState], dict]):
    """The organizer's command (read from the body once the token is checked), through the tournaments'
    one handler; the tournament as it is after it."""
    limit_writes()
    state = load(tournament_id).state
    credential(tournament_id, ORGANIZER)
    try:
        desk().handler.execute(tournament_id, None, command(state))
    except RuleViolation as exc:
        raise rule_problem(exc)
    loaded = load(tournament_id)  # inline, tables may have opened and played meanwhile
    return game_response(body_of(loaded), loaded.seq)


@tournaments.post("/tournaments/<tournament_id>/pause")
def pause(tournament_id: str):
    return control(tournament_id, lambda state: {
        "type": "pause", "reason": control_body({"reason": reason_text(required=False)}).get("reason", "")})


@tournaments.post("/tournaments/<tournament_id>/resume")
def resume(tournament_id: str):
    return control(tournament_id, lambda state: {"type": "resume", **control_body({})})


@tournaments.post("/tournaments/<tournament_id>/participants/<int:participant>/withdraw")
def withdraw(tournament_id: str, participant: int):
    def command(state: TournamentState) -> dict:
        body = control_body({"bot": lambda v: isinstance(v, str) and v in BOT_KINDS})
        if not 0 <= participant < len(state.participants):
            raise Problem(404, "unknown_participant", f"this tournament has participants 0..{len(state.participants) - 1}")
        bot = body.get("bot", "heuristic")
        withdrawable = state.participants[participant]["kind"] == "human" and not state.has_withdrawn(participant)
        if bot == "search" and withdrawable and state.status != "finished":
            # The search bot thinks for the participant from now on: counted as a creation with it would be.
            grown = tournament_footprint(state.config, state.withdrawn + ((participant, bot, 0),))
            quotas().grow(tournament_id, grown, creation_statuses)
        return {"type": "withdraw", "participant": participant, "bot": bot}

    return control(tournament_id, command)


@tournaments.post("/tournaments/<tournament_id>/abort")
def abort(tournament_id: str):
    return control(tournament_id, lambda state: {
        "type": "abort", "reason": control_body({"reason": reason_text(required=True)}, ("reason",))["reason"]})


@tournaments.get("/tournaments/<tournament_id>/standings")
@query_params("format")
def get_standings(tournament_id: str):
    loaded = load(tournament_id)
    summary = desk().handler.table.summary(loaded.state)
    wanted = request.args.get("format")
    if wanted not in (None, "json", "csv"):
        raise Problem(422, "validation_error", "format must be json or csv", errors={"format": ["json or csv"]})
    if wanted is None:
        best = request.accept_mimetypes.best_match(["application/json", "text/csv"], default="application/json")
        wanted = "csv" if best == "text/csv" else "json"
    if wanted == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, CSV_COLUMNS, extrasaction="ignore", lineterminator="\r\n")  # RFC 4180
        writer.writeheader()
        writer.writerows(summary["standings"])
        response = Response(out.getvalue(), mimetype="text/csv")
        response.headers["ETag"] = f'"{loaded.seq}"'
        return response
    body = {"id": tournament_id, "status": summary["status"], "final": summary["final"],
            "round": summary["round"], "standings": summary["standings"]}
    return game_response(body, loaded.seq)


@tournaments.get("/tournaments/<tournament_id>/export")
def export(tournament_id: str):
    """The finished tournament's bundle (``domain/tournament/bundle.py``); refused while it runs, when
    its secret seed, a duplicate round's deals and its tables' hidden cards are not public yet."""
    loaded = load(tournament_id)
    state = loaded.state
    if state.status != "finished":
        raise Problem(409, "tournament_not_finished", "a tournament's bundle is exported once it has finished "
                      "(its seed is revealed then, and every table's cards are public)")
    rt = runtime()
    tables = [rt.handler.load(slot.game_id) for round_ in state.rounds for slot in round_.tables if slot.finished]
    first = {"format": bundle.FORMAT, "version": bundle.FORMAT_VERSION, "tournament_id": tournament_id,
             "events": loaded.seq, "tables": len(tables), "head": loaded.head, "stich": version()}
    store, games = desk().handler.store, rt.store
    table_headers = [table_export_header(game, True) for game in tables]

    def lines():  # a page at a time, the tournament's events as a game export's are
        yield from export_lines(store, first, tournament_id, loaded, None, True)
        for game, header in zip(tables, table_headers):
            yield from export_lines(games, header, game.game_id, game, None, True)

    response = download(lines(), "application/x-ndjson")
    response.headers["ETag"] = f'"{loaded.seq}"'
    response.headers["Content-Disposition"] = f'attachment; filename="stich-tournament-{tournament_id}.ndjson"'
    return response


@tournaments.get("/tournaments/<tournament_id>/events")
@query_params("after", "limit")
def events(tournament_id: str):
    loaded = load(tournament_id)
    after = int_arg("after", 0, 0, MAX_SEQ)
    limit = int_arg("limit", PAGE, 1, PAGE)
    found = desk().handler.store.read(tournament_id, after, count=limit) if after < loaded.seq else []
    reveal = revealed(loaded.state.status == "finished", found)
    shown = FinishedRounds(loaded.state).shows(found)
    seq = max(loaded.seq, found[-1].seq if found else 0)
    body = (f'{{"id":{json.dumps(tournament_id)},'
            f'"events":[{",".join(encode_for_viewer(e, None, reveal or shown(e)) for e in found)}],"seq":{seq}}}')
    return game_json_response(body, seq)


@tournaments.get("/tournaments/<tournament_id>/events/stream")
@query_params("after", "timeout")
def stream(tournament_id: str):
    loaded = load(tournament_id)
    # The games' stream, following the tournament's own key space; every event is public, a secret
    # round's results once the round has finished.
    return followed_stream(current_app.extensions["stich.tournament_watcher"], tournament_id, loaded.seq,
                           loaded.state.status == "finished", None, shows=FinishedRounds(loaded.state).shows)


class FinishedRounds:
    """The tournament's finished rounds, followed through a feed: an event held back while its round
    ran (a secret duplicate round's ``TableFinished``) is shown in full from its round's end on —
    to everybody alike, the organizer included, who may be a player too."""

    def __init__(self, state: TournamentState):
        self.numbers = {r.number for r in state.rounds if r.finished}

    def shows(self, batch: list[StoredEvent]) -> Callable[[StoredEvent], bool]:
        """Which events of ``batch`` (the feed's next events, in order) to show in full."""
        self.numbers.update(e.data["round"] for e in batch if e.type == "RoundFinished")
        return lambda event: Tournaments.shown(event.type, event.data, self.numbers)
