"""Replay and audit: export a game, its transcript, verify an export, import one.

An export is JSON Lines: a header naming the format, the game, its players,
rules and the stich that wrote it, then one event per line, redacted for the
caller while the game runs and complete once it has finished (then every
caller gets the same bytes). ``stich verify`` and ``POST /v1/verify`` check an
export with the rules alone; ``POST /v1/imports`` stores a verified one as a
read-only game.
"""
from __future__ import annotations

import json
import time

from flask import Blueprint, Response, request

from domain import audit
from domain.transcript import render as render_transcript

from .http import game_response, limit_writes, quotas, runtime, viewer_seat
from .meta import version
from .problems import Problem
from .quotas import API_KEY_HEADER

exports = Blueprint("audit", __name__, url_prefix="/v1")

PAGE = 1000  # events read from the store per round trip while an export streams
UPLOAD_MAX_BYTES = 8 * 1024 * 1024  # an export to verify or import: ~25,000 events
YIELD_EVERY = 200  # events verified between yields, so one upload does not hold the worker's other requests


def header(loaded, complete: bool) -> dict:
    """The export's first line: the same for every caller once the game has finished."""
    summary = runtime().handler.table.summary(loaded.state)
    out = {"format": audit.FORMAT, "version": audit.FORMAT_VERSION, "game_id": loaded.game_id,
           "game": summary["game"], "players": summary["players"], "rules": summary["rules"],
           "seats": summary["seats"], "status": summary["status"], "complete": complete,
           "events": loaded.seq, "head": loaded.head, "stich": version()}
    if complete:
        out["scores"] = summary["scores"]
    return out


def export_lines(store, first: dict, game_id: str, loaded, viewer: int | None, reveal: bool):
    """The header, then the events up to the loaded seq, a page at a time (the generator runs
    after the request's context has gone, so it is handed the store and the header)."""
    yield json.dumps(first, separators=(",", ":")) + "\n"
    after = 0
    while after < loaded.seq:
        page = store.read(game_id, after=after, until=loaded.seq, count=PAGE)
        if not page:
            break
        for event in page:
            yield json.dumps(event.for_viewer(viewer, reveal), separators=(",", ":")) + "\n"
        after = page[-1].seq


@exports.get("/games/<game_id>/export")
def export(game_id: str):
    loaded = runtime().handler.load(game_id)
    seat = viewer_seat(game_id, required=False)
    complete = runtime().handler.table.is_finished(loaded.state)
    lines = export_lines(runtime().store, header(loaded, complete), game_id, loaded, seat, complete)
    response = Response(lines, mimetype="application/x-ndjson")
    response.headers["ETag"] = f'"{loaded.seq}"'
    response.headers["Content-Disposition"] = f'attachment; filename="stich-{game_id}.ndjson"'
    return response


@exports.get("/games/<game_id>/transcript")
def transcript(game_id: str):
    rt = runtime()
    loaded = rt.handler.load(game_id)
    seat = viewer_seat(game_id, required=False)
    reveal = rt.handler.table.is_finished(loaded.state)
    events = rt.store.read(game_id, until=loaded.seq)
    summary = {"id": game_id, **rt.handler.table.summary(loaded.state)}
    text = render_transcript(loaded.state.game, summary, [e.for_viewer(seat, reveal) for e in events], seat)
    response = Response(text, mimetype="text/markdown")
    response.headers["ETag"] = f'"{loaded.seq}"'
    return response


def uploaded_records() -> list[dict]:
    """The uploaded export's lines as JSON objects; 413 past ``UPLOAD_MAX_BYTES``."""
    request.max_content_length = UPLOAD_MAX_BYTES + 1
    raw = request.get_data(cache=False)
    if len(raw) > UPLOAD_MAX_BYTES:
        raise Problem(413, "body_too_large", f"an export to upload is at most {UPLOAD_MAX_BYTES} bytes; "
                      "verify larger ones offline with `stich verify`")
    try:
        records = audit.parse_lines(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise Problem(400, "malformed_export", "the export is not UTF-8 text")
    except audit.Failed as failed:
        raise Problem(400, "malformed_export", str(failed.finding))
    # Not an export at all is bad input; an export that is wrong is what the report is for.
    if not records or records[0].get("format") != audit.FORMAT:
        raise Problem(422, "validation_error", f"the body is not a stich export: its first line must be the "
                      f"export header (format {audit.FORMAT!r})", errors={"_body": ["not an export"]})
    return records


def cooperative_verify(records: list[dict]) -> audit.Report:
    """Verify, yielding to the worker's other requests every ``YIELD_EVERY`` events (under
    gevent ``time.sleep(0)`` switches greenlets), so a large upload cannot stall them."""
    counter = {"n": 0}

    def progress(_done: int, _total: int) -> None:
        counter["n"] += 1
        if counter["n"] % YIELD_EVERY == 0:
            time.sleep(0)

    return audit.verify(runtime().handler.table, records, progress=progress)


def report_body(report: audit.Report) -> dict:
    return {"verified": report.ok, "game_id": report.game_id, "game": report.game, "events": report.events,
            "deals": report.deals, "commands": report.commands, "head": report.head, "scores": report.scores,
            "checks": report.passed,
            "problem": None if report.ok else {"seq": report.problem.seq, "message": str(report.problem)},
            "report": "\n".join(report.lines())}


@exports.post("/verify")
def verify():
    limit_writes()  # verification is work: it counts like a write
    report = cooperative_verify(uploaded_records())
    return report_body(report)


@exports.post("/imports")
def import_game():
    operator = quotas().require_key_to_create(request.headers.get(API_KEY_HEADER))
    limit_writes()
    records = uploaded_records()
    if not operator:
        quotas().check_create(request.remote_addr, runtime().index.statuses)
    report = cooperative_verify(records)
    if not report.ok:
        raise Problem(422, "not_verified", f"the export does not verify: {report.problem}",
                      report=report_body(report))
    head = records[0]
    seed = records[-1]["data"]["seed"]
    outcome = runtime().handler.import_game(records[1:], seed, {"game_id": head.get("game_id"),
                                                                "head": report.head, "stich": head.get("stich")})
    if not operator:
        quotas().created(request.remote_addr, outcome.game_id)
    body = {"id": outcome.game_id, "imported_from": head.get("game_id"), **report_body(report)}
    return game_response(body, outcome.loaded.seq, 201, {"Location": f"/v1/games/{outcome.game_id}"})
