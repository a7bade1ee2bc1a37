"""3. Schemathesis fuzzes every operation against the WSGI app (real Redis), positive and negative data,
with path ids drawn from seeded games and seat tokens mixed into the Authorization header: no 5xx,
every status documented, content types, bodies and headers as documented."""
from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .spec import FUZZ_CASES, FUZZ_RANDOM, MAX_BLOCK_S, OPERATIONS, SPEC, WEIGHTS

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
    if MAX_BLOCK_S < value <= 86400:
        query[name] = MAX_BLOCK_S


CASE_COUNTS: dict[str, int] = {}
AUTH_CHOICES = ("none", "token", "token", "other-seat", "bogus", "malformed", "generated")


@pytest.mark.parametrize("mode", ["positive", "negative"])
@pytest.mark.parametrize("path,method", OPERATIONS, ids=[f"{m.upper()} {p}" for p, m in OPERATIONS])
def test_schemathesis(fuzz_schema, games, client, path, method, mode):
    from schemathesis import GenerationMode
    from schemathesis.checks import (
        content_type_conformance,
        negative_data_rejection,
        not_a_server_error,
        response_headers_conformance,
        response_schema_conformance,
        status_code_conformance,
    )

    checks = [not_a_server_error, status_code_conformance, content_type_conformance,
              response_schema_conformance, response_headers_conformance]
    if mode == "negative":  # and the other direction: what the spec calls invalid, the server rejects
        checks.append(negative_data_rejection)
    item = SPEC["paths"][path]
    # Any bytes are an `application/octet-stream` body (an uploaded export): there is no invalid one to make.
    body = set(item[method].get("requestBody", {}).get("content", {})) - {"application/octet-stream"}
    if mode == "negative" and not (item.get("parameters") or item[method].get("parameters") or body):
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


