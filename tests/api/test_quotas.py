"""Quotas per address (creation rate, unfinished games, open streams) and the operator key that is
exempt from them. Each test speaks from an address of its own, so the shared Redis is no issue."""
from __future__ import annotations

import secrets

import pytest

from api import create_app
from api.quotas import Quotas
from api.ratelimit import Limits

from .play import auth, play_to_end

HUMAN_GAME = {"game": "scharfe-schoten", "players": 3, "rules": {"rounds": 1},
              "seats": [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}]}
BOT_GAME = {"game": "scharfe-schoten", "players": 3, "rules": {"rounds": 1}, "seats": [{"kind": "bot"}] * 3}


@pytest.fixture
def address():
    return f"10.{secrets.randbelow(250)}.{secrets.randbelow(250)}.{secrets.randbelow(250) + 1}"


def client_for(redis_url, address, limits=None, **quotas):
    client = create_app(redis_url, bots="inline", quotas=Quotas(**quotas), limits=limits).test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def test_creating_more_games_than_the_rate_allows_is_429_per_address(redis_url, address):
    client = client_for(redis_url, address, creates=3, create_window_s=3600)
    assert [client.post("/v1/games", json=HUMAN_GAME).status_code for _ in range(3)] == [201] * 3
    refused = client.post("/v1/games", json=HUMAN_GAME)
    assert refused.status_code == 429 and refused.mimetype == "application/problem+json"
    assert refused.get_json()["code"] == "create_quota" and int(refused.headers["Retry-After"]) >= 1
    other = client_for(redis_url, address + "0", creates=3, create_window_s=3600)
    assert other.post("/v1/games", json=HUMAN_GAME).status_code == 201


def test_unfinished_games_per_address_are_capped_until_one_finishes(redis_url, address):
    client = client_for(redis_url, address, active=2)
    bots_only = client.post("/v1/games", json=BOT_GAME).get_json()["id"]  # played to the end at once
    assert client.get(f"/v1/games/{bots_only}").get_json()["status"] == "finished"
    first = client.post("/v1/games", json=HUMAN_GAME).get_json()["id"]
    assert client.post("/v1/games", json=HUMAN_GAME).status_code == 201
    refused = client.post("/v1/games", json=HUMAN_GAME)
    assert refused.status_code == 429 and refused.get_json()["code"] == "active_games_quota"
    assert refused.headers["Retry-After"] == "60"
    token = client.post(f"/v1/games/{first}/seats/0").get_json()["token"]
    play_to_end(client, first, {0: token})
    assert client.post("/v1/games", json=HUMAN_GAME).status_code == 201


def test_a_running_tournament_is_an_active_creation_of_its_address(redis_url, address):
    """A tournament opens many games, so it counts like one unfinished game of its address: an
    anonymous client cannot keep more tournaments going than its active quota."""
    client = client_for(redis_url, address, active=1)
    body = {"game": "scharfe-schoten", "players": 3, "deals_per_table": 1,
            "participants": [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}]}
    created = client.post("/v1/tournaments", json=body)
    assert created.status_code == 201
    for refused in (client.post("/v1/tournaments", json=body), client.post("/v1/games", json=HUMAN_GAME)):
        assert refused.status_code == 429 and refused.get_json()["code"] == "active_games_quota"
    # A bot tournament plays to the end at once (inline bots): it no longer counts
    other = client_for(redis_url, address + "0", active=1)
    finished = other.post("/v1/tournaments", json={**body, "participants": [{"kind": "bot"}] * 3}).get_json()
    started = other.post(f"/v1/tournaments/{finished['id']}/start", headers=auth(finished["token"]))
    assert started.status_code == 200
    assert other.get(f"/v1/tournaments/{finished['id']}").get_json()["status"] == "finished"
    assert other.post("/v1/tournaments", json=body).status_code == 201


def test_with_operator_keys_creating_needs_one_and_a_key_is_exempt(redis_url, address):
    client = client_for(redis_url, address, creates=1, active=1, api_keys=frozenset({"op-key-1", "op-key-2"}),
                        limits=Limits(per_address=2, window_s=3600))
    missing = client.post("/v1/games", json=HUMAN_GAME)
    assert missing.status_code == 401 and missing.get_json()["code"] == "missing_api_key"
    wrong = client.post("/v1/games", json=HUMAN_GAME, headers={"X-API-Key": "op-key-3"})
    assert wrong.status_code == 403 and wrong.get_json()["code"] == "invalid_api_key"
    created = [client.post("/v1/games", json=HUMAN_GAME, headers={"X-API-Key": "op-key-2"}) for _ in range(4)]
    assert [c.status_code for c in created] == [201] * 4  # past creates, active and the address's write limit
    game_id = created[0].get_json()["id"]
    assert client.post(f"/v1/games/{game_id}/seats/0").status_code == 201  # seats need no key


def test_open_streams_and_long_polls_per_address_are_capped(redis_url, address):
    client = client_for(redis_url, address, streams=2)
    game_id = client.post("/v1/games", json=HUMAN_GAME).get_json()["id"]
    token = client.post(f"/v1/games/{game_id}/seats/0").get_json()["token"]
    held = [client.get(f"/v1/games/{game_id}/events/stream?timeout=30", buffered=False) for _ in range(2)]
    assert [h.status_code for h in held] == [200, 200]
    refused = client.get(f"/v1/games/{game_id}/events/stream?timeout=30", buffered=False)
    assert refused.status_code == 429 and refused.get_json()["code"] == "stream_quota"
    seq = client.get(f"/v1/games/{game_id}").get_json()["seq"]
    poll = client.get(f"/v1/games/{game_id}/events?after={seq}&wait=1", headers=auth(token))
    assert poll.status_code == 429 and poll.get_json()["code"] == "stream_quota"
    assert client.get(f"/v1/games/{game_id}/events?after=0").status_code == 200  # no wait: no slot needed
    held[0].close()  # a closed stream gives its slot back
    assert client.get(f"/v1/games/{game_id}/events?after={seq}&wait=0.1").status_code == 200
    reopened = client.get(f"/v1/games/{game_id}/events/stream?timeout=30", buffered=False)
    assert reopened.status_code == 200
    for response in (held[1], reopened):
        response.close()
    keeper = client.application.extensions["stich.quotas"]
    assert keeper._open == {}  # every slot given back
