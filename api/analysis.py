"""The analysis of a finished game: ask for it, then read its progress and its result.

Anyone may ask, with no credential: once a game has finished every event is public, and the
analysis judges each decision only from what its seat knew then. It costs up to minutes of an analysis
worker's CPU (workers/analysis.py: a worker of its own, so no game waits on it), so an address may
have ``Quotas.analyses`` analyses queued or running at once; an operator key
(``X-API-Key``) lifts that. A duplicate round's table is refused while its round runs, like its
export (``api/embargo.py``): the analysis names the cards every seat held.
"""
from __future__ import annotations

from flask import Blueprint, jsonify, request

from workers.analysis import (
    DONE,
    QUEUED,
    RUNNING,
    Analyses,
    budget_from_env,
    head_of,
    request_analysis,
)

from .embargo import embargo
from .http import limit_writes, operator_request, quotas, runtime
from .problems import Problem
from .quotas import API_KEY_HEADER

analysis = Blueprint("analysis", __name__, url_prefix="/v1")

NONE = "none"  # GET's status before anybody has asked for the analysis (or after it expired)

SHOWN = ("status", "progress", "head", "budget", "thresholds", "unit", "seats", "decisions", "error")


def finished_game(game_id: str):
    """The game, loaded: 404 for none, 403 for an embargoed table, 409 while it runs."""
    rt = runtime()
    loaded = rt.handler.load(game_id)
    if embargo().challenge_embargoed(game_id):
        raise Problem(403, "embargoed", "this game plays today's daily challenge: nobody, its own player included, "
                                        "analyses it until the day is over")
    tournament_id = embargo().tournament_of(game_id)
    if tournament_id and embargo().embargoed(tournament_id, game_id):
        raise Problem(403, "embargoed", "this table plays a duplicate round's deals, which other tables may still "
                                        "be playing: nobody, its own seats included, analyses it until the round "
                                        "has finished")
    if not rt.handler.table.is_finished(loaded.state):
        raise Problem(409, "game_not_finished", "a game is analysed once it has finished: until then its "
                                                "analysis would tell the seats what the others hold")
    return loaded


def shown(record: dict, game_id: str) -> dict:
    out = {key: record[key] for key in SHOWN if key in record}
    out["game_id"] = game_id
    return out


@analysis.post("/games/<game_id>/analysis")
def ask(game_id: str):
    presented = request.headers.get(API_KEY_HEADER)
    operator = operator_request()
    if presented and not operator and quotas().quotas.api_keys:
        raise Problem(403, "invalid_api_key", f"the {API_KEY_HEADER} is not one of this server's operator keys")
    limit_writes()
    loaded = finished_game(game_id)
    head = head_of(loaded)
    analyses = Analyses(runtime().store)
    record = analyses.get(game_id, head)
    if record is None or record["status"] not in (DONE, QUEUED, RUNNING):
        def unfinished(members: list[str]) -> list[bool]:
            out = []
            for member in members:
                other_game, _, other_head = member.rpartition(":")
                found = analyses.get(other_game, other_head)
                out.append(found is not None and found["status"] in (QUEUED, RUNNING))
            return out

        quotas().reserve_analysis(None if operator else request.remote_addr, f"{game_id}:{head}", unfinished)
    record = request_analysis(runtime(), game_id, head, budget_from_env())
    response = jsonify(shown(record, game_id))
    response.status_code = 200 if record["status"] == DONE else 202
    response.headers["Location"] = f"/v1/games/{game_id}/analysis"
    return response


@analysis.get("/games/<game_id>/analysis")
def read(game_id: str):
    loaded = finished_game(game_id)
    head = head_of(loaded)
    record = Analyses(runtime().store).get(game_id, head)
    if record is None:  # an answer, not an error: a replay asks on every visit (POST asks for one)
        return jsonify({"game_id": game_id, "status": NONE, "progress": {"done": 0, "total": None}, "head": head,
                        "seats": [], "decisions": []})
    response = jsonify(shown(record, game_id))
    if record["status"] != DONE:
        response.headers["Retry-After"] = "2"
    return response
