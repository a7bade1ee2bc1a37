"""The daily duplicate challenge (``domain/challenge.py``): today's deals for every player, and the day's
leaderboard by margin over everyone who held the same cards.

A player enters with its player token (scope ``play``): its game is created then, through the one
handler, under an id derived from the game, the day and the player (entering again answers the same
game), with the day's preset deals, the player at seat 0 and the fixed bots around it, so it starts at
once. Until the day is over its games are embargoed (``api/embargo.py``): only its player reads one,
nobody exports one, and the history records them afterwards — the day's cards stay the day's. The
leaderboard ranks by the margins summed while the day runs, and shows each deal's margin once it is over.
"""
from __future__ import annotations

from datetime import datetime, timezone

from flask import Blueprint

from domain.challenge import CHALLENGES, day_deals, margins
from domain.game import rank_places
from domain.record import DealRecord
from domain.table import TableState
from eventstore.challenges import day_end, is_day, today

from .auth import bearer_token
from .http import game_response, limit_writes, request_player, runtime
from .problems import Problem

challenges = Blueprint("challenges", __name__, url_prefix="/v1")


def challenge_of(game: str):
    found = CHALLENGES.get(game)
    if found is None:
        raise Problem(404, "unknown_game_name", f"no daily challenge for {game!r}; one of {sorted(CHALLENGES)}")
    return found


def described(challenge, day: str) -> dict:
    return {**challenge.to_json(), "day": day, "ends_at": day_end(day).isoformat().replace("+00:00", "Z"),
            "entries": len(runtime().challenges.entries(challenge.game, day)),
            "url": f"/v1/challenges/{challenge.game}/{day}"}


@challenges.get("/challenges")
def list_challenges():
    day = today()
    return {"day": day, "challenges": [described(c, day) for c in CHALLENGES.values()]}


@challenges.post("/challenges/<game>/<day>/entry")
def enter(game: str, day: str):
    limit_writes()
    challenge = challenge_of(game)
    meant = "a player token with the scope 'play' (register with POST /v1/players)"
    player = request_player(bearer_token(required=True, credential=meant), "play", meant)
    if player is None:
        raise Problem(403, "invalid_token", f"this is no player token: send {meant}")
    if day != today():
        raise Problem(409, "challenge_closed", f"only today's challenge ({today()}) is open", day=today())
    rt = runtime()
    game_id = rt.challenges.game_id(game, day, player.handle)
    rt.challenges.enter(game, day, player.handle, game_id)
    table = rt.handler.table
    rules = table.games[game].setup(challenge.players, challenge.full_rules(), None).rules
    deals = day_deals(rt.challenges.secret(), challenge, day, rules)
    seats = [{"kind": "human", "player": player.handle}] + [{"kind": "bot", "bot": challenge.bot}] * (
        challenge.players - 1)

    def build(commitment: str):
        events = table.create(game, challenge.players, challenge.full_rules(), seats, deals, commitment)
        state = table.fold(TableState(), events)
        taken = table.decide(state, None, {"type": "take_seat", "seat": 0, "player": player.handle})
        return events + taken

    outcome = rt.handler.create_with(build, game_id=game_id)
    body = {"id": game_id, "game": game, "day": day, "seat": 0, "player": player.handle,
            "url": f"/v1/games/{game_id}", "status": outcome.loaded.state.status}
    return game_response(body, outcome.loaded.seq, 200 if outcome.duplicate else 201)


@challenges.get("/challenges/<game>/<day>")
def leaderboard(game: str, day: str):
    """The day's finished entries ranked by their margins summed (each deal's margin once the day is over)."""
    challenge = challenge_of(game)
    if day == "today":
        day = today()
    if not is_day(day):
        raise Problem(422, "validation_error", "day must be a date such as 2026-12-03, or today",
                      errors={"day": ["a date (YYYY-MM-DD) or today"]})
    rt = runtime()
    over = datetime.now(timezone.utc) >= day_end(day)
    store = rt.challenges
    kept = store.results(game, day)
    for handle, game_id in store.entries(game, day).items():
        if handle in kept:
            continue
        try:
            loaded = rt.handler.load(game_id)
        except Exception:  # noqa: BLE001 - an entry whose game is not there (yet): not ranked
            continue
        if rt.handler.table.is_finished(loaded.state):
            events = [e.for_viewer(None, True) for e in rt.store.read(game_id, until=loaded.seq)]
            kept[handle] = [r.to_json() for r in loaded.state.game.deal_records(events)]
            store.keep_results(game, day, handle, kept[handle])
    records = {handle: [DealRecord(**{**r, "roles": tuple(r["roles"]), "results": tuple(r["results"]),
                                      "outcomes": tuple(r["outcomes"])}) for r in kept[handle]]
               for handle in kept}
    found = margins(records, challenge)
    handles = sorted(found, key=lambda h: (-found[h]["total"], h))
    places = rank_places([round(found[h]["total"], 9) for h in handles])
    rows = []
    for place, handle in zip(places, handles):
        row = {"place": place, "player": registered(handle), "total_margin": found[handle]["total"],
               "game_id": store.game_id(game, day, handle)}
        if over:
            row["deals"] = [{"deal": deal, **values} for deal, values in sorted(found[handle]["deals"].items())]
        rows.append(row)
    return {**described(challenge, day), "over": over, "finished": len(rows), "standings": rows}


def registered(handle: str) -> str:
    player = runtime().players.get(handle)
    return player.handle if player is not None else handle
