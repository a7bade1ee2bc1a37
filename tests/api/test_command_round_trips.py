"""A command costs one Redis round trip in the common case (issue 24): its write rate-limit counts
go in the append's own script, and every write still counts exactly once."""
from __future__ import annotations

import secrets

import pytest
from redis.connection import AbstractConnection

from api import create_app
from api.ratelimit import Limits

from .play import auth, new_game


@pytest.fixture(scope="module")
def limited(redis_url):
    app = create_app(redis_url, bots="inline", limits=Limits(per_token=50, per_address=50, window_s=3600))
    return app


def an_address() -> dict:
    return {"REMOTE_ADDR": "127.8.%d.%d" % (secrets.randbelow(250), secrets.randbelow(250))}


@pytest.fixture
def round_trips(monkeypatch):
    """Counts what is sent to Redis: one packed send per round trip (a pipeline is one too)."""
    sent = []
    original = AbstractConnection.send_packed_command

    def counting(self, command, check_health=True):
        sent.append(command)
        return original(self, command, check_health)

    monkeypatch.setattr(AbstractConnection, "send_packed_command", counting)
    return sent


def legal_move(client, game_id, tokens):
    for seat, token in tokens.items():
        legal = client.get(f"/v1/games/{game_id}/view", headers=auth(token)).get_json()["legal"]
        if legal:
            return seat, legal[0]
    raise AssertionError("nobody can move")


def test_a_rate_limited_command_is_one_round_trip_and_counts_once(limited, round_trips):
    client = limited.test_client()
    env = an_address()
    game_id, tokens = new_game(client, game="scharfe-schoten", players=3, humans=(0, 1, 2))
    seat, command = legal_move(client, game_id, tokens)
    round_trips.clear()
    answer = client.post(f"/v1/games/{game_id}/commands", json=command, headers=auth(tokens[seat]),
                         environ_base=env)
    assert answer.status_code == 200, answer.get_json()
    assert len(round_trips) == 1  # the append script, which counted the write too
    store = limited.extensions["stich"].store.redis
    counters = [k for k in store.keys("stich:rl:a:" + env["REMOTE_ADDR"] + ":*")]
    assert [int(store.get(k)) for k in counters] == [1]  # counted once, not by both paths

    # Refused before any append (a rule violation): counted on its own, still once.
    refused = client.post(f"/v1/games/{game_id}/commands", json=command, headers=auth(tokens[seat]),
                          environ_base=env)
    assert refused.status_code in (409, 412, 422), refused.get_json()
    assert [int(store.get(k)) for k in counters] == [2]


def test_past_the_limit_the_append_appends_nothing(app, redis_url):
    game_id, tokens = new_game(app.test_client(), game="scharfe-schoten", players=3, humans=(0, 1, 2))  # no limits
    client = create_app(redis_url, bots="inline",
                        limits=Limits(per_token=None, per_address=1, window_s=3600)).test_client()
    env = an_address()
    seat, command = legal_move(client, game_id, tokens)
    first = client.post(f"/v1/games/{game_id}/commands", json=command, headers=auth(tokens[seat]), environ_base=env)
    assert first.status_code == 200, first.get_json()
    seq = client.get(f"/v1/games/{game_id}").get_json()["seq"]
    seat, command = legal_move(client, game_id, tokens)  # a command the rules take: only the limit refuses it
    refused = client.post(f"/v1/games/{game_id}/commands", json=command, headers=auth(tokens[seat]),
                          environ_base=env)
    assert refused.status_code == 429 and refused.get_json()["code"] == "rate_limited"
    assert refused.headers["Retry-After"]
    assert client.get(f"/v1/games/{game_id}").get_json()["seq"] == seq  # nothing appended
