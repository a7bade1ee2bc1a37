"""The app and ``openapi.yaml`` hold each other to the contract.

1. The spec is a valid OpenAPI 3.0 document.
2. Routes: every Flask route is in the spec with the same methods, and back.
3. Schemathesis fuzzes every operation against the WSGI app (real Redis),
   positive and negative data, with path ids drawn from seeded games and
   seat tokens mixed into the Authorization header: no 5xx, every status
   documented, content types and bodies and headers as documented.
4. Explicit conformance tests validate real responses against the spec's
   response schemas with ``jsonschema``.

Budget: ``FUZZ_CASES`` generated cases in total (``STICH_FUZZ_CASES`` to
change it); hypothesis runs derandomized unless ``STICH_FUZZ_RANDOM=1``.
"""
from __future__ import annotations

import copy
import json
import os
import re
import time
from pathlib import Path

import jsonschema
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
SPEC_PATH = ROOT / "openapi.yaml"
SPEC = yaml.safe_load(SPEC_PATH.read_text())

FUZZ_CASES = int(os.environ.get("STICH_FUZZ_CASES", "2400"))
FUZZ_RANDOM = os.environ.get("STICH_FUZZ_RANDOM") == "1"
# Long polls and streams are capped in the test so fuzzing never hangs:
# any wait/timeout the server would accept is lowered to this many seconds.
MAX_BLOCK_S = 0.05
UNKNOWN_ID = "0000000000000000"

METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
OPERATIONS = [(path, method) for path, item in SPEC["paths"].items() for method in item if method in METHODS]

# Share of FUZZ_CASES per operation (positive and negative modes split it).
WEIGHTS = {
    ("/v1/health", "get"): 0.2,
    ("/v1/games", "post"): 2.0,
    ("/v1/games", "get"): 0.8,
    ("/v1/games/{id}", "get"): 0.6,
    ("/v1/games/{id}/seats/{seat}", "post"): 1.5,
    ("/v1/games/{id}/view", "get"): 0.8,
    ("/v1/games/{id}/commands", "post"): 2.5,
    ("/v1/games/{id}/events", "get"): 1.0,
    ("/v1/games/{id}/events/stream", "get"): 0.6,
}
CASE_COUNTS: dict[str, int] = {}

# Schafkopf with every house rule on (docs/games/schafkopf.md); `all_pass` options exclude each other.
SCHAFKOPF_ALL_GAMES = ["sie", "solo_tout", "wenz_tout", "farbwenz_tout", "geier_tout", "farbgeier_tout",
                       "solo", "wenz", "farbwenz", "geier", "farbgeier", "bettel", "rufspiel"]
SCHAFKOPF_HOUSE_RULES = {
    "preset": "standard", "deals": 3, "deck": "long", "allowed_games": SCHAFKOPF_ALL_GAMES,
    "all_pass": "ramsch", "stoss": 4, "doppeln": "all", "hochzeit": True, "renonce": True,
    "thrown_in_counts": True, "stock_winner": "declarer", "stock_lone_games": True,
    "ramsch_durchmarsch": "all_points", "ramsch_jungfrau": "double_all", "bettel_stichzwang": True,
    "tariffs": {"hochzeit": {"base": 20, "laufende_min": 2}, "ramsch": {"base": 20}, "bettel": {"base": 30},
                "stock": 10, "tout_factor": 2},
}


# --------------------------------------------------------------------------- helpers


def to_json_schema(node):
    """OpenAPI 3.0 schema → JSON Schema: ``nullable`` becomes ``anyOf [.., null]``."""
    if isinstance(node, list):
        return [to_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: to_json_schema(value) for key, value in node.items()}
    if out.pop("nullable", False) is True:
        return {"anyOf": [out, {"type": "null"}]}
    return out


JSON_SPEC = to_json_schema(SPEC)


def _resolve(node: dict) -> dict:
    while "$ref" in node:
        target = JSON_SPEC
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node


def validate_schema(instance, name: str) -> None:
    """Validate ``instance`` against ``components/schemas/<name>``."""
    schema = {"$ref": f"#/components/schemas/{name}", "components": JSON_SPEC["components"]}
    jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER).validate(instance)


def validate_response(response, path: str, method: str) -> None:
    """The status is documented for the operation, and so are the media type and body."""
    operation = JSON_SPEC["paths"][path][method]
    documented = operation["responses"]
    assert str(response.status_code) in documented, (
        f"{method.upper()} {path} answered {response.status_code}, documented: {sorted(documented)}")
    spec_response = _resolve(documented[str(response.status_code)])
    content = spec_response.get("content", {})
    assert response.mimetype in content, f"{response.mimetype} not documented for {response.status_code}"
    for header in spec_response.get("headers", {}):
        assert header in response.headers, f"{header} missing on {response.status_code}"
    if response.mimetype.endswith("json"):
        schema = {**content[response.mimetype]["schema"], "components": JSON_SPEC["components"]}
        jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER).validate(
            response.get_json())


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def create(client, **body):
    body.setdefault("game", "scharfe-schoten")
    body.setdefault("players", 3)
    response = client.post("/v1/games", json=body)
    assert response.status_code == 201, response.get_json()
    return response.get_json()["id"]


def take(client, game_id: str, seat: int) -> str:
    response = client.post(f"/v1/games/{game_id}/seats/{seat}", json={})
    assert response.status_code == 201, response.get_json()
    return response.get_json()["token"]


def play_to_end(client, game_id: str, tokens: dict[int, str], limit: int = 2000) -> None:
    """Post the first legal command of whichever of our seats is to act, until finished."""
    for _ in range(limit):
        summary = client.get(f"/v1/games/{game_id}").get_json()
        if summary["status"] == "finished":
            return
        seat = next(s for s in summary["to_act"] if s in tokens)
        legal = client.get(f"/v1/games/{game_id}/view", headers=bearer(tokens[seat])).get_json()["legal"]
        response = client.post(f"/v1/games/{game_id}/commands", json=legal[0], headers=bearer(tokens[seat]))
        assert response.status_code == 200, response.get_json()
    raise AssertionError("the game did not finish")


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def app(redis_url):
    from api import create_app

    return create_app(redis_url, bots="inline")


@pytest.fixture(scope="module")
def client(app):
    return app.test_client()


