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
from workers.analysis import Analyses, head_of

from .embargo import embargo
from .http import download, game_response, limit_writes, operator_request, quotas, runtime, viewer_seat
from .import_index import PENDING, ImportIndex
from .meta import version
from .problems import Problem
from .quotas import API_KEY_HEADER
from .uploads import admitted_upload

exports = Blueprint("audit", __name__, url_prefix="/v1")

PAGE = 1000  # events read from the store per round trip while an export streams
# CPU time an upload's parse or verification runs before it yields to the process's other requests:
# two uploads at once then delay a health check by about two slices.
SLICE_S = 0.002
YIELD_S = 0.0001  # not 0: gevent's sleep(0) can hand the loop from one busy greenlet to the next unpolled


def header(loaded, complete: bool) -> dict:
    """The export's first line: the same for every caller once the game has finished."""
    return export_header(runtime().handler.table, loaded, complete, version())


def export_header(table, loaded, complete: bool, stich: str) -> dict:
    """``header`` from what it needs (a stream of many games makes one per game after its request)."""
    summary = table.summary(loaded.state)
    # The rules with their keys sorted, as the stored event holds them: a process that created the game folded
    # them in the order the rules were built, one that read them back (a restart, the archive) in the stored
    # order, and an export must be the same bytes whichever process serves it.
    rules = json.loads(json.dumps(summary["rules"], sort_keys=True))
    out = {"format": audit.FORMAT, "version": audit.FORMAT_VERSION, "game_id": loaded.game_id,
           "game": summary["game"], "players": summary["players"], "rules": rules,
           "seats": summary["seats"], "status": summary["status"], "complete": complete,
           "events": loaded.seq, "head": loaded.head, "stich": stich}
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
    response = download(lines, "application/x-ndjson")
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
    # A finished game's analysis, when one is done, adds its marks (derived data: read, never made here).
    analysis = Analyses(rt.store).get(game_id, head_of(loaded)) if reveal else None
    text = render_transcript(loaded.state.game, summary, [e.for_viewer(seat, reveal) for e in events], seat,
                             analysis)
    response = Response(text, mimetype="text/markdown")
    response.headers["ETag"] = f'"{loaded.seq}"'
    return response


class Pacer:
    """An ``audit.Pause`` that yields once a slice of CPU time has gone by since the last yield.
    Under gevent ``time.sleep(0)`` switches to the other greenlets (a verification is CPU work
    the event loop cannot interrupt); elsewhere it is harmless."""

    def __init__(self, slice_s: float = SLICE_S):
        self.slice_s = slice_s
        self.since = time.perf_counter()
        self.yields = 0

    def __call__(self) -> None:
        if time.perf_counter() - self.since >= self.slice_s:
            time.sleep(YIELD_S)
            self.yields += 1
            self.since = time.perf_counter()


