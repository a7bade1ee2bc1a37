"""Write rate limits: 429 with Retry-After and a problem body, per token and per address, and the
RateLimit-Policy and RateLimit fields that announce them."""
from __future__ import annotations

import re

import pytest

from api import create_app
from api.quotas import Quotas
from api.ratelimit import Limits

from .contract.spec import validate_response
from .play import auth
from ..addresses import fresh_address


@pytest.fixture
def limited(redis_url):
    # A fresh prefix-free app; distinct addresses keep tests independent on a shared server.
    app = create_app(redis_url, bots="inline", limits=Limits(per_token=5, per_address=8, window_s=3600))  # an hour: no window edge mid-test
    return app.test_client()


def address():
    return {"REMOTE_ADDR": fresh_address()}


def test_per_address_limit_on_writes(limited):
    env = address()
    statuses = [limited.post("/v1/games", json={"game": "scharfe-schoten", "players": 3},
                             environ_base=env).status_code for _ in range(10)]
    assert statuses[:8] == [201] * 8 and statuses[8:] == [429, 429]
    response = limited.post("/v1/games", json={"game": "scharfe-schoten", "players": 3}, environ_base=env)
    assert response.mimetype == "application/problem+json"
    assert response.get_json()["code"] == "rate_limited"
    assert 1 <= int(response.headers["Retry-After"]) <= 3600
    # Reads are not limited, and another address is not affected.
    assert limited.get("/v1/games?limit=1", environ_base=env).status_code == 200
    assert limited.post("/v1/games", json={"game": "scharfe-schoten", "players": 3},
                        environ_base=address()).status_code == 201


def test_per_token_limit_on_commands_appends_nothing_past_it(limited):
    game_id = limited.post("/v1/games", json={"game": "scharfe-schoten", "players": 3}, environ_base=address()).get_json()["id"]
    tokens = [limited.post(f"/v1/games/{game_id}/seats/{s}", environ_base=address()).get_json()["token"] for s in range(3)]
    statuses = []
    for _ in range(7):  # a fresh address each time: only the token limit can bite
        response = limited.post(f"/v1/games/{game_id}/commands", json={"type": "predict", "most": "R", "fewest": "R"},
                                headers=auth(tokens[0]), environ_base=address())
        statuses.append(response.status_code)
    assert statuses[:5] == [409] * 5 and statuses[5:] == [429, 429]
    # Another seat's token has its own budget.
    ok = limited.post(f"/v1/games/{game_id}/commands", json={"type": "predict", "most": "R", "fewest": "G"},
                      headers=auth(tokens[1]), environ_base=address())
    assert ok.status_code == 200


def test_limits_are_off_by_default_in_create_app(client):
    env = address()
    assert all(client.post("/v1/games", json={"game": "scharfe-schoten", "players": 3},
                           environ_base=env).status_code == 201 for _ in range(30))


# One member of a structured-field List: a quoted policy name and its integer parameters (RFC 9651).
MEMBER = re.compile(r'"([a-z-]+)"((?:;[a-z]+=[0-9]+)+)')


def members(field: str) -> dict[str, dict[str, int]]:
    """A RateLimit or RateLimit-Policy field as {policy: {parameter: value}}, refusing any other syntax."""
    out = {}
    for member in field.split(", "):
        match = MEMBER.fullmatch(member)
        assert match, f"not a structured-field member: {member!r}"
        out[match.group(1)] = {k: int(v) for k, v in (p.split("=") for p in match.group(2)[1:].split(";"))}
    return out


def test_every_write_says_where_it_stands_before_any_429(limited):
    """draft-ietf-httpapi-ratelimit-headers: each answer names the limits with their quota and window, and
    what is left of each; the 429 after the last one still carries Retry-After, and its r is 0."""
    env = address()
    seen = []
    for _ in range(9):
        response = limited.post("/v1/games", json={"game": "scharfe-schoten", "players": 3}, environ_base=env)
        assert members(response.headers["RateLimit-Policy"]) == {"writes-per-address": {"q": 8, "w": 3600}}
        [(name, standing)] = members(response.headers["RateLimit"]).items()
        assert name == "writes-per-address" and 1 <= standing["t"] <= 3600
        seen.append((response.status_code, standing["r"]))
    assert seen == [(201, 7 - n) for n in range(8)] + [(429, 0)]
    assert 1 <= int(response.headers["Retry-After"]) <= 3600
    validate_response(response, "/v1/games", "post")


def test_a_command_names_both_its_limits(limited):
    game_id = limited.post("/v1/games", json={"game": "scharfe-schoten", "players": 3},
                           environ_base=address()).get_json()["id"]
    token = limited.post(f"/v1/games/{game_id}/seats/0", environ_base=address()).get_json()["token"]
    for seat in (1, 2):
        limited.post(f"/v1/games/{game_id}/seats/{seat}", environ_base=address())
    view = limited.get(f"/v1/games/{game_id}/view", headers=auth(token)).get_json()
    response = limited.post(f"/v1/games/{game_id}/commands", json=view["legal"][0], headers=auth(token),
                            environ_base=address())
    assert response.status_code == 200
    assert members(response.headers["RateLimit-Policy"]) == {"writes-per-address": {"q": 8, "w": 3600},
                                                             "writes-per-token": {"q": 5, "w": 3600}}
    standing = members(response.headers["RateLimit"])
    assert standing["writes-per-address"]["r"] == 7 and standing["writes-per-token"]["r"] == 4
    validate_response(response, "/v1/games/{id}/commands", "post")


def test_reads_and_unlimited_servers_carry_no_rate_limit_fields(limited, client):
    assert "RateLimit" not in limited.get("/v1/games?limit=1", environ_base=address()).headers
    created = client.post("/v1/games", json={"game": "scharfe-schoten", "players": 3}, environ_base=address())
    assert created.status_code == 201 and "RateLimit-Policy" not in created.headers


def test_the_creation_quota_is_a_policy_of_its_own(redis_url):
    client = create_app(redis_url, bots="inline", quotas=Quotas(creates=2, create_window_s=3600)).test_client()
    env = address()
    answers = [client.post("/v1/games", json={"game": "scharfe-schoten", "players": 3}, environ_base=env)
               for _ in range(3)]
    assert [a.status_code for a in answers] == [201, 201, 429]
    assert members(answers[0].headers["RateLimit-Policy"]) == {"games-per-address": {"q": 2, "w": 3600}}
    assert [members(a.headers["RateLimit"])["games-per-address"]["r"] for a in answers] == [1, 0, 0]
    assert answers[2].get_json()["code"] == "create_quota" and "Retry-After" in answers[2].headers