@pytest.fixture(scope="module")
def games(client):
    """Seeded games: id → {seat: token} for the seats this test holds."""
    human_bots = [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
    out: dict[str, dict] = {}

    waiting = create(client)  # three open human seats
    out[waiting] = {"name": "waiting", "tokens": {}}

    active = create(client, seats=human_bots, rules={"rounds": 2})
    out[active] = {"name": "active", "tokens": {0: take(client, active, 0)}}

    two = create(client, seats=[{"kind": "human"}, {"kind": "human"}, {"kind": "bot"}])
    out[two] = {"name": "two-humans", "tokens": {0: take(client, two, 0), 1: take(client, two, 1)}}

    four = create(client, players=4, seats=[{"kind": "human"}] + [{"kind": "bot"}] * 3,
                  rules={"rounds": 1, "first_starter": 0})
    out[four] = {"name": "four-players", "tokens": {0: take(client, four, 0)}}

    finished = create(client, seats=human_bots, rules={"rounds": 1})
    tokens = {0: take(client, finished, 0)}
    play_to_end(client, finished, tokens)
    out[finished] = {"name": "finished", "tokens": tokens}

    installed = client.application.extensions["stich"].handler.table.games
    for name, rules in (("schafkopf", {"deals": 1}), ("scharwenzel", {"deals": 1})):
        if name in installed:
            other = create(client, game=name, players=4, rules=rules,
                           seats=[{"kind": "human"}] + [{"kind": "bot"}] * 3)
            out[other] = {"name": name, "tokens": {0: take(client, other, 0)}}
    # Schafkopf with the house rules on: the fuzzer also walks Doppeln, Hochzeit, Stoß, Ramsch, auction … states.
    if "schafkopf" in installed:
        house = create(client, game="schafkopf", players=4,
                       rules=dict(SCHAFKOPF_HOUSE_RULES, deals=2, auction=True, schieberrunde=True),
                       seats=[{"kind": "human"}] + [{"kind": "bot"}] * 3)
        out[house] = {"name": "schafkopf-house-rules", "tokens": {0: take(client, house, 0)}}
    return out


def game_named(games: dict, name: str) -> tuple[str, dict[int, str]]:
    return next((gid, g["tokens"]) for gid, g in games.items() if g["name"] == name)


@pytest.fixture(scope="module")
def fuzz_schema(app, games):
    """The spec with the game id narrowed to the seeded games (plus one unknown id)."""
    import schemathesis

    raw = copy.deepcopy(SPEC)
    raw["components"]["parameters"]["GameId"]["schema"] = {"type": "string", "enum": [*games, UNKNOWN_ID]}
    schema = schemathesis.openapi.from_dict(raw)
    # 412 (a well-formed but stale If-Match) and 413 are rejections too.
    rejection = schema.config.checks.negative_data_rejection
    rejection.expected_statuses = [*rejection.expected_statuses, "412", "413"]
    schema.app = app
    return schema


# --------------------------------------------------------------------------- 1. the document


def test_spec_is_valid_openapi_3_0():
    from openapi_spec_validator import validate

    assert SPEC["openapi"].startswith("3.0.")
    validate(SPEC)


def test_every_operation_has_id_tags_and_documented_errors():
    seen = set()
    for path, method in OPERATIONS:
        operation = SPEC["paths"][path][method]
        assert operation.get("operationId") and operation["operationId"] not in seen, (path, method)
        seen.add(operation["operationId"])
        assert operation.get("tags"), (path, method)
        assert "500" in operation["responses"], (path, method)
        for status, response in operation["responses"].items():
            if status.startswith(("4", "5")):
                content = _resolve(to_json_schema(response))["content"]
                assert list(content) == ["application/problem+json"], (path, method, status)


# --------------------------------------------------------------------------- 2. routes both ways


def _flask_to_openapi(rule: str) -> str:
    return re.sub(r"<(?:[a-z_]+:)?([a-z_]+)>", lambda m: "{" + ("id" if m.group(1) == "game_id" else m.group(1)) + "}",
                  rule)


def test_routes_match_the_spec_both_ways(app):
    implicit = {"HEAD", "OPTIONS"}  # answered by Flask for every route
    in_app: dict[str, set[str]] = {}
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static":
            continue
        in_app.setdefault(_flask_to_openapi(rule.rule), set()).update(m for m in rule.methods if m not in implicit)
    in_spec = {path: {m.upper() for m in item if m in METHODS} for path, item in SPEC["paths"].items()}
    assert in_app == in_spec


# --------------------------------------------------------------------------- 3. schemathesis


def _budget(path: str, method: str) -> int:
    total = sum(WEIGHTS.get(op, 1.0) for op in OPERATIONS)
    return max(1, round(FUZZ_CASES * WEIGHTS.get((path, method), 1.0) / total))


def _clamp_block(query: dict | None, name: str, required: bool) -> None:
    """Lower any wait/timeout the server would accept to MAX_BLOCK_S (invalid values stay invalid)."""
    if query is None:
        return
    raw = query.get(name)
    if raw is None:
        if required:
            query[name] = MAX_BLOCK_S
        return
    try:
        value = float(raw)
    except (TypeError, ValueError):
        return
    if MAX_BLOCK_S < value <= 3600:
        query[name] = MAX_BLOCK_S


AUTH_CHOICES = ("none", "token", "token", "other-seat", "bogus", "malformed", "generated")


@pytest.mark.parametrize("mode", ["positive", "negative"])
@pytest.mark.parametrize("path,method", OPERATIONS, ids=[f"{m.upper()} {p}" for p, m in OPERATIONS])
def test_schemathesis(fuzz_schema, games, client, path, method, mode):
    from schemathesis import GenerationMode
    from schemathesis.checks import (content_type_conformance, negative_data_rejection, not_a_server_error,
                                     response_headers_conformance, response_schema_conformance,
                                     status_code_conformance)

    checks = [not_a_server_error, status_code_conformance, content_type_conformance,
              response_schema_conformance, response_headers_conformance]
    if mode == "negative":  # and the other direction: what the spec calls invalid, the server rejects
        checks.append(negative_data_rejection)
    item = SPEC["paths"][path]
    if mode == "negative" and not (item.get("parameters") or item[method].get("parameters")
                                   or item[method].get("requestBody")):
        pytest.skip("no input to make invalid")
    operation = fuzz_schema[path][method.upper()]
    generation_mode = GenerationMode.POSITIVE if mode == "positive" else GenerationMode.NEGATIVE
    share = 0.6 if mode == "positive" else 0.4
    budget = max(1, round(_budget(path, method) * share))
    key = f"{method.upper()} {path} [{mode}]"
    CASE_COUNTS[key] = 0
    all_tokens = [token for g in games.values() for token in g["tokens"].values()]

    @settings(max_examples=budget, deadline=None, database=None, derandomize=not FUZZ_RANDOM,
              suppress_health_check=list(HealthCheck))
    @given(case=operation.as_strategy(generation_mode=generation_mode), data=st.data())
    def run(case, data):
        CASE_COUNTS[key] += 1
        if path.endswith("/events"):
            _clamp_block(case.query, "wait", required=False)
        if path.endswith("/stream"):
            if case.query is None:
                case.query = {}
            _clamp_block(case.query, "timeout", required=True)
        game_id = (case.path_parameters or {}).get("id")
        tokens = games.get(game_id, {}).get("tokens", {}) if isinstance(game_id, str) else {}
        choice = data.draw(st.sampled_from(AUTH_CHOICES), label="auth")
        headers = case.headers if case.headers is not None else {}
        if choice != "generated":
            headers.pop("Authorization", None)
            if choice == "token" and tokens:
                headers["Authorization"] = f"Bearer {data.draw(st.sampled_from(sorted(tokens.values())))}"
            elif choice == "other-seat" and all_tokens:
                headers["Authorization"] = f"Bearer {data.draw(st.sampled_from(all_tokens))}"
            elif choice == "bogus":
                headers["Authorization"] = "Bearer st_not-a-token"
            elif choice == "malformed":
                headers["Authorization"] = "Basic c3RpY2g6c3RpY2g="
        case.headers = headers
        # Walk the games forward now and then: a legal command of the token's seat.
        if (mode == "positive" and path.endswith("/commands") and tokens and "Authorization" in headers
                and data.draw(st.integers(0, 3), label="legal?") == 0):
            view = client.get(f"/v1/games/{game_id}/view", headers={"Authorization": headers["Authorization"]})
            if view.status_code == 200 and view.get_json()["legal"]:
                case.body = data.draw(st.sampled_from(view.get_json()["legal"]), label="legal command")
        case.call_and_validate(checks=checks)

    started = time.monotonic()
    run()
    elapsed = time.monotonic() - started
    print(f"\n{key}: {CASE_COUNTS[key]} cases in {elapsed:.1f}s")


def test_fuzz_budget_was_spent():
    """Runs last in this module: report how many cases the fuzzer generated."""
    if not CASE_COUNTS:
        pytest.skip("the schemathesis tests did not run")
    total = sum(CASE_COUNTS.values())
    print(f"\nschemathesis: {total} cases over {len(CASE_COUNTS)} operation/mode pairs (budget {FUZZ_CASES})")
    # Tiny operations (GET /v1/health) run out of distinct inputs early; the rest spend their budget.
    assert total >= 0.8 * FUZZ_CASES


# --------------------------------------------------------------------------- 4. explicit conformance


def test_create_game_is_201_game_summary(client):
    response = client.post("/v1/games", json={"game": "scharfe-schoten", "players": 3,
                                              "seats": [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}]})
    validate_response(response, "/v1/games", "post")
    body = response.get_json()
    assert response.status_code == 201
    assert response.headers["Location"] == f"/v1/games/{body['id']}"
    assert response.headers["ETag"] == f'"{body["seq"]}"'
    assert body["status"] == "waiting"
    validate_schema(body["rules"], "ScharfeSchotenRules")


