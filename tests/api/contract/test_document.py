"""1. The spec is a valid OpenAPI 3.0 document. 2. Every Flask route is in the spec with the same methods, and back."""
from __future__ import annotations

import re

from .spec import METHODS, OPERATIONS, SPEC, _resolve, to_json_schema

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
        # Every route refuses an unknown or repeated query parameter (api/http.py, refuse_unknown_query)
        assert "422" in operation["responses"], (path, method)
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
        in_app.setdefault(_flask_to_openapi(rule.rule), set()).update(m for m in rule.methods if m not in implicit)
    in_spec = {path: {m.upper() for m in item if m in METHODS} for path, item in SPEC["paths"].items()}
    assert in_app == in_spec


