"""The audit routes against openapi.yaml, with real bodies: the export (JSON Lines, read line by line:
the header against ``ExportHeader``, every event against its game's event union), the transcript
(Markdown), past views (``?at=``), ``POST /v1/verify`` (a good and a tampered export) and
``POST /v1/imports`` (201 and the 422 refusal), and the error responses of each.

Every response is checked twice: with ``validate_response`` (``jsonschema``, the spec's responses)
and strictly with ``OAS30Validator`` (OpenAPI 3.0.3 read literally, discriminators enforced).
"""
from __future__ import annotations

import json

import pytest

from .spec import (
    EVENT_UNIONS,
    JSON_SPEC,
    UNKNOWN_ID,
    bearer,
    create,
    play_to_end,
    read_json_lines,
    take,
    validate_response,
    validate_schema,
)
from .test_strict_validation import check as strict_check
from .test_strict_validation import schema_validator

EXPORT = "/v1/games/{id}/export"
TRANSCRIPT = "/v1/games/{id}/transcript"
VIEW = "/v1/games/{id}/view"
VERIFY = "/v1/verify"
IMPORTS = "/v1/imports"
NDJSON = "application/x-ndjson"
GAMES = [("scharfe-schoten", 3, {"rounds": 1}), ("schafkopf", 4, {"deals": 1}), ("scharwenzel", 4, {"deals": 1})]


def strict_export(text: str) -> list[dict]:
    """The export's lines validated strictly too: the header, and each event against its game's union."""
    records = read_json_lines(text)
    schema_validator("ExportHeader").validate(records[0])
    union = schema_validator(EVENT_UNIONS[records[0]["game"]])
    for event in records[1:]:
        union.validate(event)
    return records


def strict(response, path: str, method: str, status: int):
    """Both validations of a JSON (or problem+json) answer; returns its body."""
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True)[:500])
    body = validate_response(response, path, method)
    assert strict_check(response, path, method, status) == body
    return body


def export_text(records: list[dict]) -> str:
    return "".join(json.dumps(record, separators=(",", ":")) + "\n" for record in records)


@pytest.fixture(scope="module")
def running(client):
    """A running game: seat 0 held by this test, two bots."""
    game_id = create(client, seats=[{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}], rules={"rounds": 2})
    return game_id, {0: take(client, game_id, 0)}


@pytest.fixture(scope="module")
def finished(client):
    """A finished game of every game: game → (id, tokens)."""
    out = {}
    installed = client.application.extensions["stich"].handler.table.games
    for game, players, rules in GAMES:
        if game not in installed:
            continue
        game_id = create(client, game=game, players=players, rules=rules,
                         seats=[{"kind": "human"}] + [{"kind": "bot"}] * (players - 1))
        tokens = {0: take(client, game_id, 0)}
        play_to_end(client, game_id, tokens)
        out[game] = (game_id, tokens)
    return out


@pytest.fixture(scope="module")
def finished_export(client, finished):
    game_id, _ = finished["scharfe-schoten"]
    return client.get(f"/v1/games/{game_id}/export").get_data(as_text=True)


# --------------------------------------------------------------------------- GET export


def test_a_running_games_export_validates_line_by_line(client, running):
    game_id, tokens = running
    for headers in ({}, bearer(tokens[0])):
        response = client.get(f"/v1/games/{game_id}/export", headers=headers)
        assert response.status_code == 200 and response.mimetype == NDJSON
        records = validate_response(response, EXPORT, "get")
        assert strict_export(response.get_data(as_text=True)) == records
        header, events = records[0], records[1:]
        assert header["complete"] is False and header["status"] == "active" and "scores" not in header
        assert header["game_id"] == game_id and response.headers["ETag"] == f'"{header["events"]}"'
        assert response.headers["Content-Disposition"] == f'attachment; filename="stich-{game_id}.ndjson"'
        assert any(e["redacted"] for e in events)  # the deal, seen by a spectator or one seat
        dealt = next(e for e in events if e["type"] == "HandsDealt")
        hidden = [hand is None for hand in dealt["data"]["hands"]]
        assert hidden == ([True] * 3 if not headers else [False, True, True])


