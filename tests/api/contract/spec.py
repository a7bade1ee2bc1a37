"""The app and ``openapi.yaml`` hold each other to the contract; this module holds the shared pieces.

1. The spec is a valid OpenAPI 3.0 document.
2. Routes: every Flask route is in the spec with the same methods, and back.
3. Schemathesis fuzzes every operation against the WSGI app (real Redis),
   positive and negative data, with path ids drawn from seeded games and
   seat tokens mixed into the Authorization header: no 5xx, every status
   documented, content types and bodies and headers as documented.
4. Explicit conformance tests validate real responses against the spec's
   response schemas with ``jsonschema``.
5. Schafkopf's house rules, auction and Schieberrunde played through the API.
6. Whole games of every game validated strictly (``OAS30Validator``: OpenAPI
   3.0.3 read literally, discriminators enforced), reaching every event type.

Budget: ``FUZZ_CASES`` generated cases in total (``STICH_FUZZ_CASES`` to
change it); hypothesis runs derandomized unless ``STICH_FUZZ_RANDOM=1``.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import jsonschema_rs  # schemathesis's own validator (installed with it): the same Draft 7, compiled
import yaml

ROOT = Path(__file__).resolve().parents[3]
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
    ("/", "get"): 0.1,
    ("/v1", "get"): 0.1,
    ("/v1/openapi.yaml", "get"): 0.1,
    ("/v1/openapi.json", "get"): 0.1,
    ("/docs", "get"): 0.1,
    ("/docs/assets/{name}", "get"): 0.3,
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


class SchemaCheck:
    """One schema's Draft 7 check, built once. jsonschema_rs gives the verdict (a whole Schafkopf walk's
    views and answers took jsonschema ~50 s, mostly the event unions' ``oneOf``, each branch tried);
    only when it refuses does ``jsonschema`` validate again, so a failure is jsonschema's
    ``ValidationError`` naming the field. jsonschema_rs checks every format it knows, jsonschema only
    those whose libraries are installed, so the refusal the tests see is always jsonschema's own."""

    def __init__(self, schema: dict):
        self.schema = {**schema, "components": JSON_SPEC["components"]}
        self.fast = jsonschema_rs.Draft7Validator(self.schema, validate_formats=True)
        self.full: jsonschema.Draft7Validator | None = None

    def is_valid(self, instance) -> bool:
        return self.fast.is_valid(instance) or self.explained(instance).is_valid(instance)

    def validate(self, instance) -> None:
        if not self.fast.is_valid(instance):
            self.explained(instance).validate(instance)

    def explained(self, instance) -> jsonschema.Draft7Validator:
        if self.full is None:
            self.full = jsonschema.Draft7Validator(self.schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
        return self.full


_CHECKS: dict[str, SchemaCheck] = {}


def _validator(schema: dict) -> SchemaCheck:
    key = json.dumps(schema, sort_keys=True)
    if key not in _CHECKS:
        _CHECKS[key] = SchemaCheck(schema)
    return _CHECKS[key]


def validate_schema(instance, name: str) -> None:
    """Validate ``instance`` against ``components/schemas/<name>``."""
    _validator({"$ref": f"#/components/schemas/{name}"}).validate(instance)


JSON_LINES = "application/x-ndjson"
EVENT_UNIONS = {"scharfe-schoten": "ScharfeSchotenEvent", "schafkopf": "SchafkopfEvent",
                "scharwenzel": "ScharwenzelEvent"}


def read_json_lines(text: str) -> list[dict]:
    """An export's lines as JSON objects (every line one object, none blank but a last newline)."""
    assert text.endswith("\n"), "a JSON Lines body ends each line with a newline"
    lines = text[:-1].split("\n")
    assert all(lines), "a JSON Lines body has no blank lines"
    records = [json.loads(line) for line in lines]
    assert all(isinstance(record, dict) for record in records)
    return records


def validate_export(text: str) -> list[dict]:
    """An export as the spec describes it: an ``ExportHeader``, then ``events`` lines, each an
    ``Event`` of the header's game (its game's union, so the discriminated event schemas apply)."""
    records = read_json_lines(text)
    header, events = records[0], records[1:]
    validate_schema(header, "ExportHeader")
    assert header["events"] == len(events) and [e["seq"] for e in events] == list(range(1, len(events) + 1))
    union = _validator({"$ref": f"#/components/schemas/{EVENT_UNIONS[header['game']]}"})
    envelope = _validator({"$ref": "#/components/schemas/Event"})
    for event in events:
        union.validate(event)
        envelope.validate(event)
    assert header["head"] == events[-1]["hash"]
    assert ("scores" in header) is header["complete"] is (header["status"] == "finished")
    return records


def validate_response(response, path: str, method: str):
    """The status is documented for the operation, and so are the media type and body.
    JSON Lines (an export) is read line by line, each line validated against its schema;
    returns the body as read (JSON, the export's records, or text)."""
    operation = JSON_SPEC["paths"][path][method]
    documented = operation["responses"]
    assert str(response.status_code) in documented, (
        f"{method.upper()} {path} answered {response.status_code}, documented: {sorted(documented)}")
    spec_response = _resolve(documented[str(response.status_code)])
    content = spec_response.get("content", {})
    assert response.mimetype in content, f"{response.mimetype} not documented for {response.status_code}"
    for header, declared in spec_response.get("headers", {}).items():
        # A header the contract marks `required: false` may be absent: the rate-limit fields when no limit applied.
        if _resolve(declared).get("required") is not False:
            assert header in response.headers, f"{header} missing on {response.status_code}"
    schema = content[response.mimetype].get("schema")
    if response.mimetype == JSON_LINES:
        text = response.get_data(as_text=True)
        _validator(schema).validate(text)  # the body as a whole: a string
        return validate_export(text)
    if response.mimetype.endswith("json"):
        _validator(schema).validate(response.get_json())
        return response.get_json()
    if response.mimetype.startswith("text/") and (schema or {}).get("type") == "string":  # e.g. Markdown
        text = response.get_data(as_text=True)
        _validator(schema).validate(text)
        return text
    return None


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



def game_named(games: dict, name: str) -> tuple[str, dict[int, str]]:
    return next((gid, g["tokens"]) for gid, g in games.items() if g["name"] == name)