def uploaded_records(raw: bytearray, pace: Pacer) -> list[dict]:
    """The uploaded export's lines as JSON objects; 400 ``export_limit`` at the first line past
    one of ``audit.BOUNDS``. Once decoded, the body's bytes are let go (``raw`` is emptied): the
    text holds them now, and the process's upload buffer (``api/uploads.py``) counts them once."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Problem(400, "malformed_export", "the export is not UTF-8 text")
    raw.clear()
    try:
        records = audit.parse_lines(text, pause=pace)
    except audit.OverBound as over:
        raise Problem(400, "export_limit", str(over.finding), line=over.line, bound=over.bound, limit=over.limit)
    except audit.Failed as failed:
        raise Problem(400, "malformed_export", str(failed.finding))
    # Not an export at all is bad input; an export that is wrong is what the report is for.
    if not records or records[0].get("format") != audit.FORMAT:
        raise Problem(422, "validation_error", f"the body is not a stich export: its first line must be the "
                      f"export header (format {audit.FORMAT!r})", errors={"_body": ["not an export"]})
    return records


def cooperative_verify(records: list[dict], pace: Pacer) -> audit.Report:
    """Verify, yielding to the worker's other requests every slice (``Pacer``) through every
    check, the replay included, so a large upload cannot stall them."""
    return audit.verify(runtime().handler.table, records, pause=pace)


def report_body(report: audit.Report) -> dict:
    return {"verified": report.ok, "game_id": report.game_id, "game": report.game, "events": report.events,
            "deals": report.deals, "commands": report.commands, "head": report.head, "scores": report.scores,
            "checks": report.passed,
            "problem": None if report.ok else {"seq": report.problem.seq, "message": str(report.problem)},
            "report": "\n".join(report.lines())}


@exports.post("/verify")
def verify():
    limit_writes()  # verification is work: it counts like a write
    with admitted_upload(operator_request()) as raw:  # api/uploads.py: bounded before it is read
        pace = Pacer()
        return report_body(cooperative_verify(uploaded_records(raw, pace), pace))


@exports.post("/imports")
def import_game():
    operator = quotas().require_key_to_create(request.headers.get(API_KEY_HEADER), "importing a game")
    limit_writes()
    with admitted_upload(operator) as raw:
        return import_upload(raw, operator)


def import_upload(raw: bytearray, operator: bool):
    size, pace = len(raw), Pacer()
    records = uploaded_records(raw, pace)
    created = records[1].get("data") if len(records) > 1 and isinstance(records[1].get("data"), dict) else {}
    # A running duplicate round's table stays unpublished, whatever the header calls it.
    embargo().refuse_import(records[0].get("game_id"), created.get("seed_sha256"))
    rate = quotas().check_create(request.remote_addr, runtime().index.statuses) if not operator else None
    # Counted before the work and given back unless a game is stored: the bytes of a day's imports, and the
    # creation rate (an import that stores nothing created nothing).
    try:
        reservation = quotas().reserve_import(None if operator else request.remote_addr, size)
    except BaseException:
        if rate is not None:
            rate.refund()
        raise
    try:
        response, stored = store_import(records, cooperative_verify(records, pace), operator)
    except BaseException:
        reservation.refund()
        if rate is not None:
            rate.refund()
        raise
    if not stored:
        reservation.refund()
        if rate is not None:
            rate.refund()
    return response


def store_import(records: list[dict], report: audit.Report, operator: bool) -> tuple[Response, bool]:
    """A verified export stored once, and whether it was stored now: its head names its whole
    history, so an export whose head was imported before answers that game (200) instead of
    storing it again (201)."""
    if not report.ok:
        raise Problem(422, "not_verified", f"the export does not verify: {report.problem}",
                      report=report_body(report))
    imported = ImportIndex(runtime().store.redis, runtime().store.prefix)
    found = imported.claim(report.head)
    if found == PENDING:
        raise Problem(409, "import_in_progress", "this export is being imported by another request; retry",
                      headers={"Retry-After": "1"})
    if found is not None:
        origin = runtime().store.load_origin(found) or {}
        body = {"id": found, "imported_from": origin.get("game_id", records[0].get("game_id")),
                **report_body(report)}
        return game_response(body, runtime().handler.load(found).seq, 200,
                             {"Content-Location": f"/v1/games/{found}"}), False
    try:
        head = records[0]
        seed = records[-1]["data"]["seed"]
        outcome = runtime().handler.import_game(records[1:], seed, {"game_id": head.get("game_id"),
                                                                    "head": report.head, "stich": head.get("stich")})
    except BaseException:
        imported.release(report.head)
        raise
    imported.record(report.head, outcome.game_id)
    if not operator:
        quotas().created(request.remote_addr, outcome.game_id)
    body = {"id": outcome.game_id, "imported_from": head.get("game_id"), **report_body(report)}
    return game_response(body, outcome.loaded.seq, 201, {"Location": f"/v1/games/{outcome.game_id}"}), True