@pytest.mark.parametrize("game", [g for g, _, _ in GAMES])
def test_a_finished_games_export_validates_line_by_line(client, finished, game):
    if game not in finished:
        pytest.skip(f"{game} is not installed")
    game_id, tokens = finished[game]
    response = client.get(f"/v1/games/{game_id}/export")
    assert response.status_code == 200 and response.mimetype == NDJSON
    records = validate_response(response, EXPORT, "get")
    assert strict_export(response.get_data(as_text=True)) == records
    header, events = records[0], records[1:]
    assert header["complete"] is True and header["game"] == game and header["scores"]["ranking"]
    assert not any(e["redacted"] for e in events) and events[-1]["type"] == "SeedRevealed"
    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert header["head"] == summary["head"] and header["rules"] == summary["rules"]
    seat = client.get(f"/v1/games/{game_id}/export", headers=bearer(tokens[0]))
    assert seat.data == response.data  # once finished, every caller gets the same bytes


def test_the_export_example_in_the_spec_validates():
    example = JSON_SPEC["paths"][EXPORT]["get"]["responses"]["200"]["content"][NDJSON]["example"]
    header, event = read_json_lines(example)
    validate_schema(header, "ExportHeader")
    validate_schema(event, "Event")


# --------------------------------------------------------------------------- GET transcript


def test_a_transcript_is_markdown_as_documented(client, running, finished):
    game_id, tokens = running
    finished_id, _ = finished["scharfe-schoten"]
    for gid, headers in ((game_id, {}), (game_id, bearer(tokens[0])), (finished_id, {})):
        response = client.get(f"/v1/games/{gid}/transcript", headers=headers)
        assert response.status_code == 200 and response.mimetype == "text/markdown", response.status_code
        text = validate_response(response, TRANSCRIPT, "get")
        assert text.startswith("# ") and response.headers["ETag"].strip('"').isdigit()


# --------------------------------------------------------------------------- GET view?at=