def test_create_game_with_preset_deal(client):
    from domain.scharfe_schoten.cards import SPICE_DECK

    deck = list(SPICE_DECK)
    preset = {"hands": [deck[0:12], deck[12:24], deck[24:36]], "cupboard": deck[36:48],
              "numbers": {"R": 3, "G": 7, "Y": 12, "B": 1}, "starter": 1}
    validate_schema(preset, "ScharfeSchotenPresetDeal")
    body = {"game": "scharfe-schoten", "players": 3, "rules": {"rounds": 1}, "preset_deals": [preset]}
    validate_schema(body, "CreateGame")
    response = client.post("/v1/games", json=body)
    validate_response(response, "/v1/games", "post")
    assert response.status_code == 201

    bad = copy.deepcopy(body)
    bad["preset_deals"][0]["hands"][0][1] = "R1"  # R1 twice, R2 missing
    response = client.post("/v1/games", json=bad)
    validate_response(response, "/v1/games", "post")
    assert response.status_code == 422 and response.get_json()["code"] == "invalid_setup"
    assert any(key.startswith("preset_deals[0]") for key in response.get_json()["errors"])


def test_take_seat_is_201_seat_granted(client):
    game_id = create(client, seats=[{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}])
    response = client.post(f"/v1/games/{game_id}/seats/0", json={"entropy": "abc_123"})
    validate_response(response, "/v1/games/{id}/seats/{seat}", "post")
    body = response.get_json()
    assert response.status_code == 201 and body["seat"] == 0 and body["status"] == "active"
    assert response.headers["ETag"] == f'"{body["seq"]}"'

    again = client.post(f"/v1/games/{game_id}/seats/0")  # no body at all is fine too
    validate_response(again, "/v1/games/{id}/seats/{seat}", "post")
    assert again.status_code == 409 and again.get_json()["code"] == "seat_taken"
    missing = client.post(f"/v1/games/{game_id}/seats/7")
    validate_response(missing, "/v1/games/{id}/seats/{seat}", "post")
    assert missing.status_code == 404 and missing.get_json()["code"] == "unknown_seat"


def test_view_with_and_without_token(client, games):
    game_id, tokens = game_named(games, "active")
    spectator = client.get(f"/v1/games/{game_id}/view")
    validate_response(spectator, "/v1/games/{id}/view", "get")
    body = spectator.get_json()
    assert body["viewer"] is None and body["legal"] == [] and body["game_state"]["hand"] is None

    seat = client.get(f"/v1/games/{game_id}/view", headers=bearer(tokens[0]))
    validate_response(seat, "/v1/games/{id}/view", "get")
    body = seat.get_json()
    assert body["viewer"] == 0 and isinstance(body["game_state"]["hand"], list)
    validate_schema(body["game_state"], "ScharfeSchotenGameState")
    assert seat.headers["ETag"] == f'"{body["seq"]}"'

    waiting, _ = game_named(games, "waiting")
    response = client.get(f"/v1/games/{waiting}/view")
    validate_response(response, "/v1/games/{id}/view", "get")
    assert response.get_json()["game_state"] is None


def test_finished_game_view_and_summary(client, games):
    game_id, _ = game_named(games, "finished")
    view = client.get(f"/v1/games/{game_id}/view")
    validate_response(view, "/v1/games/{id}/view", "get")
    body = view.get_json()
    assert body["status"] == "finished" and "seed" in body and "hands" in body["game_state"]
    summary = client.get(f"/v1/games/{game_id}")
    validate_response(summary, "/v1/games/{id}", "get")
    assert summary.get_json()["scores"]["ranking"]


@pytest.mark.parametrize("name,state_schema", [("schafkopf", "SchafkopfGameState"),
                                               ("scharwenzel", "ScharwenzelGameState")])
def test_other_games_views_and_legal_commands(client, games, name, state_schema):
    if not any(g["name"] == name for g in games.values()):
        pytest.skip(f"{name} is not installed in this tree")
    game_id, tokens = game_named(games, name)
    for headers in ({}, bearer(tokens[0])):
        response = client.get(f"/v1/games/{game_id}/view", headers=headers)
        validate_response(response, "/v1/games/{id}/view", "get")
        body = response.get_json()
        validate_schema(body["game_state"], state_schema)
        validate_schema(body["rules"], state_schema.replace("GameState", "Rules"))
    # Walk a few moves with the seat's legal commands: each is a documented Command and accepted.
    for _ in range(6):
        body = client.get(f"/v1/games/{game_id}/view", headers=bearer(tokens[0])).get_json()
        if not body["legal"]:
            break
        command = body["legal"][0]
        validate_schema(command, state_schema.replace("GameState", "Command"))
        response = client.post(f"/v1/games/{game_id}/commands", json=command, headers=bearer(tokens[0]))
        validate_response(response, "/v1/games/{id}/commands", "post")
        assert response.status_code == 200, response.get_json()


# --------------------------------------------------------------------------- 5. Schafkopf house rules

# Preset deals (dealer 3, then passing left) that reach every house-rule state:
# 0 - seat 0 holds exactly one trump (H7) and offers a Hochzeit, seat 1 marries (gives S10);
# 1 - seat 2 holds all three Aces (blocked) and the Eichel Ober; all pass: Renonce round, then `all_pass`;
# 2 - seat 2 plays a Rufspiel on the Eichel Ace (seat 3's).
SCHAFKOPF_DEALS = [
    {"dealer": 3, "hands": [["H7", "EA", "E10", "EK", "GA", "G10", "GK", "SA"],
                            ["EO", "GO", "HO", "SO", "EU", "GU", "HU", "S10"],
                            ["SU", "HA", "H10", "HK", "E9", "E8", "G9", "G8"],
                            ["H9", "H8", "E7", "G7", "S9", "S8", "S7", "SK"]]},
    {"hands": [["HK", "H9", "H8", "H7", "E7", "G7", "S8", "S7"],
               ["HO", "SO", "EU", "GU", "EK", "E9", "GK", "G9"],
               ["EA", "E10", "GA", "G10", "SA", "S10", "EO", "GO"],
               ["HU", "SU", "HA", "H10", "SK", "S9", "E8", "G8"]]},
    {"hands": [["HU", "SU", "H9", "GA", "G10", "E9", "S10", "S7"],
               ["H8", "H7", "E8", "E7", "GK", "G7", "SA", "SK"],
               ["EO", "GO", "HO", "SO", "HA", "H10", "EK", "G9"],
               ["EU", "GU", "HK", "EA", "E10", "G8", "S9", "S8"]]},
]
_VALIDATORS: dict[str, jsonschema.Draft7Validator] = {}


