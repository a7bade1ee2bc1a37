"""Write rate limits: 429 with Retry-After and a problem body, per token and per address."""
from __future__ import annotations

import secrets

import pytest

from api import create_app
from api.ratelimit import Limits

from .play import auth


@pytest.fixture
def limited(redis_url):
    # A fresh prefix-free app; distinct addresses keep tests independent on a shared server.
    app = create_app(redis_url, bots="inline", limits=Limits(per_token=5, per_address=8, window_s=3600))  # an hour: no window edge mid-test
    return app.test_client()


def address():
    return {"REMOTE_ADDR": "127.9.%d.%d" % (secrets.randbelow(250), secrets.randbelow(250))}


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