def test_past_views_validate(client, running, finished):
    game_id, _ = finished["scharfe-schoten"]
    latest = client.get(f"/v1/games/{game_id}").get_json()["seq"]
    for at in (1, 2, latest // 2, latest - 1, latest):
        body = strict(client.get(f"/v1/games/{game_id}/view?at={at}"), VIEW, "get", 200)
        assert body["seq"] == body["at"] == at and body["latest_seq"] == latest
    running_id, tokens = running
    now = client.get(f"/v1/games/{running_id}").get_json()["seq"]
    for headers in ({}, bearer(tokens[0])):
        body = strict(client.get(f"/v1/games/{running_id}/view?at={now - 1}", headers=headers), VIEW, "get", 200)
        assert body["at"] == now - 1 and body["latest_seq"] >= now


@pytest.mark.parametrize("at", ["0", "-1", "x", "99999", "1&at=2"])
def test_a_bad_at_is_a_documented_422(client, finished, at):
    game_id, _ = finished["scharfe-schoten"]
    problem = strict(client.get(f"/v1/games/{game_id}/view?at={at}"), VIEW, "get", 422)
    assert problem["code"] == "validation_error" and "at" in problem["errors"]


# --------------------------------------------------------------------------- errors of the read routes


@pytest.mark.parametrize("path", [EXPORT, TRANSCRIPT, VIEW])
def test_the_read_routes_errors_are_documented(client, running, path):
    game_id, _ = running
    url = path.replace("{id}", game_id)
    unknown = strict(client.get(path.replace("{id}", UNKNOWN_ID)), path, "get", 404)
    assert unknown["code"] == "unknown_game"
    forbidden = strict(client.get(url, headers=bearer("not-a-token-of-this-game")), path, "get", 403)
    assert forbidden["code"] == "invalid_token"
    malformed = client.get(url, headers={"Authorization": "Basic abc"})
    assert strict(malformed, path, "get", 401)["code"] == "missing_token"
    assert "WWW-Authenticate" in malformed.headers
    extra = strict(client.get(url + "?nonsense=1"), path, "get", 422)
    assert extra["code"] == "validation_error"


# --------------------------------------------------------------------------- POST /v1/verify


def test_verify_answers_a_good_export_with_a_valid_report(client, finished_export):
    body = strict(client.post(VERIFY, data=finished_export, content_type=NDJSON), VERIFY, "post", 200)
    header = read_json_lines(finished_export)[0]
    assert body["verified"] is True and body["problem"] is None and body["report"].endswith("\nVERIFIED")
    assert body["head"] == header["head"] and body["scores"] == header["scores"]
    assert body["game_id"] == header["game_id"] and body["game"] == "scharfe-schoten"


def test_verify_answers_tampered_exports_with_valid_reports(client, finished_export, running):
    records = read_json_lines(finished_export)
    changed = [dict(r) for r in records]
    changed[5] = {**changed[5], "at": "2020-01-01T00:00:00.000Z"}  # breaks the chain at event 5
    body = strict(client.post(VERIFY, data=export_text(changed), content_type=NDJSON), VERIFY, "post", 200)
    assert body["verified"] is False and body["problem"]["seq"] == 5 and body["report"].endswith("NOT VERIFIED")
    header = {**records[0], "game": "schafkopf", "players": 4}
    body = strict(client.post(VERIFY, data=export_text([header, *records[1:]]), content_type=NDJSON),
                  VERIFY, "post", 200)
    assert body["verified"] is False and body["problem"]["seq"] is None
    assert body["problem"]["message"].startswith("line 1 (header): game says")
    game_id, tokens = running  # a running game's export: redacted, so it cannot verify
    redacted = client.get(f"/v1/games/{game_id}/export", headers=bearer(tokens[0])).get_data(as_text=True)
    body = strict(client.post(VERIFY, data=redacted, content_type=NDJSON), VERIFY, "post", 200)
    assert body["verified"] is False and "redacted" in body["problem"]["message"]


@pytest.mark.parametrize("route", [VERIFY, IMPORTS])
def test_an_upload_that_is_no_export_is_a_documented_error(client, route):
    cases = [
        (b"not json\n", 400, "malformed_export"),
        (b"[1, 2]\n", 400, "malformed_export"),
        (b"\xff\xfe\n", 400, "malformed_export"),
        (b'{"some": "json"}\n', 422, "validation_error"),
        (b"", 422, "validation_error"),
        (b" " * (8 * 1024 * 1024 + 1), 413, "body_too_large"),
    ]
    for data, status, code in cases:
        problem = strict(client.post(route, data=data, content_type=NDJSON), route, "post", status)
        assert problem["code"] == code, (data[:20], problem)


# --------------------------------------------------------------------------- POST /v1/imports


def test_an_import_is_201_with_a_valid_result(client, finished, finished_export):
    response = client.post(IMPORTS, data=finished_export, content_type=NDJSON)
    body = strict(response, IMPORTS, "post", 201)
    header = read_json_lines(finished_export)[0]
    assert body["verified"] is True and body["imported_from"] == header["game_id"] != body["id"]
    assert response.headers["Location"] == f"/v1/games/{body['id']}"
    assert response.headers["ETag"] == f'"{body["seq"]}"' and body["seq"] == header["events"]
    again = client.get(f"/v1/games/{body['id']}/export")
    records = validate_response(again, EXPORT, "get")
    assert records[1:] == read_json_lines(finished_export)[1:] and records[0]["game_id"] == body["id"]


def test_an_import_that_does_not_verify_is_a_documented_422_with_its_report(client, finished_export):
    records = read_json_lines(finished_export)
    for forged in ([{k: v for k, v in records[0].items() if k != "scores"}, *records[1:]],  # the header
                   [*records[:-1], {**records[-1], "data": {"seed": "22" * 32}}]):  # the seed
        problem = strict(client.post(IMPORTS, data=export_text(forged), content_type=NDJSON), IMPORTS, "post", 422)
        assert problem["code"] == "not_verified" and problem["report"]["verified"] is False
        validate_schema(problem["report"], "VerifyReport")
        schema_validator("VerifyReport").validate(problem["report"])
        assert problem["detail"] == f"the export does not verify: {problem['report']['problem']['message']}"


def test_an_import_without_the_operator_key_is_a_documented_401_or_403(redis_url, finished_export):
    from api import create_app
    from api.quotas import Quotas

    keyed = create_app(redis_url, bots="inline", quotas=Quotas(api_keys=frozenset({"operator-key"}))).test_client()
    missing = strict(keyed.post(IMPORTS, data=finished_export, content_type=NDJSON), IMPORTS, "post", 401)
    assert missing["code"] == "missing_api_key"
    wrong = strict(keyed.post(IMPORTS, data=finished_export, content_type=NDJSON, headers={"X-API-Key": "nope"}),
                   IMPORTS, "post", 403)
    assert wrong["code"] == "invalid_api_key"
    allowed = keyed.post(IMPORTS, data=finished_export, content_type=NDJSON, headers={"X-API-Key": "operator-key"})
    # 200 when this module imported the same export before (imports are idempotent by head), else 201.
    assert strict(allowed, IMPORTS, "post", allowed.status_code)["verified"] is True
    assert allowed.status_code in (200, 201)