def fast_validate(instance, name: str) -> None:
    """``validate_schema`` with the validator built once per schema name (the walk validates thousands)."""
    validator = _VALIDATORS.get(name)
    if validator is None:
        schema = {"$ref": f"#/components/schemas/{name}", "components": JSON_SPEC["components"]}
        validator = _VALIDATORS[name] = jsonschema.Draft7Validator(
            schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    validator.validate(instance)


def _schafkopf_choice(legal: list[dict], view: dict, seat: int) -> dict:
    """A policy that walks into every house rule: double (even seats), offer and accept the Hochzeit,
    give every Stoß, let everybody pass in deal 1 (and withdraw from the Renonce round), play in deal 2."""
    state = view["game_state"]
    deal = state["deal"]
    someone_plays = any(a["intent"] == "play" for a in state["announcements"])
    wants_play = (deal % 3 == 0 and seat == 1) or (deal % 3 == 2 and not someone_plays)
    preferences = [
        {"type": "stoss"},
        {"type": "doppeln", "double": seat % 2 == 0},
        {"type": "hochzeit", "offer": True},
        {"type": "announce", "intent": "play" if wants_play else "pass"},
        {"type": "name_game", "game": "hochzeit"},
        # deal 1's Renonce round declines (so `all_pass` applies); deal 2's caller names the Rufspiel on EA
        {"type": "withdraw"} if state["mode"] == "renonce" else {"type": "name_game", "game": "rufspiel",
                                                                  "suit": "E"},
        {"type": "withdraw"},
    ]
    for preference in preferences:
        for command in legal:
            if all(command.get(key) == value for key, value in preference.items()):
                return command
    return legal[0]


def _check_schafkopf_view(body: dict) -> None:
    """A view against ``View``, its game state against ``SchafkopfGameState``, its commands against
    ``SchafkopfCommand`` (the same as validating ``View`` whole, with errors that name the field)."""
    fast_validate(body["game_state"], "SchafkopfGameState")
    for command in body["legal"]:
        fast_validate(command, "SchafkopfCommand")
    fast_validate({**body, "game_state": None, "legal": []}, "View")


def _walk_schafkopf(client, game_id: str, tokens: dict[int, str], max_moves: int = 400,
                    choose=_schafkopf_choice) -> list[dict]:
    """Four human seats play by ``choose`` (``_schafkopf_choice``). Checked against the spec: the
    spectator's and the acting seat's view before every move, every seat's view whenever the phase
    changes, every legal command, every answer. Returns the game states seen."""
    seen: list[dict] = []
    last_phase = None
    for _ in range(max_moves):
        spectator = client.get(f"/v1/games/{game_id}/view").get_json()
        _check_schafkopf_view(spectator)
        seen.append(spectator["game_state"])
        phase = spectator["game_state"]["phase"]
        views = {}
        for seat in range(4) if phase != last_phase else spectator["to_act"]:
            views[seat] = client.get(f"/v1/games/{game_id}/view", headers=bearer(tokens[seat])).get_json()
            _check_schafkopf_view(views[seat])
            seen.append(views[seat]["game_state"])
        last_phase = phase
        if spectator["status"] == "finished":
            return seen
        seat = spectator["to_act"][0]
        legal = views[seat]["legal"]
        assert legal, f"seat {seat} is to act but has no legal command"
        command = choose(legal, views[seat], seat)
        assert command in legal, (command, legal)
        response = client.post(f"/v1/games/{game_id}/commands", json=command, headers=bearer(tokens[seat]))
        assert response.status_code == 200, (command, response.get_json())
        validate_response(response, "/v1/games/{id}/commands", "post")
    raise AssertionError("the Schafkopf session did not finish")


def _four_humans(client, rules: dict, preset_deals: list | None = None) -> tuple[str, dict[int, str]]:
    body = {"game": "schafkopf", "players": 4, "rules": rules, "seats": [{"kind": "human"}] * 4}
    if preset_deals is not None:
        body["preset_deals"] = preset_deals
    validate_schema(body, "CreateGame")
    response = client.post("/v1/games", json=body)
    validate_response(response, "/v1/games", "post")
    assert response.status_code == 201, response.get_json()
    game_id = response.get_json()["id"]
    return game_id, {seat: take(client, game_id, seat) for seat in range(4)}


@pytest.mark.parametrize("all_pass", ["ramsch", "muss", "stock_double", "redeal_double"])
def test_schafkopf_with_every_house_rule_conforms(client, all_pass):
    rules = dict(SCHAFKOPF_HOUSE_RULES, all_pass=all_pass)
    game_id, tokens = _four_humans(client, rules, SCHAFKOPF_DEALS)
    summary = client.get(f"/v1/games/{game_id}")
    validate_response(summary, "/v1/games/{id}", "get")
    recorded = summary.get_json()["rules"]
    validate_schema(recorded, "SchafkopfRules")
    assert {key: recorded[key] for key in rules if key != "tariffs"} == {
        key: value for key, value in rules.items() if key != "tariffs"}
    # The complete ruleset names every option the spec documents, and no other.
    assert set(recorded) == set(SPEC["components"]["schemas"]["SchafkopfRules"]["properties"])
    assert set(recorded["tariffs"]) == set(SPEC["components"]["schemas"]["SchafkopfTariffs"]["properties"])

    states = _walk_schafkopf(client, game_id, tokens)

    phases = {s["phase"] for s in states}
    assert {"doppeln", "hochzeit", "announce", "naming", "exchange", "play", "finished"} <= phases
    assert any(s["doppeln"] and any(d["double"] for d in s["doppeln"]) for s in states)
    assert any(s["hochzeit"] == 0 for s in states)
    swaps = [s["swap"] for s in states if s["swap"]]
    assert {"from": 1, "to": 0} in swaps and any("gave" in swap for swap in swaps)
    assert any(s["declared"] and s["declared"]["game"] == "hochzeit" for s in states)
    assert any(s["mode"] == "renonce" for s in states)
    assert max(s["multiplier"] for s in states) >= 8
    if all_pass != "muss":  # no Stoß in a Muss-Spiel; the other deals are Stoß-able
        assert any(len(s["stoss"]) >= 2 for s in states)
    settled = [s["last_deal"] for s in states if s["last_deal"]]
    if all_pass == "ramsch":
        assert any(d["game"] == "ramsch" and "seat_points" in d and "jungfrauen" in d for d in settled)
    if all_pass == "muss":
        assert any(s["mode"] == "muss" for s in states)
        assert any(s["declared"] and s["declared"].get("renonce") is True for s in states)
    if all_pass in ("stock_double", "redeal_double"):  # deal 1 is thrown in
        assert any(d["game"] is None and d["deal"] == 1 for d in settled)
    if all_pass == "stock_double":
        assert any(s["stock"] > 0 for s in states) and any(d["stock"] < 0 for d in settled)
    final = states[-1]
    assert final["phase"] == "finished" and "hands" in final and "tricks" in final
    assert sum(final["scores"]["totals"]) + final["scores"]["stock"] == 0

    # The feed: every event is an Event; every settlement is a SchafkopfSettlement.
    events = client.get(f"/v1/games/{game_id}/events")
    validate_response(events, "/v1/games/{id}/events", "get")
    settlements = [e["data"] for e in events.get_json()["events"] if e["type"] == "DealSettled"]
    assert settlements
    for data in settlements:
        fast_validate(data, "SchafkopfSettlement")


def test_schafkopf_tournament_preset_on_the_short_deck_conforms(client):
    from domain.schafkopf.cards import SHORT_DECK

    deal = {"dealer": 3, "hands": [list(SHORT_DECK[i:i + 6]) for i in range(0, 24, 6)]}
    rules = {"preset": "tournament", "deck": "short", "deals": 1, "hochzeit": True}
    game_id, tokens = _four_humans(client, rules, [deal])
    recorded = client.get(f"/v1/games/{game_id}").get_json()["rules"]
    assert recorded["stoss"] == 0 and recorded["tariffs"]["rufspiel"]["base"] == 1
    assert "sie" not in recorded["allowed_games"]
    states = _walk_schafkopf(client, game_id, tokens)
    assert states[-1]["phase"] == "finished" and len(states[-1]["hands"][0]) == 6


# Auction and Schieberrunde (rules.auction, rules.schieberrunde). Five preset deals, all four seats human:
# 0 - dealer 3: seats 0, 1 and 3 name band games, seat 2 withdraws; the auction: 1 bids 71, 3 passes,
#     0 bids 81, 1 passes -> seat 0, holding every Ober and Unter, wins his Herz-Solo needing 81
#     -> deal 1 is a Schieberrunde;
# 1 - Schieberrunde, dealer 0: Vorhand (1) declines, the dealer takes EO GO and, with all eight Obers and
#     Unters, wins a Herz-Solo (no passing) -> deal 2 is a Schieberrunde;
# 2 - Schieberrunde, dealer 1: Vorhand (2) plays, pushes his two plain cards, the others push on; he keeps
#     all eight Obers and Unters and wins a Herz-Solo -> deal 3 is a Schieberrunde;
# 3 - Schieberrunde, dealer 2: Vorhand (3) and the dealer decline: `SchieberrundePaid`;
# 4 - dealer 3: seat 0 (every Ober and Unter again) wins a Herz-Solo Tout (above the band: no auction,
#     no target) -> the final view says the next deal would be a Schieberrunde.
AUCTION_SCHIEBER_RULES = {
    "deals": 5, "auction": True, "schieberrunde": True, "doppeln": "all", "stoss": 4,
    "allowed_games": ["sie", "solo_tout", "wenz_tout", "solo", "wenz", "farbwenz", "geier", "rufspiel"],
}
_TOPS = ["EO", "GO", "HO", "SO", "EU", "GU", "HU", "SU"]
_PLAIN = [s + r for s in "EGHS" for r in ("A", "10", "K", "9", "8", "7")]  # the 24 cards but Obers/Unters
# (event type, data keys always present, keys present only sometimes) as the spec's `Event` documents them.
NEW_EVENT_KEYS = {
    "AuctionOpened": ({"seats", "holder", "target"}, set()),
    "BidMade": ({"seat", "target", "call"}, set()),
    "BidPassed": ({"seat"}, set()),
    "SchieberSpoken": ({"seat", "play", "call"}, {"offered_to"}),
    "ObersHandedOver": ({"seat", "to", "cards"}, set()),
    "CardsPushed": ({"seat", "to", "cards"}, set()),
    "CardsReceived": ({"seat", "from", "cards"}, set()),
    "SchieberrundePaid": ({"deal", "dealer", "payers", "price", "payments"}, set()),
    "HandsDealt": ({"deal", "dealer", "hands"}, {"schieberrunde"}),
    "GameNamed": ({"seat", "game", "suit"}, {"auction"}),
    "GameDeclared": ({"declarer", "game", "suit", "called_ace"}, {"renonce", "partner", "target", "schieberrunde"}),
}


def _schieber_preset(rest: list[str], dealer: int) -> dict:
    """The preset whose Schieberrunde deal gives Vorhand EO GO and then deals ``rest`` (the other 30
    cards, in order) round from Vorhand, the dealer two short: preset hands are read back as the deck
    the normal mapping deals them from."""
    from domain.schafkopf.deal import hands_from_deck

    assert sorted(rest + ["EO", "GO"]) == sorted(_TOPS + _PLAIN)
    return {"hands": hands_from_deck(["EO", "GO"] + rest, dealer, 4)}


def _auction_schieber_deals() -> list[dict]:
    plain = list(_PLAIN)
    deal0 = {"dealer": 3, "hands": [list(_TOPS), plain[0:8], plain[8:16], plain[16:24]]}
    # deal 1 (dealer 0): the dealer's cards are rest[12:16] and rest[28:30]
    rest1 = plain[0:12] + ["HO", "SO", "EU", "GU"] + plain[12:24] + ["HU", "SU"]
    # deal 2 (dealer 1, Vorhand 2): Vorhand's cards are rest[0:4] and rest[16:20]
    rest2 = ["HO", "SO", "EU", "GU"] + plain[0:12] + ["HU", "SU"] + plain[12:24]
    rest3 = ["HO", "SO", "EU", "GU", "HU", "SU"] + plain
    deal4 = {"hands": [list(_TOPS), plain[0:8], plain[8:16], plain[16:24]]}
    return [deal0, _schieber_preset(rest1, 0), _schieber_preset(rest2, 1), _schieber_preset(rest3, 2), deal4]


def _auction_schieber_choice(legal: list[dict], view: dict, seat: int) -> dict:
    state = view["game_state"]
    deal, phase = state["deal"], state["phase"]
    vorhand = (state["dealer"] + 1) % 4
    tops = set(_TOPS)
    if phase == "doppeln":
        wish = {"type": "doppeln", "double": False}
    elif phase == "announce":
        wish = {"type": "announce", "intent": "play" if (deal == 4 and seat == 0) or (deal == 0 and seat != 2)
                else "pass"}
    elif phase == "naming" and state["mode"] == "schieber":
        wish = {"type": "name_game", "game": "solo", "suit": "H"}
    elif phase == "naming":
        wish = {0: {"type": "name_game", "game": "solo_tout", "suit": "H"}}.get(seat) if deal == 4 else {
            0: {"type": "name_game", "game": "solo", "suit": "H"}, 1: {"type": "name_game", "game": "wenz"},
            2: {"type": "withdraw"}, 3: {"type": "name_game", "game": "geier"}}[seat]
    elif phase == "auction":
        said = [b for b in state["auction"]["bids"] if b["seat"] == seat]
        wish = ({"type": "pass"} if said or seat == 3
                else next(c for c in legal if c["type"] == "bid"))  # the lowest raise, once
    elif phase == "schieber":
        wish = {"type": "schieber", "play": (deal == 1 and seat != vorhand) or (deal == 2 and seat == vorhand)}
    elif phase == "push":
        plain = [c for c in legal if not tops & set(c["cards"])]
        wish = plain[0] if plain else legal[-1]
    else:  # play: no Stoß, the first legal card
        wish = next(c for c in legal if c["type"] == "play")
    assert wish in legal, (phase, seat, wish, legal)
    return wish


def _events(client, game_id: str, headers: dict) -> list[dict]:
    out: list[dict] = []
    while True:
        page = client.get(f"/v1/games/{game_id}/events?after={out[-1]['seq'] if out else 0}", headers=headers)
        validate_response(page, "/v1/games/{id}/events", "get")
        events = page.get_json()["events"]
        if not events:
            return out
        out += events


def test_schafkopf_auction_and_schieberrunde_conform(client):
    game_id, tokens = _four_humans(client, AUCTION_SCHIEBER_RULES, _auction_schieber_deals())
    recorded = client.get(f"/v1/games/{game_id}").get_json()["rules"]
    validate_schema(recorded, "SchafkopfRules")
    assert recorded["auction"] is True and recorded["schieberrunde"] is True

    # Read the feed once the three pushes are made, while the session runs: their cards are only the
    # giver's (`CardsPushed`) and the receiver's (`CardsReceived`).
    feeds: dict = {}

    def choose(legal: list[dict], view: dict, seat: int) -> dict:
        round_ = view["game_state"]["schieberrunde"]
        if not feeds and round_ and len(round_["pushes"]) == 3:
            for who, headers in (("spectator", {}), (2, bearer(tokens[2]))):
                feeds[who] = [e for e in _events(client, game_id, headers)
                              if e["type"] in ("CardsPushed", "CardsReceived")]
        return _auction_schieber_choice(legal, view, seat)

    states = _walk_schafkopf(client, game_id, tokens, max_moves=600, choose=choose)
    assert len(feeds["spectator"]) == 6 and all(
        e["redacted"] and "cards" not in e["data"] and e["visibility"]["scope"] == "seat" for e in feeds["spectator"])
    for event in feeds[2]:  # Vorhand 2 pushed to 3 and received nothing
        mine = event["data"]["seat"] == 2 and event["type"] == "CardsPushed"
        assert ("cards" in event["data"]) is mine and event["redacted"] is not mine, event

    phases = {s["phase"] for s in states}
    assert {"auction", "schieber", "push", "naming", "play", "finished"} <= phases
    assert any(s["mode"] == "schieber" for s in states)
    # Between a won Herz-Solo and the next deal only (the next deal is dealt at once): the final view.
    assert states[-1]["schieberrunde_next"] is True
    assert any(s["hand"] and len(s["hand"]) == 10 for s in states)  # Vorhand before the passing
    assert any(max(s["hand_sizes"]) == 10 for s in states)
    schieber = [s["schieberrunde"] for s in states if s["schieberrunde"]]
    assert any(len(r["pushes"]) == 3 for r in schieber)
    assert any(p for r in schieber for p in r["pushes"] if "cards" not in p)  # hidden from other seats
    assert any(p for r in schieber for p in r["pushes"] if "cards" in p)  # shown to giver and receiver
    assert any(r["calls"] == [{"seat": 1, "play": False}, {"seat": 0, "play": True}] for r in schieber)
    assert any(r["vorhand"] == 3 and r["calls"] == [{"seat": 3, "play": False}] for r in schieber)
    auctions = [s["auction"] for s in states if s["auction"]]
    final_bids = [{"seat": 1, "target": 71}, {"seat": 3, "passed": True}, {"seat": 0, "target": 81},
                  {"seat": 1, "passed": True}]
    assert any(a["bids"] == final_bids and a["holder"] == 0 and a["bidders"] == [] for a in auctions)
    assert any(s["declared"] and s["declared"].get("target") == 81 for s in states)
    final = states[-1]
    assert final["phase"] == "finished" and final["last_deal"]["game"] == "solo_tout"
    assert "target" not in final["last_deal"]
    assert any(s["last_deal"] and s["last_deal"].get("target") == 81 for s in states)
    assert final["scores"]["deals"][3] == [100, 100, -100, -100]  # Vorhand 3 and dealer 2 paid the Solo base
    assert sum(final["scores"]["totals"]) + final["scores"]["stock"] == 0

    # The feed: the new events carry the documented keys; settlements are SchafkopfSettlements.
    spectator = _events(client, game_id, {})
    for event in spectator:
        fast_validate(event, "Event")
        if event["type"] in NEW_EVENT_KEYS:
            always, sometimes = NEW_EVENT_KEYS[event["type"]]
            keys = set(event["data"])
            assert always <= keys <= always | sometimes, event
        if event["type"] == "DealSettled":
            fast_validate(event["data"], "SchafkopfSettlement")
    types = [e["type"] for e in spectator]
    for kind in ("AuctionOpened", "BidMade", "BidPassed", "SchieberSpoken", "ObersHandedOver", "CardsPushed",
                 "CardsReceived", "SchieberrundePaid"):
        assert kind in types, kind
    by_type = {kind: [e["data"] for e in spectator if e["type"] == kind] for kind in set(types)}
    assert [d.get("schieberrunde_next") for d in by_type["DealSettled"]] == [True, True, True, True]
    assert [d.get("target") for d in by_type["DealSettled"]] == [81, None, None, None]
    assert [d.get("schieberrunde") for d in by_type["HandsDealt"]] == [None, True, True, True, None]
    assert any(d.get("auction") is True for d in by_type["GameNamed"])
    assert by_type["AuctionOpened"] == [{"seats": [0, 1, 3], "holder": 0, "target": 61}]
    assert {"seat": 1, "target": 71, "call": "70"} in by_type["BidMade"]
    assert by_type["ObersHandedOver"] == [{"seat": 1, "to": 0, "cards": ["EO", "GO"]}]
    assert {"seat": 1, "play": False, "call": "Ich spiele nicht", "offered_to": 0} in by_type["SchieberSpoken"]
    assert by_type["SchieberrundePaid"] == [{"deal": 3, "dealer": 2, "payers": [3, 2], "price": 50,
                                             "payments": [100, 100, -100, -100]}]
    declared = by_type["GameDeclared"]
    assert [d.get("schieberrunde") for d in declared] == [None, True, True, None]
    assert [d.get("target") for d in declared] == [81, None, None, None]
    # Once finished, the feed is whole.
    pushed = [e for e in spectator if e["type"] in ("CardsPushed", "CardsReceived")]
    assert len(pushed) == 6 and all(len(e["data"]["cards"]) == 2 and not e["redacted"] for e in pushed)


@pytest.mark.parametrize("rules,field", [
    ({"deck": "short", "allowed_games": ["sie", "rufspiel"]}, "rules.allowed_games"),
    ({"deck": "short", "allowed_games": ["bettel", "rufspiel"]}, "rules.allowed_games"),
    ({"deck": "short", "all_pass": "ramsch"}, "rules.all_pass"),
    ({"all_pass": "muss", "allowed_games": ["solo", "wenz"]}, "rules.all_pass"),
    ({"renonce": True, "allowed_games": ["solo"]}, "rules.renonce"),
    ({"auction": True, "allowed_games": ["solo_tout", "bettel", "rufspiel"]}, "rules.auction"),
    ({"schieberrunde": True, "allowed_games": ["wenz", "rufspiel"]}, "rules.schieberrunde"),
])
def test_schafkopf_invalid_combinations_are_422_invalid_setup(client, rules, field):
    """Each option is valid on its own (the spec's schema accepts it); only the combination is refused."""
    validate_schema(rules, "SchafkopfRules")
    response = client.post("/v1/games", json={"game": "schafkopf", "players": 4, "rules": rules})
    validate_response(response, "/v1/games", "post")
    body = response.get_json()
    assert (response.status_code, body["code"]) == (422, "invalid_setup")
    assert field in body["errors"], body["errors"]


@pytest.mark.parametrize("rules,field", [
    ({"preset": "pub"}, "rules.preset"),
    ({"stoss": 5}, "rules.stoss"),
    ({"doppeln": "yes"}, "rules.doppeln"),
    ({"hochzeit": "yes"}, "rules.hochzeit"),
    ({"auction": 1}, "rules.auction"),
    ({"schieberrunde": "true"}, "rules.schieberrunde"),
    ({"tariffs": {"hochzeit": {"bonus": 5}}}, "rules.tariffs.hochzeit"),
    ({"tariffs": {"tout_factor": 0}}, "rules.tariffs.tout_factor"),
    ({"tariffs": {"schieber": 5}}, "rules.tariffs"),
    ({"klopfen": True}, "rules"),
])
def test_schafkopf_bad_options_are_refused_by_spec_and_server(client, rules, field):
    with pytest.raises(jsonschema.ValidationError):
        validate_schema(rules, "SchafkopfRules")
    response = client.post("/v1/games", json={"game": "schafkopf", "players": 4, "rules": rules})
    validate_response(response, "/v1/games", "post")
    assert response.status_code == 422 and field in response.get_json()["errors"]


def test_schafkopf_spec_matches_the_code():
    """The spec's Schafkopf options, tariffs and commands are exactly the code's."""
    from api.commands import schafkopf as commands
    from domain.schafkopf import game_types, ruleset, tariffs

    schemas = SPEC["components"]["schemas"]
    options = schemas["SchafkopfRules"]["properties"]
    assert set(options) == set(ruleset.CHOICES) | set(ruleset.OTHER_OPTIONS)
    assert options["preset"]["enum"] == list(ruleset.PRESETS)
    for name, (default, allowed) in ruleset.CHOICES.items():
        schema = options[name]
        assert schema["default"] == default, name
        if "enum" in schema:
            assert set(schema["enum"]) == set(allowed), name
        elif schema["type"] == "integer":
            assert list(range(schema["minimum"], schema["maximum"] + 1)) == list(allowed), name
        else:
            assert schema["type"] == "boolean" and set(allowed) == {True, False}, name
    assert set(schemas["SchafkopfTariffs"]["properties"]) == set(tariffs.DEFAULT_TARIFFS)
    assert schemas["SchafkopfGameType"]["enum"] == list(game_types.PRECEDENCE)

    mapping = schemas["SchafkopfCommand"]["discriminator"]["mapping"]
    assert set(mapping) == set(commands.COMMANDS)
    assert len(schemas["SchafkopfCommand"]["oneOf"]) == len(commands.COMMANDS)
    for kind, ref in mapping.items():
        schema = schemas[ref.rsplit("/", 1)[1]]
        fields = set(commands.COMMANDS[kind]().fields)
        assert set(schema["properties"]) == fields, kind
        assert set(schema["required"]) == {n for n, f in commands.COMMANDS[kind]().fields.items() if f.required}
        assert schema["properties"]["type"]["enum"] == [kind]
    assert schemas["SchafkopfNameGame"]["properties"]["game"]["enum"] == commands.GAMES


@pytest.mark.parametrize("command", [
    {"type": "doppeln", "double": 1}, {"type": "doppeln", "double": 0},
    {"type": "hochzeit", "offer": 1}, {"type": "schieber", "play": 1}, {"type": "schieber", "play": "true"},
])
def test_schafkopf_boolean_fields_refuse_numbers(client, command):
    """Only JSON true/false: 1 == True in Python, so a plain marshmallow Boolean took numbers."""
    rules = {"doppeln": "all", "deals": 1, "hochzeit": True, "schieberrunde": True}
    game_id, tokens = _four_humans(client, rules, SCHAFKOPF_DEALS[:1])
    seat = client.get(f"/v1/games/{game_id}").get_json()["to_act"][0]
    for schema in ("Command", "SchafkopfCommand"):
        with pytest.raises(jsonschema.ValidationError):
            validate_schema(command, schema)
    response = client.post(f"/v1/games/{game_id}/commands", json=command, headers=bearer(tokens[seat]))
    validate_response(response, "/v1/games/{id}/commands", "post")
    assert (response.status_code, response.get_json()["code"]) == (422, "validation_error")


def test_schafkopf_spec_booleans_are_the_codes_strict_booleans():
    """Every boolean field of a Schafkopf command is a StrictBoolean in the code and `type: boolean` here."""
    from api.commands import schafkopf as commands
    from api.commands.base import StrictBoolean
    from marshmallow import fields as mfields

    schemas = SPEC["components"]["schemas"]
    mapping = schemas["SchafkopfCommand"]["discriminator"]["mapping"]
    for kind, schema_cls in commands.COMMANDS.items():
        properties = schemas[mapping[kind].rsplit("/", 1)[1]]["properties"]
        for name, field in schema_cls().fields.items():
            if isinstance(field, mfields.Boolean):
                assert isinstance(field, StrictBoolean), (kind, name)
                assert properties[name] == {"type": "boolean"}, (kind, name)
            elif properties[name].get("type") == "boolean":
                raise AssertionError(f"{kind}.{name} is boolean in the spec only")


@pytest.mark.parametrize("command", [
    {"type": "bid", "target": 80}, {"type": "bid", "target": 121}, {"type": "bid", "target": "81"},
    {"type": "bid"}, {"type": "pass", "target": 71}, {"type": "schieber"},
    {"type": "push", "cards": ["EA"]}, {"type": "push", "cards": ["EA", "E10", "EK"]},
    {"type": "push", "cards": ["EA", "Z9"]}, {"type": "push", "cards": "EA,E10"},
])
def test_schafkopf_bad_auction_and_schieber_commands_are_refused_by_spec_and_server(client, command):
    with pytest.raises(jsonschema.ValidationError):
        validate_schema(command, "SchafkopfCommand")
    game_id, tokens = _four_humans(client, {"deals": 1, "auction": True, "schieberrunde": True},
                                   SCHAFKOPF_DEALS[:1])
    seat = client.get(f"/v1/games/{game_id}").get_json()["to_act"][0]
    response = client.post(f"/v1/games/{game_id}/commands", json=command, headers=bearer(tokens[seat]))
    validate_response(response, "/v1/games/{id}/commands", "post")
    assert response.status_code == 422, response.get_json()


def test_legal_command_is_200_command_accepted(client):
    game_id = create(client, seats=[{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}])
    token = take(client, game_id, 0)
    view = client.get(f"/v1/games/{game_id}/view", headers=bearer(token)).get_json()
    command = view["legal"][0]
    validate_schema(command, "Command")
    response = client.post(f"/v1/games/{game_id}/commands", json=command,
                           headers={**bearer(token), "If-Match": f'"{view["seq"]}"', "Idempotency-Key": "k-1"})
    validate_response(response, "/v1/games/{id}/commands", "post")
    body = response.get_json()
    assert response.status_code == 200 and body["duplicate"] is False and body["events"]
    assert body["events"][0]["type"] == "PredictionMade" and body["events"][0]["actor"] == 0

    retry = client.post(f"/v1/games/{game_id}/commands", json=command,
                        headers={**bearer(token), "Idempotency-Key": "k-1"})
    validate_response(retry, "/v1/games/{id}/commands", "post")
    assert retry.get_json()["duplicate"] is True
    assert [e["seq"] for e in retry.get_json()["events"]] == [e["seq"] for e in body["events"]]


def test_illegal_command_is_409_problem_with_legal(client, games):
    game_id = create(client, seats=[{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}])
    token = take(client, game_id, 0)
    response = client.post(f"/v1/games/{game_id}/commands", json={"type": "predict", "most": "R", "fewest": "R"},
                           headers=bearer(token))
    validate_response(response, "/v1/games/{id}/commands", "post")
    body = response.get_json()
    assert response.status_code == 409 and body["code"] == "illegal_choice"
    assert body["legal"] and body["current_seq"] >= 1
    assert response.headers["ETag"] == f'"{body["current_seq"]}"'

    wrong = client.post(f"/v1/games/{game_id}/commands", json={"type": "play", "card": "R9"}, headers=bearer(token))
    validate_response(wrong, "/v1/games/{id}/commands", "post")
    assert wrong.status_code == 409 and wrong.get_json()["code"] == "wrong_phase"

    finished, tokens = game_named(games, "finished")
    over = client.post(f"/v1/games/{finished}/commands", json={"type": "take", "colour": "G"},
                       headers=bearer(tokens[0]))
    validate_response(over, "/v1/games/{id}/commands", "post")
    assert over.status_code == 409 and over.get_json()["code"] == "game_finished"


@pytest.mark.parametrize("body,headers,status,code", [
    ({"type": "dance"}, {}, 422, "unknown_command"),
    ({"type": "play", "card": "Z99"}, {}, 422, "unknown_card"),
    ({"type": "play", "card": "R9", "extra": 1}, {}, 422, "validation_error"),
    ({"type": "predict", "most": "R", "fewest": "G"}, {"If-Match": '"1"'}, 412, "stale_seq"),
    ({"type": "predict", "most": "R", "fewest": "G"}, {"If-Match": "soon"}, 400, "bad_if_match"),
    ({"type": "predict", "most": "R", "fewest": "G"}, {"If-Match": "\u00b2"}, 400, "bad_if_match"),  # '²'.isdigit()
    ({"type": "predict", "most": "R", "fewest": "G"}, {"If-Match": "1" * 5000}, 400, "bad_if_match"),  # int() limit
    ({"type": "predict", "most": "R", "fewest": "G"}, {"Idempotency-Key": "x" * 129}, 400, "bad_idempotency_key"),
])
def test_command_errors(client, body, headers, status, code):
    game_id = create(client, seats=[{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}],
                     rules={"first_starter": 0})
    token = take(client, game_id, 0)
    if body["type"] == "play":  # the card is judged once it is seat 0's turn to play
        predicted = client.post(f"/v1/games/{game_id}/commands", json={"type": "predict", "most": "R", "fewest": "G"},
                                headers=bearer(token))
        assert predicted.get_json()["view"]["game_state"]["phase"] == "playing"
    response = client.post(f"/v1/games/{game_id}/commands", json=body, headers={**bearer(token), **headers})
    validate_response(response, "/v1/games/{id}/commands", "post")
    assert (response.status_code, response.get_json()["code"]) == (status, code)
    if status == 412:
        assert response.get_json()["current_seq"] > 1


def test_request_level_errors(client, games):
    game_id, tokens = game_named(games, "active")
    url = f"/v1/games/{game_id}/commands"
    cases = [
        (client.post(url, json={"type": "take", "colour": "G"}), 401, "missing_token"),
        (client.post(url, json={"type": "take", "colour": "G"}, headers=bearer("st_nope")), 403, "invalid_token"),
        (client.post(url, data="{not json", content_type="application/json", headers=bearer(tokens[0])),
         400, "malformed_json"),
        (client.post(url, data="type=take", content_type="text/plain", headers=bearer(tokens[0])),
         415, "unsupported_media_type"),
        (client.post(url, data=json.dumps({"type": "x" * 70000}), content_type="application/json",
                     headers=bearer(tokens[0])), 413, "body_too_large"),
        (client.post(url, data="[" * 30000 + "]" * 30000, content_type="application/json",
                     headers=bearer(tokens[0])), 400, "malformed_json"),  # too deep for the parser
        (client.post(f"/v1/games/{UNKNOWN_ID}/commands", json={}, headers=bearer(tokens[0])), 404, "unknown_game"),
    ]
    for response, status, code in cases:
        validate_response(response, "/v1/games/{id}/commands", "post")
        assert (response.status_code, response.get_json()["code"]) == (status, code)
    assert "WWW-Authenticate" in cases[0][0].headers

    listing = client.get("/v1/games?status=lost")
    validate_response(listing, "/v1/games", "get")
    assert listing.status_code == 422
    unknown = client.get(f"/v1/games/{UNKNOWN_ID}")
    validate_response(unknown, "/v1/games/{id}", "get")
    assert unknown.get_json()["code"] == "unknown_game"


def test_undocumented_method_is_405_with_allow(client, games):
    game_id, _ = game_named(games, "active")
    response = client.delete(f"/v1/games/{game_id}")
    assert response.status_code == 405 and response.mimetype == "application/problem+json"
    assert response.get_json()["code"] == "method_not_allowed"
    assert {m.strip() for m in response.headers["Allow"].split(",")} >= {"GET"}
    validate_schema(response.get_json(), "Problem")


def test_list_games(client, games):
    response = client.get("/v1/games?game=scharfe-schoten&limit=5")
    validate_response(response, "/v1/games", "get")
    assert 1 <= len(response.get_json()["games"]) <= 5


def test_events_page(client, games):
    game_id, tokens = game_named(games, "active")
    spectator = client.get(f"/v1/games/{game_id}/events")
    validate_response(spectator, "/v1/games/{id}/events", "get")
    body = spectator.get_json()
    assert [e["seq"] for e in body["events"]] == list(range(1, body["seq"] + 1))
    dealt = next(e for e in body["events"] if e["type"] == "HandsDealt")
    assert dealt["redacted"] and dealt["data"]["hands"] == [None] * 3

    mine = client.get(f"/v1/games/{game_id}/events?after=2&limit=10&wait=0", headers=bearer(tokens[0]))
    validate_response(mine, "/v1/games/{id}/events", "get")
    events = mine.get_json()["events"]
    assert events[0]["seq"] == 3 and len(events) <= 10
    dealt = next(e for e in client.get(f"/v1/games/{game_id}/events", headers=bearer(tokens[0])).get_json()["events"]
                 if e["type"] == "HandsDealt")
    assert dealt["data"]["hands"][0] and dealt["data"]["hands"][1] is None

    empty = client.get(f"/v1/games/{game_id}/events?after={body['seq'] + 100}&wait=0.05")
    validate_response(empty, "/v1/games/{id}/events", "get")
    assert empty.get_json()["events"] == []


def _sse_messages(raw: bytes) -> list[dict]:
    messages = []
    for block in raw.decode().split("\n\n"):
        fields: dict = {}
        for line in block.splitlines():
            if line.startswith(":") or not line:
                continue
            name, _, value = line.partition(": ")
            fields[name] = value
        if "data" in fields:
            messages.append(fields)
    return messages


def test_event_stream_of_a_finished_game_ends_by_itself(client, games):
    game_id, _ = game_named(games, "finished")
    started = time.monotonic()
    response = client.get(f"/v1/games/{game_id}/events/stream?timeout=30")
    raw = response.get_data()
    assert time.monotonic() - started < 10, "the stream should end after the last event"
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    assert str(response.status_code) in SPEC["paths"]["/v1/games/{id}/events/stream"]["get"]["responses"]
    assert raw.startswith(b"retry: 2000\n\n")
    messages = _sse_messages(raw)
    for message in messages:
        validate_schema(message, "ServerSentEvent")
        event = json.loads(message["data"])
        validate_schema(event, "Event")
        assert message["id"] == str(event["seq"]) and event["redacted"] is False
    seq = client.get(f"/v1/games/{game_id}").get_json()["seq"]
    assert [int(m["id"]) for m in messages] == list(range(1, seq + 1))
    assert json.loads(messages[-1]["data"])["type"] == "SeedRevealed"

    resumed = client.get(f"/v1/games/{game_id}/events/stream", headers={"Last-Event-ID": str(seq - 2)})
    assert [int(m["id"]) for m in _sse_messages(resumed.get_data())] == [seq - 1, seq]


def test_event_stream_of_a_running_game_times_out(client, games):
    game_id, tokens = game_named(games, "waiting")
    response = client.get(f"/v1/games/{game_id}/events/stream?after=1&timeout=0.1")
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-cache"
    for message in _sse_messages(response.get_data()):
        validate_schema(json.loads(message["data"]), "Event")

    bad = client.get(f"/v1/games/{game_id}/events/stream", headers={"Last-Event-ID": "yesterday"})
    validate_response(bad, "/v1/games/{id}/events/stream", "get")
    assert bad.get_json()["code"] == "bad_last_event_id"
    for digits in ("9" * 25, "9" * 5000):  # beyond Redis stream ids; beyond int()'s digit limit
        too_big = client.get(f"/v1/games/{game_id}/events/stream", headers={"Last-Event-ID": digits})
        validate_response(too_big, "/v1/games/{id}/events/stream", "get")
        assert too_big.get_json()["code"] == "bad_last_event_id"
    superscript = client.get(f"/v1/games/{game_id}/events/stream", headers={"Last-Event-ID": "\u00b2"})
    validate_response(superscript, "/v1/games/{id}/events/stream", "get")
    assert superscript.get_json()["code"] == "bad_last_event_id"
    forbidden = client.get(f"/v1/games/{game_id}/events/stream?timeout=0", headers=bearer("st_nope"))
    validate_response(forbidden, "/v1/games/{id}/events/stream", "get")
    assert forbidden.status_code == 403


def test_health(client):
    response = client.get("/v1/health")
    validate_response(response, "/v1/health", "get")
    assert response.get_json() == {"status": "ok"}
